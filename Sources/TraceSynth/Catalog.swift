import Foundation

/// The gesture performances the bundled recordings and the unseen-hands tests
/// are made of: every gesture, finger counts 1–4, every direction, and the
/// confusable pairs. Parameters are drawn from human ranges, far enough from
/// the default thresholds that any panel and any seed must give the expected
/// gestures.
public enum Catalog {
    /// Every scenario for a panel of `width` x `height` mm, drawn with `rng`.
    public static func scenarios(width: Double, height: Double, rng: inout SeededRandom) -> [Scenario] {
        var b = Builder(width: width, height: height, rng: rng)
        var out: [Scenario] = []
        for n in 1...4 { out.append(b.tap(fingers: n)) }
        for n in 1...2 { out.append(b.doubleTap(fingers: n)) }
        out.append(b.twoFarTaps())
        out.append(b.twoSlowTaps())
        out.append(b.longTap())
        for n in 1...3 { out.append(b.hold(fingers: n)) }
        out.append(b.holdThenDrag())
        for d in ["right", "left", "up", "down"] { out.append(b.slowDrag(direction: d)) }
        for d in ["right", "left", "up", "down", "up-right", "up-left", "down-right", "down-left"] {
            out.append(b.flick(direction: d))
        }
        for d in ["right", "left", "up", "down"] {
            for n in 1...4 { out.append(b.swipe(direction: d, fingers: n)) }
        }
        out.append(b.curvedStroke())
        out.append(b.edgeSwipe())
        out.append(b.pinch(fingers: 2, open: true))
        out.append(b.pinch(fingers: 2, open: false))
        out.append(b.pinch(fingers: 3, open: false))
        out.append(b.pinch(fingers: 3, open: true))
        out.append(b.anchoredPinch())
        out.append(b.twoFingerDrag())
        rng = b.rng
        return out
    }
}

extension Catalog {
    /// What real hands do that the scenarios above do not: a finger resting
    /// before the hand moves, taps that roll, flicks that speed up until the
    /// lift, multi-finger strokes inside the settle window, fingers landing
    /// one after another, twists, swipes that hook at their start. Drawn from
    /// `rng` like `scenarios`, but kept apart from it so that adding here
    /// changes none of the recordings made from that list.
    public static func handScenarios(width: Double, height: Double, rng: inout SeededRandom) -> [Scenario] {
        var b = Builder(width: width, height: height, rng: rng)
        var out: [Scenario] = []
        out.append(b.restThenDrag())
        out.append(b.restThenPinch(open: true))
        out.append(b.restThenPinch(open: false))
        out.append(b.handRestsThenMoves(fingers: 4))
        out.append(b.rolledTap(fingers: 1))
        out.append(b.rolledTap(fingers: 2))
        for d in ["up", "down", "left", "right"] { out.append(b.acceleratingFlick(direction: d)) }
        out.append(b.fastSwipe(direction: "up", fingers: 3))
        out.append(b.fastSwipe(direction: "right", fingers: 2))
        out.append(b.fastPinch(open: false))
        out.append(b.fastPinch(open: true))
        out.append(b.staggeredSwipe(direction: "down", fingers: 3))
        out.append(b.twist(clockwise: true))
        out.append(b.twist(clockwise: false))
        out.append(b.hookedSwipe(direction: "right"))
        out.append(b.hookedSwipe(direction: "up"))
        rng = b.rng
        return out
    }
}

extension Catalog {
    /// A session of about ten seconds on one panel: eight gestures one after
    /// another, up to five fingers, each in its own eighth of the panel (four
    /// columns, two rows), with pauses longer than the double-tap interval
    /// between them.
    /// The picture in the README is drawn from it.
    public static func tour(width: Double, height: Double, rng: inout SeededRandom) -> Scenario {
        let qw = width / 4
        let qh = height / 2
        var b = Builder(width: qw, height: qh, rng: rng)
        let parts: [Scenario] = [
            b.tap(fingers: 1), b.doubleTap(fingers: 2), b.holdThenDrag(), b.swipe(direction: "right", fingers: 3),
            b.flick(direction: "up"), b.pinch(fingers: 5, open: true), b.twoFingerDrag(), b.pinch(fingers: 2, open: false),
        ]
        rng = b.rng
        var strokes: [Stroke] = []
        var expected: [String] = []
        var start = 100.0
        for (i, part) in parts.enumerated() {
            let (ox, oy) = (Double(i % 4) * qw, Double(i / 4) * qh)
            for var s in part.strokes {
                s.land += start
                s.lift += start
                s.x += ox
                s.y += oy
                for m in s.moves.indices { s.moves[m].start += start }
                strokes.append(s)
            }
            expected += part.expected
            start += (part.strokes.map(\.lift).max() ?? 0) + 800
        }
        return Scenario(name: "tour", strokes: strokes, expected: expected)
    }
}

/// Builds scenarios around the panel's centre.
struct Builder {
    let width: Double
    let height: Double
    var rng: SeededRandom

    var cx: Double { width / 2 }
    var cy: Double { height / 2 }

    /// Unit vector of a direction name, screen terms (y down).
    static func vector(_ d: String) -> (Double, Double) {
        let r = 0.7071067811865476
        switch d {
        case "right": return (1, 0)
        case "left": return (-1, 0)
        case "up": return (0, -1)
        case "down": return (0, 1)
        case "up-right": return (r, -r)
        case "up-left": return (-r, -r)
        case "down-right": return (r, r)
        default: return (-r, r)
        }
    }

    /// Finger landing points of a hand of `n` fingers around (x, y): a slight
    /// arc, 16–19 mm apart, side by side, or one above the other (`stacked`).
    mutating func hand(_ n: Int, x: Double, y: Double, stacked: Bool = false) -> [(Double, Double)] {
        let spacing = rng.uniform(16, 19)
        return (0..<n).map { i in
            let o = Double(i) - Double(n - 1) / 2
            let along = o * spacing + rng.uniform(-1, 1)
            let across = 3 * o * o + rng.uniform(-1, 1)
            return stacked ? (x + across, y + along) : (x + along, y + across)
        }
    }

    /// Strokes for a hand: each finger lands and lifts a few ms apart from the others.
    mutating func strokes(_ points: [(Double, Double)], land: Double, lift: Double, moves: [Stroke.Move] = []) -> [Stroke] {
        points.map { p in
            Stroke(land: land + rng.uniform(0, 25), lift: lift + rng.uniform(0, 25), x: p.0, y: p.1, moves: moves)
        }
    }

    mutating func tap(fingers n: Int) -> Scenario {
        let pts = hand(n, x: cx, y: cy)
        let d = rng.uniform(70, 180)
        return Scenario(name: "tap-\(n)f", strokes: strokes(pts, land: 0, lift: d), expected: ["tap fingers=\(n)"])
    }

    mutating func doubleTap(fingers n: Int) -> Scenario {
        let pts = hand(n, x: cx, y: cy)
        let d1 = rng.uniform(70, 140)
        let gap = rng.uniform(90, 180)
        let d2 = rng.uniform(70, 140)
        let second = pts.map { ($0.0 + rng.uniform(-3, 3), $0.1 + rng.uniform(-3, 3)) }
        let s = strokes(pts, land: 0, lift: d1) + strokes(second, land: d1 + 25 + gap, lift: d1 + 25 + gap + d2)
        return Scenario(name: "double-tap-\(n)f", strokes: s, expected: ["double-tap fingers=\(n)"])
    }

    mutating func twoFarTaps() -> Scenario {
        let a = strokes([(cx - 18, cy)], land: 0, lift: rng.uniform(70, 140))
        let t2 = a[0].lift + rng.uniform(100, 180)
        let b = strokes([(cx + 18, cy + 2)], land: t2, lift: t2 + rng.uniform(70, 140))
        return Scenario(name: "two-far-taps", strokes: a + b, expected: ["tap fingers=1", "tap fingers=1"])
    }

    mutating func twoSlowTaps() -> Scenario {
        let a = strokes([(cx, cy)], land: 0, lift: rng.uniform(70, 140))
        let t2 = a[0].lift + rng.uniform(420, 600)
        let b = strokes([(cx + 1, cy + 1)], land: t2, lift: t2 + rng.uniform(70, 140))
        return Scenario(name: "two-slow-taps", strokes: a + b, expected: ["tap fingers=1", "tap fingers=1"])
    }

    mutating func longTap() -> Scenario {
        Scenario(
            name: "long-tap", strokes: [Stroke(land: 0, lift: rng.uniform(360, 430), x: cx, y: cy)], expected: ["tap fingers=1"])
    }

    mutating func hold(fingers n: Int) -> Scenario {
        let pts = hand(n, x: cx, y: cy)
        return Scenario(
            name: "hold-\(n)f", strokes: strokes(pts, land: 0, lift: rng.uniform(750, 1100)),
            expected: ["touch-and-hold fingers=\(n)"])
    }

    mutating func holdThenDrag() -> Scenario {
        let start = rng.uniform(650, 800)
        let dur = rng.uniform(400, 600)
        let move = Stroke.Move(start: start, duration: dur, dx: min(30, width / 3), dy: rng.uniform(-4, 4))
        let s = Stroke(land: 0, lift: start + dur + 80, x: cx - min(15, width / 6), y: cy, moves: [move])
        return Scenario(name: "hold-then-drag", strokes: [s], expected: ["touch-and-hold fingers=1"])
    }

    /// Length of a stroke in direction `v` that fits the panel from its centre.
    func reach(_ v: (Double, Double), want: Double) -> Double {
        let limX = v.0 == 0 ? Double.infinity : (width / 2 - 6) / abs(v.0) * 2
        let limY = v.1 == 0 ? Double.infinity : (height / 2 - 6) / abs(v.1) * 2
        return min(want, limX, limY)
    }

    mutating func slowDrag(direction d: String) -> Scenario {
        let v = Self.vector(d)
        let len = reach(v, want: 40)
        let dur = rng.uniform(850, 1100)
        let move = Stroke.Move(start: 60, duration: dur, dx: v.0 * len, dy: v.1 * len)
        let s = Stroke(
            land: 0, lift: 60 + dur + rng.uniform(70, 120), x: cx - v.0 * len / 2, y: cy - v.1 * len / 2, moves: [move])
        return Scenario(name: "slow-drag-\(d)", strokes: [s], expected: ["drag fingers=1"])
    }

    mutating func flick(direction d: String) -> Scenario {
        let v = Self.vector(d)
        let len = reach(v, want: rng.uniform(28, 34))
        let dur = rng.uniform(95, 125)
        let move = Stroke.Move(start: 20, duration: dur, dx: v.0 * len, dy: v.1 * len, cut: rng.uniform(0.65, 0.75))
        let s = Stroke(land: 0, lift: 20 + dur, x: cx - v.0 * len / 2, y: cy - v.1 * len / 2, moves: [move])
        var expected = ["drag fingers=1", "flick fingers=1 direction=\(d)"]
        if !d.contains("-") { expected.append("swipe fingers=1 direction=\(d)") }
        return Scenario(name: "flick-\(d)", strokes: [s], expected: expected)
    }

    mutating func swipe(direction d: String, fingers n: Int) -> Scenario {
        let v = Self.vector(d)
        var len = reach(v, want: rng.uniform(42, 48))
        let dur = rng.uniform(220, 300)
        // A hand moving sideways is side by side when the panel is wide
        // enough for it and the stroke; on a narrow phone it turns, fingers stacked.
        let handExtent = Double(n - 1) * 19
        let stacked = v.0 != 0 && width - 12 - 2 * 4 < handExtent + len
        // A stacked hand bows sideways by up to 8 mm: keep clear of the edge band.
        if stacked { len = min(len, width - 2 * 14) }
        let move = Stroke.Move(start: 30, duration: dur, dx: v.0 * len, dy: v.1 * len)
        let pts = hand(n, x: cx - v.0 * len / 2, y: cy - v.1 * len / 2, stacked: stacked)
        let s = strokes(pts, land: 0, lift: 30 + dur + 60, moves: [move])
        return Scenario(
            name: "swipe-\(d)-\(n)f", strokes: s, expected: ["drag fingers=\(n)", "swipe fingers=\(n) direction=\(d)"])
    }

    mutating func curvedStroke() -> Scenario {
        let len = reach((1, 0), want: 36)
        let move = Stroke.Move(start: 30, duration: rng.uniform(260, 320), dx: len, dy: 0, bulge: rng.uniform(13, 16))
        let s = Stroke(land: 0, lift: 30 + move.duration + 70, x: cx - len / 2, y: cy - 6, moves: [move])
        return Scenario(name: "curved-stroke", strokes: [s], expected: ["drag fingers=1"])
    }

    mutating func edgeSwipe() -> Scenario {
        let len = reach((1, 0), want: 44)
        let move = Stroke.Move(start: 20, duration: rng.uniform(220, 280), dx: len, dy: rng.uniform(-2, 2))
        let s = Stroke(land: 0, lift: 20 + move.duration + 60, x: rng.uniform(0.8, 2.2), y: cy, moves: [move])
        return Scenario(
            name: "edge-swipe-left", strokes: [s],
            expected: ["drag fingers=1 edge=left", "swipe fingers=1 direction=right edge=left"])
    }

    /// Fingers on a circle around the centre, moving radially from `r0` to `r1` mm.
    mutating func pinch(fingers n: Int, open: Bool) -> Scenario {
        let r0 = open ? rng.uniform(9, 12) : min(rng.uniform(26, 30), width / 2 - 5)
        let r1 = open ? min(rng.uniform(26, 30), width / 2 - 5) : rng.uniform(9, 12)
        let dur = rng.uniform(450, 650)
        let a0 = rng.uniform(0, .pi)
        var s: [Stroke] = []
        for i in 0..<n {
            let a = a0 + 2 * .pi * Double(i) / Double(n)
            let (ux, uy) = (cos(a), sin(a))
            let move = Stroke.Move(start: 40, duration: dur, dx: ux * (r1 - r0), dy: uy * (r1 - r0))
            s.append(
                Stroke(
                    land: rng.uniform(0, 25), lift: 40 + dur + rng.uniform(70, 110), x: cx + ux * r0, y: cy + uy * r0,
                    moves: [move]))
        }
        return Scenario(
            name: "pinch-\(open ? "open" : "close")-\(n)f", strokes: s,
            expected: ["pinch fingers=\(n) direction=\(open ? "open" : "close")"])
    }

    mutating func anchoredPinch() -> Scenario {
        let dur = rng.uniform(450, 600)
        let still = Stroke(land: 0, lift: 40 + dur + 90, x: cx - 12, y: cy)
        let reachOut = min(30, width / 2 - 8)
        let move = Stroke.Move(start: 40, duration: dur, dx: reachOut, dy: rng.uniform(-3, 3))
        let mover = Stroke(land: rng.uniform(0, 25), lift: 40 + dur + 90, x: cx + 2, y: cy + 4, moves: [move])
        return Scenario(name: "pinch-open-anchored", strokes: [still, mover], expected: ["pinch fingers=2 direction=open"])
    }

    mutating func twoFingerDrag() -> Scenario {
        let len = reach((0, 1), want: 40)
        let dur = rng.uniform(650, 850)
        let move = Stroke.Move(start: 40, duration: dur, dx: rng.uniform(-2, 2), dy: len)
        let pts = hand(2, x: cx, y: cy - len / 2)
        return Scenario(
            name: "two-finger-drag", strokes: strokes(pts, land: 0, lift: 40 + dur + 90, moves: [move]),
            expected: ["drag fingers=2"])
    }

    // MARK: - Real hands

    /// One finger rests 0.7–2 s (a hold), a second lands beside it, and both drag.
    mutating func restThenDrag() -> Scenario {
        let rest = rng.uniform(700, 2000)
        let len = reach((0, 1), want: rng.uniform(26, 34))
        let start = rest + rng.uniform(150, 300)
        let dur = rng.uniform(400, 600)
        let move = Stroke.Move(start: start, duration: dur, dx: rng.uniform(-2, 2), dy: len)
        let lift = start + dur + rng.uniform(70, 110)
        let gap = rng.uniform(18, 22)
        let a = Stroke(land: 0, lift: lift, x: cx - gap / 2, y: cy - len / 2, moves: [move])
        let b = Stroke(
            land: rest, lift: lift + rng.uniform(0, 20), x: cx + gap / 2, y: cy - len / 2 + rng.uniform(-2, 2), moves: [move])
        return Scenario(name: "rest-then-drag", strokes: [a, b], expected: ["touch-and-hold fingers=1", "drag fingers=2"])
    }

    /// One finger rests 0.7–2 s, a second lands, and the two spread or close.
    mutating func restThenPinch(open: Bool) -> Scenario {
        let rest = rng.uniform(700, 2000)
        let (r0, r1) =
            open
            ? (rng.uniform(8, 10), min(rng.uniform(20, 24), width / 2 - 6))
            : (min(rng.uniform(20, 24), width / 2 - 6), rng.uniform(8, 10))
        let start = rest + rng.uniform(150, 300)
        let dur = rng.uniform(350, 550)
        let lift = start + dur + rng.uniform(70, 110)
        let a0 = rng.uniform(0, .pi)
        let (ux, uy) = (cos(a0), sin(a0))
        let strokes = [(1.0, 0.0), (-1.0, rest)].map { sign, land in
            Stroke(
                land: land, lift: lift + rng.uniform(0, 20), x: cx + sign * ux * r0, y: cy + sign * uy * r0,
                moves: [Stroke.Move(start: start, duration: dur, dx: sign * ux * (r1 - r0), dy: sign * uy * (r1 - r0))])
        }
        return Scenario(
            name: "rest-then-pinch-\(open ? "open" : "close")", strokes: strokes,
            expected: ["touch-and-hold fingers=1", "pinch fingers=2 direction=\(open ? "open" : "close")"])
    }

    /// A whole hand lands and rests past the hold deadline, then moves together.
    mutating func handRestsThenMoves(fingers n: Int) -> Scenario {
        let start = rng.uniform(600, 900)
        let len = reach((0, 1), want: rng.uniform(26, 34))
        let dur = rng.uniform(400, 600)
        let move = Stroke.Move(start: start, duration: dur, dx: rng.uniform(-2, 2), dy: len)
        let pts = hand(n, x: cx, y: cy - len / 2)
        return Scenario(
            name: "hand-rests-then-moves-\(n)f", strokes: strokes(pts, land: 0, lift: start + dur + 80, moves: [move]),
            expected: ["touch-and-hold fingers=\(n)", "drag fingers=\(n)"])
    }

    /// A 110–150 ms tap whose contact rolls 2–3 mm away and comes back to
    /// within 0.4–1.5 mm of where it landed. With two fingers, one lifts
    /// 20–40 ms before the other, which rolls.
    mutating func rolledTap(fingers n: Int) -> Scenario {
        let pts = hand(n, x: cx, y: cy)
        let d = rng.uniform(110, 150)
        let a = rng.uniform(0, 2 * .pi)
        let roll = rng.uniform(2, 3)
        let back = roll - rng.uniform(0.4, 1.5)
        let (ux, uy) = (cos(a), sin(a))
        let out = Stroke.Move(start: 10, duration: d * 0.4, dx: ux * roll, dy: uy * roll)
        let home = Stroke.Move(start: 10 + d * 0.45, duration: d * 0.4, dx: -ux * back, dy: -uy * back)
        var s: [Stroke] = []
        for (i, p) in pts.enumerated() {
            var stroke = Stroke(land: rng.uniform(0, 10), lift: d + (i == 0 ? 0 : -rng.uniform(20, 40)), x: p.0, y: p.1)
            if i == 0 { stroke.moves = [out, home] }
            stroke.drift = 0.1
            s.append(stroke)
        }
        return Scenario(name: "rolled-tap-\(n)f", strokes: s, expected: ["tap fingers=\(n)"])
    }

    /// A short flick lifted while the finger still speeds up: 7–9 mm in
    /// 80–100 ms, released near its fastest (150–200 mm/s), where a
    /// straight-line fit over the stroke reads about half that.
    mutating func acceleratingFlick(direction d: String) -> Scenario {
        let v = Self.vector(d)
        let len = rng.uniform(7, 9)
        let dur = rng.uniform(80, 100)
        let move = Stroke.Move(start: 5, duration: dur, dx: v.0 * len, dy: v.1 * len, cut: rng.uniform(0.45, 0.52))
        var s = Stroke(land: 0, lift: 5 + dur, x: cx - v.0 * len / 2, y: cy - v.1 * len / 2, moves: [move])
        s.drift = 0.1
        return Scenario(
            name: "accelerating-flick-\(d)", strokes: [s], expected: ["drag fingers=1", "flick fingers=1 direction=\(d)"])
    }

    /// A multi-finger swipe done in about 100 ms: the fingers land, move
    /// 28–34 mm and lift inside the settle window, still moving.
    mutating func fastSwipe(direction d: String, fingers n: Int) -> Scenario {
        let v = Self.vector(d)
        let len = reach(v, want: rng.uniform(28, 34))
        let dur = rng.uniform(75, 90)
        let handExtent = Double(n - 1) * 19
        let stacked = v.0 != 0 && width - 12 - 2 * 4 < handExtent + len
        let move = Stroke.Move(start: 12, duration: dur, dx: v.0 * len, dy: v.1 * len, cut: 0.75)
        let pts = hand(n, x: cx - v.0 * len / 2, y: cy - v.1 * len / 2, stacked: stacked)
        let s = pts.map { p in
            Stroke(land: rng.uniform(0, 8), lift: 12 + dur + rng.uniform(0, 6), x: p.0, y: p.1, moves: [move])
        }
        return Scenario(
            name: "fast-swipe-\(d)-\(n)f", strokes: s,
            expected: ["drag fingers=\(n)", "flick fingers=\(n) direction=\(d)", "swipe fingers=\(n) direction=\(d)"])
    }

    /// A pinch done in 110–140 ms: most of it before the settle window
    /// closes, the lift after it (a scale measured from `began` would see
    /// only its end).
    mutating func fastPinch(open: Bool) -> Scenario {
        let (r0, r1) =
            open
            ? (rng.uniform(7, 9), min(rng.uniform(17, 20), width / 2 - 6))
            : (min(rng.uniform(17, 20), width / 2 - 6), rng.uniform(7, 9))
        let dur = rng.uniform(110, 140)
        let a0 = rng.uniform(0, .pi)
        let (ux, uy) = (cos(a0), sin(a0))
        let s = [1.0, -1.0].map { sign in
            Stroke(
                land: rng.uniform(0, 8), lift: 10 + dur + rng.uniform(0, 6), x: cx + sign * ux * r0, y: cy + sign * uy * r0,
                moves: [Stroke.Move(start: 10, duration: dur, dx: sign * ux * (r1 - r0), dy: sign * uy * (r1 - r0))])
        }
        return Scenario(
            name: "fast-pinch-\(open ? "open" : "close")", strokes: s,
            expected: ["pinch fingers=2 direction=\(open ? "open" : "close")"])
    }

    /// A swipe whose fingers land one after another, 30–50 ms apart, all within the settle window.
    mutating func staggeredSwipe(direction d: String, fingers n: Int) -> Scenario {
        let v = Self.vector(d)
        let len = reach(v, want: rng.uniform(40, 46))
        let dur = rng.uniform(220, 280)
        let start = 110.0
        let move = Stroke.Move(start: start, duration: dur, dx: v.0 * len, dy: v.1 * len)
        let pts = hand(n, x: cx - v.0 * len / 2, y: cy - v.1 * len / 2)
        var land = 0.0
        var s: [Stroke] = []
        for p in pts {
            s.append(Stroke(land: land, lift: start + dur + 60 + rng.uniform(0, 20), x: p.0, y: p.1, moves: [move]))
            land += rng.uniform(30, 50)
        }
        return Scenario(
            name: "staggered-swipe-\(d)-\(n)f", strokes: s,
            expected: ["drag fingers=\(n)", "swipe fingers=\(n) direction=\(d)"])
    }

    /// Two fingers turning 40–70° about their centre with a steady span, as when rotating a photo.
    mutating func twist(clockwise: Bool) -> Scenario {
        let r = min(rng.uniform(14, 18), width / 2 - 8)
        let a0 = rng.uniform(0, .pi)
        let turn = (clockwise ? 1.0 : -1.0) * rng.uniform(40, 70) * .pi / 180
        let dur = rng.uniform(400, 650)
        let lift = 40 + dur + rng.uniform(70, 110)
        let s = [0.0, .pi].map { offset in
            var move = Stroke.Move(start: 40, duration: dur, dx: 0, dy: 0)
            (move.turn, move.pivotX, move.pivotY) = (turn, cx, cy)
            return Stroke(
                land: rng.uniform(0, 20), lift: lift + rng.uniform(0, 15), x: cx + r * cos(a0 + offset),
                y: cy + r * sin(a0 + offset), moves: [move])
        }
        let dir = clockwise ? "clockwise" : "counterclockwise"
        return Scenario(name: "twist-\(dir)", strokes: s, expected: ["rotate fingers=2 direction=\(dir)"])
    }

    /// A swipe that hooks 5–7 mm sideways in its first centimetre, then goes straight.
    mutating func hookedSwipe(direction d: String) -> Scenario {
        let v = Self.vector(d)
        let side = (rng.uniform(0, 1) < 0.5 ? -1.0 : 1.0) * rng.uniform(5, 7)
        let (sx, sy) = (-v.1 * side, v.0 * side)
        let forward = rng.uniform(4, 6)
        let len = reach(v, want: rng.uniform(32, 38))
        let hook = Stroke.Move(start: 10, duration: 45, dx: sx + v.0 * forward, dy: sy + v.1 * forward)
        let dur = rng.uniform(200, 260)
        let straight = Stroke.Move(start: 55, duration: dur, dx: v.0 * len, dy: v.1 * len)
        let s = Stroke(
            land: 0, lift: 55 + dur + rng.uniform(60, 90), x: cx - v.0 * (len + forward) / 2 - sx / 2,
            y: cy - v.1 * (len + forward) / 2 - sy / 2, moves: [hook, straight])
        return Scenario(
            name: "hooked-swipe-\(d)", strokes: [s], expected: ["drag fingers=1", "swipe fingers=1 direction=\(d)"])
    }
}
