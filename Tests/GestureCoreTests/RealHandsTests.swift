import Foundation
import GestureCore
import Testing

/// Recordings of real people's hands with labels (`../shared/traces/real-hands`,
/// its README and `labels.json`), judged as `../shared/tools/score.py` judges
/// them: every required gesture recognized (a discrete `recognized` event, or
/// a continuous gesture that reached `ended`), no forbidden one, every count.
@Suite("People's hands (../shared/traces/real-hands)")
struct RealHandsTests {
    static var dir: String { Fixtures.sharedTraces + "/real-hands" }

    /// Labels gestured does not follow, each with what it gives instead and why
    /// (measured on the recording; docs/gestures.md).
    static let judged: [String: (summary: [String], why: String)] = [
        "hid-3m_0596_051c-2f-move": (
            ["touch-and-hold fingers=1", "rotate fingers=2 direction=counterclockwise"],
            "labelled a pinch (span changes, centroid stays), but the fingers turn 50° about their centroid: 110 mm along the circle against a 21 mm span change"
        ),
        "hid-n-trig_1b96_0f00-2f-move": (
            ["touch-and-hold fingers=1", "pinch fingers=2 direction=open", "drag fingers=2"],
            "labelled a drag (both fingers translate together), but in their first 100 ms of motion the fingers spread 22 mm apart (span +10.9 mm against 5 mm of centroid travel) before they translate: a pinch that becomes the labelled drag"
        ),
    ]

    struct Label {
        var name: String
        var file: String
        var require: [(gesture: String, fingers: Int?, direction: String?)]
        var forbid: [String]
        var count: [String: Int]
        var size: (Double, Double)?
    }

    static func labels() throws -> [Label] {
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/labels.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        return try json.keys.sorted().map { name in
            let l = json[name]!
            let require = try (l["require"] as? [[Any]] ?? []).map { r in
                (
                    gesture: try #require(r.first as? String), fingers: r.count > 1 ? r[1] as? Int : nil,
                    direction: r.count > 2 ? r[2] as? String : nil
                )
            }
            let size = (l["size_mm"] as? [Double]).flatMap { s in (l["has_resolution"] as? Bool ?? true) ? nil : (s[0], s[1]) }
            return Label(
                name: name, file: l["file"] as? String ?? name + ".evemu", require: require,
                forbid: l["forbid"] as? [String] ?? [],
                count: l["count"] as? [String: Int] ?? [:], size: size)
        }
    }

    /// What the recording gave, as score.py counts it: (gesture, fingers, direction).
    static func recognized(_ events: [GestureEvent]) -> [(String, Int, String?)] {
        var seen = Set<String>()
        var out: [(String, Int, String?)] = []
        for e in events where e.phase == .recognized || e.phase == .ended {
            let key = "\(e.gesture.rawValue) \(e.id)"
            guard !seen.contains(key) else { continue }
            seen.insert(key)
            out.append((e.gesture.rawValue, e.fingers, e.direction?.rawValue))
        }
        return out
    }

    @Test(
        "every recording comes out as labelled, or as judged in `judged`",
        .enabled(if: Fixtures.sharedTracesPresent || Fixtures.inCI, "../shared/traces is absent: skipped outside CI"))
    func labelled() throws {
        try #require(Fixtures.sharedTracesPresent, "../shared/traces must be beside the checkout in CI")
        let labels = try Self.labels()
        #expect(labels.count >= 80)
        var failures: [String] = []
        var passed = 0
        for label in labels {
            let r = try Fixtures.replay(Fixtures.read(Self.dir + "/" + label.file), file: label.file, size: label.size)
            if !r.outcome.anomalies.isEmpty {
                failures.append("\(label.name): unhandled state/event pairs \(r.outcome.anomalies)")
            }
            if let judged = Self.judged[label.name] {
                if r.summary != judged.summary { failures.append("\(label.name): got \(r.summary), judged \(judged.summary)") }
                continue
            }
            let got = Self.recognized(r.events)
            var why: [String] = []
            for q in label.require
            where !got.contains(where: {
                $0.0 == q.gesture && (q.fingers == nil || $0.1 == q.fingers) && (q.direction == nil || $0.2 == q.direction)
            }) {
                why.append("missing \(q.gesture)/\(q.fingers.map(String.init) ?? "any")/\(q.direction ?? "any")")
            }
            for g in label.forbid where got.contains(where: { $0.0 == g }) { why.append("forbidden \(g)") }
            for (g, n) in label.count where got.filter({ $0.0 == g }).count != n {
                why.append("\(g) ×\(got.filter { $0.0 == g }.count), want \(n)")
            }
            if why.isEmpty {
                passed += 1
            } else {
                failures.append("\(label.name): \(why.joined(separator: "; ")); got \(r.summary)")
            }
        }
        print("real hands: \(passed) of \(labels.count - Self.judged.count) labels as labelled, \(Self.judged.count) as judged")
        #expect(failures.isEmpty, "\(failures.count) wrong:\n\(failures.joined(separator: "\n"))")
    }
}
