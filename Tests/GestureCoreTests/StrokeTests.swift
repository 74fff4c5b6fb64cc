import Foundation
import GestureCore
import Testing

/// Shapes drawn as a programmer would draw them, in mm (y down): the
/// strokes of people are checked against these.
enum DrawnShapes {
    static func arc(
        _ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double, from a0: Double, to a1: Double, steps: Int
    ) -> [SIMD2<Double>] {
        (0...steps).map { i in
            let a = a0 + (a1 - a0) * Double(i) / Double(steps)
            return SIMD2(cx + rx * cos(a), cy + ry * sin(a))
        }
    }

    static let l: [SIMD2<Double>] = [[0, 0], [0, 40], [25, 40]]
    static let circle = arc(0, 0, 20, 20, from: -.pi / 2, to: 1.5 * .pi, steps: 24)
    static let z: [SIMD2<Double>] = [[0, 0], [30, 0], [0, 35], [30, 35]]
    static let n: [SIMD2<Double>] = [[0, 40], [0, 0], [35, 40], [35, 0]]
    static let m: [SIMD2<Double>] = [[0, 40], [0, 0], [20, 20], [40, 0], [40, 40]]
    /// A capital B: the stem up, then its two bowls back to where it began.
    static let b: [SIMD2<Double>] =
        [[0, 40], [0, 0]] + arc(0, 10, 20, 10, from: -.pi / 2, to: .pi / 2, steps: 8)
        + arc(0, 30, 22, 10, from: -.pi / 2, to: .pi / 2, steps: 8)

    static func shape(_ name: String, _ points: [SIMD2<Double>], rotates: Bool = false) -> StrokeShapes.Shape {
        StrokeShapes.Shape(name: name, examples: [points], rotates: rotates)!
    }

    /// Each shape's name and corners; the circle rotates.
    static let drawn: [(name: String, corners: [SIMD2<Double>])] = [
        ("L", l), ("circle", circle), ("Z", z), ("N", n), ("M", m), ("B", b),
    ]

    static let all = StrokeShapes(drawn.map { shape($0.name, $0.corners, rotates: $0.name == "circle") })
    /// The shapes of corners and the circle, without the B: a shape of
    /// loops is met by paths that loop by chance (one of people's
    /// two-finger moves in real-hands is a B at 0.064).
    static let cornersAndCircle = StrokeShapes(all.shapes.filter { $0.name != "B" })

    /// Points along the polyline through `corners`, `step` mm apart, as a finger reports them.
    static func dense(_ corners: [SIMD2<Double>], step: Double = 1) -> [SIMD2<Double>] {
        var out = [corners[0]]
        for (a, b) in zip(corners, corners.dropFirst()) {
            let d = b - a
            let n = max(1, Int((d * d).sum().squareRoot() / step))
            for i in 1...n { out.append(a + d * (Double(i) / Double(n))) }
        }
        return out
    }
}

@Suite("Strokes: the $P matcher")
struct StrokeShapesTests {
    @Test("a path is at no distance from itself, moved, scaled or drawn backwards")
    func invariance() throws {
        let z = DrawnShapes.dense(DrawnShapes.z)
        let shape = DrawnShapes.shape("Z", z)
        #expect(StrokeShapes.distance(z, to: shape) < 0.001)
        let moved = z.map { $0 * 2.5 + SIMD2(100, -40) }
        #expect(StrokeShapes.distance(moved, to: shape) < 0.01)
        let backwards = Array(z.reversed())
        #expect(StrokeShapes.distance(backwards, to: shape) < 0.01)
    }

    @Test("a turned shape matches only a shape that rotates")
    func rotation() throws {
        let l = DrawnShapes.dense(DrawnShapes.l)
        let turned = l.map { SIMD2(-$0.y, $0.x) }
        let asDrawn = StrokeShapes([DrawnShapes.shape("L", l)])
        let anyWay = StrokeShapes([DrawnShapes.shape("L", l, rotates: true)])
        #expect(asDrawn.match(l)?.name == "L")
        #expect(asDrawn.match(turned) == nil)
        #expect(anyWay.match(turned)?.name == "L")
    }

    @Test("each drawn shape is its own nearest, and far from the others")
    func distinct() throws {
        for (name, corners) in DrawnShapes.drawn {
            let path = DrawnShapes.dense(corners)
            let match = try #require(DrawnShapes.all.match(path), "\(name) matched nothing")
            #expect(match.name == name)
            #expect(match.score > 0.9)
            for other in DrawnShapes.all.shapes where other.name != name {
                let d = StrokeShapes.distance(path, to: other)
                #expect(d > 0.1, "\(name) is \(d) from \(other.name)")
            }
        }
    }

    @Test("a line, straight, bowed or back and forth, is no shape")
    func lines() throws {
        let straight = DrawnShapes.dense([[0, 0], [0, 60]])
        let bowed = DrawnShapes.arc(0, 0, 8, 40, from: -.pi / 2, to: .pi / 2, steps: 30)
        let upAndDown = DrawnShapes.dense([[0, 0], [0, 50], [1.5, 2]])
        for path in [straight, bowed, upAndDown] {
            #expect(DrawnShapes.all.match(path) == nil, "\(path.prefix(3)) …")
        }
        // A shape that is a line matches lines, and nothing else.
        let line = StrokeShapes([DrawnShapes.shape("line", straight)])
        #expect(line.match(DrawnShapes.dense([[5, 5], [5, 90]]))?.name == "line")
        #expect(line.match(DrawnShapes.dense(DrawnShapes.l)) == nil)
    }

    @Test("a shape takes no stroke beyond its tolerance")
    func tolerance() throws {
        let z = DrawnShapes.dense(DrawnShapes.z)
        // A Z whose last stroke ends 12 mm short.
        let short = DrawnShapes.dense([[0, 0], [30, 0], [0, 35], [18, 35]])
        let d = StrokeShapes.distance(short, to: DrawnShapes.shape("Z", z))
        #expect(d > 0.01)
        let strict = StrokeShapes([StrokeShapes.Shape(name: "Z", examples: [z], tolerance: d / 2)!])
        let loose = StrokeShapes([StrokeShapes.Shape(name: "Z", examples: [z], tolerance: d * 2)!])
        #expect(strict.match(short) == nil)
        let match = try #require(loose.match(short))
        #expect(abs(match.score - 0.5) < 0.01)
    }

    @Test("a closed shape takes no open path: a U is no circle; a circle left open by two fifths of its size still is")
    func closed() throws {
        // Three quarters of a circle: its ends 0.71 of its size apart. Even
        // a circle that takes distances up to 0.3 does not take it.
        let u = DrawnShapes.arc(0, 0, 20, 20, from: -.pi / 2, to: .pi, steps: 18)
        let loose = StrokeShapes([
            StrokeShapes.Shape(name: "circle", examples: [DrawnShapes.circle], rotates: true, tolerance: 0.3)!
        ])
        #expect(loose.match(u) == nil)
        #expect(DrawnShapes.all.match(u) == nil)
        // A circle whose last 47° are missing: its ends 0.4 of its size apart.
        let short = DrawnShapes.arc(0, 0, 20, 20, from: -.pi / 2, to: 1.5 * .pi - 47 * .pi / 180, steps: 22)
        #expect(DrawnShapes.all.match(short)?.name == "circle")
        // An open shape takes paths however far apart their ends are.
        let openArc = StrokeShapes([DrawnShapes.shape("U", u)])
        #expect(openArc.match(u)?.name == "U")
    }

    @Test("examples as text: read back as written; anything else refused")
    func text() throws {
        let points: [SIMD2<Double>] = [[0, 0], [12.5, -3.25], [40, 7.1]]
        let text = StrokeShapes.text(points)
        #expect(text == "0.0,0.0 12.5,-3.2 40.0,7.1" || text == "0.0,0.0 12.5,-3.3 40.0,7.1")
        let back = try #require(StrokeShapes.points(text))
        #expect(back.count == 3)
        #expect(abs(back[2].x - 40) < 1e-9)
        for bad in ["1,2,3", "1;2", "x,1", "1,", "1e9,0", "nan,1", "0,0 inf,1"] {
            #expect(StrokeShapes.points(bad) == nil, "\(bad)")
        }
        #expect(StrokeShapes.Shape(name: "dot", examples: [[[1, 1], [1, 1]]]) == nil)
    }
}

@Suite("Strokes: the recognizer's event")
struct StrokeEventTests {
    /// An L drawn at 100 Hz on a 100 x 60 mm panel, 150 mm/s, the second finger 12 mm to the right.
    static func drawL(_ h: inout Hand, fingers: Int = 1) {
        let corners: [SIMD2<Double>] = [[30, 10], [30, 50], [55, 50]]
        let points = DrawnShapes.dense(corners, step: 1.5)
        for (i, p) in points.enumerated() {
            let ms = Double(i) * 10
            let phase: ContactPhase = i == 0 ? .down : .move
            if fingers == 1 {
                h.frame(ms, (0, phase, p.x, p.y))
            } else {
                h.frame(ms, (0, phase, p.x, p.y), (1, phase, p.x + 12, p.y))
            }
        }
        let end = points[points.count - 1]
        let ms = Double(points.count) * 10
        if fingers == 1 {
            h.frame(ms, (0, .up, end.x, end.y))
        } else {
            h.frame(ms, (0, .up, end.x, end.y), (1, .up, end.x + 12, end.y))
        }
        h.finish()
    }

    @Test("a drag's path comes as a stroke after its end, for those who ask, one or two fingers")
    func strokeAfterDrag() throws {
        for fingers in [1, 2] {
            var h = Hand(wanted: GestureKindSet([.drag, .stroke, .swipe, .flick]))
            Self.drawL(&h, fingers: fingers)
            let kinds = h.events.map(\.gesture)
            let stroke = try #require(h.events.last)
            #expect(stroke.gesture == .stroke, "\(kinds)")
            #expect(kinds.firstIndex(of: .drag)! < kinds.lastIndex(of: .stroke)!)
            #expect(stroke.fingers == fingers)
            let path = try #require(stroke.path)
            #expect(path.count >= 8 && path.count <= StrokePath.capacity)
            #expect(path[0] == .zero)
            let last = path[path.count - 1]
            #expect(abs(last.x - 25) < 0.5 && abs(last.y - 40) < 0.5, "\(last)")
            #expect(abs(path.length - 65) < 2, "\(path.length)")
            #expect(DrawnShapes.all.match(path.points)?.name == "L")
            let line = stroke.jsonLine(deviceName: "d")
            #expect(line.contains(#""path_mm":[[0.0,0.0],"#), "\(line)")
        }
    }

    @Test("a shape drawn after a still hold is a stroke too, its path from where the hand rested")
    func afterHold() throws {
        var h = Hand(wanted: GestureKindSet([.touchAndHold, .drag, .stroke]))
        h.pipeline.setHoldMarks([600, 900])
        h.frame(0, (0, .down, 30, 10))
        h.advance(700)
        let points = DrawnShapes.dense([[30, 10], [30, 50], [55, 50]], step: 1.5)
        for (i, p) in points.enumerated() { h.frame(710 + Double(i) * 10, (0, .move, p.x, p.y)) }
        h.frame(720 + Double(points.count) * 10, (0, .up, 55, 50))
        h.finish()
        let kinds = h.events.map(\.gesture)
        #expect(kinds.first == .touchAndHold, "\(kinds)")
        let stroke = try #require(h.events.first { $0.gesture == .stroke }, "\(kinds)")
        #expect(DrawnShapes.all.match(try #require(stroke.path).points)?.name == "L")
        // Still for 700 ms: the 600 ms mark, not the 900 ms one it never reached.
        #expect(stroke.heldMs == 600)
        #expect(stroke.jsonLine(deviceName: "d").contains(#""held_ms":600"#), "\(stroke.jsonLine(deviceName: "d"))")

        // Drawn at once: no hold, no held_ms.
        var drawn = Hand(wanted: GestureKindSet([.touchAndHold, .drag, .stroke]))
        drawn.pipeline.setHoldMarks([600])
        Self.drawL(&drawn)
        let plain = try #require(drawn.events.first { $0.gesture == .stroke })
        #expect(plain.heldMs == nil)
    }

    @Test(
        "two fingers resting still, then drawing together: the hold ends, a drag draws, and its stroke says how long they rested")
    func twoFingersAfterHold() throws {
        var h = Hand(wanted: GestureKindSet([.touchAndHold, .drag, .stroke]))
        h.pipeline.setHoldMarks([600])
        h.frame(0, (0, .down, 30, 10), (1, .down, 45, 10))
        h.advance(800)
        let points = DrawnShapes.dense([[30, 10], [30, 50], [55, 50]], step: 1.5)
        for (i, p) in points.enumerated() {
            h.frame(810 + Double(i) * 10, (0, .move, p.x, p.y), (1, .move, p.x + 15, p.y))
        }
        let end = 820 + Double(points.count) * 10
        h.frame(end, (0, .up, 55, 50), (1, .up, 70, 50))
        h.finish()
        let kinds = h.events.map { "\($0.gesture.rawValue) \($0.phase.rawValue)" }
        #expect(kinds.starts(with: ["touch-and-hold began"]), "\(kinds)")
        #expect(kinds.contains("drag began"), "\(kinds)")
        let stroke = try #require(h.events.first { $0.gesture == .stroke }, "\(kinds)")
        #expect(stroke.fingers == 2)
        #expect(stroke.heldMs == 600)
        #expect(DrawnShapes.all.match(try #require(stroke.path).points)?.name == "L")
    }

    @Test("no stroke unless asked for, nor for a drag shorter than stroke.minLength")
    func onlyWhenWanted() throws {
        var standard = Hand()
        Self.drawL(&standard)
        #expect(!standard.events.contains { $0.gesture == .stroke })
        #expect(!GestureKindSet.standard.contains(.stroke))
        var t = GestureThresholds.defaults
        t.strokeMinLength = 70
        var short = Hand(wanted: GestureKindSet([.drag, .stroke]), thresholds: t)
        Self.drawL(&short)
        #expect(short.events.contains { $0.gesture == .drag })
        #expect(!short.events.contains { $0.gesture == .stroke })
    }
}

@Suite("Strokes: people's strokes and everyday use (../shared/traces)")
struct StrokeRecordingsTests {
    /// Three-finger strokes a person drew on a touchpad (InputActions'
    /// recordings: their b, m and n are capitals), each with the drawn
    /// shape it is.
    static let people = [("b", "B"), ("circle", "circle"), ("m", "M"), ("n", "N"), ("z", "Z")]

    static func strokes(_ text: String, file: String, size: (Double, Double)? = nil) throws -> [StrokePath] {
        let wanted = GestureKindSet.standard.union(GestureKindSet(.stroke))
        return try Fixtures.replay(text, file: file, size: size, wanted: wanted).events.compactMap(\.path)
    }

    @Test(
        "a person's strokes are the shapes a programmer drew",
        .enabled(if: Fixtures.sharedTracesPresent || Fixtures.inCI, "../shared/traces is absent: skipped outside CI"))
    func people() throws {
        try #require(Fixtures.sharedTracesPresent, "../shared/traces must be beside the checkout in CI")
        let dir = Fixtures.sharedTraces + "/_touchpad_secondary/InputActions"
        for (file, shape) in Self.people {
            let name = "stroke_\(file)_3.evemu"
            let paths = try Self.strokes(Fixtures.read(dir + "/" + name), file: name)
            let path = try #require(paths.first, "\(name) gave no stroke")
            #expect(paths.count == 1)
            #expect(DrawnShapes.all.match(path.points)?.name == shape, "\(name)")
        }
    }

    @Test(
        "the drags of the bundled recordings and of people's hands are no shape of corners, nor a circle",
        .enabled(if: Fixtures.sharedTracesPresent || Fixtures.inCI, "../shared/traces is absent: skipped outside CI"))
    func everyday() throws {
        try #require(Fixtures.sharedTracesPresent, "../shared/traces must be beside the checkout in CI")
        var paths: [(String, StrokePath)] = []
        for name in Fixtures.recordingNames() {
            let file = name + ".evemu"
            for p in try Self.strokes(Fixtures.read(Fixtures.recordings + "/" + file), file: file) { paths.append((name, p)) }
        }
        let bundled = paths.count
        for label in try RealHandsTests.labels() {
            let file = RealHandsTests.dir + "/" + label.file
            for p in try Self.strokes(Fixtures.read(file), file: label.file, size: label.size) { paths.append((label.name, p)) }
        }
        #expect(bundled >= 25)
        #expect(paths.count - bundled >= 20)
        let matched = paths.compactMap { name, p in
            DrawnShapes.cornersAndCircle.match(p.points).map { "\(name): \($0.name)" }
        }
        #expect(matched.isEmpty, "\(matched)")
    }
}
