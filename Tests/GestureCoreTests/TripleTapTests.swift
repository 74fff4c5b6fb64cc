import Testing

@testable import GestureCore

/// Triple taps (docs/gestures.md, "Triple tap"): only for those who ask, and
/// the double tap's latency unchanged for everyone else.
@Suite("Triple taps")
struct TripleTapTests {
    static let withTriples = GestureKindSet.standard.union(GestureKindSet(.tripleTap))

    /// `count` taps of `fingers` fingers, 80 ms each, 150 ms apart, the
    /// `n`th at `place(n)` (the fingers 12 mm apart); the lifts' times.
    @discardableResult
    static func taps(
        _ h: inout Hand, count: Int, fingers: Int, start: Double = 100, place: (Int) -> (Double, Double) = { _ in (30, 30) }
    ) -> [Double] {
        var lifts: [Double] = []
        var t = start
        for n in 0..<count {
            let (x, y) = place(n)
            let slots = (0..<fingers).map { (slot: $0, x: x + Double($0) * 12, y: y + Double($0 % 2) * 4) }
            for s in slots { h.frame(t + Double(s.slot) * 5, (s.slot, .down, s.x, s.y)) }
            for s in slots { h.frame(t + 80 + Double(s.slot) * 5, (s.slot, .up, s.x, s.y)) }
            let lift = t + 80 + Double(fingers - 1) * 5
            lifts.append(lift)
            t = lift + 150
        }
        return lifts
    }

    static func ms(_ e: GestureEvent) -> Double { Double(e.time.microseconds) / 1000 }

    @Test(
        "three taps of one to four fingers, triple taps asked for: one triple tap at the third lift, at the first tap's point, no tap or double tap",
        arguments: 1...4)
    func triple(fingers: Int) throws {
        var h = Hand(wanted: Self.withTriples)
        let lifts = Self.taps(&h, count: 3, fingers: fingers, place: { n in (30 + Double(n), 30 - Double(n)) })
        h.finish()
        #expect(h.summary == ["triple-tap fingers=\(fingers)"])
        let e = try #require(h.events.first)
        #expect(e.taps == 3 && Self.ms(e) == lifts[2], "\(Self.ms(e)) against \(lifts)")
        // The first tap's point: the centroid of its landing points.
        let firstX = (0..<fingers).map { 30 + Double($0) * 12 }.reduce(0, +) / Double(fingers)
        #expect(abs(e.x - firstX) < 0.01, "\(e.x)")
        #expect(h.anomalies.isEmpty)
        let diagrams = try StateDiagrams.load()
        for t in h.pipeline.transitions where t.machine == .tapSequence {
            #expect(diagrams.allows(t), "not drawn: \(t)")
        }
    }

    @Test(
        "without triple taps asked for, the double tap keeps its latency: three taps are a double tap at the second lift and a tap",
        arguments: 1...4)
    func doubleUnchanged(fingers: Int) throws {
        var h = Hand()
        let lifts = Self.taps(&h, count: 3, fingers: fingers)
        h.finish()
        #expect(h.summary == ["double-tap fingers=\(fingers)", "tap fingers=\(fingers)"])
        #expect(h.events.first.map(Self.ms) == lifts[1])
        #expect(h.events.first?.taps == 2)
    }

    @Test(
        "triple taps asked for: two taps are a double tap once doubleTap.maxInterval has passed with no third; one tap a tap the same way"
    )
    func heldBack() throws {
        var h = Hand(wanted: Self.withTriples)
        let lifts = Self.taps(&h, count: 2, fingers: 2)
        h.advance(lifts[1] + 1000)
        #expect(h.summary == ["double-tap fingers=2"])
        #expect(h.events.first.map(Self.ms) == lifts[1] + 300)
        var one = Hand(wanted: Self.withTriples)
        let lift = Self.taps(&one, count: 1, fingers: 1)
        one.advance(lift[0] + 1000)
        #expect(one.summary == ["tap fingers=1"] && one.events.first.map(Self.ms) == lift[0] + 300)
    }

    @Test(
        "four taps are a triple tap and a tap; a third tap elsewhere ends the double tap and is a tap of its own; a third of other fingers too"
    )
    func notTriples() throws {
        var four = Hand(wanted: Self.withTriples)
        Self.taps(&four, count: 4, fingers: 1)
        four.finish()
        #expect(four.summary == ["triple-tap fingers=1", "tap fingers=1"])

        var far = Hand(wanted: Self.withTriples)
        Self.taps(&far, count: 3, fingers: 1, place: { n in n < 2 ? (30, 30) : (60, 30) })
        far.finish()
        #expect(far.summary == ["double-tap fingers=1", "tap fingers=1"])

        var h = Hand(wanted: Self.withTriples)
        let lifts = Self.taps(&h, count: 2, fingers: 1)
        Self.taps(&h, count: 1, fingers: 2, start: lifts[1] + 150)
        h.finish()
        #expect(h.summary == ["double-tap fingers=1", "tap fingers=2"])
        #expect(h.anomalies.isEmpty && far.anomalies.isEmpty && four.anomalies.isEmpty)
    }

    @Test(
        "subscribers wanting one, two and three taps at once: each gets the partition of docs/gestures.md, with the timing it would get alone"
    )
    func mixed() throws {
        var h = Hand(wanted: Self.withTriples)
        h.pipeline.setWanted(Self.withTriples, immediateTaps: true, immediateDoubleTaps: true)
        let lifts = Self.taps(&h, count: 3, fingers: 3)
        h.finish()
        #expect(h.anomalies.isEmpty)
        // What a subscriber wanting at most `maxTaps` in a row gets: the daemon filters by kind, then by timing.
        func seen(_ maxTaps: Int) -> [String] {
            let kinds: [GestureKind] = [.tap, .doubleTap, .tripleTap].prefix(maxTaps).map { $0 }
            return h.events.filter { kinds.contains($0.gesture) && $0.timing.isFor(maxTaps: maxTaps) }
                .map { "\($0.gesture.rawValue)@\(Self.ms($0))" }
        }
        #expect(seen(1) == lifts.map { "tap@\($0)" })
        #expect(seen(2) == ["double-tap@\(lifts[1])", "tap@\(lifts[2])"])
        #expect(seen(3) == ["triple-tap@\(lifts[2])"])

        // Two taps: a double tap at once for those without triple taps, after the interval for the others.
        var two = Hand(wanted: Self.withTriples)
        two.pipeline.setWanted(Self.withTriples, immediateTaps: true, immediateDoubleTaps: true)
        let l2 = Self.taps(&two, count: 2, fingers: 1)
        two.finish()
        let doubles = two.events.filter { $0.gesture == .doubleTap }
        #expect(doubles.map(\.timing) == [.immediateForDoubles, .confirmedForTriples])
        #expect(doubles.map(Self.ms) == [l2[1], l2[1] + 300])
    }

    @Test("GestureKindSet: a subscription that names no kinds has no triple taps; naming them asks for three taps in a row")
    func kinds() {
        #expect(!GestureKindSet.standard.contains(.tripleTap) && GestureKindSet.all.contains(.tripleTap))
        #expect(GestureKindSet.standard.maxTaps == 2 && Self.withTriples.maxTaps == 3)
        #expect(GestureKindSet([.tap, .tripleTap]).maxTaps == 3 && GestureKindSet([.tap, .swipe]).maxTaps == 1)
    }
}

@Suite("Triple taps in a real recording")
struct RealTripleTapTests {
    @Test(
        "nine fast one-finger taps on an Atmel maXTouch (evemu-devices' recording): four double taps and a tap without triple taps, three triple taps with them",
        .enabled(if: Fixtures.sharedTracesPresent || Fixtures.inCI, "../shared/traces is absent: skipped outside CI"))
    func fastTaps() throws {
        try #require(Fixtures.sharedTracesPresent, "../shared/traces must be beside the checkout in CI")
        let path = Fixtures.sharedTraces + "/evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"
        let plain = try RealTracesTests.replay(path: path, size: RealTracesTests.atmel)
        #expect(plain.summary == Array(repeating: "double-tap fingers=1", count: 4) + ["tap fingers=1"])
        let triples = try RealTracesTests.replay(path: path, size: RealTracesTests.atmel, wanted: TripleTapTests.withTriples)
        #expect(triples.summary == Array(repeating: "triple-tap fingers=1", count: 3))
        #expect(triples.outcome.anomalies.isEmpty)
    }
}
