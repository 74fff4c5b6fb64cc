import Foundation
import GestureActions
import GestureCore
import GestureDaemon
import GestureProtocol
import Harness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("gestured act: bindings")
struct ActTests {
    @Test("key chords: names the kernel's way, modifiers first, released in reverse; a wrong name is named")
    func chords() throws {
        let back = try Chord("alt+Left")
        #expect(back.codes == [56, 105])  // KEY_LEFTALT, KEY_LEFT
        let sequence = back.events.map { "\($0.type):\($0.code):\($0.value)" }
        #expect(sequence == ["1:56:1", "1:105:1", "0:0:0", "1:105:0", "1:56:0", "0:0:0"])
        #expect(try Chord("ctrl+shift+t").codes == [29, 42, 20])
        #expect(try Chord("super").codes == [125])
        #expect(try Chord(" ctrl + PageUp ").codes == [29, 104])
        for (text, part) in [("ctrl+nosuch", "'nosuch'"), ("alt+", "not a key chord"), ("alt+alt", "twice")] {
            #expect {
                _ = try Chord(text)
            } throws: { error in
                (error as? ChordError)?.message.contains(part) == true
            }
        }
    }

    @Test("an actions file: every field read; each mistake is an error naming file and line")
    func reading() throws {
        let text = """
            [[bind]]
            gesture = "swipe"
            fingers = [3, 4]
            direction = "up"
            edge = ["left", "bottom"]
            region = [0, 0, 0.5, 1]
            run = ["wofi", "--show", "drun"]
            timeout-ms = 2000

            [[bind]]
            gesture = "pinch"
            on-changed = ["sh", "-c", "echo $GESTURED_SCALE"]
            changed-interval-ms = 50
            """
        let b = try BindingsReader.read(text, file: "a.toml")
        #expect(b.count == 2)
        #expect(b[0].gesture == .swipe && b[0].fingers == [3, 4] && b[0].directions == [.up] && b[0].edges == [.left, .bottom])
        #expect(b[0].region == [0, 0, 0.5, 1] && b[0].run == ["wofi", "--show", "drun"] && b[0].timeout == .milliseconds(2000))
        #expect(b[0].origin == "a.toml:1" && b[1].origin == "a.toml:10")
        #expect(b[1].onChanged == ["sh", "-c", "echo $GESTURED_SCALE"] && b[1].changedInterval == .milliseconds(50))
        #expect(!b[0].whenLocked && b[0].acts(in: .init()) && !b[0].acts(in: .init(locked: true)))
        let locked = try BindingsReader.read(
            "[[bind]]\ngesture = \"tap\"\nwhen = { locked = true }\nrun = [\"x\"]\n", file: "a.toml")
        #expect(locked[0].whenLocked && locked[0].acts(in: .init(locked: true)) && !locked[0].acts(in: .init()))
        let tablet = try BindingsReader.read(
            "[[bind]]\ngesture = \"tap\"\nwhen = { tablet-mode = true }\nrun = [\"x\"]\n", file: "a.toml")
        #expect(tablet[0].acts(in: .init(tabletMode: true)) && !tablet[0].acts(in: .init()))
        #expect(!tablet[0].acts(in: .init(locked: true, tabletMode: true)))
        // As many fingers as the protocol counts.
        #expect(
            try BindingsReader.read("[[bind]]\ngesture = \"tap\"\nfingers = 16\nrun = [\"x\"]\n", file: "a.toml")[0].fingers == [
                16
            ])
        let typing = try BindingsReader.read(
            "[[bind]]\ngesture = \"tap\"\nwhen = { keyboard = true }\nrun = [\"x\"]\n[[bind]]\ngesture = \"tap\"\nwhen = { keyboard = false }\nrun = [\"x\"]\n",
            file: "a.toml")
        var hidden = Binding.Context()
        hidden.keyboardKnown = true
        // Shown: only the first; hidden, or no keyboard known: only the second.
        #expect(typing[0].acts(in: .init(keyboardShown: true)) && !typing[1].acts(in: .init(keyboardShown: true)))
        #expect(!typing[0].acts(in: hidden) && typing[1].acts(in: hidden))
        #expect(!typing[0].acts(in: .init()) && typing[1].acts(in: .init()))
        #expect(!typing[0].acts(in: .init(locked: true, keyboardShown: true)))

        let mistakes: [(String, String)] = [
            ("[[bind]]\ngesture = \"swipe\"\nrun = \"wofi\"\n", "a.toml:3: run must be a command as a list"),
            ("[[bind]]\ngesture = \"swype\"\nrun = [\"x\"]\n", "a.toml:2: gesture must be one of"),
            (
                "[[bind]]\ngesture = \"tap\"\nfinger = 2\nrun = [\"x\"]\n",
                "a.toml:3: unknown key 'finger' in [[bind]]; did you mean 'fingers'?"
            ),
            ("[[bind]]\ngesture = \"tap\"\n", "a.toml:1: [[bind]] does nothing"),
            (
                "[[bind]]\ngesture = \"swipe\"\nfingers = 17\nrun = [\"x\"]\n",
                "a.toml:3: fingers must be a number of fingers (1 to 16, as the protocol counts them)"
            ),
            ("[[bind]]\ngesture = \"tap\"\non-changed = [\"x\"]\n", "tap has no phases"),
            (
                "[[bind]]\ngesture = \"swipe\"\ndirection = \"sideways\"\nrun = [\"x\"]\n",
                "a.toml:3: 'sideways' is not a direction"
            ),
            ("[[bind]]\ngesture = \"swipe\"\nkeys = \"alt+Nope\"\n", "a.toml:3: 'Nope' in 'alt+Nope' is not a key"),
            ("[[bind]]\ngesture = \"swipe\"\nregion = [0.5, 0, 0.2, 1]\nrun = [\"x\"]\n", "a.toml:3: region must be"),
            ("[bind]\ngesture = 1\n", "'bind' must be an array of tables"),
            (
                "[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\nwhen = { locked = 1 }\n",
                "a.toml:4: when.locked must be true or false"
            ),
            (
                "[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\nwhen = { lockd = true }\n",
                "a.toml:4: unknown key 'lockd' in when; did you mean 'locked'?"
            ),
            (
                "[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\nwhen = { output = 1 }\n",
                "a.toml:4: when.output must be an output's name"
            ),
            ("[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\nwhen = { app = [] }\n", "a.toml:4: when.app must be an app"),
            (
                "[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\nwhen = { not-app = [\"\"] }\n",
                "a.toml:4: when.not-app must be an app"
            ),
            ("[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\nwhen = { title = 3 }\n", "a.toml:4: when.title must be a window title"),
            (
                "[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\nwhen = { fullscreen = \"yes\" }\n",
                "a.toml:4: when.fullscreen must be true or false"
            ),
            (
                "[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\nwhen = { keyboard = \"shown\" }\n",
                "a.toml:4: when.keyboard must be true (while an on-screen keyboard is shown) or false"
            ),
            (
                "[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\nwhen = { ap = \"x\" }\n",
                "a.toml:4: unknown key 'ap' in when; did you mean 'app'?"
            ),
            (
                "[context]\nleave-to-apps = [3]\n[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\n",
                "a.toml:2: leave-to-apps must be a list of apps"
            ),
            (
                "[context]\nleave-to = [\"krita\"]\n[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\n",
                "a.toml:2: unknown key 'leave-to' in [context]"
            ),
            (
                "[context]\ntouch-cancel = \"never\"\n[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\n",
                "a.toml:2: touch-cancel must be \"auto\""
            ),
            (
                "contxt = 1\n[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\n",
                "a.toml:1: unknown key 'contxt'; did you mean 'context'?"
            ),
            ("[[bind]]\ngesture = \"tap\"\nrun = [\"x\"]\nwhen = true\n", "a.toml:4: when must be a table"),
            ("[[bind]\n", "a.toml:1: not valid TOML"),
        ]
        for (text, message) in mistakes {
            #expect {
                _ = try BindingsReader.read(text, file: "a.toml")
            } throws: { error in
                "\(error)".contains(message)
            }
        }
    }

    @Test(
        "the focused window: when.app, not-app and title match shell patterns ignoring case, fullscreen its state; with no window known to have the focus only not-app and fullscreen = false hold; leave-to-apps silences the rest and claims nothing"
    )
    func focusedContext() throws {
        let file = try BindingsReader.readFile(
            bytes: Array(
                """
                [context]
                leave-to-apps = ["org.kde.krita", "gimp*"]

                [[bind]]
                gesture = "swipe"
                fingers = 3
                when = { app = ["firefox", "org.mozilla.*"], fullscreen = false }
                run = ["x"]

                [[bind]]
                gesture = "swipe"
                fingers = 4
                when = { not-app = "foot" }
                run = ["x"]

                [[bind]]
                gesture = "tap"
                edge = "left"
                when = { title = "*- YouTube*", fullscreen = true }
                run = ["x"]

                [[bind]]
                gesture = "swipe"
                fingers = 5
                when = { app = "GIMP-2.10" }
                run = ["x"]
                """.utf8), file: "a.toml")
        #expect(file.context?.leaveToApps == [NamePattern("org.kde.krita"), NamePattern("gimp*")])
        let b = file.bindings
        let settings = file.context ?? ContextSettings()
        func context(_ app: String?, _ title: String = "", fullscreen: Bool = false) -> Binding.Context {
            Binding.Context(focus: app.map { FocusedWindow(app: $0, title: title, fullscreen: fullscreen) }, focusKnown: true)
        }
        func acting(_ c: Binding.Context) -> [Int] { b.indices.filter { b[$0].acts(in: c, settings) } }
        #expect(acting(context("Firefox")) == [0, 1])
        #expect(acting(context("org.mozilla.firefox", fullscreen: true)) == [1])
        #expect(acting(context("foot")) == [])
        #expect(acting(context("mpv", "Song - YouTube — Mozilla", fullscreen: true)) == [1, 2])
        #expect(acting(context(nil)) == [1], "no window has the focus")
        #expect(acting(Binding.Context()) == [1], "the focus is not known")
        // An app that keeps its touches: only a binding naming it acts, and nothing is claimed.
        #expect(acting(context("org.kde.krita")) == [])
        #expect(acting(context("gimp-2.10")) == [3])
        #expect(ClaimPlan.claims(of: b, in: context("gimp-2.10"), settings) == ClaimSet())
        #expect(ClaimPlan.claims(of: b, in: context("firefox"), settings) == ClaimSet(fingers: [3, 4]))
        #expect(ClaimPlan.claims(of: b, in: context("foot"), settings) == ClaimSet())
        #expect(
            ClaimPlan.claims(of: b, in: context("x", "a - YouTube", fullscreen: true), settings)
                == ClaimSet(fingers: [4], edges: [.left]))
        #expect(b[2].summary.contains("title=\"*- YouTube*\" when fullscreen"), "\(b[2].summary)")
    }

    @Test(
        "when.output: a binding acts only on touchscreens showing a matching output; its claims go to those touchscreens alone, and the subscription says which"
    )
    func outputs() throws {
        let b = try BindingsReader.read(
            """
            [[bind]]
            gesture = "swipe"
            fingers = 3
            run = ["x"]

            [[bind]]
            gesture = "swipe"
            edge = "left"
            when = { output = ["eDP-*", "DSI-1"] }
            run = ["x"]

            [[bind]]
            gesture = "swipe"
            fingers = [3, 4]
            when = { output = "HDMI-A-1", app = "firefox" }
            run = ["x"]
            """, file: "a.toml")
        #expect(b[1].whenOutputs == [NamePattern("eDP-*"), NamePattern("DSI-1")])
        #expect(b[0].acts(onOutput: nil) && b[0].acts(onOutput: "HDMI-A-1"))
        #expect(b[1].acts(onOutput: "edp-1") && b[1].acts(onOutput: "DSI-1") && !b[1].acts(onOutput: "HDMI-A-1"))
        #expect(!b[1].acts(onOutput: nil), "an unknown output matches no output a binding names")
        #expect(b[2].summary.contains("on output=\"HDMI-A-1\""), "\(b[2].summary)")
        let screens: [(node: String, output: String?)] = [
            ("/dev/input/event5", "eDP-1"), ("/dev/input/event7", "HDMI-A-1"), ("/dev/input/event9", nil),
        ]
        let firefox = Binding.Context(focus: FocusedWindow(app: "firefox", title: "", fullscreen: false))
        let claims = ClaimPlan(b, in: firefox, ContextSettings(), screens: screens)
        #expect(claims.everywhere == ClaimSet(fingers: [3]))
        #expect(
            claims.on == [
                DeviceClaim(ClaimSet(edges: [.left]), devices: ["/dev/input/event5"]),
                DeviceClaim(ClaimSet(fingers: [3, 4]), devices: ["/dev/input/event7"]),
            ])
        #expect(
            claims.summary
                == "3 fingers on claimed touchscreens; left edge on /dev/input/event5; 3 fingers, 4 fingers on /dev/input/event7")
        let line = Subscription.line(for: b, claims: claims)
        #expect(
            line.contains(
                #""claim":[{"fingers":[3],"edges":[]},{"fingers":[],"edges":["left"],"devices":["/dev/input/event5"]},{"fingers":[3,4],"edges":[],"devices":["/dev/input/event7"]}]"#
            ), "\(line)")
        // Elsewhere than firefox, HDMI-A-1's binding cannot act: it claims nothing there.
        let foot = Binding.Context(focus: FocusedWindow(app: "foot", title: "", fullscreen: false))
        #expect(
            ClaimPlan(b, in: foot, ContextSettings(), screens: screens).on == [
                DeviceClaim(ClaimSet(edges: [.left]), devices: ["/dev/input/event5"])
            ])
        // With no binding naming an output, the claim is the one object it always was.
        let plain = Subscription.line(
            for: [b[0]], claims: ClaimPlan([b[0]], in: foot, ContextSettings(), screens: screens))
        #expect(plain.contains(#""claim":{"fingers":[3],"edges":[]}"#), "\(plain)")
    }

    @Test(
        "what a binding claims: three fingers or more and edges by default, two with claim = true, nothing with false; one finger anywhere is refused"
    )
    func claims() throws {
        func claims(_ extra: String) throws -> ClaimSet {
            try BindingsReader.read("[[bind]]\ngesture = \"swipe\"\nrun = [\"x\"]\n" + extra, file: "a.toml")[0].claims
        }
        #expect(try claims("fingers = [3, 4]") == ClaimSet(fingers: [3, 4]))
        #expect(try claims("fingers = 2") == ClaimSet())
        #expect(try claims("fingers = 2\nclaim = true") == ClaimSet(fingers: [2]))
        #expect(try claims("fingers = 3\nclaim = false") == ClaimSet())
        #expect(try claims("edge = \"left\"") == ClaimSet(edges: [.left]))
        #expect(try claims("fingers = 2\nedge = \"left\"") == ClaimSet(), "an edge claims one-finger touches only")
        #expect(try claims("") == ClaimSet(), "any number of fingers claims nothing by default")
        #expect {
            _ = try claims("fingers = 1\nclaim = true")
        } throws: { error in
            "\(error)".contains("a.toml:5: claim = true needs fingers of 2 or more, or an edge")
        }
    }

    @Test(
        "touchpad = true: a swipe, pinch or rotate of 3 or 4 fingers claims them for the virtual touchpad, sent as a claim entry of its own; anything else is named with its line"
    )
    func touchpad() throws {
        let b = try BindingsReader.read(
            """
            [[bind]]
            gesture = "swipe"
            fingers = [3, 4]
            touchpad = true

            [[bind]]
            gesture = "swipe"
            edge = "left"
            run = ["x"]

            [[bind]]
            gesture = "pinch"
            fingers = 5
            run = ["y"]
            """, file: "a.toml")
        #expect(b[0].claims == ClaimSet(touchpad: [3, 4]))
        #expect(ClaimPlan.claims(of: [b[0]], in: Binding.Context(), ContextSettings()) == ClaimSet(touchpad: [3, 4]))
        let alone = Subscription.line(
            for: [b[0]], claims: ClaimPlan([b[0]], in: Binding.Context(), ContextSettings(), screens: []))
        #expect(alone.contains(#""claim":{"fingers":[3,4],"touchpad":true}"#), "\(alone)")
        let all = ClaimPlan(b, in: Binding.Context(), ContextSettings(), screens: [])
        #expect(all.everywhere == ClaimSet(fingers: [5], edges: [.left], touchpad: [3, 4]))
        let mixed = Subscription.line(for: b, claims: all)
        #expect(
            mixed.contains(#""claim":[{"fingers":[5],"edges":["left"]},{"fingers":[3,4],"touchpad":true}]"#), "\(mixed)")
        for (toml, says) in [
            ("gesture = \"tap\"\nfingers = 3\ntouchpad = true", "a.toml:4: touchpad = true is for swipe, pinch and rotate"),
            ("gesture = \"swipe\"\nfingers = 2\ntouchpad = true", "a.toml:4: touchpad = true needs fingers = 3 or 4"),
            ("gesture = \"swipe\"\ntouchpad = true", "a.toml:3: touchpad = true needs fingers = 3 or 4"),
            ("gesture = \"swipe\"\nfingers = 3\nclaim = false\ntouchpad = true", "cannot go with claim = false"),
            ("gesture = \"swipe\"\nfingers = 3\ntouchpad = 1", "touchpad must be true or false"),
            ("gesture = \"swipe\"\nfingers = 3\ntouchpad = false", "[[bind]] does nothing"),
        ] {
            #expect {
                _ = try BindingsReader.read("[[bind]]\n" + toml + "\n", file: "a.toml")
            } throws: { error in
                "\(error)".contains(says)
            }
        }
    }

    @Test("the subscription asks the daemon for only what is bound")
    func subscription() throws {
        let strokes = try BindingsReader.read(
            """
            [[bind]]
            gesture = "swipe"
            fingers = 3
            direction = "up"
            edge = "bottom"
            run = ["a"]

            [[bind]]
            gesture = "flick"
            fingers = [1, 2]
            direction = ["left", "right"]
            edge = "left"
            run = ["b"]
            """, file: "a.toml")
        #expect(
            Subscription.line(for: strokes)
                == #"{"type":"subscribe","gestures":["flick","swipe"],"fingers":[1,2,3],"phases":["began","cancelled","ended","recognized"],"directions":["left","right","up"],"edges":["bottom","left"],"claim":{"fingers":[3],"edges":["left"]}}"#
                + "\n")
        let mixed = try BindingsReader.read(
            """
            [[bind]]
            gesture = "swipe"
            direction = "up"
            run = ["a"]

            [[bind]]
            gesture = "pinch"
            on-ended = ["b"]
            """, file: "a.toml")
        #expect(
            Subscription.line(for: mixed)
                == #"{"type":"subscribe","gestures":["pinch","swipe"],"phases":["began","cancelled","ended","recognized"],"directions":["up"]}"#
                + "\n")
        // A binding that acts on changes gets them.
        let following = try BindingsReader.read(
            """
            [[bind]]
            gesture = "swipe"
            run = ["a"]

            [[bind]]
            gesture = "pinch"
            on-changed = ["b"]
            """, file: "a.toml")
        #expect(Subscription.line(for: following) == #"{"type":"subscribe","gestures":["pinch","swipe"]}"# + "\n")
    }

    @Test(
        "matching: each criterion holds, edge and region from where the gesture started; the environment has the event's fields"
    )
    func matching() throws {
        let b = try BindingsReader.read(
            """
            [[bind]]
            gesture = "swipe"
            fingers = 1
            direction = "right"
            edge = "left"
            region = [0, 0, 0.5, 1]
            run = ["x"]
            """, file: "a.toml")[0]
        func event(_ fields: String) -> ReceivedEvent? {
            let line = #"{"type":"gesture","gesture":"swipe","phase":"recognized","id":4,"time_us":1,"device":"P","fingers":1,"#
            guard case .event(let e) = ReceivedEvent.parse(Array((line + fields + "}").utf8)) else { return nil }
            return e
        }
        let good = try #require(event(#""x":0.1,"y":0.5,"x_mm":12.5,"direction":"right","edge":"left","scale":null"#))
        #expect(b.matches(good, start: nil))
        #expect(good.environment.contains("GESTURED_X_MM=12.5") && good.environment.contains("GESTURED_FINGERS=1"))
        #expect(good.environment.contains("GESTURED_DIRECTION=right") && good.environment.contains("GESTURED_ID=4"))
        #expect(!good.environment.contains { $0.hasPrefix("GESTURED_SCALE") || $0.hasPrefix("GESTURED_TYPE") })
        #expect(!b.matches(try #require(event(#""x":0.1,"y":0.5,"direction":"right","edge":null"#)), start: nil), "no edge")
        #expect(!b.matches(try #require(event(#""x":0.1,"y":0.5,"direction":"right","edge":"top""#)), start: nil), "other edge")
        #expect(!b.matches(try #require(event(#""x":0.1,"y":0.5,"direction":"left","edge":"left""#)), start: nil), "other way")
        #expect(!b.matches(try #require(event(#""x":0.7,"y":0.5,"direction":"right","edge":"left""#)), start: nil), "outside")
        #expect(b.matches(try #require(event(#""x":0.7,"y":0.5,"direction":"right","edge":"left""#)), start: (0.2, 0.5)))
        // A field of the wrong type makes the line no event at all; another message is told by its type.
        #expect(event(#""x":"no""#) == nil)
        guard case .message(type: "pong") = ReceivedEvent.parse(Array(#"{"type":"pong"}"#.utf8)) else {
            Issue.record("a pong is a message")
            return
        }
    }

    @Test("every mistake of an actions file is reported at once, in line order")
    func everyMistakeAtOnce() throws {
        let text = """
            [[bind]]
            gesture = "swype"
            run = ["x"]

            [[bind]]
            gesture = "swipe"
            finger = 3
            direction = "sideways"
            run = "x"

            [[bind]]
            gesture = "tap"

            [screen]
            rotate = true
            """
        #expect {
            _ = try BindingsReader.read(text, file: "a.toml")
        } throws: { error in
            let lines = "\(error)".split(separator: "\n").map(String.init)
            let numbers = lines.compactMap { $0.split(separator: ":").dropFirst().first.flatMap { Int($0) } }
            return lines.count == 6 && numbers == [2, 7, 8, 9, 11, 15]
                && lines[1].contains("unknown key 'finger' in [[bind]]; did you mean 'fingers'?")
                && lines[5].contains("unknown key 'rotate' in [screen]")
        }
    }

    @Test(
        "act --check warns of bindings that fire on the same gestures and of commands that cannot be run; the file still passes")
    func checkWarnings() throws {
        let text = """
            [[bind]]
            gesture = "swipe"
            fingers = 3
            run = ["sh", "-c", "true"]

            [[bind]]
            gesture = "swipe"
            fingers = [3, 4]
            direction = "up"
            run = ["gestured-no-such-program"]

            [[bind]]
            gesture = "swipe"
            fingers = 4
            run = ["/nonexistent/bin/x"]

            [[bind]]
            gesture = "swipe"
            fingers = 3
            region = [0, 0, 0.5, 1]
            run = ["true"]

            [[bind]]
            gesture = "swipe"
            fingers = 3
            region = [0.5, 0, 1, 1]
            run = ["true"]

            [[bind]]
            gesture = "swipe"
            fingers = 2
            run = ["true"]

            [[bind]]
            gesture = "pinch"
            when = { locked = true }
            run = ["true"]

            [[bind]]
            gesture = "pinch"
            run = ["true"]

            [[bind]]
            gesture = "pinch"
            when = { keyboard = true }
            run = ["true"]

            [[bind]]
            gesture = "pinch"
            when = { keyboard = false }
            run = ["true"]
            """
        let bindings = try BindingsReader.read(text, file: "a.toml")
        let warnings = BindingsCheck.warnings(bindings, searchPath: "/usr/bin:/bin")
        let overlaps = warnings.filter { $0.contains("fires on the same gestures") }
        // 1 & 2 (3 fingers), 2 & 3 (4 fingers), 1 & 4, 1 & 5, 2 & 4, 2 & 5 (up); 4 & 5 split the panel; 6 is alone;
        // the pinches: 8 & 9, 8 & 10; 7 (locked) meets none, 9 and 10 (the keyboard shown, or not) never both.
        #expect(overlaps.count == 8, "\(warnings)")
        #expect(
            !overlaps.contains {
                $0.contains("as a.toml:34 (") || $0.hasPrefix("a.toml:48: fires on the same gestures as a.toml:43")
            }, "\(warnings)")
        #expect(overlaps.contains { $0.hasPrefix("a.toml:43: fires on the same gestures as a.toml:39") }, "\(warnings)")
        #expect(
            warnings.contains(
                "a.toml:6: fires on the same gestures as a.toml:1 (swipe fingers=3 direction=up): both run; give one other fingers, directions, edges, a region or a device, or keep both on purpose"
            ),
            "\(warnings)")
        #expect(!overlaps.contains { $0.hasPrefix("a.toml:23") && $0.contains("as a.toml:17 (") }, "\(warnings)")
        #expect(!overlaps.contains { $0.hasPrefix("a.toml:29") || $0.contains("as a.toml:29") }, "\(warnings)")
        #expect(
            warnings.contains { $0.hasPrefix("a.toml:6: run: 'gestured-no-such-program' is not found on PATH (/usr/bin:/bin)") },
            "\(warnings)")
        #expect(warnings.contains("a.toml:12: run: '/nonexistent/bin/x' is not an executable file"), "\(warnings)")
        #expect(!warnings.contains { $0.contains("'sh'") || $0.contains("'true'") }, "\(warnings)")

        let s = try Scratch()
        try text.write(toFile: s.actions, atomically: true, encoding: .utf8)
        let r = try runGestured(["act", "--check", "--config", s.actions])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("10 binding(s) in"), "\(r.out)")
        #expect(r.err.components(separatedBy: "gestured act: warning: ").count - 1 == warnings.count, "\(r.err)")
    }

    @Test("every example actions file (examples/actions) passes act --check")
    func examples() throws {
        let folder = BuildProducts.packageRoot + "/examples/actions"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".toml") }.sorted()
        #expect(
            files == [
                "gnome.toml", "hyprland.toml", "phosh.toml", "plasma-mobile.toml", "plasma.toml", "strokes.toml", "sway.toml",
                "sxmo.toml",
            ])
        for file in files {
            let r = try runGestured(["act", "--config", folder + "/" + file, "--check"])
            #expect(r.status == 0 && r.out.contains("binding(s) in"), "\(file): \(r.out) \(r.err)")
        }
        // Triple taps make act's double taps late: said once, naming both.
        let taps = try BindingsReader.read(
            """
            [[bind]]
            gesture = "double-tap"
            run = ["true"]

            [[bind]]
            gesture = "triple-tap"
            fingers = 2
            run = ["true"]
            """, file: "t.toml")
        let late = BindingsCheck.warnings(taps, searchPath: "/usr/bin:/bin")
        #expect(
            late.count == 1 && late[0].hasPrefix("t.toml:5: with a triple-tap binding, every double tap (t.toml:1 "), "\(late)")
        #expect(BindingsCheck.warnings(Array(taps.prefix(1)), searchPath: "/usr/bin:/bin").isEmpty)
        let bad = try runGestured(["act", "--config", "/nonexistent/actions.toml", "--check"])
        #expect(bad.status == 1 && bad.err.contains("/nonexistent/actions.toml"), "\(bad.err)")
        let long = "/tmp/" + String(repeating: "s", count: 200) + ".sock"
        let socket = try runGestured(["act", "--config", folder + "/sway.toml", "--socket", long], timeout: 20)
        #expect(socket.status == 1 && socket.err.contains("give its absolute path, of at most 107 bytes"), "\(socket.err)")
    }

    /// A scratch folder with an actions file, a daemon socket path and marker files.
    final class Scratch {
        let path = NSTemporaryDirectory() + "gestured-act-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var socket: String { path + "/gestured.sock" }
        var actions: String { path + "/actions.toml" }
        /// What `serve` and `act` started, stopped by `stopAll`.
        private var children: [Child] = []
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        /// SIGTERM to everything still running, latest first, and the wait for it.
        func stopAll() {
            for child in children.reversed() {
                child.signal(SIGTERM)
                _ = try? child.wait(timeout: 10)
            }
        }
        func lines(_ name: String) -> [String] {
            ((try? String(contentsOfFile: path + "/" + name, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        /// Waits until `name` has at least `count` lines.
        func waitFor(_ name: String, count: Int, timeout: Double = 10) -> [String] {
            let deadline = Date().addingTimeInterval(timeout * Timing.scale)
            while Date() < deadline && lines(name).count < count { usleep(20_000) }
            return lines(name)
        }
        /// A `gestured serve` replaying `trace` (a file of Recordings by name,
        /// or any trace by absolute path) on this folder's socket once `act` subscribes.
        func serve(_ trace: String, loop: Bool = false) throws -> Child {
            let child = try Child(
                [
                    BuildProducts.gestured, "serve", "--socket", socket, "--replay",
                    trace.hasPrefix("/") ? trace : DaemonProcess.recording(trace),
                    "--wait-subscribers", "1",
                ]
                    + (loop ? ["--loop"] : []), stdout: .null)
            children.append(child)
            return child
        }
        func act() throws -> Child {
            let child = try Child(
                [BuildProducts.gestured, "act", "--config", actions, "--socket", socket], stdout: .file(path + "/act.log"))
            children.append(child)
            return child
        }
        var actLog: String { (try? String(contentsOfFile: path + "/act.log", encoding: .utf8)) ?? "" }
    }

    @Test(
        "act runs the bound command once per gesture with the event in its environment, nothing for unbound gestures, and lives through a daemon restart"
    )
    func runsBindings() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "swipe"
        fingers = 1
        direction = "left"
        run = ["sh", "-c", "echo $GESTURED_GESTURE $GESTURED_PHASE $GESTURED_FINGERS $GESTURED_DIRECTION $GESTURED_BINDING >> \(s.path)/left"]

        [[bind]]
        gesture = "swipe"
        direction = "right"
        run = ["sh", "-c", "echo right >> \(s.path)/right"]

        [[bind]]
        gesture = "swipe"
        fingers = 2
        run = ["sh", "-c", "echo two >> \(s.path)/two"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        // act first: it waits for the daemon.
        _ = try s.act()
        var daemon = try s.serve("swipe-left-1f.tablet.evemu")
        #expect(s.waitFor("left", count: 1) == ["swipe recognized 1 left \(s.actions):1"])
        daemon.signal(SIGTERM)
        #expect(try daemon.wait(timeout: 10) == 0)

        // A new daemon on the same socket: act reconnects and the binding runs again.
        daemon = try s.serve("swipe-left-1f.tablet.evemu")
        #expect(s.waitFor("left", count: 2).count == 2, "\(s.actLog)")
        usleep(300_000)
        daemon.signal(SIGTERM)
        _ = try daemon.wait(timeout: 10)
        #expect(s.lines("left").count == 2)
        #expect(s.lines("right").isEmpty && s.lines("two").isEmpty, "a direction or finger filter held")
        #expect(s.actLog.contains("the daemon is stopping; reconnecting"), "\(s.actLog)")
    }

    @Test(
        "while the session at the screen is locked only bindings with when = { locked = true } act; unlocked, the others act and those no more",
        .requires(.root, FakeLogind.requirement))
    func lockedContext() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        let logind = try FakeLogind(uid: Requirement.strangerUID, session: "c1")
        try logind.set(locked: true)
        try """
        [[bind]]
        gesture = "tap"
        run = ["sh", "-c", "echo open >> \(s.path)/open"]

        [[bind]]
        gesture = "tap"
        when = { locked = true }
        run = ["sh", "-c", "echo locked >> \(s.path)/locked"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        let d = try DaemonProcess(
            ["--replay", DaemonProcess.recording("tap-1f.phone.evemu"), "--loop"], systemBus: logind.address)
        try d.waitForLog("seat0: the active session, uid \(Requirement.strangerUID)'s, is locked", timeout: 10)
        let act = try Child(
            [BuildProducts.gestured, "act", "--config", s.actions, "--socket", d.socket], stdout: .file(s.path + "/act.log"))
        defer {
            act.signal(SIGTERM)
            _ = try? act.wait(timeout: 10)
        }
        #expect(s.waitFor("locked", count: 2).count >= 2, "\(s.actLog)")
        #expect(s.lines("open").isEmpty, "\(s.actLog)")
        #expect(s.actLog.contains("the session at the screen is locked: only bindings with when = { locked = true } act"))
        try logind.set(locked: false)
        #expect(s.waitFor("open", count: 2).count >= 2, "\(s.actLog)")
        let lockedRuns = s.lines("locked").count
        usleep(1_500_000)
        #expect(s.lines("locked").count == lockedRuns, "\(s.actLog)")
        #expect(s.actLog.contains("the session at the screen is unlocked: bindings act"))
        #expect(try d.stop() == 0)
    }

    @Test(
        "a command that hangs does not hold up the next gesture and is stopped at its timeout; a broken file on SIGHUP keeps the old bindings"
    )
    func hangingCommandAndBrokenReload() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "swipe"
        run = ["sh", "-c", "echo $GESTURED_ID >> \(s.path)/swipes; exec sleep 100"]
        timeout-ms = 1500
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        let act = try s.act()
        _ = try s.serve("swipe-left-1f.tablet.evemu", loop: true)
        // The trace plays every 1.5 s or so; each swipe runs while the last still sleeps.
        #expect(s.waitFor("swipes", count: 3, timeout: 15).count >= 3, "\(s.actLog)")
        #expect(s.actLog.contains("still running after its timeout: stopping it and what it started (SIGTERM)"), "\(s.actLog)")

        // A broken file, then SIGHUP: the error names file and line, the old binding still runs.
        try "[[bind]]\ngesture = \"swipe\"\nrun = \"not a list\"\n".write(toFile: s.actions, atomically: true, encoding: .utf8)
        act.signal(SIGHUP)
        let before = s.lines("swipes").count
        #expect(s.waitFor("swipes", count: before + 2, timeout: 15).count >= before + 2, "\(s.actLog)")
        #expect(s.actLog.contains("\(s.actions):3: run must be a command as a list"), "\(s.actLog)")
        #expect(s.actLog.contains("keeping the previous bindings"), "\(s.actLog)")
        // The save and the signal each read the file: its mistakes are said once.
        #expect(s.actLog.components(separatedBy: "keeping the previous bindings").count == 2, "\(s.actLog)")
    }

    @Test("a changed file is read again without a signal: the new binding runs, the old one no more")
    func reloadsOnChange() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "swipe"
        run = ["sh", "-c", "echo old >> \(s.path)/old"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        _ = try s.act()
        _ = try s.serve("swipe-left-1f.tablet.evemu", loop: true)
        #expect(s.waitFor("old", count: 1).count >= 1, "\(s.actLog)")
        // An editor's save: a new file renamed over the old one.
        try """
        [[bind]]
        gesture = "swipe"
        run = ["sh", "-c", "echo new >> \(s.path)/new"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        #expect(s.waitFor("new", count: 2, timeout: 15).count >= 2, "\(s.actLog)")
        let old = s.lines("old").count
        _ = s.waitFor("new", count: s.lines("new").count + 1, timeout: 15)
        #expect(s.lines("old").count == old, "the old binding ran after the reload")
        #expect(s.actLog.contains("reloaded: 1 binding(s)"), "\(s.actLog)")
    }

    @Test(
        "keys are typed by the daemon, not act: act needs no uinput; a daemon without it says why, act logs it once and goes on"
    )
    func keysThroughTheDaemon() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "swipe"
        keys = "alt+Left"

        [[bind]]
        gesture = "swipe"
        run = ["sh", "-c", "echo ran >> \(s.path)/ran"]
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        let act = try s.act()
        _ = try s.serve("swipe-left-1f.tablet.evemu", loop: true)
        #expect(s.waitFor("ran", count: 3, timeout: 20).count >= 3, "\(s.actLog)")
        usleep(300_000)
        #expect(act.isRunning, "\(s.actLog)")
        if access("/dev/uinput", F_OK) != 0 {
            // These machines: no uinput on the host. The fix is the module, said once for three swipes.
            #expect(
                s.actLog.components(
                    separatedBy: "the daemon says: no-keyboard: the daemon cannot make its keyboard: there is no /dev/uinput"
                ).count == 2,
                "\(s.actLog)")
            #expect(s.actLog.contains("sudo modprobe uinput"), "\(s.actLog)")
        } else if access("/dev/uinput", W_OK) != 0 {
            #expect(
                s.actLog.contains("the daemon says: no-keyboard: the daemon cannot make its keyboard through /dev/uinput"),
                "\(s.actLog)")
            // The daemon's fix whole, to its last words.
            #expect(s.actLog.contains("75-gestured-uinput.rules"), "\(s.actLog)")
            #expect(s.actLog.contains("a daemon you run yourself needs write access too"), "\(s.actLog)")
        } else {
            #expect(!s.actLog.contains("no-keyboard"), "\(s.actLog)")
        }
    }

    @Test("a pinch's hooks: on-began, on-changed no more often than asked with the last value always run, on-ended")
    func continuousHooks() throws {
        let s = try Scratch()
        defer { s.stopAll() }
        try """
        [[bind]]
        gesture = "pinch"
        on-began = ["sh", "-c", "echo began >> \(s.path)/began"]
        on-changed = ["sh", "-c", "echo $GESTURED_SCALE >> \(s.path)/changed"]
        on-ended = ["sh", "-c", "echo $GESTURED_DIRECTION $GESTURED_SCALE >> \(s.path)/ended"]
        changed-interval-ms = 100
        """.write(toFile: s.actions, atomically: true, encoding: .utf8)
        _ = try s.act()
        _ = try s.serve("pinch-close-2f.phone.evemu")
        let ended = s.waitFor("ended", count: 1)
        usleep(300_000)
        let reference = try runGestured(["replay", DaemonProcess.recording("pinch-close-2f.phone.evemu")]).out
        let changed = try reference.split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["phase"] as? String == "changed" }
        let lastScale = (changed.last?["scale"] as? Double).map { String($0) }
        #expect(s.lines("began") == ["began"])
        #expect(ended.count == 1 && ended[0].hasPrefix("close "), "\(ended)")
        let ran = s.lines("changed")
        // 0.6 s of pinching at most every 100 ms: about 6, far fewer than the frames.
        #expect(ran.count >= 2 && ran.count <= 9 && ran.count < changed.count, "\(ran.count) of \(changed.count)")
        // The last value the daemon sent is among those run (the last always is).
        #expect(lastScale != nil && ran.contains(lastScale!), "\(ran), last \(String(describing: lastScale))")
    }
}
