import Foundation
import GestureCore
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What one boot of the real-kernel harness saw (scripts/kernel-test.sh):
/// the guest's files, read into memory, the scratch directory gone.
struct KernelRun: Sendable {
    var files: [String: String]
    var vm: String

    /// Boots once per test run; or, with `GESTURED_KERNEL_RESULTS=DIR`,
    /// reads what an earlier boot left in DIR (a scratch directory given to
    /// scripts/kernel-test.sh), for working on the tests themselves.
    static let shared: Result<KernelRun, ChannelError> = {
        if let earlier = ProcessInfo.processInfo.environment["GESTURED_KERNEL_RESULTS"] {
            return .success(KernelRun(files: read(earlier), vm: "an earlier run, from \(earlier)"))
        }
        let dir = NSTemporaryDirectory() + "gestured-kernel-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            var env = ProcessInfo.processInfo.environment
            env["GESTURED_BIN"] = BuildProducts.gestured
            let r = try Child.run(
                ["/bin/bash", BuildProducts.packageRoot + "/scripts/kernel-test.sh", dir], environment: env, timeout: 2600)
            let files = read(dir)
            guard r.status == 0 else {
                return .failure(ChannelError("scripts/kernel-test.sh exited \(r.status):\n\(r.err)\n\(files["guest.log"] ?? "")"))
            }
            return .success(KernelRun(files: files, vm: r.out.trimmingCharacters(in: .whitespacesAndNewlines)))
        } catch {
            return .failure(error as? ChannelError ?? ChannelError("\(error)"))
        }
    }()

    /// The files of a guest's directory, by name.
    static func read(_ dir: String) -> [String: String] {
        var files: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
            files[name] = (try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)) ?? ""
        }
        return files
    }

    /// Every message the subscriber received, parsed.
    var messages: [[String: Any]] {
        (files["events.jsonl"] ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// The daemon on a real kernel: uinput touchscreens made from the bundled
/// recordings' own descriptions, evdev's frames and clock, udev's rules and
/// libinput's udev backend, in a virtual machine (docs/testing.md).
@Suite(
    "A real kernel (virtual machine)", .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["GESTURED_KERNEL_TESTS"] == "1",
        "runs on its own in `make test-kernel` (part of `make test`), where no other suite shares the two cores with the virtual machine"
    ),
    .requires(.virtualMachine))
struct KernelTests {
    static func run() throws -> KernelRun {
        let run = try KernelRun.shared.get()
        print("kernel harness: \(run.vm)")
        return run
    }

    /// How far the intervals between a recording's frames may be stretched
    /// or squeezed in playing and still count as the recording's timing.
    static let faithful: Int64 = 1_000

    /// The most an interval between two frames (`SYN_REPORT`s) of `played`
    /// differs from the same interval in `recorded`, in microseconds; nil
    /// when they do not have the same frames.
    static func distortion(recorded: String, played: String) throws -> Int64? {
        func frameTimes(_ text: String) throws -> [Int64] {
            try EvemuReader.parse(text, file: "trace").events
                .filter { $0.type == Evdev.EV_SYN && $0.code == Evdev.SYN_REPORT }.map(\.time.microseconds)
        }
        let a = try frameTimes(recorded)
        let b = try frameTimes(played)
        guard a.count == b.count, a.count > 1 else { return nil }
        return (1..<a.count).map { abs((b[$0] - b[$0 - 1]) - (a[$0] - a[$0 - 1])) }.max()
    }

    @Test(
        "every bundled recording, written into a uinput touchscreen, gives a subscriber what replay gives for the events the kernel delivered, and its .expect when played in time"
    )
    func everyRecording() throws {
        let run = try Self.run()
        let plan = (run.files["plan"] ?? "").split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1) }
        #expect(plan.count >= 60)
        let config = run.files["gestured.toml"] ?? ""
        let messages = run.messages
        var wrong: [String] = []
        var lost: [String] = []
        var distorted: [String] = []
        for entry in plan where entry.count == 2 {
            let (index, name) = (entry[0], String(entry[1]))
            let events = messages.filter {
                $0["type"] as? String == "gesture" && ($0["device"] as? String)?.hasSuffix(" #\(index)") == true
            }
            let got = summarize(events)
            // The kernel stamps each frame when the player writes it: under
            // emulation the player falls behind now and then, and what any
            // reader saw is then not quite the recording.
            guard let delivered = run.files["delivered-\(index).evemu"] else {
                wrong.append("\(name): the player wrote no delivered-\(index).evemu")
                continue
            }
            let replayed = try Self.replay(delivered, [config])
            let asDelivered = replayed.out.split(separator: "\n").map(String.init)
            let log = Self.logged(run, about: String(index))
            if replayed.status == 0, got != asDelivered, log.contains("SYN_DROPPED") {
                lost.append("\(name): got \(got), the player's reader \(asDelivered)")
                continue
            }
            if replayed.status != 0 || got != asDelivered {
                wrong.append(
                    "\(name): got \(got), replay of what the kernel delivered gives \(asDelivered) \(replayed.err)" + log)
            }
            let recorded = try String(contentsOfFile: DaemonProcess.recording(name + ".evemu"), encoding: .utf8)
            let off = try Self.distortion(recorded: recorded, played: delivered)
            let want = try DaemonProcess.expected(name + ".evemu")
            if let off, off <= Self.faithful {
                if got != want { wrong.append("\(name): played in time, got \(got), expected \(want)") }
            } else {
                let changed = asDelivered == want ? "" : ", which made it \(asDelivered)"
                distorted.append("\(name) (\(off.map { "an interval \($0 / 1000) ms off" } ?? "other frames")\(changed))")
            }
        }
        print(
            "kernel harness: \(plan.count - distorted.count) of \(plan.count) recordings played in time (every interval within \(Self.faithful / 1000) ms) and checked against their .expect as well"
        )
        if !distorted.isEmpty { print("kernel harness: played out of time: \(distorted.joined(separator: ", "))") }
        Self.setAside(lost, of: plan.count)
        #expect(wrong.isEmpty, "\(wrong.count) of \(plan.count):\n\(wrong.joined(separator: "\n"))")
    }

    /// The most recordings of a run set aside because the kernel dropped
    /// events for the daemon's own reader.
    static let mostLost = 2

    /// Recordings whose gestures differ from what the player's own reader
    /// got, where the daemon's log says the kernel dropped events for the
    /// daemon's reader (libinput's `SYN_DROPPED`: a reader not scheduled
    /// for a few frames of a many-finger device under emulation): the two
    /// readers did not get the same events, so the comparison does not
    /// hold. Said, and at most `mostLost` of a run.
    static func setAside(_ lost: [String], of count: Int) {
        guard !lost.isEmpty else { return }
        print(
            "kernel harness: \(lost.count) of \(count) set aside, the kernel having dropped events for the daemon's reader: \(lost.joined(separator: "; "))"
        )
        #expect(
            lost.count <= mostLost,
            "\(lost.count) of \(count) lost events in the daemon's reader:\n\(lost.joined(separator: "\n"))")
    }

    /// What the daemon logged of the device of play TAG (its name ends in
    /// " #TAG"): libinput's own word on it (`SYN_DROPPED`, say) when what
    /// it gave is not what the kernel delivered.
    static func logged(_ run: KernelRun, about tag: String) -> String {
        let lines = (run.files["serve.log"] ?? "").split(separator: "\n").filter { line in
            var rest = line[...]
            while let r = rest.range(of: " #" + tag) {
                rest = rest[r.upperBound...]
                if !(rest.first?.isLetter ?? false) && !(rest.first?.isNumber ?? false) { return true }
            }
            return false
        }
        return lines.isEmpty ? "" : "\n  the daemon's log of it:\n  " + lines.joined(separator: "\n  ")
    }

    @Test(
        "every labelled recording of people's hands (../shared/traces/real-hands), written into a uinput touchscreen, gives a subscriber through libinput what replay gives for the events the kernel delivered"
    )
    func everyRealRecording() throws {
        let run = try Self.run()
        let plan = (run.files["plan-real"] ?? "").split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1) }
        guard !plan.isEmpty else {
            #expect(!Requirement.inCI, "../shared/traces/real-hands must be beside the checkout in CI")
            print("kernel harness: ../shared/traces/real-hands is absent: no recording of real hands was played")
            return
        }
        let config = run.files["gestured.toml"] ?? ""
        let messages = run.messages
        var wrong: [String] = []
        var lost: [String] = []
        var gestures = 0
        for entry in plan where entry.count == 2 {
            let (tag, path) = (entry[0], String(entry[1]))
            let got = summarize(
                messages.filter {
                    $0["type"] as? String == "gesture" && ($0["device"] as? String)?.hasSuffix(" #\(tag)") == true
                })
            guard let delivered = run.files["delivered-\(tag).evemu"] else {
                wrong.append("\(path): the player wrote no delivered-\(tag).evemu: \(run.files["play-\(tag).out"] ?? "")")
                continue
            }
            let replayed = try Self.replay(delivered, [config])
            let asDelivered = replayed.out.split(separator: "\n").map(String.init)
            let log = Self.logged(run, about: String(tag))
            if replayed.status == 0, got != asDelivered, log.contains("SYN_DROPPED") {
                lost.append("\(path): through libinput \(got), the player's reader \(asDelivered)")
                continue
            }
            if replayed.status != 0 || got != asDelivered {
                wrong.append(
                    "\(path): through libinput \(got), replay of what the kernel delivered \(asDelivered) \(replayed.err)" + log)
            }
            gestures += got.count
        }
        print("kernel harness: \(plan.count) recordings of real hands, \(gestures) gestures through libinput, as replay gives")
        Self.setAside(lost, of: plan.count)
        #expect(plan.count >= 80, "\(plan.count)")
        #expect(wrong.isEmpty, "\(wrong.count) of \(plan.count):\n\(wrong.joined(separator: "\n"))")
    }

    @Test("each touchscreen is added and removed as uinput makes and destroys it; the keyboard beside them is never opened")
    func hotplugAndKeyboard() throws {
        let run = try Self.run()
        let messages = run.messages
        let added = messages.filter { $0["type"] as? String == "device_added" }.compactMap { $0["device"] as? String }
        let removed = messages.filter { $0["type"] as? String == "device_removed" }.count
        // Every recording of the plans, the pinch removed midway, and the extra plays the guest lists.
        let plans = ((run.files["plan"] ?? "") + (run.files["plan-real"] ?? "")).split(separator: "\n")
        let plays = plans.count + 1 + (run.files["extra-plays"] ?? "").split(separator: "\n").count
        // Every play's device but evemu's (named as in its file) ends in " #TAG".
        let planned: [String] = plans.compactMap { $0.split(separator: " ").first.map(String.init) }
        let extra: [String] = (run.files["extra-plays"] ?? "").split(separator: "\n").map(String.init)
        let tags = planned + ["removed"] + extra.filter { $0 != "evemu" }
        let missing = tags.filter { tag in !added.contains { $0.hasSuffix(" #" + tag) } }
        #expect(
            added.count == plays && removed == plays,
            "added \(added.count), removed \(removed), plays \(plays); never added: \(missing)")
        #expect(!added.contains { $0.contains("keyboard") }, "\(added)")
        #expect(!(run.files["devices.out"] ?? "").contains("keyboard"), "\(run.files["devices.out"] ?? "")")
        #expect(run.files["guest.log"]?.contains("serve exited 0") == true, "\(run.files["guest.log"] ?? "")")
    }

    @Test("a touchscreen destroyed in the middle of a pinch: the pinch ends cancelled, then the device is removed")
    func removedMidGesture() throws {
        let run = try Self.run()
        let mine = run.messages.filter {
            ($0["device"] as? String)?.hasSuffix(" #removed") == true
        }
        let kinds = mine.map { "\($0["type"] ?? "") \($0["gesture"] ?? "") \($0["phase"] ?? "")" }
        #expect(kinds.contains("gesture pinch began"), "\(kinds)")
        #expect(kinds.contains("gesture pinch cancelled"), "\(kinds)")
        #expect(kinds.last?.hasPrefix("device_removed") == true, "\(kinds)")
    }

    /// The gestures the subscriber received from the device named "… #TAG".
    static func gestures(_ run: KernelRun, tag: String) -> [String] {
        summarize(
            run.messages.filter {
                $0["type"] as? String == "gesture" && ($0["device"] as? String)?.hasSuffix(" #\(tag)") == true
            })
    }

    /// `gestured replay --format summary` of a file the guest wrote, from a scratch copy.
    static func replay(_ text: String, _ extra: [String] = []) throws -> CommandResult {
        let dir = NSTemporaryDirectory() + "gestured-kernel-replay-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try text.write(toFile: dir + "/trace.evemu", atomically: true, encoding: .utf8)
        var arguments = ["replay", "--format", "summary"]
        for (i, config) in extra.enumerated() {
            try config.write(toFile: dir + "/\(i).toml", atomically: true, encoding: .utf8)
            arguments += ["--config", dir + "/\(i).toml"]
        }
        return try runGestured(arguments + [dir + "/trace.evemu"])
    }

    @Test(
        "a panel mounted a quarter turn round, through libinput's calibration matrix, gives what replay gives with the same rotation"
    )
    func rotation() throws {
        let run = try Self.run()
        let trace = try String(contentsOfFile: DaemonProcess.recording("swipe-right-1f.tablet.evemu"), encoding: .utf8)
        let name = try #require(trace.split(separator: "\n").first { $0.hasPrefix("N: ") }).dropFirst(3)
        let replayed = try Self.replay(trace, ["[[device]]\nmatch = \"\(name)\"\nrotation = 90\n"])
        let want = replayed.out.split(separator: "\n").map(String.init)
        let unrotated = try DaemonProcess.expected("swipe-right-1f.tablet.evemu")
        #expect(want.contains { $0.hasPrefix("swipe") } && want != unrotated, "\(want)")
        #expect(Self.gestures(run, tag: "rotated") == want, "\(run.files["serve.log"] ?? "")")
    }

    @Test("a touchscreen that reports no resolution and has no size configured is used, with the size it assumes said in the log")
    func noResolution() throws {
        let run = try Self.run()
        #expect(Self.gestures(run, tag: "noresolution") == ["tap fingers=2"])
        let log = run.files["serve.log"] ?? ""
        #expect(log.contains("#noresolution: no size known"), "\(log)")
    }

    @Test("a bundled recording made into a device by Debian's evemu-device and played by evemu-play gives its .expect")
    func evemuTools() throws {
        let run = try Self.run()
        let name = "pinch-close-2f.phone"
        let trace = try String(contentsOfFile: DaemonProcess.recording(name + ".evemu"), encoding: .utf8)
        let device = try #require(trace.split(separator: "\n").first { $0.hasPrefix("N: ") }).dropFirst(3)
        #expect(
            (run.files["evemu-device.out"] ?? "").contains("\(device): /dev/input/event"),
            "\(run.files["evemu-device.out"] ?? "")")
        #expect((run.files["evemu-play.out"] ?? "").contains("evemu-play exited 0"), "\(run.files["evemu-play.out"] ?? "")")
        let got = summarize(
            run.messages.filter { $0["type"] as? String == "gesture" && $0["device"] as? String == String(device) })
        #expect(got == (try DaemonProcess.expected(name + ".evemu")), "\(run.files["guest.log"] ?? "")")
    }

    @Test(
        "a uinput tablet-mode switch (evemu-device, turned by evemu-event): the daemon reads it with the rule's ACL, and act's binding gated on tablet mode fires only while it is on"
    )
    func tabletModeSwitch() throws {
        let run = try Self.run()
        let serve = run.files["serve.log"] ?? ""
        #expect(serve.contains("tablet-mode switch: gestured test tablet-mode switch"), "\(serve)")
        #expect(serve.contains("tablet mode: on"), "\(serve)")
        #expect((run.files["acl-switch.out"] ?? "").contains("user:nobody:r--"), "\(run.files["acl-switch.out"] ?? "")")
        // One tap with the switch off, one with it on: each ran its binding alone.
        #expect(
            (run.files["modes"] ?? "").split(separator: "\n") == ["desk", "tablet"],
            "modes: \(run.files["modes"] ?? "")\nact: \(run.files["act-modes.log"] ?? "")\n\(run.files["switch-device.out"] ?? "")"
        )
        #expect(Self.gestures(run, tag: "desk") == ["tap fingers=1"] && Self.gestures(run, tag: "tablet") == ["tap fingers=1"])
    }

    @Test("gestured record on a real device: the file replays to the recording's own gestures; the recorder ends with the device")
    func recordRoundTrip() throws {
        let run = try Self.run()
        let recorded = try #require(run.files["recorded-recorded.evemu"])
        #expect(recorded.contains("# Recorded by gestured "), "\(recorded.prefix(300))")
        let replayed = try Self.replay(recorded)
        #expect(replayed.status == 0, "\(replayed.err)")
        let want = try DaemonProcess.expected("swipe-right-1f.tablet.evemu")
        #expect(replayed.out.split(separator: "\n").map(String.init) == want, "\(replayed.out)")
        let log = run.files["record-recorded.log"] ?? ""
        #expect(log.contains("went away; the recording up to then is complete"), "\(log)")
    }

    @Test("a recorder that stops reading while events pour in: the kernel drops events, the file marks it and still replays")
    func synDropped() throws {
        let run = try Self.run()
        let recorded = try #require(run.files["recorded-dropped.evemu"])
        #expect(recorded.contains("# SYN_DROPPED at "), "\(run.files["record-dropped.log"] ?? "")")
        #expect((run.files["record-dropped.log"] ?? "").contains("the kernel dropped events"))
        let replayed = try Self.replay(recorded)
        #expect(replayed.status == 0, "\(replayed.err)")
    }

    @Test(
        "the shipped udev rule gives the daemon's user a read-write ACL on touchscreens and none on the keyboard; that user's `gestured devices` finds the touchscreen"
    )
    func udevRule() throws {
        let run = try Self.run()
        let touchscreen = run.files["acl-touchscreen.out"] ?? ""
        let keyboard = run.files["acl-keyboard.out"] ?? ""
        #expect(touchscreen.contains("user:nobody:rw-"), "\(touchscreen)")
        #expect(keyboard.contains("# file:") && !keyboard.contains("user:nobody"), "\(keyboard)")
        let devices = run.files["devices-nobody.out"] ?? ""
        #expect(devices.contains("#acl") && !devices.contains("keyboard"), "\(devices)")
    }

    @Test(
        "act's keys binding, act run by a user who may not write /dev/uinput, is typed by the daemon's keyboard: alt+Left pressed and released in order; the uinput rule gives the service's user alone write access"
    )
    func actKeys() throws {
        let run = try Self.run()
        let keys = (run.files["keys.out"] ?? "").split(separator: "\n").map(String.init)
        #expect(
            keys == ["found gestured virtual keyboard", "KEY_LEFTALT 1", "KEY_LEFT 1", "KEY_LEFT 0", "KEY_LEFTALT 0"],
            "\(keys)\n\(run.files["act.log"] ?? "")\n\(run.files["replay-serve.log"] ?? "")")
        let acl = run.files["acl-uinput.out"] ?? ""
        #expect(acl.contains("user:daemon:rw-") && !acl.contains("nobody"), "\(acl)")
    }
}
