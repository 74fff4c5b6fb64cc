import Foundation
import GestureCore
import Testing
import TraceSynth

@Suite("Bundled recordings")
struct RecordingsTests {
    static let names = Fixtures.recordingNames()

    @Test("Recordings/ holds a trace for every catalog scenario")
    func everyScenarioIsRecorded() {
        #expect(Self.names.count == BundledRecordings.files().count / 2)
        #expect(Self.names.count >= 40)
    }

    @Test("replays to its .expect file", arguments: names)
    func replaysToExpectation(name: String) throws {
        let expectText = try Fixtures.read(Fixtures.recordings + "/" + name + ".expect")
        var size: (Double, Double)?
        var expected: [String] = []
        for line in expectText.split(separator: "\n") {
            if line.hasPrefix("# size:"), let s = parseSize(String(line.dropFirst(7))) { size = (s.width, s.height) }
            if !line.hasPrefix("#") { expected.append(String(line)) }
        }
        let r = try Fixtures.replay(Fixtures.read(Fixtures.recordings + "/" + name + ".evemu"), file: name, size: size)
        #expect(r.summary == expected)
        #expect(r.outcome.anomalies.isEmpty, "unhandled state/event pairs: \(r.outcome.anomalies)")
        #expect(r.outcome.warnings.isEmpty)
    }

    @Test("the committed files are what the generator makes")
    func generatorMatchesFiles() throws {
        for (name, text) in BundledRecordings.files() {
            let committed = try Fixtures.read(Fixtures.recordings + "/" + name)
            #expect(committed == text, "\(name) differs from the generator's output: run `swift run synth-recordings`")
        }
    }
}

/// The same gestures performed by hands and on panels the recordings never
/// had: random sizes, report rates, noise and timings.
@Suite("Unseen hands and panels")
struct UnseenHandsTests {
    static let seeds: [UInt64] = [11, 4242, 90_001]

    @Test("every catalog scenario comes out right", arguments: seeds)
    func catalogOnRandomPanels(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var failures: [String] = []
        for base in SynthPanel.all {
            var panel = base
            let scale = rng.uniform(0.85, 1.25)
            panel.width *= scale
            panel.height *= scale
            panel.rateHz = [60, 90, 120, 144, 180, 240].randomElement(using: &rng)!
            panel.noise = rng.uniform(0.05, 0.25)
            panel.reportsResolution = true
            for scenario in Catalog.scenarios(width: panel.width, height: panel.height, rng: &rng) {
                let events = Renderer(panel: panel).render(scenario, seed: rng.next())
                let trace = Trace(file: scenario.name, device: panel.description, events: events)
                let geometry = TouchAssembler.geometry(
                    for: trace.device, size: (panel.width, panel.height), source: .commandLine)!
                let (out, outcome) = try TraceReplay(geometry: geometry).events(trace)
                let summary = out.compactMap(\.summary)
                if summary != scenario.expected || !outcome.anomalies.isEmpty {
                    failures.append(
                        "\(scenario.name) on \(panel.name) \(Int(panel.rateHz)) Hz: got \(summary), want \(scenario.expected)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
    }
}
