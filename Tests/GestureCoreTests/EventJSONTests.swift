import Foundation
import GestureCore
import Testing

@Suite("Event JSON")
struct EventJSONTests {
    @Test("every event is one JSON object with the schema's fields")
    func schema() throws {
        var h = Hand()
        h.stroke(at: 0, x: 1.5, y: 30, dx: 40, dy: 0, duration: 200)
        h.frame(600, (0, .down, 50, 30))
        h.frame(650, (0, .up, 50, 30))
        h.finish()
        #expect(Set(h.events.map(\.gesture)) == [.drag, .flick, .swipe, .tap])
        for e in h.events {
            let line = e.jsonLine(deviceName: "test panel")
            #expect(!line.contains("\n"))
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(o["type"] as? String == "gesture")
            #expect(o["gesture"] as? String == e.gesture.rawValue)
            #expect(o["phase"] as? String == e.phase.rawValue)
            #expect((o["id"] as? NSNumber)?.uint64Value == e.id)
            #expect((o["time_us"] as? NSNumber)?.int64Value == e.time.microseconds)
            #expect(o["device"] as? String == "test panel")
            #expect(o["fingers"] as? Int == e.fingers)
            for k in ["x_mm", "y_mm", "x", "y"] { #expect(o[k] is NSNumber, "\(k) in \(line)") }
            #expect(o.keys.contains("edge"))
            if e.gesture == .swipe {
                #expect(o["direction"] as? String == "right" && o["edge"] as? String == "left")
                #expect(o["distance_mm"] is NSNumber && o["vx_mm_s"] is NSNumber)
            }
            if e.gesture == .tap { #expect(o["taps"] as? Int == 1 && o["edge"] is NSNull) }
        }
    }

    @Test("device names are escaped")
    func escaping() throws {
        var e = GestureEvent(
            gesture: .tap, phase: .recognized, id: 1, time: .zero, device: DeviceID(1),
            fingers: 1, x: .nan, y: 0, nx: 0, ny: 0, edge: nil)
        e.taps = 1
        let o = try #require(
            try JSONSerialization.jsonObject(with: Data(e.jsonLine(deviceName: "a \"quoted\"\\ name\n\u{1}").utf8))
                as? [String: Any])
        #expect(o["device"] as? String == "a \"quoted\"\\ name\n\u{1}")
        #expect(o["x_mm"] is NSNull)
    }

    @Test("numbers read as Swift writes the rounded value, without formatting a Double")
    func numbers() {
        func reference(_ v: Double, _ scale: Double) -> String {
            guard v.isFinite else { return "null" }
            var r = (v * scale).rounded() / scale
            if r == 0 { r = 0 }
            return r.description
        }
        var rng = SystemRandomNumberGenerator()
        var values: [Double] = [
            0, -0.0, 0.00004, -0.00004, 0.00005, 1, -1, 10, 0.1, 0.05, 123_456.789_012, -99.995, 1e9, 2e12, 1e17, -3e20,
            .nan, .infinity, -.infinity, .pi, 9_007_199_254.740_993,
        ]
        for _ in 0..<20_000 {
            let magnitude = Double.random(in: -6...12, using: &rng)
            values.append((Bool.random(using: &rng) ? 1 : -1) * Double.random(in: 1...10, using: &rng) * pow10(magnitude))
        }
        for scale in [10.0, 100, 10_000, 1_000_000] {
            for v in values {
                var s = ""
                GestureEvent.appendJSONNumber(v, scale: scale, to: &s)
                #expect(s == reference(v, scale), "\(v) at 1/\(scale)")
            }
        }
    }

    private func pow10(_ e: Double) -> Double {
        var r = 1.0
        var n = Int(e.rounded(.down))
        while n > 0 {
            r *= 10
            n -= 1
        }
        while n < 0 {
            r /= 10
            n += 1
        }
        return r
    }
}
