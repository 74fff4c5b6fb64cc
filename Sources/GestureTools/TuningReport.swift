public import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

extension Tuning {
    /// One side of a threshold: the gestures that must stay below it (or reach it) and what is measured.
    struct Side: Sendable {
        var kind: GestureKind
        var says: String
        var value: @Sendable (Measures) -> Double?
        /// For a gesture the threshold separates from another (a drag from a
        /// swipe by its length): a performance is evidence only when this
        /// threshold is what kept it from being the other, that is when it
        /// is recognized as one of `kinds` with the threshold moved out of
        /// the way (to `value`). A curved drag says nothing about
        /// `swipe.maxDuration`: no length would have made it a swipe.
        var rival: Rival? = nil
    }

    struct Rival: Sendable {
        var kinds: Set<GestureKind>
        var value: Double
    }

    /// A threshold and the gestures on either side of it.
    struct Rule: Sendable {
        var key: String
        var below: [Side]
        var above: [Side]
    }

    static let rules: [Rule] = [
        Rule(
            key: "settle",
            below: [.tap, .touchAndHold, .drag, .flick, .swipe, .pinch, .rotate].map { kind in
                Side(
                    kind: kind, says: "the fingers of your multi-finger \(plural(kind)) landed within",
                    value: { $0.landingSpread })
            }, above: []),
        Rule(
            key: "tap.maxDuration",
            below: [
                Side(kind: .tap, says: "your taps lasted", value: { $0.contact }),
                Side(kind: .doubleTap, says: "the touches of your double taps lasted", value: { $0.contact }),
            ], above: []),
        Rule(
            key: "hold.minDuration",
            below: [
                Side(kind: .tap, says: "your taps lasted", value: { $0.contact }),
                Side(kind: .doubleTap, says: "the touches of your double taps lasted", value: { $0.contact }),
            ],
            above: [Side(kind: .touchAndHold, says: "your holds stayed still for", value: { $0.still })]),
        Rule(
            key: "slop",
            below: [
                Side(kind: .tap, says: "your taps lifted this far from where they landed", value: { $0.liftOffset }),
                Side(kind: .doubleTap, says: "your double taps lifted this far from where they landed", value: { $0.liftOffset }),
                Side(kind: .touchAndHold, says: "your holds moved (before the hold)", value: { $0.earlyTravel }),
            ],
            above: [
                Side(kind: .drag, says: "your drags moved", value: { $0.travel }),
                Side(kind: .flick, says: "your flicks moved", value: { $0.travel }),
                Side(kind: .swipe, says: "your swipes moved", value: { $0.travel }),
            ]),
        Rule(
            key: "tap.maxRoll",
            below: [
                Side(kind: .tap, says: "your taps rolled", value: { $0.travel }),
                Side(kind: .doubleTap, says: "your double taps rolled", value: { $0.travel }),
            ], above: []),
        Rule(
            key: "doubleTap.maxInterval",
            below: [Side(kind: .doubleTap, says: "the gap in your double taps was", value: { $0.gap })], above: []),
        Rule(
            key: "doubleTap.minInterval", below: [],
            above: [Side(kind: .doubleTap, says: "the gap in your double taps was", value: { $0.gap })]),
        Rule(
            key: "doubleTap.maxDistance",
            below: [
                Side(kind: .doubleTap, says: "your second taps landed this far from the first", value: { $0.gapDistance })
            ], above: []),
        Rule(
            key: "flick.minVelocity",
            below: [
                Side(
                    kind: .drag, says: "your drags that only their speed kept from being flicks were released at",
                    value: { $0.release }, rival: Rival(kinds: [.flick], value: 0))
            ],
            above: [Side(kind: .flick, says: "your flicks were released at", value: { $0.release })]),
        Rule(
            key: "swipe.minDistance", below: [],
            above: [Side(kind: .swipe, says: "your swipes travelled", value: { $0.axisTravel })]),
        Rule(
            key: "swipe.maxDuration",
            below: [Side(kind: .swipe, says: "your swipes took", value: { $0.duration })],
            above: [
                Side(
                    kind: .drag, says: "your drags that only their length kept from being swipes took",
                    value: { $0.duration }, rival: Rival(kinds: [.swipe], value: 3_600_000))
            ]),
        Rule(
            key: "swipe.maxAngle",
            below: [Side(kind: .swipe, says: "your swipes strayed from their axis by", value: { $0.angle })], above: []),
        Rule(
            key: "pinch.minSpanChange",
            below: [
                Side(
                    kind: .drag, says: "your multi-finger drags changed their span by",
                    value: { $0.fingers >= 2 ? $0.spanChange : nil }, rival: Rival(kinds: [.pinch, .rotate], value: 0))
            ],
            above: [
                Side(kind: .pinch, says: "your pinches changed their span by", value: { $0.spanChange }),
                Side(kind: .rotate, says: "your rotations turned along the circle by", value: { $0.turn }),
            ]),
    ]

    static func plural(_ kind: GestureKind) -> String {
        switch kind {
        case .touchAndHold: "holds"
        case .pinch: "pinches"
        case .rotate: "rotations"
        default: kind.rawValue + "s"
        }
    }

    /// Margin under which a threshold is moved: a value within 25 % of the
    /// threshold (or beyond it) is too close for comfort.
    static let comfort = 1.25

    /// How one threshold relates to a user's gestures.
    public struct Finding: Sendable {
        public var key: String
        public var unit: String
        public var current: Double
        /// "your taps lasted", the values and where each comes from ("tap-3.evemu at 2.1 s"), per side.
        public var below: [(says: String, values: [Double], origins: [String])]
        public var above: [(says: String, values: [Double], origins: [String])]
        /// A better value, or nil to keep the current one.
        public var suggested: Double?
        public var note: String

        var maxBelow: Double? { below.flatMap(\.values).max() }
        var minAbove: Double? { above.flatMap(\.values).min() }

        /// The performances on the wrong side of each other: below-side values
        /// at or above the lowest above-side value, and the reverse.
        var overlapping: [String] {
            guard let b = maxBelow, let a = minAbove, b >= a else { return [] }
            let low = below.flatMap { zip($0.values, $0.origins) }.filter { $0.0 >= a }
            let high = above.flatMap { zip($0.values, $0.origins) }.filter { $0.0 <= b }
            return (low + high).sorted { $0.1 < $1.1 }.map { "\($0.1) (\(NumberText.short($0.0, 1)) \(unit))" }
        }
    }

    static func key(_ name: String) -> GestureThresholds.Key { GestureThresholds.keys.first { $0.name == name }! }

    /// Each threshold's margins over `performances`, and the value that separates them with the widest margin when the current one is too close.
    public static func findings(_ performances: [Performance], thresholds: GestureThresholds) -> [Finding] {
        var out: [Finding] = []
        for rule in rules {
            let k = key(rule.key)
            func collect(_ sides: [Side]) -> [(says: String, values: [Double], origins: [String])] {
                sides.compactMap { side in
                    let measured = performances.filter {
                        $0.intent == side.kind && (side.rival == nil || $0.decisive.contains(rule.key))
                    }.compactMap { p in side.value(p.measures).map { ($0, p.origin) } }
                    return measured.isEmpty ? nil : (side.says, measured.map(\.0), measured.map(\.1))
                }
            }
            var f = Finding(
                key: rule.key, unit: k.unit, current: thresholds[keyPath: k.keyPath], below: collect(rule.below),
                above: collect(rule.above), suggested: nil, note: "")
            guard f.maxBelow != nil || f.minAbove != nil else { continue }
            let c = f.current
            let belowOK = f.maxBelow.map { $0 * comfort <= c } ?? true
            let aboveOK = f.minAbove.map { $0 >= c * comfort } ?? true
            switch (f.maxBelow, f.minAbove) {
            case _ where belowOK && aboveOK:
                f.note = "comfortable margins: keep"
            case (let b?, let a?) where b < a:
                // The geometric middle: the widest margin as a ratio on both sides.
                f.suggested = b > 0 ? (a * b).squareRoot() : a / 2
                f.note = "too close: the middle of the gap gives both sides the widest margin"
            case (_?, _?):
                f.note = "your gestures overlap here: no value separates them: " + f.overlapping.joined(separator: ", ")
            case (let b?, nil):
                f.suggested = b * comfort
                f.note = "too close: raised to leave a 25 % margin above your gestures"
            case (nil, let a?):
                f.suggested = a / comfort
                f.note = "too close: lowered to leave a 25 % margin below your gestures"
            default:
                break
            }
            if let s = f.suggested {
                f.suggested = rounded(s, unit: f.unit, key: f.key)
                if f.suggested == c { f.suggested = nil }
            }
            out.append(f)
        }
        return out
    }

    static func rounded(_ v: Double, unit: String, key: String) -> Double {
        var r: Double
        switch unit {
        case "mm": r = (v * 10).rounded() / 10
        default: r = v.rounded()
        }
        if key == "swipe.maxAngle" { r = min(r, 44) }
        return max(r, unit == "mm" ? 0.1 : 1)
    }

    /// A reference recording and the gestures it must give (`.expect`).
    public struct Reference {
        public var trace: Trace
        public var geometry: PanelGeometry
        public var expected: [String]
        public init(trace: Trace, geometry: PanelGeometry, expected: [String]) {
            self.trace = trace
            self.geometry = geometry
            self.expected = expected
        }

        func passes(_ thresholds: GestureThresholds) -> Bool {
            let replay = TraceReplay(geometry: geometry, thresholds: thresholds)
            guard let events = try? replay.events(trace).events else { return false }
            return events.compactMap(\.summary) == expected
        }
    }

    /// Applies the findings' suggestions one at a time, keeping each only as
    /// far as every reference recording still gives its expected gestures
    /// (bisecting towards the current value otherwise). Returns the thresholds
    /// and the findings with the values actually kept.
    public static func suggest(
        _ findings: [Finding], from thresholds: GestureThresholds, references: [Reference]
    )
        -> (GestureThresholds, [Finding])
    {
        var t = thresholds
        var out = findings
        func allPass(_ candidate: GestureThresholds) -> Bool {
            candidate.problems().isEmpty && references.allSatisfy { $0.passes(candidate) }
        }
        for i in out.indices {
            guard let wanted = out[i].suggested else { continue }
            let k = key(out[i].key)
            var candidate = t
            candidate[keyPath: k.keyPath] = wanted
            if allPass(candidate) {
                t = candidate
                continue
            }
            var good = out[i].current
            var bad = wanted
            for _ in 0..<10 {
                let mid = rounded((good + bad) / 2, unit: out[i].unit, key: out[i].key)
                if mid == good || mid == bad { break }
                candidate[keyPath: k.keyPath] = mid
                if allPass(candidate) { good = mid } else { bad = mid }
            }
            out[i].suggested = good == out[i].current ? nil : good
            out[i].note +=
                good == out[i].current
                ? "; not changed: any move breaks a bundled recording"
                : "; limited to \(NumberText.short(good, 1)) \(out[i].unit) by the bundled recordings (\(NumberText.short(wanted, 1)) breaks one)"
            t[keyPath: k.keyPath] = good
        }
        return (t, out)
    }

    /// Counts of what was meant (rows) against what was recognized (columns; nil: nothing).
    public static func confusion(_ performances: [Performance]) -> [GestureKind: [GestureKind?: Int]] {
        var m: [GestureKind: [GestureKind?: Int]] = [:]
        for p in performances { m[p.intent, default: [:]][p.outcome, default: 0] += 1 }
        return m
    }

    /// "80–160 ms (12)".
    static func range(_ values: [Double], _ unit: String) -> String {
        let lo = values.min()!
        let hi = values.max()!
        return (lo == hi ? NumberText.short(lo, 1) : "\(NumberText.short(lo, 1))–\(NumberText.short(hi, 1))")
            + " \(unit) (\(values.count))"
    }

    /// The confusion matrix as text.
    public static func matrixText(_ performances: [Performance]) -> String {
        let m = confusion(performances)
        let rows = GestureKind.allCases.filter { m[$0] != nil }
        let columns: [GestureKind?] = GestureKind.allCases.map { Optional($0) } + [nil]
        let names = columns.map { $0?.rawValue ?? "nothing" }
        let first = 16
        var s = "meant \\ got".padding(first) + names.map { $0.padding($0.count + 2, left: true) }.joined() + "\n"
        var right = 0
        for row in rows {
            s += row.rawValue.padding(first)
            for (i, c) in columns.enumerated() {
                let n = m[row]?[c] ?? 0
                if c == row { right += n }
                s += (n == 0 ? "." : String(n)).padding(names[i].count + 2, left: true)
            }
            s += "\n"
        }
        let total = performances.count
        s += "recognized as meant: \(right) of \(total) (\(total == 0 ? 0 : right * 100 / total) %)\n"
        return s
    }

    /// The margins of every threshold as text, one paragraph each.
    public static func findingsText(_ findings: [Finding]) -> String {
        var s = ""
        for f in findings {
            s += "\(f.key) = \(NumberText.short(f.current, 1)) \(f.unit)"
            if let v = f.suggested { s += "  →  suggested \(NumberText.short(v, 1)) \(f.unit)" }
            s += "\n"
            for side in f.below { s += "    \(side.says) \(range(side.values, f.unit)): should stay below\n" }
            for side in f.above { s += "    \(side.says) \(range(side.values, f.unit)): should reach it\n" }
            s += "    \(f.note)\n"
        }
        return s + unmeasured + "\n"
    }

    /// The thresholds no recording can be measured against.
    public static let unmeasured =
        "velocity.window, flick.deceleration and edge.band are not measured: they shape how velocity is fitted, the hint flicks carry and the edge tag, not which gesture is recognized."

    /// The `[thresholds]` snippet of the suggestions.
    public static func snippet(_ findings: [Finding]) -> String {
        let changed = findings.filter { $0.suggested != nil }
        guard !changed.isEmpty else { return "" }
        var s = "[thresholds]\n"
        for f in changed {
            s += "\(f.key) = \(NumberText.short(f.suggested!, 1))    # was \(NumberText.short(f.current, 1)) \(f.unit)\n"
        }
        return s
    }

    /// The margins drawn: one row per threshold, values on a log scale, your
    /// gestures as dots (blue: should stay below, orange: should reach it),
    /// the current value dashed, the suggested one solid green.
    public static func marginsSVG(_ findings: [Finding], title: String) -> String {
        var svg = SVGWriter()
        let rowHeight = 64.0
        let left = 190.0
        let width = 900.0
        let plot = width - left - 30
        svg.open(width: width, height: 60 + rowHeight * Double(findings.count) + 20)
        svg.text(20, 26, title, size: 15, weight: "bold")
        svg.text(20, 44, "● should stay below the threshold", size: 11, fill: "#1f77b4")
        svg.text(240, 44, "● should reach it", size: 11, fill: "#ff7f0e")
        svg.text(360, 44, "┆ current (shaded: within 25 %)", size: 11, fill: "#555")
        svg.text(560, 44, "│ suggested", size: 11, fill: "#2ca02c")
        svg.text(660, 44, "log scale", size: 11, fill: "#999")
        for (row, f) in findings.enumerated() {
            let y = 60 + rowHeight * Double(row)
            var values: [Double] = f.below.flatMap(\.values)
            values += f.above.flatMap(\.values)
            values.append(f.current)
            if let suggested = f.suggested { values.append(suggested) }
            let positive = values.filter { $0 > 0 }
            let lo = (positive.min() ?? 1) / 1.5
            let hi = (positive.max() ?? 1) * 1.5
            func x(_ v: Double) -> Double { left + (log(max(v, lo)) - log(lo)) / (log(hi) - log(lo)) * plot }
            svg.raw("<g class=\"threshold\" data-key=\"\(f.key)\">")
            svg.text(20, y + 26, f.key, size: 12, weight: "bold")
            svg.text(
                20, y + 42,
                "\(NumberText.short(f.current, 1)) \(f.unit)" + (f.suggested.map { " → \(NumberText.short($0, 1))" } ?? ""),
                size: 11,
                fill: "#555")
            svg.raw(
                "<line x1=\"\(left.svg)\" y1=\"\((y + 44).svg)\" x2=\"\((left + plot).svg)\" y2=\"\((y + 44).svg)\" stroke=\"#bbb\"/>"
            )
            for (v, label) in [(lo, NumberText.short(lo * 1.5, 1)), (hi, NumberText.short(hi / 1.5, 1))] {
                svg.text(x(v * (v == lo ? 1.5 : 1 / 1.5)), y + 58, "\(label) \(f.unit)", size: 9, fill: "#777", anchor: "middle")
            }
            for (side, color) in [(f.below, "#1f77b4"), (f.above, "#ff7f0e")] {
                for (i, (v, origin)) in side.flatMap({ zip($0.values, $0.origins) }).enumerated() {
                    let jitter = Double(i % 5) * 5 - 10
                    svg.raw(
                        "<circle class=\"value\" cx=\"\(x(v).svg)\" cy=\"\((y + 30 + jitter).svg)\" r=\"3.5\" fill=\"\(color)\" fill-opacity=\"0.75\"><title>\(NumberText.short(v, 1)) \(f.unit): \(SVGWriter.escape(origin))</title></circle>"
                    )
                }
            }
            let (z0, z1) = (x(f.current / comfort), x(f.current * comfort))
            svg.raw(
                "<rect class=\"comfort\" x=\"\(z0.svg)\" y=\"\((y + 12).svg)\" width=\"\((z1 - z0).svg)\" height=\"36\" fill=\"#999\" fill-opacity=\"0.15\"/>"
            )
            let cx = x(f.current)
            svg.raw(
                "<line class=\"current\" x1=\"\(cx.svg)\" y1=\"\((y + 12).svg)\" x2=\"\(cx.svg)\" y2=\"\((y + 48).svg)\" stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"><title>current \(NumberText.short(f.current, 1)) \(f.unit)</title></line>"
            )
            if let s = f.suggested {
                let sx = x(s)
                svg.raw(
                    "<line class=\"suggested\" x1=\"\(sx.svg)\" y1=\"\((y + 10).svg)\" x2=\"\(sx.svg)\" y2=\"\((y + 50).svg)\" stroke=\"#2ca02c\" stroke-width=\"2.5\"><title>suggested \(NumberText.short(s, 1)) \(f.unit)</title></line>"
                )
            }
            svg.raw("</g>")
        }
        svg.close()
        return svg.text
    }
}

extension String {
    func padding(_ n: Int, left: Bool = false) -> String {
        let pad = String(repeating: " ", count: max(0, n - count))
        return left ? pad + self : self + pad
    }
}
