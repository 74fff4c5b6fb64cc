import Foundation
import Harness
import Testing

/// What the command line does when something is off, or several things are
/// asked at once: each message names what was wrong and what to do.
@Suite("The command line when something is off")
struct CommandLineTests {
    let scratch: String

    init() throws {
        scratch = NSTemporaryDirectory() + "gestured-cli-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    /// A folder of root's in the scratch folder, 0755, where a daemon run
    /// as root (or as another user) may be given a socket: the daemon
    /// refuses a folder of anyone else's, so a test run as yourself must
    /// not hand it one of yours.
    func rootsFolder() throws -> String {
        chmod(scratch, 0o755)
        let folder = scratch + "/roots"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
        let owned = try Child.run(Requirement.asRoot(["/bin/chown", "0:0", folder]), timeout: 20)
        #expect(owned.status == 0, "\(owned.err)")
        return folder
    }

    /// Removes it (as root: what a root daemon left in it is root's) and the scratch folder.
    func removeRootsFolder(_ folder: String) {
        _ = try? Child.run(Requirement.asRoot(["/bin/rm", "-rf", folder]), timeout: 20)
        try? FileManager.default.removeItem(atPath: scratch)
    }

    @Test("replay of several files: a header before each, ids from 1 in each, and a bad file in the middle stops nothing")
    func severalFiles() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let bad = scratch + "/broken.evemu"
        try "not a trace\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let (a, b) = (DaemonProcess.recording("hold-1f.tablet.evemu"), DaemonProcess.recording("tap-2f.tablet.evemu"))
        let summary = try runGestured(["replay", "--format", "summary", a, bad, b])
        #expect(summary.status == 1)
        #expect(summary.out == "# \(a)\ntouch-and-hold fingers=1\n# \(b)\ntap fingers=2\n", "\(summary.out)")
        #expect(summary.err.contains("\(bad):1: not an evemu line"), "\(summary.err)")
        // JSON lines carry no header; each file's gestures are numbered from 1.
        let json = try runGestured(["replay", a, b])
        #expect(json.status == 0)
        let ids = json.out.split(separator: "\n").compactMap { line -> Int? in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["id"] as? Int
        }
        #expect(ids.first == 1 && ids.last == 1 && ids.count > 2, "\(ids)")
    }

    @Test("replay --phases prints only those phases; an unknown phase is refused with the known ones")
    func phases() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let trace = DaemonProcess.recording("hold-then-drag.phone.evemu")
        let all = try runGestured(["replay", "--format", "text", trace])
        let some = try runGestured(["replay", "--format", "text", "--phases", "began,ended", trace])
        #expect(all.out.contains(" changed "))
        let lines = some.out.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains(" began ") || $0.contains(" ended ") }, "\(some.out)")
        #expect(lines.count == all.out.split(separator: "\n").filter { $0.contains(" began ") || $0.contains(" ended ") }.count)
        let refused = try runGestured(["replay", "--phases", "begun", trace])
        #expect(refused.status == 64)
        #expect(refused.err.contains("--phases: unknown phase 'begun'; known: recognized, began"), "\(refused.err)")
    }

    @Test("replay --hold-ms: the still hold says each time on the event that reaches it; a time out of range is refused")
    func holdMarks() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let trace = DaemonProcess.recording("hold-1f.tablet.evemu")
        let text = try runGestured(["replay", "--format", "text", "--hold-ms", "300, 800", trace])
        let held = text.out.split(separator: "\n").filter { $0.contains("held") }
        #expect(held.count == 2 && held[0].contains(" began ") && held[0].hasSuffix("held 300 ms"), "\(text.out)")
        #expect(held.count == 2 && held[1].contains("0.800s") && held[1].hasSuffix("held 800 ms"), "\(text.out)")
        let json = try runGestured(["replay", "--hold-ms", "800", trace])
        #expect(json.out.split(separator: "\n").filter { $0.contains(#""held_ms":800"#) }.count == 1, "\(json.out)")
        #expect(!(try runGestured(["replay", trace])).out.contains("held_ms"))
        let refused = try runGestured(["replay", "--hold-ms", "20000", trace])
        #expect(refused.status == 64)
        #expect(refused.err.contains("--hold-ms is at most 16 whole numbers of milliseconds, 0 to 10000"), "\(refused.err)")
    }

    @Test("serve --socket in a directory that does not exist is refused, and no directory is made")
    func socketDirectoryMissing() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let path = scratch + "/typo/gestured.sock"
        let r = try runGestured(["serve", "--socket", path, "--replay", DaemonProcess.recording("tap-2f.tablet.evemu")])
        #expect(r.status == 1)
        #expect(r.err.contains("its directory \(scratch)/typo does not exist; create it first"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: scratch + "/typo"))
    }

    @Test("a device node that does not exist is named as such by devices and serve")
    func missingDevice() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let node = scratch + "/event99"
        for args in [["devices", "--device", node], ["serve", "--socket", scratch + "/g.sock", "--device", node]] {
            let r = try runGestured(args)
            #expect(r.status == 1, "\(args)")
            #expect(r.err.contains("cannot use \(node): no such device"), "\(args): \(r.err)")
            #expect(!r.err.contains("client bug"), "\(r.err)")
            // A start that fails never says it listened.
            #expect(!r.err.contains("listening on"), "\(args): \(r.err)")
        }
        try "x".write(toFile: node, atomically: true, encoding: .utf8)
        let file = try runGestured(["devices", "--device", node])
        #expect(file.err.contains("cannot use \(node): not a device node"), "\(file.err)")
    }

    @Test("devices on a seat with nothing says so on stderr, -v says what /dev/input holds, --json prints no line")
    func devicesNothingFound() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let seat = "gestured-test-empty"
        let plain = try runGestured(["devices", "--seat", seat])
        #expect(plain.status == 1)
        #expect(plain.err.contains("no touchscreen found on seat \(seat)"), "\(plain.err)")
        #expect(!plain.err.contains("event nodes") && !plain.err.contains("/dev/input "), "\(plain.err)")
        let verbose = try runGestured(["devices", "-v", "--seat", seat])
        #expect(verbose.status == 1)
        #expect(verbose.err.contains("gestured: /dev/input") || verbose.err.contains("event nodes"), "\(verbose.err)")
        let json = try runGestured(["devices", "--json", "--seat", seat])
        #expect(json.status == 1)
        #expect(json.out.isEmpty, "\(json.out)")
        #expect(json.err.contains("no touchscreen found on seat \(seat)"), "\(json.err)")
    }

    @Test(
        "serve --socket in a directory the daemon's user cannot write names that directory and what to do",
        .requires(.root))
    func socketInUnwritableDirectory() throws {
        let folder = try rootsFolder()
        defer { removeRootsFolder(folder) }
        let uid: UInt32 = 4711
        let r = try Child.run(
            Requirement.asUser(
                uid,
                [
                    BuildProducts.gestured, "serve", "--socket", folder + "/g.sock", "--replay",
                    DaemonProcess.recording("tap-2f.tablet.evemu"),
                ]),
            timeout: 60)
        #expect(r.status == 1)
        #expect(r.err.contains("cannot put a socket in \(folder): "), "\(r.err)")
        #expect(r.err.contains("uid \(uid)") && r.err.contains("--socket"), "\(r.err)")
        #expect(!r.err.contains(".gestured-"), "\(r.err)")
    }

    @Test("replay's text lines and its picture count time from the same moment: each gesture's first line is at its label's time")
    func textAndPictureTimes() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let svg = scratch + "/tour.svg"
        let r = try runGestured(["replay", "--format", "text", "--svg", svg, DaemonProcess.recording("tour.tablet.evemu")])
        #expect(r.status == 0, "\(r.err)")
        // "   2.643s  touch-and-hold began      #3 ..." → 3: 2.643
        var firstLine: [Int: Double] = [:]
        for line in r.out.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ")
            guard fields.count > 3, let id = Int(fields[3].dropFirst()), firstLine[id] == nil else { continue }
            firstLine[id] = Double(fields[0].dropLast())
        }
        // "<text …>#3 touch-and-hold, 1f · 2.64–3.35 s</text>" → 3: 2.64
        let picture = try String(contentsOfFile: svg, encoding: .utf8)
        var labels = 0
        for part in picture.components(separatedBy: ">#").dropFirst() {
            guard let id = Int(part.prefix { $0.isNumber }), let dot = part.range(of: " · ") else { continue }
            let time = part[dot.upperBound...].prefix { $0.isNumber || $0 == "." }
            guard let shown = Double(time), let text = firstLine[id] else { continue }
            #expect(abs(shown - text) <= 0.0051, "#\(id): picture \(shown) s, text \(text) s")
            labels += 1
        }
        #expect(labels >= 8 && labels == firstLine.count, "\(labels) labels, \(firstLine.count) gestures")
    }

    @Test("monitor tells no socket from a socket nobody listens on, and each says what to do")
    func monitorCannotConnect() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let path = scratch + "/g.sock"
        let none = try runGestured(["monitor", "--socket", path])
        #expect(none.status == 1)
        #expect(none.err.contains("no socket at \(path): gestured is not running there"), "\(none.err)")
        // A socket file whose daemon stopped without removing it.
        let stale = try Child.run(
            ["/usr/bin/python3", "-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", path], timeout: 30)
        #expect(stale.status == 0, "\(stale.err)")
        let refused = try runGestured(["monitor", "--socket", path])
        #expect(refused.status == 1)
        #expect(refused.err.contains("\(path) is a socket nobody listens on, left by a gestured that stopped"), "\(refused.err)")
    }

    @Test(
        "a daemon started by root gives its socket to group gesture, or says there is none; a user who may not open it is told its owner, group and mode",
        .requires(.root))
    func socketOwnership() throws {
        let folder = try rootsFolder()
        defer { removeRootsFolder(folder) }
        let d = try DaemonProcess(
            ["--replay", DaemonProcess.recording("tap-2f.tablet.evemu"), "--wait-subscribers", "1"],
            wrapper: Requirement.asRoot([]), socketPath: folder + "/gestured.sock")
        chmod(d.directory, 0o755)
        var st = stat()
        #expect(stat(d.socket, &st) == 0)
        if let gesture = getgrnam("gesture") {
            #expect(st.st_gid == gesture.pointee.gr_gid, "group \(st.st_gid)")
        } else {
            #expect(st.st_gid == 0)
            try d.waitForLog("there is no group gesture to give it to; set socket-group in [daemon]")
        }
        #expect(st.st_mode & 0o777 == 0o660, "mode \(String(st.st_mode & 0o777, radix: 8))")
        let uid: UInt32 = 4712
        let r = try Child.run(Requirement.asUser(uid, [BuildProducts.gestured, "monitor", "--socket", d.socket]), timeout: 30)
        #expect(r.status == 1)
        #expect(r.err.contains("cannot open \(d.socket): it is owner root, group "), "\(r.err)")
        #expect(r.err.contains("mode 0660") && r.err.contains("you are uid \(uid)") && r.err.contains("socket-group"), "\(r.err)")
    }

    @Test("replay --claim shows what a claimed touchscreen would pass, hold back and cancel with an actions file's bindings")
    func replayClaim() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let actions = scratch + "/actions.toml"
        try """
        [[bind]]
        gesture = "swipe"
        edge = "left"
        run = ["true"]

        [[bind]]
        gesture = "swipe"
        fingers = 3
        run = ["true"]
        """.write(toFile: actions, atomically: true, encoding: .utf8)
        let traces = ["edge-swipe-left.laptop.evemu", "swipe-up-3f.kiosk.evemu", "tap-2f.tablet.evemu"].map(
            DaemonProcess.recording)
        let r = try runGestured(["replay", "--claim", actions] + traces)
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "# claimed by \(actions): 3 fingers, left edge", "\(r.out)")
        #expect(lines.count == 7, "\(r.out)")
        #expect(
            lines.count == 7 && lines[2].hasPrefix("0.000 s  1 finger   claimed at the left edge: never passed on"), "\(r.out)")
        #expect(
            lines.count == 7
                && lines[4].hasSuffix(
                    "3 fingers  claimed as its fingers reached a claimed count: 2 touches passed on, then cancelled (27 frames withheld)"
                ),
            "\(r.out)")
        #expect(lines.count == 7 && lines[6].contains("2 fingers  passed on whole"), "\(r.out)")

        // On a compositor that drops touch cancels: the three fingers are
        // held until the third lands, never passed on; the two-finger tap
        // is held, then arrives whole.
        let dropped = try runGestured(["replay", "--claim", actions, "--cancel-dropped"] + traces)
        let held = dropped.out.split(separator: "\n").map(String.init)
        #expect(dropped.status == 0 && held.count == 8, "\(dropped.out)\(dropped.err)")
        #expect(held.count == 8 && held[1].hasPrefix("# the compositor drops touch cancels"), "\(dropped.out)")
        #expect(
            held.count == 8
                && held[5].hasSuffix(
                    "3 fingers  claimed as its fingers reached a claimed count while held back: never passed on (29 frames withheld)"
                ),
            "\(dropped.out)")
        #expect(
            held.count == 8 && held[7].contains("2 fingers  held back ") && held[7].contains("then passed on"), "\(dropped.out)")
        let alone = try runGestured(["replay", "--cancel-dropped", traces[1]])
        #expect(alone.status != 0 && alone.err.contains("--cancel-dropped is for --claim ACTIONS"), "\(alone.err)")

        try "[[bind]]\ngesture = \"tap\"\nclaim = false\nrun = [\"true\"]\n".write(
            toFile: actions, atomically: true, encoding: .utf8)
        let nothing = try runGestured(["replay", "--claim", actions, traces[1]])
        #expect(nothing.out.hasPrefix("# claimed by \(actions): nothing (every touch passes on whole)"), "\(nothing.out)")
        #expect(nothing.out.contains("3 fingers  passed on whole"), "\(nothing.out)")

        // Its lines have no other format: a --format is refused, not ignored.
        let formatted = try runGestured(["replay", "--claim", actions, "--format", "jsonl", traces[1]])
        #expect(
            formatted.status != 0 && formatted.err.contains("--claim prints one readable line per touch sequence")
                && formatted.err.contains("leave out --format jsonl"), "\(formatted.err)")

        // A stroke drawn after a rest claims the rest at its time.
        try """
        [[shape]]
        name = "L"
        examples = ["0,0 0,40 25,40"]

        [[bind]]
        gesture = "stroke"
        shape = "L"
        hold-ms = 600
        run = ["true"]
        """.write(toFile: actions, atomically: true, encoding: .utf8)
        let rested = try runGestured(["replay", "--claim", actions, DaemonProcess.recording("hold-then-drag.phone.evemu")])
        let restLines = rested.out.split(separator: "\n").map(String.init)
        #expect(rested.status == 0, "\(rested.err)")
        #expect(restLines.first == "# claimed by \(actions): 1-finger hold of 600 ms", "\(rested.out)")
        #expect(
            restLines.count == 3
                && restLines[2].contains(
                    "1 finger   claimed as its fingers had held still 600 ms: 1 touch passed on, then cancelled ("),
            "\(rested.out)")

        try "[[bind]]\ngesture = \"swype\"\n".write(toFile: actions, atomically: true, encoding: .utf8)
        let bad = try runGestured(["replay", "--claim", actions, traces[1]])
        #expect(bad.status == 1 && bad.err.contains("\(actions):2: gesture must be one of"), "\(bad.err)")
    }

    @Test("serve --replay of a device whose section says claim = true says it is never claimed, and where to try claiming")
    func replayedDeviceNotClaimed() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let d = try DaemonProcess(
            ["--replay", DaemonProcess.recording("tap-2f.tablet.evemu"), "--wait-subscribers", "1"],
            config: "[[device]]\nmatch = \"Synthetic Tablet Touchscreen\"\nclaim = true\n")
        try d.waitForLog("claim = true applies to touchscreens read through libinput; a replayed trace is never claimed")
        #expect(d.log.contains("gestured replay --claim ACTIONS"), "\(d.log)")
    }

    @Test("help text states each default once")
    func defaultsOnce() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for command in ["serve", "act", "monitor", "devices", "record", "replay", "tune", "check-config"] {
            let help = try runGestured([command, "--help"]).out.replacingOccurrences(of: "\n", with: " ")
            let words = help.split(separator: " ").joined(separator: " ")
            #expect(words.range(of: #"\(default: [^)]*\)\.? \(default:"#, options: .regularExpression) == nil, "\(command)")
        }
    }
}
