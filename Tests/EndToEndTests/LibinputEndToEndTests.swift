import Foundation
import GestureCore
import Harness
import Testing

/// The real `gestured` binary on the real libinput: touchscreens emulated by
/// umockdev, traces from Recordings/ written into them frame by frame, a
/// socket client checking what the daemon publishes.
@Suite("End to end through libinput (umockdev)", .serialized)
struct LibinputEndToEndTests {
    /// Fails in CI, skips elsewhere, when the harness cannot run.
    static func harnessOrSkip() throws -> Bool {
        guard let why = UmockdevSession.unavailable else { return true }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            Issue.record("end-to-end tests cannot run in CI: \(why)")
        } else {
            print("skipped outside CI: \(why)")
        }
        return false
    }

    static func recording(_ name: String) throws -> (path: String, device: DeviceDescription) {
        let path = BuildProducts.packageRoot + "/Recordings/" + name
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (path, try EvemuReader.parseDescription(text, file: path))
    }

    static func expected(_ name: String) throws -> [String] {
        let path = BuildProducts.packageRoot + "/Recordings/" + name.replacingOccurrences(of: ".evemu", with: ".expect")
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }

    @Test(
        "a trace written into an emulated touchscreen gives the gestures of its .expect",
        arguments: [
            "tap-1f.phone.evemu", "double-tap-1f.phone.evemu", "hold-1f.tablet.evemu", "swipe-left-1f.tablet.evemu",
            "pinch-close-2f.phone.evemu", "two-finger-drag.phone.evemu",
        ])
    func replayThroughLibinput(name: String) throws {
        guard try Self.harnessOrSkip() else { return }
        let (path, device) = try Self.recording(name)
        let session = try UmockdevSession()
        let screen = EmulatedTouchscreen(device, number: 7)
        try session.add(screen)
        try session.startDaemon(["serve", "--socket", session.socket, "--device", screen.devnode, "-v"])
        _ = try session.notify.wait(for: "READY=1", timeout: 10)
        try session.command("waitopen \(screen.devnode) 5000")
        let client = try SocketClient(path: session.socket)
        try client.subscribe()
        try session.command("replay \(screen.devnode) \(path)", timeout: 30)
        let events = try client.gestures(quiet: 0.8)
        let got = summarize(events)
        #expect(got == (try Self.expected(name)), "daemon log:\n\(session.daemonLog)")
        print("E2E \(name): \(got) \(events.count) events; log:\n\(session.daemonLog)")
        #expect(try session.command("stop") == "exited 0")
    }
}
