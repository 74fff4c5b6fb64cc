import Foundation
import GestureCore
import GestureTools
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
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            elements.append((name, attributes))
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { texts.append(string) }
    }

    static func picture(_ name: String) throws -> (svg: String, trace: Trace, events: [GestureEvent], frames: [TouchFrame]) {
        let trace = try Fixtures.recording(name)
        let geometry = TouchAssembler.geometry(for: trace.device, size: nil, source: .commandLine)!
        let replay = TraceReplay(geometry: geometry)
        let events = try replay.events(trace).events
        let frames = try replay.frames(trace)
        let picture = TracePicture(
            title: "\(name) — \(trace.device.name)", geometry: geometry, frames: frames, events: events)
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

    @Test("the README's picture is what the tool draws today (regenerate: make pictures)")
    func readmePicture() throws {
        let committed = try Fixtures.read(Fixtures.root + "/docs/pictures/tour.svg")
        #expect(committed == (try Self.picture("tour.tablet.evemu").svg), "docs/pictures/tour.svg is stale: run `make pictures`")
    }
}
