import Foundation

extension Catalog {
    /// What hands do in everyday use, beyond `handScenarios`: starts that
    /// creep, pans that become pinches and back, fingers that bounce, hands
    /// that grip the device. Drawn from `rng` like the others, and kept
    /// apart so that adding here changes none of their recordings.
    public static func everydayScenarios(width: Double, height: Double, rng: inout SeededRandom) -> [Scenario] {
        var b = Builder(width: width, height: height, rng: rng)
        var out: [Scenario] = []
        out.append(b.creepThenDrag())
        out.append(b.creepApartThenPinch())
        out.append(b.panThenPinch())
        out.append(b.pinchThenPan())
        out.append(b.bouncingPinch())
        out.append(b.bounceBeforeSwipe())
        out.append(b.gripThenSwipe())
        out.append(b.palmGripThenPinch())
        out.append(b.tapWhileGripping())
        rng = b.rng
        return out
    }

    /// About `minutes` of ordinary use on one panel, as a phone or tablet is
    /// held and read: one-finger scrolls and flicks, taps, two-finger zooms
    /// and pans, some fingers bouncing, and a hand gripping the device at
    /// the bezel (a thumb, or a palm-sized contact) for most of the time.
    /// Never three fingers of a gesture at once: `expected` is empty, and a
    /// test checks instead that no gesture counts more than two fingers.
    public static func ordinaryUse(width: Double, height: Double, minutes: Double, rng: inout SeededRandom) -> Scenario {
        var b = Builder(width: width, height: height, rng: rng)
        var strokes: [Stroke] = []
        var t = 200.0
        let end = minutes * 60_000
        var gripUntil = 0.0
        while t < end {
            if t >= gripUntil {
                // A grip for 5–20 s at a bottom or side edge, now and then palm-sized.
                let long = rng.uniform(5000, 20_000)
                var grip = b.gripStroke(land: t - rng.uniform(150, 400), lift: t + long)
                if b.rng.uniform(0, 1) < 0.4 { grip.size = b.rng.uniform(20, 30) }
                strokes.append(grip)
                gripUntil = t + long + rng.uniform(500, 3000)
            }
            var part: Scenario
            switch Int(b.rng.uniform(0, 10)) {
            case 0...3: part = b.slowDrag(direction: ["up", "down"][Int(b.rng.uniform(0, 2))])
            case 4, 5: part = b.flick(direction: ["up", "down"][Int(b.rng.uniform(0, 2))])
            case 6: part = b.tap(fingers: 1)
            case 7: part = b.bouncingPinch()
            case 8: part = b.pinch(fingers: 2, open: b.rng.uniform(0, 1) < 0.5)
            default: part = b.twoFingerDrag()
            }
            part.strokes.removeAll { $0.atBezel(width: width, height: height) }
            let length = part.strokes.map(\.lift).max() ?? 0
            part.delay(by: t)
            strokes += part.strokes
            t += length + b.rng.uniform(400, 1500)
        }
        rng = b.rng
        return Scenario(name: "ordinary-use", strokes: strokes, expected: [])
    }
}

extension Stroke {
    /// Whether it lands within 10 mm of an edge (a grip's place).
    func atBezel(width: Double, height: Double) -> Bool { min(x, y, width - x, height - y) < 10 }

    /// The same stroke, `ms` later.
    mutating func delay(by ms: Double) {
        land += ms
        lift += ms
        for m in moves.indices { moves[m].start += ms }
    }
}

extension Scenario {
    /// Every stroke `ms` later.
    mutating func delay(by ms: Double) {
        for i in strokes.indices { strokes[i].delay(by: ms) }
    }

    /// Stroke `i`'s finger lifts at `up` and lands again at `back` on its
    /// own path: two contacts of one finger.
    mutating func bounce(_ i: Int, up: Double, back: Double) {
        var after = strokes[i]
        after.land = back
        strokes[i].lift = up
        strokes.append(after)
    }
}

extension Builder {
    /// A finger that creeps 1.5–2 mm in its first 400 ms, always the same
    /// way, then drags 30–37 mm (Android's detectors call it a scroll: it
    /// crosses their touch slop before their long-press timeout).
    mutating func creepThenDrag() -> Scenario {
        let v = Self.vector(["up", "down", "left", "right"][Int(rng.uniform(0, 4))])
        let len = reach(v, want: rng.uniform(30, 37))
        let creep = rng.uniform(2.6, 3.2)
        let start = rng.uniform(520, 600)
        let dur = rng.uniform(450, 600)
        let moves = [
            Stroke.Move(start: 0, duration: 900, dx: v.0 * creep, dy: v.1 * creep),
            Stroke.Move(start: start, duration: dur, dx: v.0 * len, dy: v.1 * len),
        ]
        var s = Stroke(
            land: 0, lift: start + dur + rng.uniform(70, 110), x: cx - v.0 * (len + creep) / 2,
            y: cy - v.1 * (len + creep) / 2, moves: moves)
        s.drift = 0.1
        return Scenario(name: "creep-then-drag", strokes: [s], expected: ["drag fingers=1"])
    }

    /// Two fingers creep apart, steadily through the hold deadline (about
    /// 4 mm further apart by 500 ms), then spread.
    mutating func creepApartThenPinch() -> Scenario {
        let r0 = rng.uniform(9, 12)
        let spread = min(rng.uniform(14, 18), width / 2 - r0 - 8)
        let a0 = rng.uniform(0, .pi)
        let (ux, uy) = (cos(a0), sin(a0))
        let start = rng.uniform(560, 640)
        let dur = rng.uniform(350, 450)
        let lift = start + dur + rng.uniform(70, 110)
        let s = [1.0, -1.0].map { sign in
            var stroke = Stroke(
                land: rng.uniform(0, 15), lift: lift + rng.uniform(0, 15), x: cx + sign * ux * r0, y: cy + sign * uy * r0,
                moves: [
                    Stroke.Move(start: 0, duration: 1000, dx: sign * ux * 4, dy: sign * uy * 4),
                    Stroke.Move(start: start, duration: dur, dx: sign * ux * spread, dy: sign * uy * spread),
                ])
            stroke.drift = 0.1
            return stroke
        }
        return Scenario(name: "creep-apart-then-pinch", strokes: s, expected: ["pinch fingers=2 direction=open"])
    }

    /// Two fingers about 25 mm apart travel 8–12 mm together, then spread
    /// to about 47 mm apart: a pan that becomes a zoom. The fingers lie
    /// along the panel's longer side and travel across it.
    mutating func panThenPinch() -> Scenario {
        let gap = rng.uniform(23, 27)
        let grow = min(rng.uniform(20, 24), max(width, height) - gap - 30)
        let travel = rng.uniform(8, 12)
        let a0 = rng.uniform(-0.3, 0.3) + (width < height ? .pi / 2 : 0)
        let (ux, uy) = (cos(a0), sin(a0))
        let (px, py) = width < height ? (travel, 0.0) : (0.0, travel)
        let panEnd = 40 + rng.uniform(250, 350)
        let dur = rng.uniform(350, 450)
        let lift = panEnd + 30 + dur + rng.uniform(70, 110)
        let s = [1.0, -1.0].map { sign in
            Stroke(
                land: rng.uniform(0, 20), lift: lift + rng.uniform(0, 15), x: cx - px / 2 + sign * ux * gap / 2,
                y: cy - py / 2 + sign * uy * gap / 2,
                moves: [
                    Stroke.Move(start: 40, duration: panEnd - 40, dx: px, dy: py),
                    Stroke.Move(start: panEnd + 30, duration: dur, dx: sign * ux * grow / 2, dy: sign * uy * grow / 2),
                ])
        }
        return Scenario(
            name: "pan-then-pinch", strokes: s, expected: ["drag fingers=2", "pinch fingers=2 direction=open"])
    }

    /// Two fingers close from about 44 to 20 mm apart, then travel 25–35 mm together.
    mutating func pinchThenPan() -> Scenario {
        let r0 = min(rng.uniform(21, 23), width / 2 - 8)
        let r1 = rng.uniform(9, 11)
        let travel = reach((0, 1), want: rng.uniform(25, 35))
        let a0 = rng.uniform(-0.3, 0.3)
        let (ux, uy) = (cos(a0), sin(a0))
        let dur = rng.uniform(350, 450)
        let panStart = 40 + dur + rng.uniform(20, 60)
        let panDur = rng.uniform(400, 550)
        let lift = panStart + panDur + rng.uniform(70, 110)
        let y0 = cy - travel / 2
        let s = [1.0, -1.0].map { sign in
            Stroke(
                land: rng.uniform(0, 20), lift: lift + rng.uniform(0, 15), x: cx + sign * ux * r0, y: y0 + sign * uy * r0,
                moves: [
                    Stroke.Move(start: 40, duration: dur, dx: -sign * ux * (r0 - r1), dy: -sign * uy * (r0 - r1)),
                    Stroke.Move(start: panStart, duration: panDur, dx: 0, dy: travel),
                ])
        }
        return Scenario(
            name: "pinch-then-pan", strokes: s, expected: ["pinch fingers=2 direction=close", "drag fingers=2"])
    }

    /// A pinch whose moving finger lifts halfway for 10–60 ms and lands
    /// again on its path (a few mm on), the other finger down throughout.
    mutating func bouncingPinch() -> Scenario {
        var p = pinch(fingers: 2, open: rng.uniform(0, 1) < 0.5)
        let first = p.strokes[1]
        let move = first.moves[0]
        let up = move.start + move.duration * rng.uniform(0.35, 0.55)
        p.bounce(1, up: up, back: up + rng.uniform(10, 60))
        p.name = "bouncing-pinch"
        return p
    }

    /// Two fingers land for a swipe; once both are down, one bounces (up
    /// 10–40 ms, back where it was) before they move.
    mutating func bounceBeforeSwipe() -> Scenario {
        var s = swipe(direction: ["up", "down"][Int(rng.uniform(0, 2))], fingers: 2)
        for i in s.strokes.indices { s.strokes[i].land = rng.uniform(0, 5) }
        let up = rng.uniform(15, 25)
        s.bounce(1, up: up, back: up + rng.uniform(10, 40))
        s.name = "bounce-before-swipe"
        return s
    }

    /// A thumb at the bezel: near a bottom corner or a side, within 6 mm of the edge.
    mutating func gripStroke(land: Double, lift: Double) -> Stroke {
        let inset = rng.uniform(1.5, 6)
        let (x, y): (Double, Double)
        switch Int(rng.uniform(0, 3)) {
        case 0: (x, y) = (rng.uniform(3, 15), height - inset)
        case 1: (x, y) = (width - rng.uniform(3, 15), height - inset)
        default: (x, y) = (rng.uniform(0, 1) < 0.5 ? inset : width - inset, rng.uniform(height * 0.5, height - 10))
        }
        var s = Stroke(land: land, lift: lift, x: x, y: y)
        s.drift = 0.3
        return s
    }

    /// A thumb rests at the bezel 200–450 ms before two fingers swipe, and stays.
    mutating func gripThenSwipe() -> Scenario {
        var s = swipe(direction: "up", fingers: 2)
        s.delay(by: rng.uniform(200, 450))
        let end = s.strokes.map(\.lift).max()! + rng.uniform(200, 600)
        s.strokes.insert(gripStroke(land: 0, lift: end), at: 0)
        s.name = "grip-then-swipe"
        return s
    }

    /// A palm-sized contact (20–30 mm) lands at the bezel 200–450 ms before
    /// a pinch and rests there through it. (Through libinput, which reports
    /// no sizes, it is a grip by the bezel rule; resting alone past the hold
    /// deadline it would be a hold there, and no finger at all in a replay.)
    mutating func palmGripThenPinch() -> Scenario {
        var p = pinch(fingers: 2, open: rng.uniform(0, 1) < 0.5)
        p.delay(by: rng.uniform(200, 450))
        var palm = gripStroke(land: 0, lift: p.strokes.map(\.lift).max()! + rng.uniform(200, 600))
        palm.size = rng.uniform(20, 30)
        p.strokes.insert(palm, at: 0)
        p.name = "palm-grip-then-pinch"
        return p
    }

    /// A thumb rests at the bezel; 200–450 ms later a finger taps the middle.
    mutating func tapWhileGripping() -> Scenario {
        let lead = rng.uniform(200, 450)
        let tap = Stroke(land: lead, lift: lead + rng.uniform(70, 140), x: cx, y: cy)
        let grip = gripStroke(land: 0, lift: tap.lift + rng.uniform(400, 900))
        return Scenario(name: "tap-while-gripping", strokes: [grip, tap], expected: ["tap fingers=1"])
    }
}
