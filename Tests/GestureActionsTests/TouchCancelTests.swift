import Foundation
import GestureActions
import GestureCore
import GestureProtocol
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// How act tells whether the compositor passes libinput's touch cancel on
/// to apps (`TouchCancel`), and what it asks the daemon for then.
@Suite("act and the compositor's touch cancel")
struct TouchCancelTests {
    typealias C = TouchCancel.Compositor

    @Test(
        "by the compositor: sway before 1.9, weston and GNOME Shell drop it, sway 1.9 and later and the others pass it on; an unknown sway version is taken as dropping; the setting wins"
    )
    func decisions() {
        let auto = TouchCancel.auto
        #expect(auto.decide(for: C(name: "sway", version: (1, 7))).dropped)
        #expect(auto.decide(for: C(name: "sway", version: (1, 8))).dropped)
        #expect(!auto.decide(for: C(name: "sway", version: (1, 9))).dropped)
        #expect(!auto.decide(for: C(name: "sway", version: (1, 10))).dropped)
        #expect(!auto.decide(for: C(name: "sway", version: (2, 0))).dropped)
        #expect(auto.decide(for: C(name: "sway")).dropped)
        #expect(auto.decide(for: C(name: "weston")).dropped)
        #expect(
            auto.decide(for: C(name: "gnome-shell")).why == "dropped by gnome-shell: first touches held back, ended by a lift")
        for name in ["kwin_wayland", "phoc", "labwc", "Hyprland", "niri"] {
            #expect(!auto.decide(for: C(name: name)).dropped, "\(name)")
        }
        let unknown = auto.decide(for: nil)
        #expect(!unknown.dropped && !unknown.known)
        #expect(auto.decide(for: C(name: "sway", version: (1, 7))).why.contains("sway 1.7 (it passes it on since 1.9)"))
        #expect(TouchCancel.dropped.decide(for: C(name: "sway", version: (1, 10))).dropped)
        #expect(!TouchCancel.passedOn.decide(for: C(name: "weston")).dropped)
        #expect(TouchCancel.passedOn.decide(for: nil).known)
    }

    @Test("the plan carries it to every claim, and the request says it only while something is claimed")
    func planCarriesIt() throws {
        let bindings = try BindingsReader.read(
            bytes: Array(
                """
                [[bind]]
                gesture = "swipe"
                fingers = 3
                run = ["true"]

                [[bind]]
                gesture = "swipe"
                fingers = 4
                when = { output = "eDP-1" }
                run = ["true"]
                """.utf8), file: "a.toml")
        let plan = ClaimPlan(
            bindings, in: Binding.Context(), ContextSettings(), screens: [("/dev/input/event5", "eDP-1")],
            cancelDropped: true)
        #expect(plan.everywhere == ClaimSet(fingers: [3], cancelDropped: true))
        #expect(plan.on.map(\.set) == [ClaimSet(fingers: [4], cancelDropped: true)])
        let line = Subscription.line(for: bindings, claims: plan)
        #expect(line.contains(#""cancel_dropped":true"#), "\(line)")
        let none = ClaimPlan(
            bindings, in: Binding.Context(), ContextSettings(), screens: [], cancelDropped: false)
        #expect(!Subscription.line(for: bindings, claims: none).contains("cancel_dropped"))
    }

    @Test(
        "act tells from the compositor: sway's version from its IPC, or sway as the process serving the Wayland socket; [context] touch-cancel says otherwise; act --context ends its line with it",
        .requires(HeadlessSway.requirement))
    func underSway() throws {
        let sway = try HeadlessSway()
        let version = try Child.run(
            HeadlessSway.command(
                ["/usr/bin/swaymsg", "-t", "get_version", "-r"], as: sway.uid,
                environment: sway.clientEnvironment.merging(["SWAYSOCK": sway.ipcSocket]) { $1 }), timeout: 20)
        let reply = try #require(
            try JSONSerialization.jsonObject(with: Data(version.out.utf8)) as? [String: Any], "\(version.out)")
        let (major, minor) = (try #require(reply["major"] as? Int), try #require(reply["minor"] as? Int))
        let drops = (major, minor) < (1, 9)
        func context(_ setting: String?, swaysock: Bool, expect: String) throws {
            let path = sway.scratch + "/actions-\(setting ?? "auto")-\(swaysock).toml"
            try
                ((setting.map { "[context]\ntouch-cancel = \"\($0)\"\n\n" } ?? "")
                + "[[bind]]\ngesture = \"swipe\"\nfingers = 3\nrun = [\"true\"]\n")
                .write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o644)
            if let uid = sway.uid, uid != geteuid() {
                _ = try Child.run(Requirement.asRoot(["/bin/chown", "\(uid):\(uid)", path]), timeout: 20)
            }
            var environment = sway.clientEnvironment
            if swaysock { environment["SWAYSOCK"] = sway.ipcSocket }
            let out = path + ".context"
            let watch = try Child(
                HeadlessSway.command(
                    [BuildProducts.gestured, "act", "--context", "--config", path, "--socket", "/nonexistent"], as: sway.uid,
                    environment: environment), stdout: .file(out), stderr: .null)
            defer { watch.signal(SIGTERM) }
            let said = { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }
            try ActFocusTests.wait(for: expect, in: said, log: { "act --context: \(said())\nsway: \(sway.log.suffix(1500))" })
            #expect(said().contains("claiming 3 fingers on claimed touchscreens; touch cancels "), "\(said())")
        }
        try context(
            nil, swaysock: true,
            expect: drops
                ? "touch cancels dropped by sway \(major).\(minor) (it passes it on since 1.9): first touches held back, ended by a lift"
                : "touch cancels passed on to apps by sway \(major).\(minor)")
        try context(
            nil, swaysock: false,
            expect:
                "touch cancels taken as dropped by sway of a version act cannot tell (it passes it on since 1.9): first touches held back, ended by a lift"
        )
        try context(
            "passed-on", swaysock: true, expect: "touch cancels passed on to apps ([context] touch-cancel = \"passed-on\")")
    }
}
