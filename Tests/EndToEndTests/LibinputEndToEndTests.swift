import Foundation
import GestureCore
import Harness
import Testing

/// The real `gestured` binary on the real libinput: touchscreens emulated by
/// umockdev, traces from Recordings/ written into them frame by frame, a
/// socket client checking what the daemon publishes.
@Suite("End to end through libinput (umockdev)", .serialized, .requires(.umockdev))
struct LibinputEndToEndTests {
    static func recording(_ name: String) throws -> (path: String, device: DeviceDescription) {
        let path = BuildProducts.packageRoot + "/Recordings/" + name
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (path, try EvemuReader.parseDescription(text, file: path))
    }

    @Test(
        "a trace written into an emulated touchscreen gives the gestures of its .expect",
        arguments: [
            "tap-1f.phone.evemu", "double-tap-1f.phone.evemu", "hold-1f.tablet.evemu", "swipe-left-1f.tablet.evemu",
            "pinch-close-2f.phone.evemu", "two-finger-drag.phone.evemu",
        ])
    func replayThroughLibinput(name: String) throws {
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
        #expect(got == (try DaemonProcess.expected(name)), "daemon log:\n\(session.daemonLog)")
        #expect(try session.command("stop") == "exited 0")
        // Every release of pages worked (docs/cost.md, "Memory"): the first, before the
        // arguments are parsed, must not leave a descriptor that closing what was inherited takes.
        let log = session.daemonLog
        #expect(log.contains("pages given back after start-up") && !log.contains("pages kept"), "daemon log:\n\(log)")
    }

    /// Starts the daemon on the udev backend (seat0) in a fresh testbed and
    /// waits for READY=1. It stays root when started as root: only root may
    /// open the testbed's device nodes, which come later (hotplug).
    static func seatDaemon(_ session: UmockdevSession, extra: [String] = []) throws {
        try session.startDaemon(["serve", "--socket", session.socket, "--seat", "seat0", "-v", "--user", "root"] + extra)
        _ = try session.notify.wait(for: "READY=1", timeout: 10)
    }

    @Test("hotplug on the udev backend: added, a drag under way, removed: the drag ends cancelled")
    func hotplugAndRemovalMidGesture() throws {
        let (path, device) = try Self.recording("slow-drag-right.tablet.evemu")
        let session = try UmockdevSession()
        try Self.seatDaemon(session)
        let client = try SocketClient(path: session.socket)
        let hello = try client.next()
        #expect((hello?["devices"] as? [Any])?.isEmpty == true)
        // With no touchscreen the daemon says where to look.
        var waited = 0
        while !session.daemonLog.contains("no touchscreen yet") && waited < 50 {
            usleep(100_000)
            waited += 1
        }
        #expect(session.daemonLog.contains("no touchscreen yet: one plugged in is used at once. `gestured devices -v`"))
        // Nor what it cannot make: the testbed has no /dev/uinput, so it
        // says at start what that costs and how to load the module.
        waited = 0
        while !session.daemonLog.contains("no touchscreen is claimed") && waited < 50 {
            usleep(100_000)
            waited += 1
        }
        #expect(
            session.daemonLog.contains(
                "there is no /dev/uinput (No such file or directory); load the module: sudo modprobe uinput"),
            "\(session.daemonLog)")
        #expect(
            session.daemonLog.contains(
                "Until it can, no touchscreen is claimed and no key, click or virtual touchpad can be made"))
        try client.send(#"{"type":"subscribe"}"#)
        _ = try client.read(until: "subscribed")

        let screen = EmulatedTouchscreen(device, number: 3)
        try session.add(screen, uevent: true)
        let added: [String: Any]
        do { added = try client.read(until: "device_added").message } catch {
            Issue.record("log: \(session.daemonLog)")
            throw error
        }
        #expect(added["device"] as? String == device.name && added["node"] as? String == screen.devnode)
        #expect(added["size_source"] as? String == "resolution")
        try session.command("waitopen \(screen.devnode) 5000")

        // Half the drag, then the device goes.
        try session.command("replay \(screen.devnode) \(path) 600", timeout: 30)
        let began = try client.read(until: "gesture").message
        #expect(began["gesture"] as? String == "drag" && began["phase"] as? String == "began")
        try session.command("remove \(screen.syspath)")
        let (removed, before) = try client.read(until: "device_removed")
        #expect(removed["node"] as? String == screen.devnode)
        let last = before.last { $0["type"] as? String == "gesture" }
        #expect(last?["phase"] as? String == "cancelled" && last?["gesture"] as? String == "drag", "\(before)")
        #expect(!before.contains { $0["phase"] as? String == "ended" })
        #expect(try session.command("stop") == "exited 0")
    }

    @Test("1 and 100 subscribers through libinput each get every event (latency and start-up time printed, not asserted)")
    func manySubscribers() throws {
        let names = ["tap-1f.phone.evemu", "hold-then-drag.phone.evemu", "double-tap-1f.phone.evemu"]
        let (_, device) = try Self.recording(names[0])
        let session = try UmockdevSession()
        let screen = EmulatedTouchscreen(device, number: 9)
        try session.add(screen)
        // One user holding 101 connections: more than its default share of the slots.
        let config = session.directory + "/many.toml"
        try "[daemon]\nmax-clients-per-user = 128\n".write(toFile: config, atomically: true, encoding: .utf8)
        let started = Date()
        try session.startDaemon(["serve", "--socket", session.socket, "--device", screen.devnode, "--config", config])
        _ = try session.notify.wait(for: "READY=1", timeout: 10)
        let ready = Date().timeIntervalSince(started) * 1000
        print("through libinput: start to READY=1 \(Int(ready)) ms (\(BuildProducts.gestured), under umockdev's preload)")
        try session.command("waitopen \(screen.devnode) 5000")
        let reference = try SocketClient(path: session.socket)
        try reference.subscribe()
        var expected: [String] = []
        for name in names { expected += try DaemonProcess.expected(name) }
        func play() throws {
            for name in names {
                let (path, _) = try Self.recording(name)
                try session.command("replay \(screen.devnode) \(path)", timeout: 30)
            }
        }
        // How many events the recordings give, read by the reference client alone first.
        try play()
        let alone = try reference.gestures(quiet: 0.8)
        #expect(summarize(alone) == expected)
        var wanted = alone.count
        for n in [1, 100] {
            // A hold's timer falls before or after a frame depending on how
            // the emulated device's writes are timed, giving a `changed` more
            // or less than the play before: such a play cannot be compared
            // with the number the monitor waited for, and is played again
            // with the monitor waiting for the number this play gave.
            var compared = false
            for attempt in 1...4 where !compared {
                // --count: the monitor ends once each of its connections has every
                // event, however long a loaded machine (the sanitizers) takes to
                // read them; one that never comes is the timeout below.
                let monitor = try Child(
                    [
                        BuildProducts.gestured, "monitor", "--socket", session.socket, "--connections", "\(n)", "--latency",
                        "--quiet", "--count", "\(wanted)",
                    ])
                _ = try session.notify.wait(
                    for: "STATUS=1 touchscreen(s), \(n + 1) subscriber(s), \(n + 1) client(s)", timeout: 20)
                try play()
                let events = try reference.gestures(quiet: 0.8)
                #expect(summarize(events) == expected)
                guard events.count == wanted else {
                    print(
                        "play \(attempt) with \(n) subscriber(s): \(events.count) events against \(wanted) waited for; played again"
                    )
                    wanted = events.count
                    monitor.signal(SIGTERM)
                    _ = try monitor.finish(timeout: 20)
                    continue
                }
                compared = true
                let report = try monitor.finish(timeout: 60).out
                // Every subscriber received every event the reference client did.
                let over = n == 1 ? "\(events.count) events" : "\(n * events.count) deliveries on \(n) connections"
                #expect(report.contains("latency over \(over)"), "\(report)")
                print("through libinput, \(n) subscriber(s), \(events.count) events each:\n" + report)
            }
            #expect(compared, "four plays with \(n) subscriber(s) each gave another number of events than the play before")
        }
        #expect(try session.command("stop") == "exited 0")
    }

    @Test(
        "a touchscreen plugged in while the daemon is at its descriptor limit: the log says it is out of file descriptors and what to do, not \"Permission denied\"; the daemon serves on"
    )
    func touchscreenAtDescriptorLimit() throws {
        let (_, device) = try Self.recording("tap-1f.phone.evemu")
        let session = try UmockdevSession()
        let started = try session.command(
            "start \(session.log) \(BuildProducts.gestured) serve --socket \(session.socket) --seat seat0 -v --user root")
        _ = try session.notify.wait(for: "READY=1", timeout: 10)
        let pid = try #require(Int32(started.split(separator: " ").last ?? ""), "\(started)")
        // As many descriptors as it has open now, and no more (as a limit lowered under it would leave it).
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        let limited = try Child.run(["/usr/bin/prlimit", "--pid", "\(pid)", "--nofile=\(open):"], timeout: 20)
        #expect(limited.status == 0, "\(limited.err)")
        let screen = EmulatedTouchscreen(device, number: 4)
        try session.add(screen, uevent: true)
        var waited = 0
        while !session.daemonLog.contains("out of file descriptors") && waited < 100 {
            usleep(100_000)
            waited += 1
        }
        let log = session.daemonLog
        #expect(log.contains("cannot open \(screen.devnode): out of file descriptors"), "\(log)")
        #expect(log.contains("raise LimitNOFILE="), "\(log)")
        #expect(!log.contains("Permission denied"), "\(log)")
        // A client meanwhile is told, and the listener rests.
        let early = try SocketClient(path: session.socket)
        let busy = try early.next()
        #expect(busy?["code"] as? String == "busy", "\(String(describing: busy))")
        // Room again, with no client to go: within a second it serves as before.
        let raised = try Child.run(["/usr/bin/prlimit", "--pid", "\(pid)", "--nofile=256:"], timeout: 20)
        #expect(raised.status == 0, "\(raised.err)")
        let client = try SocketClient(path: session.socket)
        let hello = try client.next()
        #expect(hello?["type"] as? String == "hello", "\(String(describing: hello)) \(session.daemonLog)")
        #expect(try session.command("stop") == "exited 0")
    }

    @Test("open_restricted refuses a keyboard on the seat; the touchscreen beside it works")
    func keyboardIsRefused() throws {
        let (path, device) = try Self.recording("tap-1f.phone.evemu")
        let session = try UmockdevSession()
        let keyboard = EmulatedTouchscreen.keyboard(number: 2)
        let screen = EmulatedTouchscreen(device, number: 5)
        try session.add(keyboard)
        try session.add(screen)
        try Self.seatDaemon(session)
        let client = try SocketClient(path: session.socket)
        let hello = try client.next()
        let devices = (hello?["devices"] as? [[String: Any]]) ?? []
        #expect(devices.map { $0["node"] as? String } == [screen.devnode])
        try client.send(#"{"type":"subscribe","gestures":["tap"]}"#)
        _ = try client.read(until: "subscribed")
        try session.command("waitopen \(screen.devnode) 5000")
        try session.command("replay \(screen.devnode) \(path)", timeout: 30)
        #expect(summarize(try client.gestures(quiet: 0.5)) == ["tap fingers=1"])
        #expect(try session.command("stop") == "exited 0")
        let log = session.daemonLog
        #expect(log.contains("refused \(keyboard.devnode) (Emulated Keyboard): not a touchscreen"), "\(log)")
        #expect(!log.contains("added Emulated Keyboard"))
    }

    @Test(
        "a tablet-mode switch on the seat is read through libinput: subscribers at the screen are told context tablet_mode true, then false; a switch that also has keys is never opened"
    )
    func tabletModeSwitch() throws {
        let (path, device) = try Self.recording("tap-1f.phone.evemu")
        let session = try UmockdevSession()
        let tablet = EmulatedTouchscreen.tabletModeSwitch(number: 6)
        var withKeys = EmulatedTouchscreen.tabletModeSwitch(number: 8)
        withKeys.description.name = "Emulated Buttons With Switch"
        withKeys.description.codes[Evdev.EV_KEY] = [114, 115]  // KEY_VOLUMEDOWN, KEY_VOLUMEUP
        let screen = EmulatedTouchscreen(device, number: 5)
        try session.add(tablet)
        try session.add(withKeys)
        try session.add(screen)
        try Self.seatDaemon(session)
        let client = try SocketClient(path: session.socket)
        let hello = try client.next()
        #expect(((hello?["devices"] as? [[String: Any]]) ?? []).map { $0["node"] as? String } == [screen.devnode])
        try client.send(#"{"type":"subscribe","gestures":["tap"]}"#)
        _ = try client.read(until: "subscribed")
        #expect(try client.read(until: "context").message["tablet_mode"] as? Bool == false)
        try session.command("waitopen \(tablet.devnode) 5000")
        // The switch turns on, a tap, the switch turns off.
        let toggles = session.directory + "/tablet-mode.evemu"
        try """
        E: 0.000000 0005 0001 0001
        E: 0.000000 0000 0000 0000
        """.write(toFile: toggles, atomically: true, encoding: .utf8)
        try session.command("replay \(tablet.devnode) \(toggles)", timeout: 30)
        #expect(try client.read(until: "context").message["tablet_mode"] as? Bool == true)
        try session.command("waitopen \(screen.devnode) 5000")
        try session.command("replay \(screen.devnode) \(path)", timeout: 30)
        #expect(try client.read(until: "gesture").message["gesture"] as? String == "tap")
        try """
        E: 0.000000 0005 0001 0000
        E: 0.000000 0000 0000 0000
        """.write(toFile: toggles, atomically: true, encoding: .utf8)
        try session.command("replay \(tablet.devnode) \(toggles)", timeout: 30)
        #expect(try client.read(until: "context").message["tablet_mode"] as? Bool == false)
        #expect(try session.command("stop") == "exited 0")
        let log = session.daemonLog
        #expect(log.contains("tablet-mode switch: Emulated Tablet Mode Switch (\(tablet.devnode))"), "\(log)")
        #expect(log.contains("tablet mode: on") && log.contains("tablet mode: off"), "\(log)")
        #expect(log.contains("refused \(withKeys.devnode) (Emulated Buttons With Switch): not a touchscreen"), "\(log)")
    }

    @Test("rotation = 90 in the configuration turns libinput's calibration matrix: a leftward swipe comes out up")
    func rotationThroughCalibration() throws {
        let (path, device) = try Self.recording("swipe-left-1f.tablet.evemu")
        let session = try UmockdevSession()
        let config = session.directory + "/rotated.toml"
        try "[[device]]\nmatch = \"\(device.name)\"\nrotation = 90\n".write(toFile: config, atomically: true, encoding: .utf8)
        let screen = EmulatedTouchscreen(device, number: 4)
        try session.add(screen)
        try session.startDaemon(["serve", "--socket", session.socket, "--device", screen.devnode, "--config", config])
        _ = try session.notify.wait(for: "READY=1", timeout: 10)
        let client = try SocketClient(path: session.socket)
        let hello = try client.next()
        let info = (hello?["devices"] as? [[String: Any]])?.first
        #expect(info?["rotation"] as? Int == 90)
        // The panel's height is now the screen's width.
        let w = info?["width_mm"] as? Double ?? 0
        let h = info?["height_mm"] as? Double ?? 0
        #expect(w < h, "\(String(describing: info))")
        try client.send(#"{"type":"subscribe","gestures":["swipe"]}"#)
        _ = try client.read(until: "subscribed")
        try session.command("waitopen \(screen.devnode) 5000")
        try session.command("replay \(screen.devnode) \(path)", timeout: 30)
        #expect(summarize(try client.gestures(quiet: 0.5)) == ["swipe fingers=1 direction=up"])
        #expect(try session.command("stop") == "exited 0")
    }

    @Test("gestured devices lists the seat's touchscreens with size and source, and not the keyboard")
    func devicesCommand() throws {
        let (_, phone) = try Self.recording("tap-1f.phone.evemu")
        let (_, laptop) = try Self.recording("tap-3f.laptop.evemu")
        let session = try UmockdevSession()
        try session.add(EmulatedTouchscreen(phone, number: 6))
        try session.add(EmulatedTouchscreen(laptop, number: 8))
        try session.add(EmulatedTouchscreen.keyboard(number: 1))
        try session.startDaemon(["devices", "--json"])
        var lines: [String] = []
        for _ in 0..<100 where lines.count < 2 {
            usleep(50_000)
            lines = session.daemonLog.split(separator: "\n").map(String.init).filter { $0.hasPrefix("{") }
        }
        // `devices` ends by itself once it has listed them: wait for that (a
        // SIGTERM sent as the lines appear could meet it before it is done).
        let waited = Int(10_000 * Timing.scale)
        #expect(try session.command("wait \(waited)", timeout: 15) == "exited 0", "\(session.daemonLog)")
        let devices = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        #expect(devices.map { $0["node"] as? String } == ["/dev/input/event6", "/dev/input/event8"], "\(session.daemonLog)")
        #expect(devices.first?["size_source"] as? String == "resolution")
        // The laptop panel reports no resolution and there is no display: the fallback, with a warning.
        #expect(devices.last?["size_source"] as? String == "fallback")
        #expect(session.daemonLog.contains("no size known"), "\(session.daemonLog)")
    }
}
