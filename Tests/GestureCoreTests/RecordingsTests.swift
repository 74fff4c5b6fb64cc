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
        let expect = ExpectFile(try Fixtures.read(Fixtures.recordings + "/" + name + ".expect"))
        let size = expect.size.map { ($0.width, $0.height) }
        let r = try Fixtures.replay(Fixtures.read(Fixtures.recordings + "/" + name + ".evemu"), file: name, size: size)
        #expect(r.summary == expect.gestures)
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

    /// evemu's own tools read the version from the first line; without it a
    /// file is version 1.0, whose `A:` lines have no resolution.
    @Test("every recording, bundled or generated, starts with evemu's version line")
    func versionLineFirst() throws {
        for name in Self.names {
            let text = try Fixtures.read(Fixtures.recordings + "/" + name + ".evemu")
            #expect(text.hasPrefix("# EVEMU 1.3\n"), "\(name).evemu starts \(text.prefix(40))")
        }
        var rng = SeededRandom(seed: 7)
        for scenario in Catalog.handScenarios(width: 220, height: 130, rng: &rng).prefix(3) {
            #expect(Renderer(panel: .tablet).evemu(scenario, seed: 1).hasPrefix("# EVEMU 1.3\n"), "\(scenario.name)")
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
        let failures = try Self.failures(seed: seed, Catalog.scenarios)
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
    }

    @Test(
        "what real hands do comes out right: rest then move, rolled taps, accelerating flicks, fast and staggered strokes, twists, hooked swipes",
        arguments: seeds)
    func handClassesOnRandomPanels(seed: UInt64) throws {
        let failures = try Self.failures(seed: seed, Catalog.handScenarios)
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
    }

    @Test(
        "everyday hands come out right: creeping starts, pans that become pinches and back, bouncing fingers, gripping hands",
        arguments: seeds)
    func everydayOnRandomPanels(seed: UInt64) throws {
        let failures = try Self.failures(seed: seed, Catalog.everydayScenarios)
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
    }

    @Test(
        "on three minutes of ordinary use per panel (scrolls, taps, zooms, bounces, a gripping hand), no gesture counts more fingers than a hand put down at once",
        arguments: seeds)
    func ordinaryUse(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        for base in SynthPanel.all {
            var panel = base
            panel.rateHz = [60, 120, 240].randomElement(using: &rng)!
            let session = Catalog.ordinaryUse(width: panel.width, height: panel.height, minutes: 3, rng: &rng)
            let events = Renderer(panel: panel).render(session, seed: rng.next())
            let trace = Trace(
                file: session.name, device: panel.description(reportingSize: session.reportsSize), events: events)
            let geometry = TouchAssembler.geometry(for: trace.device, size: (panel.width, panel.height), source: .commandLine)!
            var replay = TraceReplay(geometry: geometry)
            replay.tracing = true
            let (out, outcome) = try replay.events(trace)
            let gestures = out.filter { $0.phase == .began || $0.phase == .recognized }
            // The session's hands never put down more than two fingers of one gesture.
            let tooMany = gestures.filter { $0.fingers > 2 }
            #expect(
                tooMany.isEmpty,
                "\(panel.name): \(tooMany.count) of \(gestures.count) gestures with more than two fingers, first at \(tooMany.first.map { "\($0.time)" } ?? "")"
            )
            #expect(gestures.count > 100, "\(panel.name): \(gestures.count) gestures")
            #expect(outcome.anomalies.isEmpty, "\(panel.name): \(outcome.anomalies.prefix(3))")
        }
    }

    /// Every scenario of `list` on every synthetic panel, resized, at a random
    /// rate and noise: what came out wrong.
    static func failures(
        seed: UInt64, _ list: (Double, Double, inout SeededRandom) -> [Scenario]
    ) throws -> [String] {
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
            for scenario in list(panel.width, panel.height, &rng) {
                let events = Renderer(panel: panel).render(scenario, seed: rng.next())
                let trace = Trace(
                    file: scenario.name, device: panel.description(reportingSize: scenario.reportsSize), events: events)
                let geometry = TouchAssembler.geometry(
                    for: trace.device, size: (panel.width, panel.height), source: .commandLine)!
                var replay = TraceReplay(geometry: geometry)
                replay.tracing = true
                let (out, outcome) = try replay.events(trace)
                let summary = out.compactMap(\.summary)
                if summary != scenario.expected || !outcome.anomalies.isEmpty {
                    failures.append(
                        "\(scenario.name) on \(panel.name) \(Int(panel.rateHz)) Hz: got \(summary), want \(scenario.expected)")
                }
            }
        }
        return failures
    }
}

/// Multi-finger strokes done faster than the settle window, made from the
/// bundled recordings by compressing their time, paths unchanged (400 to
/// 700 mm/s, which a hand does): the finger count is every finger that took
/// part, and scale and direction are measured from where the fingers landed.
@Suite("Fast multi-finger strokes")
struct FastStrokeTests {
    static let cases: [(name: String, factor: Int64, expected: [String])] = [
        ("swipe-up-3f.kiosk", 3, ["drag fingers=3", "swipe fingers=3 direction=up"]),
        ("swipe-right-2f.laptop", 4, ["drag fingers=2", "swipe fingers=2 direction=right"]),
        ("pinch-close-2f.phone", 4, ["pinch fingers=2 direction=close"]),
        ("pinch-close-2f.phone", 5, ["pinch fingers=2 direction=close"]),
    ]

    @Test("a bundled stroke done 3 to 5 times faster comes out as performed", arguments: cases)
    func compressed(_ c: (name: String, factor: Int64, expected: [String])) throws {
        let text = try Fixtures.read(Fixtures.recordings + "/" + c.name + ".evemu")
        var trace = try EvemuReader.parse(text, file: c.name)
        let t0 = trace.events[0].time.microseconds
        for i in trace.events.indices {
            trace.events[i].time = Timestamp(microseconds: t0 + (trace.events[i].time.microseconds - t0) / c.factor)
        }
        let size = ExpectFile(try Fixtures.read(Fixtures.recordings + "/" + c.name + ".expect")).size
        let geometry = TouchAssembler.geometry(
            for: trace.device, size: size.map { ($0.width, $0.height) }, source: .commandLine)!
        let (events, outcome) = try TraceReplay(geometry: geometry).events(trace)
        #expect(events.compactMap(\.summary) == c.expected)
        #expect(outcome.anomalies.isEmpty)
        // The whole stroke, landing to lift, took less than the settle window's
        // 120 ms plus a frame or two.
        #expect((events.last!.time - Timestamp(microseconds: t0)).milliseconds < 200)
    }
}
