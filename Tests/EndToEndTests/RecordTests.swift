import Foundation
import GestureCore
import Harness
import Testing

/// `gestured record` on an emulated touchscreen: a trace is written into the
/// device while it records, and the recording must hold the same device and
/// the same events, and replay to the same gestures.
@Suite("gestured record through libevdev (umockdev)", .serialized, .requires(.umockdev))
struct RecordTests {
    /// Starts `gestured record ARGS` in `session` on `screen` and waits until it has the node open.
    static func startRecording(_ session: UmockdevSession, _ screen: EmulatedTouchscreen, _ extra: [String]) throws {
        try session.startDaemon(["record", "--device", screen.devnode] + extra)
        try session.command("waitopen \(screen.devnode) 5000")
    }

    @Test(
        "recording while a trace is written: same device, same events at the same times, same gestures on replay",
        arguments: ["tap-1f.phone.evemu", "pinch-close-2f.phone.evemu", "two-finger-drag.phone.evemu"])
    func roundTrip(name: String) throws {
        let (path, device) = try LibinputEndToEndTests.recording(name)
        let session = try UmockdevSession()
        let screen = EmulatedTouchscreen(device, number: 6)
        try session.add(screen)
        let output = session.directory + "/recorded.evemu"
        try Self.startRecording(session, screen, ["-o", output])
        try session.command("replay \(screen.devnode) \(path)", timeout: 30)
        // Ctrl-C, as a user stops it.
        #expect(try session.command("stop INT") == "exited 0", "\(session.daemonLog)")
        let log = session.daemonLog
        #expect(log.contains("recording \(screen.devnode) (\(device.name), \(device.slotCount) slots"), "\(log)")
        #expect(log.contains("stopped (Ctrl-C)"), "\(log)")
        #expect(!log.contains(" in 0.0 s "), "the recording's length: \(log)")

        let original = try EvemuReader.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        let recorded = try EvemuReader.parse(text, file: output)
        // The header is the device's own description, as libevdev reads it.
        #expect(recorded.device.name == device.name)
        #expect(recorded.device.vendorProduct == device.vendorProduct && recorded.device.bus == device.bus)
        #expect(recorded.device.properties == device.properties)
        #expect(recorded.device.absinfo == device.absinfo)
        #expect(recorded.device.codes[Evdev.EV_KEY] == device.codes[Evdev.EV_KEY])
        // Every event, with its time from the first event (the harness stamps
        // each with the trace's own offsets).
        func relative(_ t: Trace) -> [String] {
            let first = t.events.first?.time.microseconds ?? 0
            return t.events.map { "\($0.time.microseconds - first) \($0.type) \($0.code) \($0.value)" }
        }
        #expect(relative(recorded) == relative(original))
        #expect(log.contains("\(original.events.count) events"), "\(log)")
        // Shown with libevdev's names.
        #expect(text.contains("# EV_ABS / ABS_MT_POSITION_X"))
        #expect(text.contains("SYN_REPORT"))

        let replay = try runGestured(["replay", "--format", "summary", output])
        #expect(replay.status == 0, "\(replay.err)")
        #expect(
            replay.out.split(separator: "\n").map(String.init) == (try DaemonProcess.expected(name)))
    }

    @Test("--duration ends the recording by itself with a complete file")
    func duration() throws {
        let (path, device) = try LibinputEndToEndTests.recording("tap-1f.phone.evemu")
        let session = try UmockdevSession()
        let screen = EmulatedTouchscreen(device, number: 6)
        try session.add(screen)
        let output = session.directory + "/timed.evemu"
        try Self.startRecording(session, screen, ["-o", output, "--duration", "1.5"])
        try session.command("replay \(screen.devnode) \(path)", timeout: 30)
        #expect(try session.command("wait 10000", timeout: 15) == "exited 0", "\(session.daemonLog)")
        #expect(session.daemonLog.contains("stopped after 1.5 s"), "\(session.daemonLog)")
        let replay = try runGestured(["replay", "--format", "summary", output])
        #expect(replay.out == "tap fingers=1\n", "\(replay.err)")
    }

    @Test("a keyboard is refused, naming the device and why")
    func keyboardRefused() throws {
        let session = try UmockdevSession()
        let keyboard = EmulatedTouchscreen.keyboard(number: 2)
        try session.add(keyboard)
        let output = session.directory + "/keyboard.evemu"
        try session.startDaemon(["record", "--device", keyboard.devnode, "-o", output])
        #expect(try session.command("wait 10000", timeout: 15) == "exited 1")
        let log = session.daemonLog
        #expect(log.contains("refusing \(keyboard.devnode) (Emulated Keyboard): not a touchscreen"), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("SYN_DROPPED mid-drag: the recording marks it and holds libevdev's resynchronised state")
    func droppedEvents() throws {
        let (path, device) = try LibinputEndToEndTests.recording("slow-drag-right.tablet.evemu")
        // The trace with a SYN_DROPPED frame in the middle of the drag.
        let recorded = try DaemonProcess.evemuLines(path)
        var lines = recorded.lines
        let middle = recorded.reports[recorded.reports.count / 2]
        let time = lines[middle].split(separator: " ")[1]
        lines.insert("E: \(time) 0000 0003 0", at: middle + 1)
        lines.insert("E: \(time) 0000 0000 0", at: middle + 2)
        let session = try UmockdevSession()
        let broken = session.directory + "/dropped.evemu"
        try lines.joined(separator: "\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let screen = EmulatedTouchscreen(device, number: 6)
        try session.add(screen)
        let output = session.directory + "/resynced.evemu"
        try Self.startRecording(session, screen, ["-o", output])
        try session.command("replay \(screen.devnode) \(broken)", timeout: 30)
        #expect(try session.command("stop INT") == "exited 0")
        let log = session.daemonLog
        #expect(log.contains("the kernel dropped events 1 time(s)"), "\(log)")
        let text = try String(contentsOfFile: output, encoding: .utf8)
        let mark = try #require(text.range(of: "# SYN_DROPPED at "), "\(text.prefix(3000))")
        // What libevdev read back follows the mark: the emulated device's key
        // state (EVIOCGKEY, a fixed answer) has no finger down, so BTN_TOUCH 0.
        let after = text[mark.upperBound...].split(separator: "\n").dropFirst()
            .prefix(while: { !$0.contains("SYN_REPORT") })
        #expect(after.contains { $0.contains("# EV_KEY / BTN_TOUCH 0") }, "\(after)")
        let replay = try runGestured(["replay", "--format", "summary", output])
        #expect(replay.status == 0, "\(replay.err)")
    }
}
