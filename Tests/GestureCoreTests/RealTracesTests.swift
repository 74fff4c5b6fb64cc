import Foundation
import GestureCore
import Testing

/// A real recording from `../shared/traces` and what its data shows.
struct RealTrace: Sendable, CustomTestStringConvertible {
    var path: String
    /// Physical size in mm for panels that report no resolution (from the hardware named in MANIFEST.md).
    var size: (Double, Double)?
    var expected: [String]
    /// Sign of the first drag's net travel, when the recording is named for a direction: (x, y), 0 = don't care.
    var dragSign: (Int, Int) = (0, 0)
    var testDescription: String { (path as NSString).lastPathComponent }
}

/// The real touchscreen (and touchpad) recordings whose MANIFEST.md entry
/// describes a clear gesture. Where the manifest says a label is wrong, the
/// expectation follows the data.
@Suite("Real recordings in ../shared/traces")
struct RealTracesTests {
    static let isdv4 = (277.0, 156.0)  // ThinkPad X220 Tablet class: 12.5", 1366x768
    static let atmel = (154.0, 86.0)  // 7", 800x480
    static let ep0430 = (154.0, 92.0)  // 7", 1280x768
    static let nexus4 = (62.0, 103.0)  // 4.7" phone, portrait

    static let cases: [RealTrace] = [
        RealTrace(
            path: "evemu-devices/tablets/Wacom ISDv4 E6 Finger.single-tap-center.events", size: isdv4, expected: ["tap fingers=1"]
        ),
        RealTrace(
            path: "evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-tap-center.events", size: isdv4,
            expected: ["double-tap fingers=1"]),
        RealTrace(path: "evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events", size: isdv4, expected: ["tap fingers=2"]),
        // Named a two-finger double tap; the data holds one two-finger touch of 60 ms.
        RealTrace(
            path: "evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-double-tap.events", size: isdv4, expected: ["tap fingers=2"]),
        RealTrace(
            path: "evemu-devices/tablets/Wacom ISDv4 E6 Finger.single-center-scroll.events", size: isdv4,
            expected: ["drag fingers=1"],
            dragSign: (0, 1)),
        RealTrace(
            path: "evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-center-scroll.events", size: isdv4,
            expected: ["drag fingers=2"],
            dragSign: (0, 1)),
        // Named swipes, but they take 1.2–1.9 s: slow strokes are drags.
        RealTrace(
            path: "evemu-devices/tablets/Wacom ISDv4 E6 Finger.single-top-swipe.events", size: isdv4,
            expected: ["drag fingers=1"],
            dragSign: (1, 0)),
        RealTrace(
            path: "evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-top-swipe.events", size: isdv4,
            expected: ["drag fingers=2"],
            dragSign: (1, 0)),
        RealTrace(
            path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events", size: atmel,
            expected: ["drag fingers=1"]),
        RealTrace(
            path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events", size: atmel,
            expected: Array(repeating: "double-tap fingers=1", count: 4) + ["tap fingers=1"]),
        RealTrace(
            path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events", size: atmel,
            expected: ["touch-and-hold fingers=2"]),
        RealTrace(
            path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events", size: atmel,
            expected: ["drag fingers=4"],
            dragSign: (0, 1)),
        RealTrace(
            path: "evemu-devices/touchscreens/EP0430M09.1-finger-drag-up-down.events", size: ep0430, expected: ["drag fingers=1"]),
        // The fingers move toward -y: up on the screen.
        RealTrace(
            path: "evemu-devices/touchscreens/EP0430M09.2-finger-scroll-down.events", size: ep0430, expected: ["drag fingers=2"],
            dragSign: (0, -1)),
        RealTrace(
            path: "evemu-devices/touchscreens/EP0430M09.2-fingers-touch-release.events", size: ep0430,
            expected: ["touch-and-hold fingers=2"]),
        RealTrace(
            path: "evemu-devices/touchscreens/EP0430M09.4-finger-drag-down.events", size: ep0430, expected: ["drag fingers=4"],
            dragSign: (0, -1)),
        RealTrace(
            path: "evemu-devices/touchscreens/ELAN CANDO Windows7.1-finger-drag-up-down.events", size: nil,
            expected: ["drag fingers=1"]),
        // Protocol A (SYN_MT_REPORT): one finger held over a second, a second finger joins later.
        RealTrace(
            path: "evemu-devices/touchscreens/N-Trig MultiTouch.2-fingers-touch-release.events", size: (261, 163),
            expected: ["touch-and-hold fingers=1"]),
        RealTrace(
            path: "evemu-devices/touchscreens/N-Trig MultiTouch.1-finger-drag-NW-SE.events", size: (261, 163),
            expected: ["drag fingers=1"], dragSign: (1, 1)),
        RealTrace(path: "tslib/Atmel maXTouch Touchscreen.ts-verify-1.events", size: atmel, expected: ["drag fingers=1"]),
        // The scribble's finger lifts while still speeding down-right: 165 mm/s
        // by the quadratic fit (114 by Android's impulse estimate), a flick.
        RealTrace(
            path: "xorg-integration-tests/n4.events", size: nexus4,
            expected: [
                "drag fingers=1", "flick fingers=1 direction=down-right", "drag fingers=2", "pinch fingers=3 direction=close",
                "pinch fingers=4 direction=open",
            ]),
        RealTrace(path: "_touchpad_secondary/InputActions/pinch_in_2.evemu", expected: ["pinch fingers=2 direction=close"]),
        RealTrace(path: "_touchpad_secondary/InputActions/pinch_out_2.evemu", expected: ["pinch fingers=2 direction=open"]),
        RealTrace(path: "_touchpad_secondary/InputActions/hold_1.evemu", expected: ["touch-and-hold fingers=1"]),
        RealTrace(path: "_touchpad_secondary/InputActions/hold_2.evemu", expected: ["touch-and-hold fingers=2"]),
        RealTrace(path: "_touchpad_secondary/InputActions/hold_3.evemu", expected: ["touch-and-hold fingers=3"]),
        RealTrace(path: "_touchpad_secondary/InputActions/hold_4.evemu", expected: ["touch-and-hold fingers=4"]),
    ]

    @Test(
        "replays to what its data shows",
        .enabled(if: Fixtures.sharedTracesPresent || Fixtures.inCI, "../shared/traces is absent: skipped outside CI"),
        arguments: cases)
    func replay(_ c: RealTrace) throws {
        try #require(Fixtures.sharedTracesPresent, "../shared/traces must be beside the checkout in CI")
        let r = try Self.replay(path: Fixtures.sharedTraces + "/" + c.path, size: c.size)
        #expect(r.summary == c.expected)
        #expect(r.outcome.anomalies.isEmpty, "unhandled state/event pairs: \(r.outcome.anomalies)")
        if c.dragSign != (0, 0), let drag = r.events.first(where: { $0.gesture == .drag && $0.phase == .ended }) {
            if c.dragSign.0 != 0 { #expect((drag.dx ?? 0).sign == (c.dragSign.0 > 0 ? .plus : .minus), "dx \(drag.dx ?? 0)") }
            if c.dragSign.1 != 0 { #expect((drag.dy ?? 0).sign == (c.dragSign.1 > 0 ? .plus : .minus), "dy \(drag.dy ?? 0)") }
        }
    }

    /// Replays a recording of ../shared/traces, taking an events-only file's
    /// device from the `.desc` beside it.
    static func replay(
        path: String, size: (Double, Double)?, wanted: GestureKindSet = .standard
    ) throws -> (summary: [String], events: [GestureEvent], outcome: TraceReplay.Outcome) {
        let text = try Fixtures.read(path)
        var desc: DeviceDescription?
        if !text.contains("\nN:") && !text.hasPrefix("N:") {
            var base = path
            while desc == nil, let dot = base.lastIndex(of: ".") {
                base = String(base[..<dot])
                if FileManager.default.fileExists(atPath: base + ".desc") {
                    desc = try EvemuReader.parseDescription(Fixtures.read(base + ".desc"), file: base + ".desc")
                }
            }
        }
        return try Fixtures.replay(text, file: path, desc: desc, size: size, wanted: wanted)
    }
}
