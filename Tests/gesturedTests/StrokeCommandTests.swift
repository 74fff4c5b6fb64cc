import Foundation
import Harness
import Testing

@Suite("gestured stroke: record, list, test")
struct StrokeCommandTests {
    @Test("a shape recorded from a trace is kept once, listed, and found again in the trace; a line is no shape")
    func recordListTest() throws {
        let dir = NSTemporaryDirectory() + "gestured-stroke-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let shapes = dir + "/shapes/shapes.toml"
        let arc = DaemonProcess.recording("curved-stroke.tablet.evemu")
        let line = DaemonProcess.recording("slow-drag-right.tablet.evemu")
        let kept = try runGestured(["stroke", "record", "arc", "--from", arc, "--file", shapes])
        #expect(kept.status == 0, "\(kept.err)")
        #expect(kept.out.contains("\"arc\" kept in \(shapes), 1 example(s)"), "\(kept.out)")
        let text = try String(contentsOfFile: shapes, encoding: .utf8)
        #expect(text.hasPrefix("[[shape]]\nname = \"arc\"\nexamples = [\n    \"0.0,0.0 "), "\(text)")

        let again = try runGestured(["stroke", "record", "arc", "--from", arc, "--file", shapes])
        #expect(again.status == 1)
        #expect(again.err.contains("shape \"arc\" is at \(shapes):1 already"), "\(again.err)")
        let none = try runGestured([
            "stroke", "record", "dot", "--from", DaemonProcess.recording("tap-1f.phone.evemu"), "--file", shapes,
        ])
        #expect(none.status == 1 && none.err.contains("gave no stroke"), "\(none.err)")

        let found = try runGestured(["stroke", "test", "--config", shapes, arc])
        #expect(found.status == 0, "\(found.err)")
        // A path and the examples written of it are both to 0.1 mm: the stroke is its own example.
        #expect(found.out.contains("stroke 1 (") && found.out.contains("): \"arc\" at 0.0, score 1.0"), "\(found.out)")
        let straight = try runGestured(["stroke", "test", "--config", shapes, line])
        #expect(straight.out.contains("no shape (a line, or thinner than every shape)"), "\(straight.out)")
        let loop = try runGestured([
            "stroke", "record", "loop", "--rotates", "--tolerance", "0.2", "--from", arc, "--file", shapes,
        ])
        #expect(loop.status == 0, "\(loop.err)")
        let both = try String(contentsOfFile: shapes, encoding: .utf8)
        #expect(both.contains("\n\n[[shape]]\nname = \"loop\""), "\(both)")
        #expect(both.contains("rotates = true\ntolerance = 0.2\n"), "\(both)")

        let list = try runGestured(["stroke", "list", "--config", shapes])
        #expect(list.status == 0, "\(list.err)")
        #expect(list.out.contains("arc: 1 example(s), tolerance 0.1; nearest \"loop\" at "), "\(list.out)")
        #expect(list.out.contains("loop: 1 example(s), rotates, tolerance 0.2"), "\(list.out)")

    }
}
