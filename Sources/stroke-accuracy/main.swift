import Foundation
import GestureCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

// How often a stroke people drew comes out as the shape they drew, with a
// few of their own examples as the shapes' templates: the measurement of
// docs/gestures.md, "Strokes", on the $1 unistroke logs (Wobbrock, Wilson
// and Li, UIST 2007: 10 people and a pilot, 16 shapes, 10 examples of each
// at three speeds, drawn with a stylus on a Pocket PC, one XML file each).
//
// Usage: swift run stroke-accuracy DIR [--trials N]
//   DIR holds the logs' subject folders ("s01 (pilot)", "s02", …), each with
//   fast/, medium/ and slow/.
//
// As in the $P paper's user-dependent test: for each person and speed, and
// for 1, 3 and 5 templates, each trial takes that many of the person's
// examples of every shape at random as the shapes (StrokeShapes, the
// defaults `gestured stroke record` gives: tolerance 0.1, not rotating) and
// one other example of every shape as the stroke to match. A miss is
// either rejected (no shape within its tolerance) or confused (another
// shape).

/// One stroke of the logs: its shape's name and its points.
struct Logged {
    var shape: String
    var subject: String
    var speed: String
    var points: [SIMD2<Double>]
}

/// Reads one log file: `<Gesture Name="arrow01" …><Point X= Y= T=/>…`.
final class LogReader: NSObject, XMLParserDelegate {
    var name: String?
    var points: [SIMD2<Double>] = []

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String]
    ) {
        if element == "Gesture" { name = attributes["Name"] }
        if element == "Point", let x = attributes["X"].flatMap(Double.init), let y = attributes["Y"].flatMap(Double.init) {
            points.append(SIMD2(x, y))
        }
    }

    static func read(_ url: URL) throws -> (String, [SIMD2<Double>]) {
        guard let parser = XMLParser(contentsOf: url) else { throw Failure("cannot open \(url.path)") }
        let reader = LogReader()
        parser.delegate = reader
        guard parser.parse(), let name = reader.name, reader.points.count >= 2 else {
            throw Failure("\(url.path) is not a gesture log (\(parser.parserError.map { "\($0)" } ?? "no Gesture with points"))")
        }
        // "arrow01" → "arrow".
        return (String(name.reversed().drop { $0.isNumber }.reversed()), reader.points)
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// SplitMix64: the same draws on every run.
struct Draws: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func load(_ dir: String) throws -> [Logged] {
    let fm = FileManager.default
    var all: [Logged] = []
    let subjects = try fm.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("s") }.sorted()
    for subject in subjects {
        for speed in ["fast", "medium", "slow"] {
            let folder = URL(fileURLWithPath: dir).appendingPathComponent(subject).appendingPathComponent(speed)
            guard let files = try? fm.contentsOfDirectory(atPath: folder.path) else { continue }
            for file in files.sorted() where file.hasSuffix(".xml") {
                let (shape, points) = try LogReader.read(folder.appendingPathComponent(file))
                all.append(Logged(shape: shape, subject: subject, speed: speed, points: points))
            }
        }
    }
    guard !all.isEmpty else {
        throw Failure("no gesture logs under \(dir) (subject folders s01 …, each with fast/, medium/, slow/)")
    }
    return all
}

struct Tally {
    var hits = 0, rejected = 0, confused = 0
    var total: Int { hits + rejected + confused }
    func percent(_ n: Int) -> String { String(format: "%5.1f", total == 0 ? 0 : 100 * Double(n) / Double(total)) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let dir = arguments.first else {
    print("usage: stroke-accuracy DIR [--trials N]  (DIR: the $1 unistroke logs, subject folders s01 …)")
    exit(2)
}
let trials = arguments.firstIndex(of: "--trials").flatMap { arguments.count > $0 + 1 ? Int(arguments[$0 + 1]) : nil } ?? 10
let logs: [Logged]
do { logs = try load(dir) } catch {
    print("stroke-accuracy: \(error)")
    exit(1)
}
let shapes = Set(logs.map(\.shape)).sorted()
let groups = Dictionary(grouping: logs) { "\($0.subject)/\($0.speed)" }
print(
    "\(logs.count) strokes: \(Set(logs.map(\.subject)).count) people, \(shapes.count) shapes, \(groups.count) person-speed sets; \(trials) trials each"
)
var draws = Draws(state: 20_261_208)
let counts = [1, 3, 5]
var tallies: [Int: [String: Tally]] = [:]
for k in counts {
    for (_, group) in groups.sorted(by: { $0.key < $1.key }) {
        let byShape = Dictionary(grouping: group, by: \.shape)
        for _ in 0..<trials {
            var templates: [StrokeShapes.Shape] = []
            var candidates: [Logged] = []
            for (name, examples) in byShape.sorted(by: { $0.key < $1.key }) where examples.count > k {
                let picked = examples.shuffled(using: &draws)
                if let shape = StrokeShapes.Shape(name: name, examples: picked.prefix(k).map(\.points)) {
                    templates.append(shape)
                }
                candidates.append(picked[k])
            }
            let set = StrokeShapes(templates)
            for candidate in candidates {
                var tally = tallies[k, default: [:]][candidate.shape, default: Tally()]
                switch set.match(candidate.points)?.name {
                case candidate.shape?: tally.hits += 1
                case nil: tally.rejected += 1
                default: tally.confused += 1
                }
                tallies[k, default: [:]][candidate.shape] = tally
            }
        }
    }
}
print("per shape, % right (rejected, confused) with 1, 3 and 5 of the person's own examples as templates")
for shape in shapes {
    let cells = counts.map { k -> String in
        let t = tallies[k]?[shape] ?? Tally()
        return "\(t.percent(t.hits)) (\(t.percent(t.rejected)), \(t.percent(t.confused)))"
    }
    print(shape.padding(toLength: 20, withPad: " ", startingAt: 0) + cells.joined(separator: "  "))
}
let all = counts.map { k -> String in
    let t = (tallies[k] ?? [:]).values.reduce(into: Tally()) {
        $0.hits += $1.hits
        $0.rejected += $1.rejected
        $0.confused += $1.confused
    }
    return "\(t.percent(t.hits)) (\(t.percent(t.rejected)), \(t.percent(t.confused)))"
}
print("all".padding(toLength: 20, withPad: " ", startingAt: 0) + all.joined(separator: "  "))
