public import GestureCore

/// Draws a trace as SVG: the panel to scale with every finger's path (time
/// as colour, landing a dot, lifting a ring), each recognized gesture
/// labelled where and when it happened, and beneath, a timeline with one bar
/// per touch and one lane per gesture showing its phases.
public struct TracePicture {
    public var title: String
    public var geometry: PanelGeometry
    public var frames: [TouchFrame]
    public var events: [GestureEvent]
    /// Draw only the touched part of the panel (with a margin), enlarged: a
    /// small gesture on a big panel is otherwise a dot in empty space.
    public var zoom: Bool
    /// What times count from: the trace's first event (as `replay`'s text
    /// lines), else the first frame or gesture.
    public var origin: Timestamp

    public init(
        title: String, geometry: PanelGeometry, frames: [TouchFrame], events: [GestureEvent], zoom: Bool = false,
        origin: Timestamp? = nil
    ) {
        self.title = title
        self.geometry = geometry
        self.frames = frames
        self.events = events
        self.zoom = zoom
        self.origin = origin ?? min(frames.first?.time ?? .zero, events.first?.time ?? .never)
    }

    /// The part of the panel drawn, mm: all of it, or with `zoom` the box
    /// around every touch and gesture position, 10 mm (at least 20 % of the
    /// box) wider on each side and at least 30 mm across, within the panel.
    func view(_ touches: [Touch]) -> (x: Double, y: Double, w: Double, h: Double) {
        let (w, h) = (geometry.screenWidth, geometry.screenHeight)
        let xs = touches.flatMap { $0.points.map(\.x) } + events.map(\.x)
        let ys = touches.flatMap { $0.points.map(\.y) } + events.map(\.y)
        guard zoom, let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else { return (0, 0, w, h) }
        func span(_ lo: Double, _ hi: Double, _ limit: Double) -> (Double, Double) {
            let pad = max(10, (hi - lo) * 0.2)
            var (a, b) = (lo - pad, hi + pad)
            if b - a < 30 { (a, b) = ((a + b) / 2 - 15, (a + b) / 2 + 15) }
            // Within the panel, shifted rather than cut where there is room.
            if a < 0 { (a, b) = (0, min(limit, b - a)) }
            if b > limit { (a, b) = (max(0, a - (b - limit)), limit) }
            return (a, b)
        }
        let (ax, bx) = span(x0, x1, w)
        let (ay, by) = span(y0, y1, h)
        return (ax, ay, bx - ax, by - ay)
    }

    /// One finger from landing to lifting.
    struct Touch {
        var number: Int
        var points: [(t: Double, x: Double, y: Double)] = []
        var end: ContactPhase = .up
    }

    /// Everything one gesture id published.
    struct Gesture {
        var id: UInt64
        var kind: GestureKind
        var events: [GestureEvent]
        var start: Double
        var end: Double
    }

    // Layout, in pixels.
    static let panelWidth = 860.0
    static let panelMaxHeight = 560.0
    static let margin = 20.0
    static let laneHeight = 18.0

    func seconds(_ t: Timestamp) -> Double { Double(t.microseconds - origin.microseconds) / 1_000_000 }

    func touches() -> [Touch] {
        var open: [Int: Touch] = [:]
        var done: [Touch] = []
        var count = 0
        for frame in frames {
            let t = seconds(frame.time)
            for c in frame.contacts {
                switch c.phase {
                case .down:
                    if let stale = open[c.slot] { done.append(stale) }
                    count += 1
                    open[c.slot] = Touch(number: count, points: [(t, c.x, c.y)])
                case .move:
                    open[c.slot]?.points.append((t, c.x, c.y))
                case .up, .cancel:
                    guard var touch = open.removeValue(forKey: c.slot) else { continue }
                    touch.points.append((t, c.x, c.y))
                    touch.end = c.phase
                    done.append(touch)
                }
            }
        }
        done.append(contentsOf: open.values)
        return done.sorted { $0.number < $1.number }
    }

    func gestures() -> [Gesture] {
        var byID: [UInt64: Gesture] = [:]
        var order: [UInt64] = []
        for e in events {
            let t = seconds(e.time)
            if byID[e.id] == nil {
                order.append(e.id)
                byID[e.id] = Gesture(id: e.id, kind: e.gesture, events: [], start: t, end: t)
            }
            byID[e.id]!.events.append(e)
            byID[e.id]!.end = t
        }
        return order.map { byID[$0]! }
    }

    /// The picture as an SVG document.
    public func svg() -> String {
        let touches = touches()
        let gestures = gestures()
        let duration = max(
            touches.flatMap { $0.points.map(\.t) }.max() ?? 0, gestures.map(\.end).max() ?? 0, 0.001)
        let shown = view(touches)
        let zoomed = shown.w < geometry.screenWidth || shown.h < geometry.screenHeight
        let w = shown.w
        let h = shown.h
        let scale = min(Self.panelWidth / w, Self.panelMaxHeight / h)
        let pw = w * scale
        let ph = h * scale
        let m = Self.margin
        let width = max(pw, 640) + 2 * m
        let top = 58.0
        var svg = SVGWriter()

        // Timeline rows: touches packed into lanes, then gestures packed into lanes.
        // Timeline geometry. A gesture's label goes after its bar, or before it
        // when there is no room, so it takes part of the lane too.
        let axisLeft = m + 70
        let axisWidth = width - axisLeft - m
        func tx(_ t: Double) -> Double { axisLeft + t / duration * axisWidth }
        func labelFits(_ g: Gesture) -> Bool { tx(g.end) + 8 + Double(Self.timelineLabel(g).count) * 6.2 <= width - m }
        let touchLanes = Self.pack(touches.map { ($0.points.first!.t, $0.points.last!.t) })
        let gestureLanes = Self.pack(
            gestures.map {
                let label = (Double(Self.timelineLabel($0).count) * 6.2 + 14) / axisWidth * duration
                let end = max($0.end, $0.start + 0.001)
                return labelFits($0) ? ($0.start, end + label) : ($0.start - label, end)
            })
        let touchRows = (touchLanes.max() ?? -1) + 1
        let gestureRows = (gestureLanes.max() ?? -1) + 1
        // Under the panel: the grid's cell, the time colour bar with its ends
        // and, on a line of its own, the key to the marks.
        let timelineTop = top + ph + 94
        let timelineHeight = Double(touchRows + gestureRows) * Self.laneHeight + 40
        let height = timelineTop + timelineHeight + 30
        svg.open(width: width, height: height)
        svg.text(
            m, 24, "\(title)", size: 16, weight: "bold")
        let part =
            zoomed
            ? " · showing \(w.formatted1) × \(h.formatted1) mm from (\(shown.x.formatted1), \(shown.y.formatted1))" : ""
        svg.text(
            m, 44,
            "\(geometry.screenWidth.formatted1) × \(geometry.screenHeight.formatted1) mm (\(geometry.source.rawValue))\(part) · "
                + "\(duration.formatted2) s · \(Self.count(touches.count, "touch", "touches")) · "
                + Self.count(gestures.count, "gesture", "gestures"),
            size: 12, fill: "#555")

        // The panel and a 10 mm grid.
        let px = m
        svg.raw(
            "<rect x=\"\(px.svg)\" y=\"\(top.svg)\" width=\"\(pw.svg)\" height=\"\(ph.svg)\" fill=\"#fafafa\" stroke=\"#333\" stroke-width=\"1.5\"/>"
        )
        // 10 mm, or a power of ten times that on a panel so large (or a
        // size so wrong) that 10 mm would draw more than 100 lines.
        let cell = Self.gridStep(max(w, h))
        // Lines at the panel's multiples of the cell inside the part shown.
        var grid = ""
        var g = ((shown.x / cell).rounded(.down) + 1) * cell
        while g < shown.x + w {
            grid += "M\((px + (g - shown.x) * scale).svg) \(top.svg)v\(ph.svg)"
            g += cell
        }
        g = ((shown.y / cell).rounded(.down) + 1) * cell
        while g < shown.y + h {
            grid += "M\(px.svg) \((top + (g - shown.y) * scale).svg)h\(pw.svg)"
            g += cell
        }
        let cellText = "\(Int(cell)) mm"
        svg.raw(
            "<path d=\"\(grid)\" stroke=\"#e6e6e6\" stroke-width=\"0.6\" fill=\"none\"><title>\(cellText) grid</title></path>")
        svg.text(px + pw, top + ph + 14, "grid: \(cellText)", size: 10, fill: "#888", anchor: "end")

        // Finger paths: short polylines, each coloured by the time it was drawn.
        func point(_ x: Double, _ y: Double) -> (Double, Double) {
            (px + (x - shown.x) * scale, top + (y - shown.y) * scale)
        }
        for touch in touches {
            svg.raw("<g class=\"touch\" data-touch=\"\(touch.number)\">")
            var chunk: [String] = []
            var bin = -1
            for p in touch.points {
                let b = Int(p.t / duration * 47.999)
                let (x, y) = point(p.x, p.y)
                chunk.append("\(x.svg),\(y.svg)")
                if b != bin && chunk.count > 1 {
                    svg.raw(
                        "<polyline points=\"\(chunk.joined(separator: " "))\" stroke=\"\(Palette.color(Double(bin) / 48))\" stroke-width=\"3\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/>"
                    )
                    chunk = [chunk.last!]
                }
                bin = b
            }
            if chunk.count > 1 {
                svg.raw(
                    "<polyline points=\"\(chunk.joined(separator: " "))\" stroke=\"\(Palette.color(Double(bin) / 48))\" stroke-width=\"3\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/>"
                )
            }
            let first = touch.points.first!
            let last = touch.points.last!
            let (x0, y0) = point(first.x, first.y)
            let (x1, y1) = point(last.x, last.y)
            svg.raw(
                "<circle class=\"down\" cx=\"\(x0.svg)\" cy=\"\(y0.svg)\" r=\"5\" fill=\"\(Palette.color(first.t / duration))\" stroke=\"#222\" stroke-width=\"1\"><title>touch \(touch.number) lands at \(first.t.formatted3) s</title></circle>"
            )
            if touch.end == .cancel {
                svg.raw(
                    "<path class=\"cancel\" d=\"M\((x1 - 5).svg) \((y1 - 5).svg)l10 10m0 -10l-10 10\" stroke=\"#c00\" stroke-width=\"2\"><title>touch \(touch.number) cancelled at \(last.t.formatted3) s</title></path>"
                )
            } else {
                svg.raw(
                    "<circle class=\"up\" cx=\"\(x1.svg)\" cy=\"\(y1.svg)\" r=\"5\" fill=\"#fff\" stroke=\"\(Palette.color(last.t / duration))\" stroke-width=\"2.5\"><title>touch \(touch.number) lifts at \(last.t.formatted3) s</title></circle>"
                )
            }
            svg.text(x0 + 7, y0 - 6, "\(touch.number)", size: 10, fill: "#222", halo: true)
            svg.raw("</g>")
        }

        // Gesture labels where they were recognized: of a few places around the
        // marker, the one that covers the fewest finger paths, no touch
        // number and no other label.
        var placed: [(x: Double, y: Double, w: Double)] = []
        let inked = touches.flatMap { t in t.points.map { point($0.x, $0.y) } }
        // Touch numbers, as the labels' boxes are kept: (left, baseline, width).
        let numbers = touches.map { t in
            let (x, y) = point(t.points[0].x, t.points[0].y)
            return (x: x + 7, y: y - 6, w: Double(String(t.number).count) * 6.5)
        }
        for gesture in gestures {
            let at = gesture.events.last { $0.phase != .cancelled } ?? gesture.events.last!
            let (gx, gy) = point(at.x, at.y)
            // The marker stands where the gesture ended: a continuous one is
            // labelled with its span of time, which ends there.
            let end = seconds(at.time)
            let when = end > gesture.start ? "\(gesture.start.formatted2)–\(end.formatted2) s" : "\(end.formatted2) s"
            let label = "#\(gesture.id) \(Self.describe(gesture)) · \(when)"
            let lw = Double(label.count) * 6.6 + 8
            var best: (x: Double, y: Double, cost: Double)?
            for (dx, dy) in Self.labelOffsets(width: lw) {
                let lx = min(max(gx + dx, px), px + pw - lw)
                let ly = min(max(gy + dy, top + 14), top + ph - 4)
                var cost = abs(dy) / 20 + abs(dx + lw / 2) / 60
                for p in inked where p.0 > lx - 2 && p.0 < lx + lw + 2 && p.1 > ly - 13 && p.1 < ly + 6 { cost += 1 }
                for q in placed where abs(q.y - ly) < 16 && q.x < lx + lw && lx < q.x + q.w { cost += 1000 }
                for n in numbers where n.y > ly - 21 && n.y < ly + 14 && n.x < lx + lw && lx < n.x + n.w { cost += 500 }
                if best == nil || cost < best!.cost { best = (lx, ly, cost) }
            }
            let (lx, ly) = (best!.x, best!.y)
            placed.append((lx, ly, lw))
            let color = Palette.kind(gesture.kind)
            svg.raw(
                "<g class=\"gesture\" data-id=\"\(gesture.id)\" data-kind=\"\(gesture.kind.rawValue)\"><path d=\"M\(gx.svg) \((gy - 6).svg)l6 6l-6 6l-6 -6z\" fill=\"\(color)\" stroke=\"#fff\" stroke-width=\"1\"/>"
            )
            svg.raw(
                "<line x1=\"\(gx.svg)\" y1=\"\(gy.svg)\" x2=\"\((lx + lw / 2).svg)\" y2=\"\((ly + 4).svg)\" stroke=\"\(color)\" stroke-width=\"0.8\" stroke-dasharray=\"2 2\"/>"
            )
            svg.raw(
                "<rect x=\"\(lx.svg)\" y=\"\((ly - 11).svg)\" width=\"\(lw.svg)\" height=\"15\" rx=\"3\" fill=\"#fff\" fill-opacity=\"0.85\" stroke=\"\(color)\"/>"
            )
            svg.text(lx + 4, ly, label, size: 11, fill: "#111")
            svg.raw("</g>")
        }

        // Colour scale for time.
        let barY = top + ph + 26
        let barW = min(pw, 420.0)
        svg.raw("<defs><linearGradient id=\"time\">")
        for i in 0...8 {
            let f = Double(i) / 8
            svg.raw("<stop offset=\"\(f.svg)\" stop-color=\"\(Palette.color(f))\"/>")
        }
        svg.raw("</linearGradient></defs>")
        svg.raw("<rect x=\"\(px.svg)\" y=\"\(barY.svg)\" width=\"\(barW.svg)\" height=\"8\" fill=\"url(#time)\"/>")
        svg.text(px, barY + 22, "0 s", size: 10, fill: "#555")
        svg.text(px + barW, barY + 22, "\(duration.formatted2) s", size: 10, fill: "#555", anchor: "end")
        svg.text(
            px, barY + 40, "path colour: time · ● lands · ○ lifts · × cancelled · ◆ gesture (where it ended)", size: 10,
            fill: "#555")

        // Timeline: touches, then gestures with their phases.
        svg.text(px, timelineTop - 8, "timeline", size: 12, weight: "bold")
        for (i, touch) in touches.enumerated() {
            let y = timelineTop + Double(touchLanes[i]) * Self.laneHeight
            let a = tx(touch.points.first!.t)
            let b = tx(touch.points.last!.t)
            svg.raw(
                "<rect class=\"touch-bar\" x=\"\(a.svg)\" y=\"\((y + 4).svg)\" width=\"\(max(b - a, 1.5).svg)\" height=\"8\" fill=\"#bbb\"><title>touch \(touch.number): \(touch.points.first!.t.formatted3)–\(touch.points.last!.t.formatted3) s</title></rect>"
            )
            svg.text(a + 2, y + 11, "\(touch.number)", size: 8, fill: "#222")
        }
        if touchRows > 0 { svg.text(px, timelineTop + 12, "touches", size: 10, fill: "#555") }
        let gestureTop = timelineTop + Double(touchRows) * Self.laneHeight + 6
        if gestureRows > 0 { svg.text(px, gestureTop + 12, "gestures", size: 10, fill: "#555") }
        for (i, gesture) in gestures.enumerated() {
            let y = gestureTop + Double(gestureLanes[i]) * Self.laneHeight
            let color = Palette.kind(gesture.kind)
            let a = tx(gesture.start)
            let b = tx(gesture.end)
            svg.raw("<g class=\"lane\" data-id=\"\(gesture.id)\">")
            if b - a > 1 {
                svg.raw(
                    "<rect x=\"\(a.svg)\" y=\"\((y + 3).svg)\" width=\"\((b - a).svg)\" height=\"10\" rx=\"2\" fill=\"\(color)\" fill-opacity=\"0.35\" stroke=\"\(color)\"/>"
                )
            }
            for e in gesture.events where e.phase != .changed {
                let x = tx(seconds(e.time))
                let mark: String
                switch e.phase {
                case .began: mark = "M\(x.svg) \((y + 2).svg)v12"
                case .ended: mark = "M\(x.svg) \((y + 2).svg)v12"
                case .recognized: mark = "M\(x.svg) \((y + 2).svg)l6 6l-6 6l-6 -6z"
                case .cancelled: mark = "M\((x - 5).svg) \((y + 3).svg)l10 10m0 -10l-10 10"
                case .changed: mark = ""
                }
                let fill = e.phase == .recognized ? color : "none"
                let stroke = e.phase == .cancelled ? "#c00" : color
                svg.raw(
                    "<path class=\"phase \(e.phase.rawValue)\" d=\"\(mark)\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"2\"><title>#\(gesture.id) \(gesture.kind.rawValue) \(e.phase.rawValue) at \(seconds(e.time).formatted3) s</title></path>"
                )
            }
            let label = Self.timelineLabel(gesture)
            let fits = labelFits(gesture)
            svg.text(fits ? b + 8 : a - 8, y + 12, label, size: 10, fill: "#222", anchor: fits ? nil : "end")
            svg.raw("</g>")
        }
        // Time axis.
        let axisY = gestureTop + Double(gestureRows) * Self.laneHeight + 8
        svg.raw(
            "<line x1=\"\(axisLeft.svg)\" y1=\"\(axisY.svg)\" x2=\"\((axisLeft + axisWidth).svg)\" y2=\"\(axisY.svg)\" stroke=\"#333\"/>"
        )
        let step = Self.tickStep(duration)
        var tick = 0.0
        while tick <= duration + 1e-9 {
            let x = tx(tick)
            svg.raw(
                "<line x1=\"\(x.svg)\" y1=\"\(axisY.svg)\" x2=\"\(x.svg)\" y2=\"\((axisY + 4).svg)\" stroke=\"#333\"/>")
            svg.text(x, axisY + 15, "\(tick.formattedTick(step)) s", size: 9, fill: "#555", anchor: "middle")
            tick += step
        }
        svg.close()
        return svg.text
    }

    static func timelineLabel(_ g: Gesture) -> String { "#\(g.id) \(describe(g))" }

    /// "1 touch", "3 touches".
    static func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }

    /// "swipe left, 2f", "pinch close ×0.46, 2f", "rotate clockwise 60°, 2f", "tap, 1f".
    static func describe(_ g: Gesture) -> String {
        let last = g.events.last!
        var s = g.kind.rawValue
        if let d = (g.events.last { $0.direction != nil })?.direction { s += " \(d.rawValue)" }
        if g.kind == .pinch, let scale = (g.events.last { $0.scale != nil })?.scale { s += " ×\(scale.formatted2)" }
        if g.kind == .rotate, let r = (g.events.last { $0.rotation != nil })?.rotation {
            s += " \(Int((abs(r) * 180 / .pi).rounded()))°"
        }
        s += ", \(last.fingers)f"
        if last.phase == .cancelled { s += ", cancelled" }
        return s
    }

    /// Where a label of width `w` may go relative to its marker: above, below,
    /// beside, then further away.
    static func labelOffsets(width w: Double) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        for step in [0.0, 1, 2, 3, 4] {
            let d = step * 17
            out += [(-w / 2, -14 - d), (-w / 2, 24 + d), (12, 4 - d), (-w - 12, 4 - d), (12, 4 + d), (-w - 12, 4 + d)]
        }
        return out
    }

    /// Lane for each interval, greedily: the first lane whose last interval ended before this one starts.
    static func pack(_ intervals: [(Double, Double)]) -> [Int] {
        var ends: [Double] = []
        var lanes: [Int] = []
        for (a, b) in intervals {
            if let i = ends.firstIndex(where: { $0 + 0.02 < a }) {
                ends[i] = b
                lanes.append(i)
            } else {
                ends.append(b)
                lanes.append(ends.count - 1)
            }
        }
        return lanes
    }

    /// A round tick step giving 5–12 ticks: 1, 2, 2.5 or 5 times a power of
    /// ten seconds, however long the trace (a gap of days in a recording
    /// must not draw millions of ticks).
    static func tickStep(_ duration: Double) -> Double {
        var power = 0.01
        while power < 1e12 {
            for m in [1.0, 2, 2.5, 5] where duration / (m * power) <= 12 { return m * power }
            power *= 10
        }
        return max(duration / 10, 1e12)
    }

    /// The grid's cell, mm: 10, or a power of ten times that, so that the
    /// longer side has at most 100 lines.
    static func gridStep(_ longest: Double) -> Double {
        var cell = 10.0
        while longest / cell > 100 && cell < 1e15 { cell *= 10 }
        return cell
    }
}

/// Colours: time as a perceptually ordered ramp (blue → green → yellow), one hue per gesture kind.
enum Palette {
    static let stops: [(Double, Double, Double)] = [
        (0.267, 0.005, 0.329), (0.231, 0.322, 0.545), (0.129, 0.569, 0.549), (0.369, 0.788, 0.384),
        (0.992, 0.906, 0.145),
    ]

    static func color(_ f: Double) -> String {
        let f = min(max(f.isFinite ? f : 0, 0), 1) * Double(stops.count - 1)
        let i = min(Int(f), stops.count - 2)
        let u = f - Double(i)
        let (a, b) = (stops[i], stops[i + 1])
        func c(_ x: Double, _ y: Double) -> String {
            let v = Int(((x + (y - x) * u) * 255).rounded())
            let s = String(v, radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + c(a.0, b.0) + c(a.1, b.1) + c(a.2, b.2)
    }

    static func kind(_ k: GestureKind) -> String {
        switch k {
        case .tap: "#1f77b4"
        case .doubleTap: "#17becf"
        case .tripleTap: "#0b6e79"
        case .touchAndHold: "#9467bd"
        case .drag: "#2ca02c"
        case .flick: "#ff7f0e"
        case .swipe: "#d62728"
        case .pinch: "#8c564b"
        case .rotate: "#e377c2"
        case .stroke: "#bcbd22"
        }
    }
}

/// Builds an SVG document as text.
struct SVGWriter {
    var text = ""

    mutating func open(width: Double, height: Double) {
        text += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text +=
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width.svg)\" height=\"\(height.svg)\" viewBox=\"0 0 \(width.svg) \(height.svg)\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n"
        text += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
    }

    mutating func raw(_ s: String) { text += s + "\n" }

    mutating func text(
        _ x: Double, _ y: Double, _ s: String, size: Double, fill: String = "#000", weight: String? = nil,
        anchor: String? = nil, halo: Bool = false
    ) {
        var attrs = "x=\"\(x.svg)\" y=\"\(y.svg)\" font-size=\"\(size.svg)\" fill=\"\(fill)\""
        if let weight { attrs += " font-weight=\"\(weight)\"" }
        if let anchor { attrs += " text-anchor=\"\(anchor)\"" }
        if halo { attrs += " stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\"" }
        text += "<text \(attrs)>\(Self.escape(s))</text>\n"
    }

    mutating func close() { text += "</svg>\n" }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}

extension Double {
    /// Two decimals at most, for coordinates.
    var svg: String { NumberText.short(self, 2) }
    var formatted1: String { NumberText.fixed(self, 1) }
    var formatted2: String { NumberText.fixed(self, 2) }
    var formatted3: String { NumberText.fixed(self, 3) }
    /// A tick's time: as many decimals as the step needs.
    func formattedTick(_ step: Double) -> String { NumberText.short(self, step < 1 ? 2 : 0) }
}
