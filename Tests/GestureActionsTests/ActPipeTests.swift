import Foundation
import GestureActions
import GestureCore
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `pipe` bindings end to end: act against `serve --replay`, the program a
/// shell that notes each start and keeps what it reads.
@Suite("act's pipe programs")
struct ActPipeTests {
    typealias Scratch = ActTests.Scratch

    static func parse(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The phases of the first drag the daemon makes of the recording.
    static func referenceDrag() throws -> [String] {
        let out = try runGestured(["replay", DaemonProcess.recording("slow-drag-right.tablet.evemu")]).out
        let events = parse(out.split(separator: "\n").map(String.init)).filter { $0["gesture"] as? String == "drag" }
        return events.compactMap { $0["phase"] as? String }
    }

    @Test("a pipe binding is read, and asks the daemon for changed events; a pipe needs a program")
    func reading() throws {
        let b = try BindingsReader.read("[[bind]]\ngesture = \"drag\"\npipe = [\"my-panel\", \"-f\"]\n", file: "a.toml")
        #expect(b[0].pipe == ["my-panel", "-f"])
        #expect(b[0].summary.hasSuffix("→ pipe my-panel -f"), "\(b[0].summary)")
        #expect(!Subscription.line(for: b).contains(#""phases""#), "\(Subscription.line(for: b))")
        #expect {
            _ = try BindingsReader.read("[[bind]]\ngesture = \"drag\"\npipe = []\n", file: "a.toml")
        } throws: { error in
            "\(error)".contains("a.toml:3: pipe")
        }
    }

    @Test("a pipe program is started once for all the drags and gets one line per event of each, every changed one")
    func startedOnce() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "drag"
        pipe = ["sh", "-c", "echo start >> \(s.path)/starts; exec cat >> \(s.path)/lines"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        _ = try s.act()
        _ = try s.serve("slow-drag-right.tablet.evemu", loop: true)
        let reference = try Self.referenceDrag()
        #expect(reference.first == "began" && reference.last == "ended" && reference.count > 10, "\(reference)")
        for _ in 0..<Int(600 * Timing.scale) where s.lines("lines").filter({ $0.contains(#""phase":"ended""#) }).count < 3 {
            usleep(50_000)
        }
        let events = Self.parse(s.lines("lines"))
        let ends = events.indices.filter { events[$0]["phase"] as? String == "ended" }
        #expect(ends.count >= 3, "\(events.count) lines; act: \(s.actLog)")
        guard ends.count >= 2 else { return }
        // The second drag whole: each event the daemon made, once, in order.
        let second = events[(ends[0] + 1)...ends[1]]
        #expect(second.map { $0["phase"] as? String ?? "?" } == reference, "\(second.count) of \(reference.count)")
        #expect(second.allSatisfy { $0["gesture"] as? String == "drag" && $0["type"] as? String == "gesture" })
        #expect(s.lines("starts") == ["start"], "\(s.actLog)")
    }

    @Test(
        "track: read with the binding's direction as the way it grows, sent to the daemon with its fingers; each mistake named"
    )
    func trackReading() throws {
        let b = try BindingsReader.read(
            """
            [[bind]]
            gesture = "drag"
            fingers = 3
            direction = "left"
            track = { axis = "x", distance-mm = 80, commit = 0.4 }
            pipe = ["my-panel"]

            [[bind]]
            gesture = "pinch"
            track = { axis = "scale" }
            pipe = ["my-zoom"]
            """, file: "a.toml")
        #expect(b[0].track == Track(toward: .left, distance: 80, commit: 0.4) && b[1].track == Track(toward: .open, distance: 2))
        #expect(b[0].summary.contains("tracked left over 80.0 mm"), "\(b[0].summary)")
        let line = Subscription.line(for: b)
        #expect(
            line.contains(
                #""track":[{"toward":"left","distance":80.0,"commit":0.4,"fingers":[3]},{"toward":"open","distance":2.0,"commit":0.5}]"#
            ), "\(line)")
        for (track, says) in [
            (#"{ axis = "z" }"#, #"a.toml:3: track.axis must be "x", "y""#),
            (#"{ axis = "scale" }"#, #"a.toml:3: a drag does not move along track.axis = "scale"; that axis tracks a pinch"#),
            (#"{ axis = "x", degrees = 90 }"#, "a.toml:3: track.degrees is not for axis \"x\"; give track.distance-mm"),
            (#"{ axis = "x", distance-mm = 2 }"#, "a.toml:3: a drag's track distance is 5 to 1000 mm"),
            (#"{ axis = "y", commit = 1 }"#, "a.toml:3: commit is the progress a slow lift must reach"),
            (#"{ axis = "y", distanse-mm = 60 }"#, "a.toml:3: unknown key 'distanse-mm' in track"),
            (#""x""#, "a.toml:3: track must be a table"),
        ] {
            #expect {
                _ = try BindingsReader.read("[[bind]]\ngesture = \"drag\"\ntrack = \(track)\npipe = [\"p\"]\n", file: "a.toml")
            } throws: { error in
                "\(error)".contains(says)
            }
        }
        // One track per gesture: two bindings that would read the same drags differently are named.
        #expect {
            _ = try BindingsReader.read(
                """
                [[bind]]
                gesture = "drag"
                track = { axis = "x" }
                pipe = ["a"]

                [[bind]]
                gesture = "drag"
                fingers = [1, 2]
                track = { axis = "y" }
                pipe = ["b"]
                """, file: "a.toml")
        } throws: { error in
            "\(error)".contains("a.toml:9: track: this binding and a.toml:1 track the same drags differently")
        }
        // Without a track, a drag's direction could never match: it is named.
        #expect {
            _ = try BindingsReader.read(
                "[[bind]]\ngesture = \"drag\"\ndirection = \"left\"\nrun = [\"x\"]\n", file: "a.toml")
        } throws: { error in
            "\(error)".contains("a.toml:3: a drag has no direction (its events carry dx_mm and dy_mm)")
        }
    }

    @Test("a tracked drag reaches the pipe program with its progress on every line and, at its end, whether it completed")
    func tracked() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        // The drag travels 39.94 mm right and stops before it lifts: 0.45 of 88.75 mm, short of commit.
        try """
        [[bind]]
        gesture = "drag"
        track = { axis = "x", distance-mm = 88.75 }
        pipe = ["sh", "-c", "exec cat >> \(s.path)/lines"]

        [[bind]]
        gesture = "drag"
        phase = "ended"
        track = { axis = "x", distance-mm = 88.75 }
        run = ["sh", "-c", "echo $GESTURED_PROGRESS $GESTURED_COMPLETED >> \(s.path)/ends"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        _ = try s.act()
        _ = try s.serve("slow-drag-right.tablet.evemu", loop: true)
        for _ in 0..<Int(600 * Timing.scale) where s.lines("ends").isEmpty { usleep(50_000) }
        let events = Self.parse(s.lines("lines"))
        let end = try #require(events.firstIndex { $0["phase"] as? String == "ended" }, "act: \(s.actLog)")
        let first = events[...end]
        #expect(first.allSatisfy { $0["progress"] is Double } && first.last?["progress"] as? Double == 0.45)
        #expect(first.last?["completed"] as? Bool == false && first.dropLast().allSatisfy { $0["completed"] == nil })
        #expect(s.lines("ends").first == "0.45 false", "\(s.lines("ends")); act: \(s.actLog)")
    }

    @Test(
        "examples/follow: the panel program, fed by act through its binding (follow.toml's, its path and edge aside), follows the drag's progress up and settles where the end says"
    )
    func followExample() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        let example = BuildProducts.packageRoot + "/examples/follow"
        let binding = try String(contentsOfFile: example + "/follow.toml", encoding: .utf8)
        #expect(binding.contains(#"pipe = ["python3", "/usr/share/doc/gestured/examples/follow-panel.py"]"#))
        // The recording's drag starts mid-panel: the same binding without its edge, the program in text mode.
        try binding.replacingOccurrences(of: "edge = \"left\"\n", with: "")
            .replacingOccurrences(
                of: #"pipe = ["python3", "/usr/share/doc/gestured/examples/follow-panel.py"]"#,
                with: #"pipe = ["sh", "-c", "exec python3 \#(example)/follow-panel.py --text >> \#(s.path)/panel"]"#
            )
            .write(toFile: s.actions, atomically: true, encoding: .utf8)
        _ = try s.act()
        _ = try s.serve("slow-drag-right.tablet.evemu", loop: true)
        for _ in 0..<Int(600 * Timing.scale)
        where !s.lines("panel").contains(where: { $0.hasPrefix("panel o") || $0 == "panel closed" }) {
            usleep(50_000)
        }
        let lines = s.lines("panel")
        let end = try #require(
            lines.firstIndex { !$0.hasPrefix("panel 0") && !$0.hasPrefix("panel 1") }, "\(lines); act: \(s.actLog)")
        let progress = lines[..<end].compactMap { Double($0.dropFirst("panel ".count)) }
        #expect(progress.count == end && progress.count > 10, "\(lines)")
        #expect(progress.last.map { $0 > 0.6 } == true && progress.first.map { $0 < 0.1 } == true, "\(progress)")
        // The drag goes 39.94 mm of 60 and stops before it lifts: past commit, it opens.
        #expect(lines[end] == "panel open", "\(lines)")
    }

    @Test(
        "the daemon killed in the middle of a tracked drag: the pipe program that got its start gets a cancelled end from act, not completed, saying why"
    )
    func daemonLostMidGesture() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "drag"
        track = { axis = "x", distance-mm = 60 }
        pipe = ["sh", "-c", "exec cat >> \(s.path)/lines"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        // The drag's first half with the finger never lifted: it cannot end
        // before the kill however slowly the machine runs.
        let (lines, reports) = try DaemonProcess.evemuLines(DaemonProcess.recording("slow-drag-right.tablet.evemu"))
        let held = s.path + "/held-drag.evemu"
        let half = lines[...reports[reports.count / 2]].joined(separator: "\n") + "\n"
        try half.write(toFile: held, atomically: true, encoding: .utf8)
        _ = try s.act()
        let daemon = try s.serve(held)
        for _ in 0..<Int(600 * Timing.scale) where !s.lines("lines").contains(where: { $0.contains(#""phase":"changed""#) }) {
            usleep(10_000)
        }
        daemon.signal(SIGKILL)
        for _ in 0..<Int(600 * Timing.scale) where !s.lines("lines").contains(where: { $0.contains(#""phase":"cancelled""#) }) {
            usleep(10_000)
        }
        let events = Self.parse(s.lines("lines"))
        let end = try #require(events.last, "act: \(s.actLog)")
        #expect(events.first?["phase"] as? String == "began", "\(events.first ?? [:])")
        #expect(!events.contains { $0["phase"] as? String == "ended" }, "the held drag ended")
        #expect(end["phase"] as? String == "cancelled" && end["completed"] as? Bool == false, "\(end)")
        #expect(end["reason"] as? String == "act lost the daemon" && end["id"] as? Int == events.first?["id"] as? Int)
        #expect(end["gesture"] as? String == "drag" && end["fingers"] as? Int == 1, "\(end)")
    }

    @Test("a drag tracked the other way (direction = \"left\") reaches its program whole, never moved and never completed")
    func trackedBack() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "drag"
        direction = "left"
        track = { axis = "x", distance-mm = 88.75 }
        pipe = ["sh", "-c", "exec cat >> \(s.path)/lines"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        _ = try s.act()
        _ = try s.serve("slow-drag-right.tablet.evemu", loop: true)
        for _ in 0..<Int(600 * Timing.scale) where !s.lines("lines").contains(where: { $0.contains(#""phase":"ended""#) }) {
            usleep(50_000)
        }
        let events = Self.parse(s.lines("lines"))
        let end = try #require(events.firstIndex { $0["phase"] as? String == "ended" }, "act: \(s.actLog)")
        #expect(events[...end].map { $0["phase"] as? String ?? "?" } == (try Self.referenceDrag()))
        #expect(events[...end].allSatisfy { $0["progress"] as? Double == 0 } && events[end]["completed"] as? Bool == false)
    }

    @Test("a pipe binding's direction holds back none of a pinch's lines before the end that carries it")
    func pinchDirection() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "pinch"
        direction = "close"
        pipe = ["sh", "-c", "exec cat >> \(s.path)/lines"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        _ = try s.act()
        _ = try s.serve("pinch-open-2f.kiosk.evemu", loop: true)
        for _ in 0..<Int(600 * Timing.scale) where !s.lines("lines").contains(where: { $0.contains(#""phase":"ended""#) }) {
            usleep(50_000)
        }
        let phases = Self.parse(s.lines("lines")).compactMap { $0["phase"] as? String }
        let end = try #require(phases.firstIndex(of: "ended"), "act: \(s.actLog)")
        #expect(phases.first == "began" && phases[..<end].contains("changed"), "\(phases)")
    }

    @Test(
        "a pipe program that does not read holds up nothing: the other bindings act on time, and it loses only changed lines"
    )
    func slowReader() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        // Its pipe shrunk to a page (F_SETPIPE_SZ) where it can be (the
        // kernel refuses once more than a page waits in it, as when the
        // program starts late on a busy machine), then 15 seconds of not
        // reading: more than a full-size pipe (64 KiB) holds of the looped
        // drag, about 15 KB a drag of 1.2 s.
        let shrink = "python3 -c 'import fcntl; fcntl.fcntl(0, 1031, 4096)' 2>/dev/null"
        try """
        [[bind]]
        gesture = "drag"
        pipe = ["sh", "-c", "\(shrink); sleep 15; exec cat >> \(s.path)/lines"]

        [[bind]]
        gesture = "drag"
        on-ended = ["sh", "-c", "echo ended >> \(s.path)/ended"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        let start = Date()
        _ = try s.act()
        _ = try s.serve("slow-drag-right.tablet.evemu", loop: true)
        let first = s.waitFor("ended", count: 1)
        let firstEnded = Date().timeIntervalSince(start)
        #expect(first == ["ended"], "\(s.actLog)")
        #expect(s.lines("lines").isEmpty, "the program read before its sleep ended: the test shows nothing")
        print("pipe: the first drag's on-ended ran \(firstEnded) s after act started, while the pipe program slept")
        // Once it reads: every drag's began and end, and fewer changed lines than the daemon made.
        let deadline = Date().addingTimeInterval(40 * Timing.scale)
        while Date() < deadline && s.lines("lines").count(where: { $0.contains(#""phase":"ended""#) }) < 3 {
            usleep(50_000)
        }
        usleep(500_000)
        let events = Self.parse(s.lines("lines"))
        let phases = events.map { $0["phase"] as? String ?? "?" }
        let began = phases.count { $0 == "began" }
        let ended = phases.count { $0 == "ended" }
        let changed = phases.count { $0 == "changed" }
        let reference = try Self.referenceDrag()
        #expect(began >= 3 && ended >= began - 1 && ended <= began, "\(began) began, \(ended) ended")
        #expect(changed < ended * (reference.count - 2), "\(changed) changed lines for \(ended) drags")
        #expect(s.actLog.contains("reads slower than the events come"), "\(s.actLog)")
        // Each gesture's lines in order: began first, its end last.
        var open: Set<Int> = []
        for e in events {
            guard let id = e["id"] as? Int, let phase = e["phase"] as? String else { continue }
            if phase == "began" {
                #expect(open.insert(id).inserted)
            } else {
                #expect(open.contains(id), "\(phase) of \(id) without its began")
                if phase == "ended" { open.remove(id) }
            }
        }
    }

    @Test("a pipe program that ends is started again, at most five times a minute, and the log says why")
    func restarts() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "drag"
        pipe = ["sh", "-c", "echo start >> \(s.path)/starts; head -n 1 >> \(s.path)/lines"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        _ = try s.act()
        _ = try s.serve("slow-drag-right.tablet.evemu", loop: true)
        for _ in 0..<Int(600 * Timing.scale) where !s.actLog.contains("not started again") { usleep(50_000) }
        // It ends after its line, or act finds its input closed first.
        #expect(
            s.actLog.contains("exited with status 0; starting it again")
                || s.actLog.contains("stopped: it closed its standard input; starting it again"), "\(s.actLog)")
        #expect(
            s.actLog.contains("it started 5 times in a minute: not started again until the actions files are read again"),
            "\(s.actLog)")
        usleep(2_000_000)
        #expect(s.lines("starts").count == 5, "\(s.lines("starts"))")
        #expect(Self.parse(s.lines("lines")).count == 5)
    }
}
