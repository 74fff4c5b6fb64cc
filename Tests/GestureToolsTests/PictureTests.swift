import Foundation
import GestureCore
import GestureTools
import Harness
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `gestured replay --svg`: the picture is well-formed SVG and shows what the
/// replay saw: every touch landing and lifting, every gesture with its phases,
/// the panel to scale.
@Suite("Pictures of traces")
struct PictureTests {
    /// Element names and attributes of an SVG document, through a real XML parser.
    final class Collector: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []
        var texts: [String] = []
        /// Each <text> with its attributes and content.
        var labels: [(attributes: [String: String], text: String)] = []
        var inText = false
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            elements.append((name, attributes))
            if name == "text" {
                labels.append((attributes, ""))
                inText = true
            }
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text" { inText = false }
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            texts.append(string)
            if inText { labels[labels.count - 1].text += string }
        }

        /// Where each text lies, estimated from its size, anchor and length
        /// (DejaVu Sans is about 0.6 of the font size wide a character).
        var boxes: [Box] {
            labels.map { label in
                let a = label.attributes
                let size = Double(a["font-size"] ?? "") ?? 0
                let x = Double(a["x"] ?? "") ?? 0
                let y = Double(a["y"] ?? "") ?? 0
                let w = Double(label.text.count) * size * 0.6
                let x0 = a["text-anchor"] == "end" ? x - w : a["text-anchor"] == "middle" ? x - w / 2 : x
                return Box(text: label.text, x0: x0, x1: x0 + w, y0: y - size * 0.8, y1: y + size * 0.2)
            }
        }
    }

    struct Box {
        var text: String
        var x0, x1, y0, y1: Double
        func overlaps(_ b: Box) -> Bool { x0 < b.x1 && b.x0 < x1 && y0 < b.y1 && b.y0 < y1 }
    }

    static func picture(
        _ name: String, zoom: Bool = false
    ) throws -> (
        svg: String, trace: Trace, events: [GestureEvent], frames: [TouchFrame]
    ) {
        let trace = try EvemuReader.parse(
            try String(contentsOfFile: BuildProducts.packageRoot + "/Recordings/" + name, encoding: .utf8), file: name,
            device: nil)
        let geometry = TouchAssembler.geometry(for: trace.device, size: nil, source: .commandLine)!
        let replay = TraceReplay(geometry: geometry)
        let events = try replay.events(trace).events
        let frames = try replay.frames(trace)
        let picture = TracePicture(
            title: "\(name) — \(trace.device.name)", geometry: geometry, frames: frames, events: events, zoom: zoom,
            origin: trace.events.first?.time)
        return (picture.svg(), trace, events, frames)
    }

    static func parse(_ svg: String) throws -> Collector {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        let ok = parser.parse()
        #expect(ok, "not well-formed: \(String(describing: parser.parserError)) at line \(parser.lineNumber)")
        return collector
    }

    @Test(
        "well-formed, and shows every touch, every gesture and its phases",
        arguments: [
            "tour.tablet.evemu", "pinch-close-3f.tablet.evemu", "double-tap-2f.tablet.evemu", "hold-then-drag.phone.evemu",
        ])
    func contents(name: String) throws {
        let (svg, _, events, frames) = try Self.picture(name)
        let doc = try Self.parse(svg)
        #expect(doc.elements.first?.name == "svg")
        func count(_ cls: String) -> Int { doc.elements.filter { $0.attributes["class"] == cls }.count }

        let downs = frames.flatMap(\.contacts).filter { $0.phase == .down }.count
        let ups = frames.flatMap(\.contacts).filter { $0.phase == .up }.count
        #expect(count("touch") == downs && count("down") == downs && count("up") == ups)

        // One labelled marker on the panel and one timeline lane per gesture, with its kind.
        let ids = Array(Set(events.map(\.id))).sorted()
        let marked = doc.elements.filter { $0.attributes["class"] == "gesture" }
        #expect(marked.compactMap { $0.attributes["data-id"] }.sorted { UInt64($0)! < UInt64($1)! } == ids.map { "\($0)" })
        for id in ids {
            let kind = events.first { $0.id == id }!.gesture.rawValue
            #expect(marked.contains { $0.attributes["data-id"] == "\(id)" && $0.attributes["data-kind"] == kind })
            #expect(doc.texts.contains { $0.hasPrefix("#\(id) \(kind)") }, "no label for #\(id) \(kind)")
        }
        #expect(count("lane") == ids.count)
        // Every phase except `changed` is marked on the timeline.
        for phase in [GesturePhase.began, .ended, .recognized, .cancelled] {
            let n = events.filter { $0.phase == phase }.count
            #expect(count("phase \(phase.rawValue)") == n, "\(phase)")
        }
    }

    @Test("the panel is drawn to scale: its rectangle has the panel's aspect ratio and a 10 mm grid")
    func toScale() throws {
        let (svg, trace, _, _) = try Self.picture("tour.tablet.evemu")
        let doc = try Self.parse(svg)
        let geometry = TouchAssembler.geometry(for: trace.device, size: nil, source: .commandLine)!
        let panel = try #require(doc.elements.first { $0.name == "rect" && $0.attributes["stroke"] == "#333" })
        let w = Double(panel.attributes["width"] ?? "") ?? 0
        let h = Double(panel.attributes["height"] ?? "") ?? 0
        #expect(abs(w / h - geometry.screenWidth / geometry.screenHeight) < 0.01)
        let grid = try #require(doc.elements.first { $0.name == "path" && ($0.attributes["d"] ?? "").hasPrefix("M") })
        let lines = (grid.attributes["d"] ?? "").filter { $0 == "M" }.count
        #expect(lines == Int((geometry.screenWidth - 0.001) / 10) + Int((geometry.screenHeight - 0.001) / 10))
    }

    @Test(
        "every text lies inside the picture, and the key, the time bar's ends and the timeline do not cover each other, on portrait and landscape panels",
        arguments: ["pinch-close-2f.phone.evemu", "hold-then-drag.phone.evemu", "tour.tablet.evemu", "flick-left.laptop.evemu"])
    func textInside(name: String) throws {
        let doc = try Self.parse(try Self.picture(name).svg)
        let svg = try #require(doc.elements.first { $0.name == "svg" })
        let width = Double(svg.attributes["width"] ?? "") ?? 0
        let boxes = doc.boxes
        for b in boxes { #expect(b.x0 >= 0 && b.x1 <= width, "'\(b.text)' runs outside \(width) px: \(b.x0)–\(b.x1)") }
        // Everything between the panel and the timeline's lanes.
        let grid = try #require(boxes.first { $0.text.hasPrefix("grid: ") })
        let timeline = try #require(boxes.first { $0.text == "timeline" })
        let under = boxes.filter { $0.y0 >= grid.y0 && $0.y1 <= timeline.y1 }
        #expect(under.count >= 5, "\(under.map(\.text))")
        for (i, a) in under.enumerated() {
            for b in under[(i + 1)...] { #expect(!a.overlaps(b), "'\(a.text)' covers '\(b.text)'") }
        }
    }

    @Test(
        "gesture labels on the panel cover no touch number and no other label",
        arguments: [
            "tour.tablet.evemu", "pinch-close-3f.tablet.evemu", "double-tap-2f.tablet.evemu", "rest-then-pinch-open.tablet.evemu",
        ])
    func labelsClear(name: String) throws {
        let doc = try Self.parse(try Self.picture(name).svg)
        let boxes = doc.boxes
        let numbers = boxes.filter { Int($0.text) != nil }
        let labels = boxes.filter { $0.text.hasPrefix("#") && $0.text.contains(" · ") }
        #expect(!labels.isEmpty && !numbers.isEmpty)
        for l in labels {
            for n in numbers { #expect(!l.overlaps(n), "'\(l.text)' covers touch \(n.text)") }
        }
        for (i, a) in labels.enumerated() {
            for b in labels[(i + 1)...] { #expect(!a.overlaps(b), "'\(a.text)' covers '\(b.text)'") }
        }
    }

    @Test("a continuous gesture's label spans its time up to the end, where its marker stands; one touch is '1 touch'")
    func labelTimes() throws {
        let (svg, _, events, frames) = try Self.picture("hold-1f.tablet.evemu")
        let doc = try Self.parse(svg)
        let texts = doc.labels.map(\.text)
        #expect(texts.contains { $0.contains(" · 1 touch · 1 gesture") }, "\(texts)")
        let label = try #require(texts.first { $0.hasPrefix("#1 touch-and-hold") && $0.contains(" · ") })
        let span = label.split(separator: "·").last!.trimmingCharacters(in: .whitespaces)
        let times = span.dropLast(2).split(separator: "–").compactMap { Double($0) }
        #expect(times.count == 2 && span.hasSuffix(" s"), "\(label)")
        // From the hold's beginning to its end, where its marker stands, in seconds after the first frame.
        let origin = min(frames[0].time.microseconds, events[0].time.microseconds)
        func seconds(_ e: GestureEvent) -> Double { Double(e.time.microseconds - origin) / 1_000_000 }
        let last = try #require(events.last { $0.phase == .ended })
        #expect(times.count == 2 && abs(times[0] - seconds(events[0])) < 0.006, "\(label)")
        #expect(times.count == 2 && abs(times[1] - seconds(last)) < 0.006, "\(label)")
    }

    @Test("--zoom draws the touched part of a big panel, enlarged, with every touch inside it")
    func zoomed() throws {
        let whole = try Self.parse(try Self.picture("double-tap-1f.phone.evemu").svg)
        let (svg, _, _, frames) = try Self.picture("double-tap-1f.phone.evemu", zoom: true)
        let doc = try Self.parse(svg)
        #expect(doc.labels.contains { $0.text.contains("· showing 30.0 × 30.0 mm from (") }, "\(doc.labels)")
        let panel = try #require(doc.elements.first { $0.name == "rect" && $0.attributes["stroke"] == "#333" })
        let (x, y) = (Double(panel.attributes["x"]!)!, Double(panel.attributes["y"]!)!)
        let (w, h) = (Double(panel.attributes["width"]!)!, Double(panel.attributes["height"]!)!)
        #expect(abs(w / h - 1) < 0.01)
        let downs = doc.elements.filter { $0.attributes["class"] == "down" }
        #expect(downs.count == frames.flatMap(\.contacts).filter { $0.phase == .down }.count)
        for d in downs {
            let (cx, cy) = (Double(d.attributes["cx"]!)!, Double(d.attributes["cy"]!)!)
            #expect(cx > x && cx < x + w && cy > y && cy < y + h)
        }
        // The two taps, a few mm apart, are far apart in the picture: enlarged.
        func spread(_ c: Collector) -> Double {
            let xs = c.elements.filter { $0.attributes["class"] == "down" }.map { Double($0.attributes["cy"]!)! }
            return xs.max()! - xs.min()!
        }
        #expect(spread(doc) > 3 * spread(whole), "\(spread(doc)) vs \(spread(whole))")
    }

    @Test("the README's picture is what the tool draws today (regenerate: make pictures)")
    func readmePicture() throws {
        let committed = try String(contentsOfFile: BuildProducts.packageRoot + "/docs/pictures/tour.svg", encoding: .utf8)
        #expect(committed == (try Self.picture("tour.tablet.evemu").svg), "docs/pictures/tour.svg is stale: run `make pictures`")
    }
}
