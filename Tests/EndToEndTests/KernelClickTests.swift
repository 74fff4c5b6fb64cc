import Foundation
import Testing

/// Clicks under the finger on the real kernel (scripts/kernel-guest-claim.sh,
/// 2d; docs/claiming.md, "Clicks under the finger"): act binds a one-finger
/// touch-and-hold and a two-finger tap to `right-click`, a claimed tablet
/// panel plays them, and `libinput debug-events` reads the clone and the
/// daemon's pointer as a compositor would.
extension KernelTests {
    /// One line of `libinput debug-events`: its event, its time (s, since
    /// the tool's first event; an event before that wraps around 2³² ms and
    /// is taken back to its negative time), and the rest.
    struct LibinputLine {
        var event: String
        var time: Double
        var rest: String
    }

    static func libinputLines(_ text: String) -> [LibinputLine] {
        text.split(separator: "\n").compactMap { line in
            let f = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard f.count >= 3, f[2].hasPrefix("+"), f[2].hasSuffix("s"), let t = Double(f[2].dropFirst().dropLast())
            else { return nil }
            let wrap = 4_294_967.296
            return LibinputLine(event: String(f[1]), time: t > wrap / 2 ? t - wrap : t, rest: f[3...].joined(separator: " "))
        }
    }

    /// The pointer's clicks: where its last absolute motion before each
    /// press put it (percent of the area it maps to), and the button events.
    static func clicks(_ text: String) -> (at: [(x: Double, y: Double)], buttons: [String]) {
        var at: [(x: Double, y: Double)] = []
        var last: (x: Double, y: Double)?
        var buttons: [String] = []
        for l in libinputLines(text) {
            switch l.event {
            case "POINTER_MOTION_ABSOLUTE":
                let xy = l.rest.split(separator: "/").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                if xy.count == 2, let x = xy[0], let y = xy[1] { last = (x, y) }
            case "POINTER_BUTTON":
                // "BTN_RIGHT (273) pressed, seat count: 1"
                let words = l.rest.split(separator: " ")
                let b = words.first.map(String.init) ?? "?"
                let pressed = l.rest.contains("pressed")
                buttons.append(b + (pressed ? " pressed" : " released"))
                if pressed, let last { at.append(last) }
            default: break
            }
        }
        return (at, buttons)
    }

    /// Seconds from the finger's landing on the device of claim scenario
    /// TAG (the frame's time as the player wrote it) to the moment the
    /// clone's reader read its cancel (MT_TOOL_PALM): the clone's own touch
    /// down may reach its reader late, the cancel never early.
    static func cancelledAfter(_ run: KernelRun, _ tag: String) throws -> Double {
        let landed = try #require(frames(try claimFile(run, "sent-claim-\(tag).evemu")).first).time
        let cancel = try #require(
            frames(try claimFile(run, "read-claim-\(tag).evemu")).first { $0.events.contains("0003 0037 2") },
            "\(tag): the clone's reader read no MT_TOOL_PALM")
        return Double((cancel.read ?? cancel.time) - landed) / 1_000_000
    }

    /// One millimetre of the tablet panel (4096 x 2560 units at 19 a mm), in percent of each axis.
    static let tabletMillimetre = (x: 100.0 * 19 / 4096, y: 100.0 * 19 / 2560)

    @Test(
        "a still one-finger hold bound to right-click: the clone gets a touch down and a cancel at 800 ms, never an up; the pointer moves under the finger (within 1 mm) and clicks right; a tap passes whole with no click; a hold that moved 5 mm is neither cancelled nor clicked; a two-finger tap is cancelled and clicked at its centre"
    )
    func clickUnderTheFinger() throws {
        let run = try Self.run()
        let udev = try Self.claimFile(run, "pointer-udev.out")
        #expect(udev.contains("ID_INPUT_MOUSE=1") && !udev.contains("ID_INPUT_TOUCHSCREEN=1"), "\(udev)")
        let mm = Self.tabletMillimetre
        func near(_ p: (x: Double, y: Double), _ x: Double, _ y: Double) -> Bool {
            abs(p.x - x) <= mm.x && abs(p.y - y) <= mm.y
        }
        let right = ["BTN_RIGHT pressed", "BTN_RIGHT released"]

        let hold = Self.libinputLines(try Self.claimFile(run, "libinput-claim-clickhold.out"))
        let holdTouches = Self.touches(try Self.claimFile(run, "libinput-claim-clickhold.out"))
        #expect(holdTouches.down == 1 && holdTouches.cancel == 1 && holdTouches.up == 0, "\(holdTouches)")
        #expect(hold.contains { $0.event == "TOUCH_CANCEL" }, "\(hold.map(\.event))")
        let cancel = try Self.cancelledAfter(run, "clickhold")
        #expect(cancel >= 0.8, "cancelled \(cancel) s after the finger landed")
        let holdClicks = Self.clicks(try Self.claimFile(run, "pointer-clickhold.out"))
        #expect(holdClicks.buttons == right, "\(holdClicks.buttons)")
        let at = try #require(holdClicks.at.first)
        let holdX: Double = 100 * 1024 / 4096
        let holdY: Double = 100 * 1792 / 2560
        #expect(near(at, holdX, holdY), "clicked at \(at)")

        let tap = Self.touches(try Self.claimFile(run, "libinput-claim-clicktap.out"))
        #expect(tap.down == 1 && tap.up == 1 && tap.cancel == 0, "\(tap)")
        let tapPointer = Self.libinputLines(try Self.claimFile(run, "pointer-clicktap.out"))
        #expect(!tapPointer.contains { $0.event.hasPrefix("POINTER_") }, "\(tapPointer.map(\.event))")

        let moved = Self.touches(try Self.claimFile(run, "libinput-claim-clickmove.out"))
        #expect(moved.down == 1 && moved.up == 1 && moved.cancel == 0, "\(moved)")
        let movedPointer = Self.libinputLines(try Self.claimFile(run, "pointer-clickmove.out"))
        #expect(!movedPointer.contains { $0.event.hasPrefix("POINTER_") }, "\(movedPointer.map(\.event))")

        let two = Self.touches(try Self.claimFile(run, "libinput-claim-clicktwo.out"))
        #expect(two.down == 1 && two.cancel == 1 && two.up == 0, "\(two)")
        let twoClicks = Self.clicks(try Self.claimFile(run, "pointer-clicktwo.out"))
        #expect(twoClicks.buttons == right, "\(twoClicks.buttons)")
        let centre = try #require(twoClicks.at.first)
        let tapX: Double = 100 * 1700 / 4096
        let tapY: Double = 100 * 1200 / 2560
        #expect(near(centre, tapX, tapY), "clicked at \(centre)")
        print(
            "kernel harness: a hold cancelled \(Int(cancel * 1000)) ms after the finger landed, clicked at \(at) (finger at \(100.0 * 1024 / 4096), \(100.0 * 1792 / 2560)); a two-finger tap clicked at \(centre)"
        )
    }

    @Test(
        "five clicks asked back to back by one client: each answered clicked once written whole, and libinput reports all five presses and releases"
    )
    func clicksBackToBack() throws {
        let run = try Self.run()
        let answers = try Self.claimFile(run, "click-burst.out").split(separator: "\n").filter {
            $0.contains(#""type":"clicked""#) || $0.contains(#""type":"error""#)
        }
        #expect(answers.count == 5 && answers.allSatisfy { $0.contains(#""type":"clicked""#) }, "\(answers)")
        let buttons = Self.clicks(try Self.claimFile(run, "pointer-clickburst.out")).buttons
        let one = ["BTN_LEFT pressed", "BTN_LEFT released"]
        #expect(buttons == Array(repeating: one, count: 5).flatMap { $0 }, "\(buttons)")
    }
}
