import Foundation
import Testing

/// A real compositor on claimed touchscreens (scripts/kernel-guest-compositor.sh;
/// docs/claiming.md, "When the compositor drops the cancel"): Debian 12's
/// sway reads the guest's devices through libinput from seatd (then the
/// Debian 13 root's sway 1.10, and its KWin 6.3 and GNOME Shell 48 on
/// virtio-gpu with their seat from a played logind), wev is the app under
/// the fingers (filling the output; on GNOME a centred window), and
/// `gestured act` beside them claims a three-finger swipe bound to a key
/// and a still hold bound to a right click. What wev printed is the app's
/// own view.
extension KernelTests {
    /// What wev saw of a scenario: its touches by id (each down, and
    /// whether an up or a cancel ended it), its keys and its pointer
    /// buttons. wev binds a new `wl_touch`, `wl_keyboard` and `wl_pointer`
    /// at each change of the seat's devices, so an event may come once per
    /// object: events are taken once per serial. A cancel has none (sway
    /// sends one for each touch it had passed on): each ends every touch.
    struct AppView: CustomStringConvertible {
        var downs = 0
        var ups = 0
        var cancels = 0
        /// Touch ids that went down and were never ended.
        var open: Set<Int> = []
        /// Where touches went down, px.
        var landed: [(x: Double, y: Double)] = []
        /// "a pressed", "a released", in order.
        var keys: [String] = []
        /// "273 pressed", …, in order, and where the pointer was at each press.
        var buttons: [String] = []
        var pressedAt: [(x: Double, y: Double)] = []
        /// Each event's kind in order: "touch-down", "touch-up", "touch-cancel", "button".
        var order: [String] = []

        var description: String {
            "\(downs) down, \(ups) up, \(cancels) cancel, open \(open.sorted()); keys \(keys); buttons \(buttons)"
        }

        init(_ text: String) {
            var serials: Set<Int> = []
            var pointer: (x: Double, y: Double)?
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (i, line) in lines.enumerated() {
                // "[14:        wl_touch] down: serial: 12; time: 5; surface: 3; id: 0; x, y: 1.0, 2.0"
                guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { continue }
                let head = line[..<close]
                let body = line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)
                // The event's fields, after its name: "serial: 12", "x, y: 1.0, 2.0".
                let fields = (body.range(of: ": ").map { String(body[$0.upperBound...]) } ?? "").components(
                    separatedBy: "; ")
                func field(_ name: String) -> String? {
                    fields.first { $0.hasPrefix(name + ": ") }.map { String($0.dropFirst(name.count + 2)) }
                }
                let number = { (name: String) in field(name).flatMap { Int($0.split(separator: " ").first ?? "") } }
                // wev joins "x, y" to the field before it in `enter`
                // ("surface: 3, x, y: 1.0, 2.0"): taken from wherever it is.
                let point = { () -> (x: Double, y: Double)? in
                    guard let at = body.range(of: "x, y: ") else { return nil }
                    let xy = body[at.upperBound...].prefix { $0 != ";" }.split(separator: ",").compactMap {
                        Double($0.trimmingCharacters(in: .whitespaces))
                    }
                    return xy.count == 2 ? (xy[0], xy[1]) : nil
                }
                if let serial = number("serial") {
                    guard serials.insert(serial).inserted else { continue }
                }
                let pressed = body.contains("(pressed)") ? "pressed" : "released"
                if head.hasSuffix("wl_touch") {
                    if body.hasPrefix("down:"), let id = number("id") {
                        downs += 1
                        open.insert(id)
                        if let p = point() { landed.append(p) }
                        order.append("touch-down")
                    } else if body.hasPrefix("up:"), let id = number("id") {
                        ups += 1
                        open.remove(id)
                        order.append("touch-up")
                    } else if body.hasPrefix("cancel") {
                        cancels += 1
                        open.removeAll()
                        order.append("touch-cancel")
                    }
                } else if head.hasSuffix("wl_keyboard"), body.hasPrefix("key:"), i + 1 < lines.count {
                    // The next line: "sym: a            (97), utf8: 'a'".
                    let sym = lines[i + 1].trimmingCharacters(in: .whitespaces)
                    let name = sym.hasPrefix("sym: ") ? String(sym.dropFirst(5).split(separator: " ").first ?? "?") : "?"
                    keys.append("\(name) \(pressed)")
                } else if head.hasSuffix("wl_pointer") {
                    if body.hasPrefix("motion:") || body.hasPrefix("enter:"), let p = point() {
                        pointer = p
                    } else if body.hasPrefix("button:"), let button = number("button") {
                        buttons.append("\(button) \(pressed)")
                        if pressed == "pressed", let pointer { pressedAt.append(pointer) }
                        order.append("button")
                    }
                }
            }
        }
    }

    /// Whether the guest ran compositor C of the Debian 13 root ("sway13",
    /// "kwin13", "gnome13"); a failure saying why not if it did not.
    static func ran(_ run: KernelRun, _ c: String) -> Bool {
        guard let missing = run.files["compositor-\(c)-missing"] else { return true }
        Issue.record("the guest ran no \(c): \(missing)")
        return false
    }

    static func compositorFile(_ run: KernelRun, _ name: String) throws -> String {
        if let missing = run.files["compositor-missing"] { Issue.record("the guest ran no compositor: \(missing)") }
        return try #require(run.files["compositor-" + name], "the guest wrote no compositor-\(name)")
    }

    /// The right button where the finger is: within 1 mm (the tablet
    /// panel's 216 mm span the output's 1280 px).
    static func clickUnderTheFinger(_ hold: AppView) {
        let mm = 1280.0 / 216
        guard let finger = hold.landed.first, let click = hold.pressedAt.first else {
            Issue.record("no landing or no press seen: \(hold)")
            return
        }
        #expect(abs(click.x - finger.x) <= mm && abs(click.y - finger.y) <= mm, "finger \(finger), click \(click)")
    }

    @Test(
        "Debian 12's sway on the guest's devices, wev the app under the fingers: act finds sway 1.7 drops the touch cancel; a claimed three-finger swipe never reaches the app and its key does; a tap arrives whole; a still hold ends with a lift, then the right button there; no touch is ever left open"
    )
    func realCompositorEndsEveryTouch() throws {
        let run = try Self.run()
        #expect(try Self.compositorFile(run, "status").contains("done"), "\(run.files["guest.log"] ?? "")")
        let version = try Self.compositorFile(run, "sway12-version.json")
        let act = try Self.compositorFile(run, "sway12-act.log")
        #expect(act.contains("touch cancels: dropped by sway 1.7 (it passes it on since 1.9)"), "\(act)\n\(version)")

        try Self.expectEveryTouchEnded(run, "sway12")
    }

    /// What wev saw under compositor C (one that drops the cancel, with
    /// act's fallback): the claimed swipe never reaches it and its key
    /// does; a tap arrives whole; a claimed hold ends with a lift, then the
    /// right button comes where the finger was; no touch is left open.
    static func expectEveryTouchEnded(_ run: KernelRun, _ c: String) throws {
        let swipe = AppView(try compositorFile(run, "\(c)-swipe-wev.log"))
        #expect(swipe.downs == 0 && swipe.open.isEmpty, "\(c): the claimed swipe reached the app: \(swipe)")
        #expect(swipe.keys == ["a pressed", "a released"], "\(c): the swipe's key \"a\": \(swipe.keys)")

        let tap = AppView(try compositorFile(run, "\(c)-tap-wev.log"))
        #expect(tap.downs == 1 && tap.ups == 1 && tap.cancels == 0 && tap.open.isEmpty, "\(c): \(tap)")
        #expect(tap.keys.isEmpty && tap.buttons.isEmpty, "\(c): \(tap)")

        let hold = AppView(try compositorFile(run, "\(c)-hold-wev.log"))
        #expect(hold.downs == 1 && hold.ups == 1 && hold.cancels == 0 && hold.open.isEmpty, "\(c): \(hold)")
        #expect(hold.buttons == ["273 pressed", "273 released"], "\(c): \(hold.buttons)")
        #expect(
            hold.order.firstIndex(of: "touch-up") ?? .max < hold.order.firstIndex(of: "button") ?? -1,
            "\(c): \(hold.order)")
        clickUnderTheFinger(hold)
    }

    @Test(
        "the same sway with act told it passes the cancel on: the swipe's first touches reach wev and never end, no up and no cancel: what the fallback is for"
    )
    func realCompositorDropsTheCancel() throws {
        let run = try Self.run()
        try Self.expectTouchesLeftOpen(run, "sway12")
    }

    /// What wev saw under compositor C with act told that C passes the
    /// cancel on (`C-passed-act.log`, `C-swipe-passed-wev.log`): the claimed
    /// swipe's first touches reach wev and never end, no up and no cancel;
    /// its key arrives.
    static func expectTouchesLeftOpen(_ run: KernelRun, _ c: String) throws {
        let act = try compositorFile(run, "\(c)-passed-act.log")
        #expect(act.contains("touch cancels: passed on to apps ([context] touch-cancel = \"passed-on\")"), "\(c): \(act)")
        let swipe = AppView(try compositorFile(run, "\(c)-swipe-passed-wev.log"))
        #expect(swipe.downs >= 1 && swipe.ups == 0 && swipe.cancels == 0, "\(c): \(swipe)")
        #expect(!swipe.open.isEmpty, "\(c): \(swipe)")
        #expect(swipe.keys == ["a pressed", "a released"], "\(c): \(swipe.keys)")
    }

    /// What wev saw under compositor C (one that passes the cancel on):
    /// the claimed swipe's first touches end in a cancel and its key
    /// arrives; a tap arrives whole; a claimed hold is cancelled, then the
    /// right button comes where the finger was; no touch is left open.
    static func expectCancelsPassedOn(_ run: KernelRun, _ c: String) throws {
        let swipe = AppView(try compositorFile(run, "\(c)-swipe-wev.log"))
        #expect(swipe.downs >= 1 && swipe.ups == 0 && swipe.cancels >= 1 && swipe.open.isEmpty, "\(c): \(swipe)")
        #expect(swipe.keys == ["a pressed", "a released"], "\(c): the swipe's key \"a\": \(swipe.keys)")

        let tap = AppView(try compositorFile(run, "\(c)-tap-wev.log"))
        #expect(tap.downs == 1 && tap.ups == 1 && tap.cancels == 0 && tap.open.isEmpty, "\(c): \(tap)")

        let hold = AppView(try compositorFile(run, "\(c)-hold-wev.log"))
        #expect(hold.downs == 1 && hold.ups == 0 && hold.cancels >= 1 && hold.open.isEmpty, "\(c): \(hold)")
        #expect(hold.buttons == ["273 pressed", "273 released"], "\(c): \(hold.buttons)")
        #expect(
            hold.order.firstIndex(of: "touch-cancel") ?? .max < hold.order.firstIndex(of: "button") ?? -1,
            "\(c): \(hold.order)")
        clickUnderTheFinger(hold)
    }

    @Test(
        "Debian 13's sway 1.10 on the guest's devices: act finds it passes the cancel on; the claimed swipe's first touches reach wev and end in wl_touch.cancel, its key arrives; a tap arrives whole; a still hold is cancelled, then the right button there; no touch is ever left open"
    )
    func realCompositorPassesTheCancel() throws {
        let run = try Self.run()
        guard Self.ran(run, "sway13") else { return }
        let version = try Self.compositorFile(run, "sway13-version.json")
        let act = try Self.compositorFile(run, "sway13-act.log")
        #expect(act.contains("touch cancels: passed on to apps by sway 1.10"), "\(act)\n\(version)")
        try Self.expectCancelsPassedOn(run, "sway13")
    }

    @Test(
        "Debian 13's KWin 6.3 on the guest's devices (its DRM backend on virtio-gpu, its seat from logind): act takes the cancel as passed on; the claimed swipe's first touches reach wev and end in wl_touch.cancel, its key arrives; a tap arrives whole; a still hold is cancelled, then the right button there; no touch is ever left open"
    )
    func realCompositorKWinPassesTheCancel() throws {
        let run = try Self.run()
        guard Self.ran(run, "kwin13") else { return }
        let version = try Self.compositorFile(run, "kwin13-version")
        #expect(version.contains("kwin 6."), "\(version)")
        let act = try Self.compositorFile(run, "kwin13-act.log")
        #expect(act.contains("touch cancels: taken as passed on to apps by kwin_wayland"), "\(act)")
        #expect(act.contains("following the focused window through KWin's scripting"), "\(act)")
        try Self.expectCancelsPassedOn(run, "kwin13")
    }

    @Test(
        "Debian 13's GNOME Shell 48 on the guest's devices (mutter's native backend on virtio-gpu, its seat from logind): act takes it as dropping the touch cancel; a claimed three-finger swipe never reaches the app and its key does; a tap arrives whole; a still hold ends with a lift, then the right button there; no touch is ever left open"
    )
    func realCompositorGNOMEEndsEveryTouch() throws {
        let run = try Self.run()
        guard Self.ran(run, "gnome13") else { return }
        let version = try Self.compositorFile(run, "gnome13-version")
        #expect(version.contains("GNOME Shell 48"), "\(version)")
        let act = try Self.compositorFile(run, "gnome13-act.log")
        #expect(act.contains("touch cancels: dropped by gnome-shell: first touches held back"), "\(act)")
        try Self.expectEveryTouchEnded(run, "gnome13")
    }

    @Test(
        "the same GNOME Shell with act told it passes the cancel on: the claimed swipe's first touches reach wev and never end, no up and no cancel: why act takes GNOME Shell as dropping it"
    )
    func realCompositorGNOMEDropsTheCancel() throws {
        let run = try Self.run()
        guard Self.ran(run, "gnome13") else { return }
        try Self.expectTouchesLeftOpen(run, "gnome13")
    }

    /// The name of the focused workspace in `swaymsg -t get_workspaces -r`'s answer.
    static func focusedWorkspace(_ json: String) -> String? {
        guard let list = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else { return nil }
        return list.first { $0["focused"] as? Bool == true }?["name"] as? String
    }

    @Test(
        "the touchpad output on sway 1.10: a claimed three-finger swipe up with touchpad = true runs sway's own `bindgesture swipe:3:up` from the daemon's virtual touchpad (workspace 1 to 2), and the app under the fingers is left no open touch"
    )
    func realCompositorFollowsTheTouchpad() throws {
        let run = try Self.run()
        guard Self.ran(run, "sway13") else { return }
        let before = try Self.compositorFile(run, "sway13-pad-before.json")
        let after = try Self.compositorFile(run, "sway13-pad-after.json")
        #expect(Self.focusedWorkspace(before) == "1", "\(before)")
        #expect(
            Self.focusedWorkspace(after) == "2",
            "sway's swipe:3:up binding did not run: \(after)\n\(run.files["compositor-sway13-pad-act.log"] ?? "")")
        let swipe = AppView(try Self.compositorFile(run, "sway13-pad-wev.log"))
        #expect(swipe.open.isEmpty && swipe.ups == 0, "\(swipe)")
    }

    @Test(
        "the touchpad output on KWin 6.3: a claimed four-finger swipe left with touchpad = true runs KWin's own desktop switch from the daemon's virtual touchpad (its current virtual desktop changes), and the app under the fingers is left no open touch"
    )
    func realCompositorKWinFollowsTheTouchpad() throws {
        let run = try Self.run()
        guard Self.ran(run, "kwin13") else { return }
        // busctl's answer: `s "ID"`, the desktop's id.
        let before = try Self.compositorFile(run, "kwin13-pad-before")
        let after = try Self.compositorFile(run, "kwin13-pad-after")
        #expect(before.hasPrefix("s \""), "KWin's current desktop before: \(before)")
        #expect(after.hasPrefix("s \""), "KWin's current desktop after: \(after)")
        #expect(
            before != after,
            "KWin's four-finger swipe did not switch desktops: \(after)\n\(run.files["compositor-kwin13-pad-act.log"] ?? "")")
        let swipe = AppView(try Self.compositorFile(run, "kwin13-pad-wev.log"))
        #expect(swipe.open.isEmpty && swipe.ups == 0, "\(swipe)")
    }

    @Test(
        "the touchpad output on GNOME Shell 48: a claimed three-finger swipe up with touchpad = true opens GNOME's overview from the daemon's virtual touchpad (org.gnome.Shell's OverviewActive from false to true), and the app under the fingers is left no open touch"
    )
    func realCompositorGNOMEFollowsTheTouchpad() throws {
        let run = try Self.run()
        guard Self.ran(run, "gnome13") else { return }
        // busctl's answer: `b false` or `b true`.
        let before = try Self.compositorFile(run, "gnome13-pad-before")
        let after = try Self.compositorFile(run, "gnome13-pad-after")
        #expect(before.hasPrefix("b false"), "GNOME's overview before: \(before)")
        #expect(
            after.hasPrefix("b true"),
            "GNOME's three-finger swipe up did not open the overview: \(after)\n\(run.files["compositor-gnome13-pad-act.log"] ?? "")"
        )
        let swipe = AppView(try Self.compositorFile(run, "gnome13-pad-wev.log"))
        #expect(swipe.open.isEmpty && swipe.ups == 0, "\(swipe)")
    }

    @Test(
        "the daemon's own absolute pointer on sway 1.7: a right click asked at (0.25, 0.75) reaches wev there (within 2 px of the output's point), pressed then released"
    )
    func realCompositorPlacesTheDaemonsPointer() throws {
        let run = try Self.run()
        let answer = try Self.compositorFile(run, "sway12-pointer.out")
        #expect(answer.contains(#""type":"clicked""#), "\(answer)")
        let view = AppView(try Self.compositorFile(run, "sway12-pointer-wev.log"))
        #expect(view.buttons == ["273 pressed", "273 released"], "\(view)")
        let at = try #require(view.pressedAt.first, "no pointer position before the press")
        #expect(abs(at.x - 320) <= 2 && abs(at.y - 540) <= 2, "\(at)")
    }
}
