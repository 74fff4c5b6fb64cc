import GestureCore
import Testing

/// The orientation a device's touches are read in while it turns
/// (`ScreenTransform`, docs/gestures.md "Rotating screens").
@Suite("Screen orientation")
struct OrientationTests {
    static let width = 100.0
    static let height = 60.0

    @Test("each quarter turn reads a position as `[[device]] rotation` does for a panel mounted that way")
    func agreesWithMounting() {
        var upright = PanelGeometry(
            minX: 0, maxX: 1000, minY: 0, maxY: 600, width: Self.width, height: Self.height, source: .commandLine)
        for quarter in 0..<4 {
            var mounted = upright
            mounted.rotation = quarter * 90
            let turn = ScreenTransform(rawValue: quarter)!
            #expect(turn.size(width: Self.width, height: Self.height) == (mounted.screenWidth, mounted.screenHeight))
            for (rx, ry) in [(0, 0), (1000, 0), (0, 600), (1000, 600), (123, 456), (999, 1), (500, 300)] as [(Int32, Int32)] {
                let plain = upright.millimetres(rawX: rx, rawY: ry)
                let turned = turn.apply(x: plain.x, y: plain.y, width: Self.width, height: Self.height)
                let expected = mounted.millimetres(rawX: rx, rawY: ry)
                #expect(abs(turned.x - expected.x) < 1e-9 && abs(turned.y - expected.y) < 1e-9, "\(turn.name) at \(rx),\(ry)")
            }
        }
        let plain = upright.millimetres(rawX: 250, rawY: 100)
        upright.flipX = true
        let mirrored = upright.millimetres(rawX: 250, rawY: 100)
        let flipped = ScreenTransform.flipped.apply(x: plain.x, y: plain.y, width: Self.width, height: Self.height)
        #expect(abs(flipped.x - mirrored.x) < 1e-9 && abs(flipped.y - mirrored.y) < 1e-9, "\(flipped) \(mirrored)")
    }

    @Test("every transform takes the panel's corners to the picture's, and a flipped one mirrors its turn")
    func cornersAndMirrors() {
        let corners = [(0.0, 0.0), (Self.width, 0), (0, Self.height), (Self.width, Self.height)]
        for t in ScreenTransform.allCases {
            let (w, h) = t.size(width: Self.width, height: Self.height)
            let mapped = Set(
                corners.map { c in
                    let p = t.apply(x: c.0, y: c.1, width: Self.width, height: Self.height)
                    return "\(p.x),\(p.y)"
                })
            #expect(mapped == ["0.0,0.0", "\(w),0.0", "0.0,\(h)", "\(w),\(h)"], "\(t.name)")
            guard t.isFlipped else { continue }
            let turn = ScreenTransform(rawValue: t.quarterTurns)!
            for (x, y) in [(10.0, 20.0), (90.0, 5.0), (33.0, 44.0)] {
                let a = t.apply(x: x, y: y, width: Self.width, height: Self.height)
                let b = turn.apply(x: x, y: y, width: Self.width, height: Self.height)
                #expect(a.x == w - b.x && a.y == b.y, "\(t.name)")
            }
        }
    }

    @Test("names round-trip; the accelerometer's sides map as compositors turn for them; flat is no turn")
    func names() {
        for t in ScreenTransform.allCases { #expect(ScreenTransform(name: t.name) == t) }
        #expect(ScreenTransform(name: "sideways") == nil)
        #expect(ScreenTransform(accelerometer: "normal") == .normal)
        #expect(ScreenTransform(accelerometer: "left-up") == .rot90)
        #expect(ScreenTransform(accelerometer: "bottom-up") == .rot180)
        #expect(ScreenTransform(accelerometer: "right-up") == .rot270)
        #expect(ScreenTransform(accelerometer: "undefined") == nil)
    }

    /// A two-finger swipe across the middle of the 100 x 60 mm panel, by (dx, dy) mm in 150 ms.
    static func swipe(_ hand: inout Hand, at start: Double, dx: Double, dy: Double) {
        let (x0, y0) = (50 - dx / 2, 30 - dy / 2)
        hand.frame(start, (0, .down, x0, y0), (1, .down, x0 + 12, y0 + 6))
        for i in 1...15 {
            let f = Double(i) / 15
            hand.frame(
                start + Double(i) * 10, (0, .move, x0 + dx * f, y0 + dy * f), (1, .move, x0 + 12 + dx * f, y0 + 6 + dy * f))
        }
        hand.frame(start + 160, (0, .up, x0 + dx, y0 + dy), (1, .up, x0 + 12 + dx, y0 + 6 + dy))
        hand.advance(start + 1000)
    }

    @Test(
        "a swipe up and a swipe right on the panel come out in the picture's directions for every transform",
        arguments: [
            (ScreenTransform.normal, "up", "right"), (.rot90, "right", "down"), (.rot180, "down", "left"),
            (.rot270, "left", "up"), (.flipped, "up", "left"), (.flipped90, "left", "down"),
            (.flipped180, "down", "right"), (.flipped270, "right", "up"),
        ])
    func directions(_ t: ScreenTransform, _ up: String, _ right: String) {
        var hand = Hand(wanted: GestureKindSet(.swipe))
        hand.pipeline.setTransform(t, for: hand.device)
        Self.swipe(&hand, at: 0, dx: 0, dy: -30)
        Self.swipe(&hand, at: 2000, dx: 40, dy: 0)
        #expect(hand.summary == ["swipe fingers=2 direction=\(up)", "swipe fingers=2 direction=\(right)"])
        #expect(hand.pipeline.transform(of: hand.device) == t)
    }

    @Test("a turn while fingers are down waits for them to lift: the gesture under way keeps its orientation")
    func turnWaitsForLift() {
        var hand = Hand(wanted: GestureKindSet(.swipe))
        hand.frame(0, (0, .down, 40, 45), (1, .down, 52, 51))
        hand.frame(10, (0, .move, 40, 43), (1, .move, 52, 49))
        hand.pipeline.setTransform(.rot90, for: hand.device)
        #expect(hand.pipeline.transform(of: hand.device) == .normal)
        for i in 2...15 {
            let dy = -30 * Double(i) / 15
            hand.frame(Double(i) * 10, (0, .move, 40, 45 + dy), (1, .move, 52, 51 + dy))
        }
        hand.frame(160, (0, .up, 40, 15), (1, .up, 52, 21))
        hand.advance(1000)
        #expect(hand.summary == ["swipe fingers=2 direction=up"])
        Self.swipe(&hand, at: 2000, dx: 0, dy: -30)
        #expect(hand.summary == ["swipe fingers=2 direction=up", "swipe fingers=2 direction=right"])
        #expect(hand.pipeline.transform(of: hand.device) == .rot90)
    }

    @Test(
        "positions, edges and fractions are the picture's: a swipe from the panel's bottom edge starts at the left of a picture turned 90"
    )
    func edgesFollow() throws {
        var hand = Hand(wanted: GestureKindSet(.swipe))
        hand.pipeline.setTransform(.rot90, for: hand.device)
        hand.frame(0, (0, .down, 40, 59), (1, .down, 55, 59.5))
        for i in 1...15 {
            let dy = -30 * Double(i) / 15
            hand.frame(Double(i) * 10, (0, .move, 40, 59 + dy), (1, .move, 55, 59.5 + dy))
        }
        hand.frame(160, (0, .up, 40, 29), (1, .up, 55, 29.5))
        hand.advance(1000)
        let e = try #require(hand.events.first { $0.phase == .recognized })
        #expect(e.summary == "swipe fingers=2 direction=right edge=left")
        // The picture is 60 mm wide and 100 mm tall: x is across its 60 mm.
        #expect(e.nx >= 0 && e.nx <= 1 && e.ny >= 0 && e.ny <= 1)
        #expect(abs(e.x - e.nx * 60) < 1e-6 && abs(e.y - e.ny * 100) < 1e-6)
    }
}
