import Foundation
import GestureCore
import Testing
import TraceSynth

/// The state diagrams of docs/state-machines.md, read as the specification
/// (libinput's rule): an edge `from --> to: event, event (note) / action`
/// allows those events to take `from` to `to`. A state named with hyphens is
/// drawn with underscores (`tapped_or_double_tap`).
struct StateDiagrams {
    struct Edge: Hashable {
        var from: String
        var event: String
        var to: String
    }

    var edges: [Transition.Machine: Set<Edge>] = [:]

    /// Where each machine is drawn: the file and the heading above its Mermaid block.
    static let places: [(Transition.Machine, file: String, heading: String)] = [
        (.touchGroup, "docs/state-machines.md", "## Touch group"),
        (.tapSequence, "docs/state-machines.md", "## Tap sequence"),
        (.claimer, "docs/claiming.md", "## How it works"),
    ]

    /// Reads the Mermaid block under each machine's heading; every name must be
    /// a state or event of the machine, so that a misspelt edge is an error.
    static func load() throws -> StateDiagrams {
        var d = StateDiagrams()
        for (machine, file, heading) in places {
            let text = try Fixtures.read(Fixtures.root + "/" + file)
            let section = try #require(text.range(of: heading)).upperBound
            let open = try #require(text.range(of: "```mermaid", range: section..<text.endIndex))
            let close = try #require(text.range(of: "```", range: open.upperBound..<text.endIndex))
            var set = Set<Edge>()
            for line in text[open.upperBound..<close.lowerBound].split(separator: "\n") {
                let parts = line.trimmingCharacters(in: .whitespaces).components(separatedBy: " --> ")
                guard parts.count == 2, parts[0] != "[*]" else { continue }
                let from = parts[0].replacingOccurrences(of: "_", with: "-")
                let rest = parts[1].split(separator: ":", maxSplits: 1)
                let to = rest[0].trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "-")
                #expect(machine.states.contains(from) && machine.states.contains(to), "\(machine): unknown state in \(line)")
                // Each part between semicolons has its own action after "/".
                let label = rest.count > 1 ? String(rest[1]) : ""
                for part in label.split(separator: ";") {
                    for event in eventNames(String(part.split(separator: "/", maxSplits: 1)[0])) {
                        #expect(machine.events.contains(event), "\(machine): unknown event '\(event)' in \(line)")
                        set.insert(Edge(from: from, event: event, to: to))
                    }
                }
            }
            d.edges[machine] = set
        }
        return d
    }

    /// The events of a label: names separated by commas or semicolons outside
    /// parentheses, each the first word of its part ("tap of a bounce touch").
    static func eventNames(_ label: String) -> [String] {
        var parts: [String] = []
        var depth = 0
        var current = ""
        for c in label {
            if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
            if depth == 0 && (c == "," || c == ";") {
                parts.append(current)
                current = ""
            } else if depth == 0 && c != ")" {
                current.append(c)
            }
        }
        parts.append(current)
        return parts.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// Is the transition drawn? One drawn to `idle` may go to `finished`
    /// instead while fingers outside the gesture are down (docs/state-machines.md).
    func allows(_ t: Transition) -> Bool {
        let set = edges[t.machine] ?? []
        if set.contains(Edge(from: t.from, event: t.event, to: t.to)) { return true }
        return t.machine == .touchGroup && t.to == "finished" && set.contains(Edge(from: t.from, event: t.event, to: "idle"))
    }

    /// The transitions of `transitions` that are not drawn, once each.
    func undrawn(_ transitions: [Transition]) -> Set<String> {
        Set(transitions.filter { !allows($0) }.map { "\($0.machine.rawValue): \($0.from) → \($0.event) → \($0.to)" })
    }
}

@Suite("State diagrams are the specification")
struct DiagramTests {
    @Test("every transition met replaying the bundled recordings is drawn in docs/state-machines.md")
    func bundled() throws {
        let diagrams = try StateDiagrams.load()
        var seen: [Transition] = []
        for name in Fixtures.recordingNames() {
            let size = ExpectFile(try Fixtures.read(Fixtures.recordings + "/" + name + ".expect")).size
            let r = try Fixtures.replay(
                Fixtures.read(Fixtures.recordings + "/" + name + ".evemu"), file: name, size: size.map { ($0.width, $0.height) })
            seen += r.outcome.transitions
        }
        #expect(seen.count > 4000)
        let undrawn = diagrams.undrawn(seen)
        #expect(undrawn.isEmpty, "not drawn:\n\(undrawn.sorted().joined(separator: "\n"))")
    }

    @Test("every transition met replaying synthesized hands on every panel is drawn")
    func synthesized() throws {
        let diagrams = try StateDiagrams.load()
        var rng = SeededRandom(seed: 77)
        var seen: [Transition] = []
        for panel in SynthPanel.all {
            for scenario in Catalog.scenarios(width: panel.width, height: panel.height, rng: &rng)
                + Catalog.handScenarios(width: panel.width, height: panel.height, rng: &rng)
            {
                let trace = Trace(
                    file: scenario.name, device: panel.description,
                    events: Renderer(panel: panel).render(scenario, seed: rng.next()))
                let geometry = TouchAssembler.geometry(
                    for: trace.device, size: (panel.width, panel.height), source: .commandLine)!
                var replay = TraceReplay(geometry: geometry)
                replay.tracing = true
                seen += try replay.events(trace).outcome.transitions
            }
        }
        let undrawn = diagrams.undrawn(seen)
        #expect(undrawn.isEmpty, "not drawn:\n\(undrawn.sorted().joined(separator: "\n"))")
    }

    @Test(
        "every transition met replaying the real recordings of ../shared/traces is drawn",
        .enabled(if: Fixtures.sharedTracesPresent || Fixtures.inCI, "../shared/traces is absent: skipped outside CI"))
    func real() throws {
        try #require(Fixtures.sharedTracesPresent, "../shared/traces must be beside the checkout in CI")
        let diagrams = try StateDiagrams.load()
        var seen: [Transition] = []
        for c in RealTracesTests.cases {
            let path = Fixtures.sharedTraces + "/" + c.path
            seen += try RealTracesTests.replay(path: path, size: c.size).outcome.transitions
        }
        for label in try RealHandsTests.labels() {
            seen += try Fixtures.replay(
                Fixtures.read(RealHandsTests.dir + "/" + label.file), file: label.file, size: label.size
            ).outcome.transitions
        }
        let undrawn = diagrams.undrawn(seen)
        #expect(undrawn.isEmpty, "not drawn:\n\(undrawn.sorted().joined(separator: "\n"))")
    }

    /// The claimer's transitions replaying `trace` with each of a few claims:
    /// counts of two to five fingers, every edge, the picture turned,
    /// one- and two-finger holds, and counts, edges and a hold on a
    /// compositor that drops touch cancels.
    static func claimerTransitions(_ trace: Trace, size: (width: Double, height: Double)?) throws -> [Transition] {
        let geometry = TouchAssembler.geometry(for: trace.device, size: size, source: .commandLine)!
        var seen: [Transition] = []
        for (claims, transform) in [
            (ClaimSet(fingers: [3, 4, 5]), ScreenTransform.normal), (ClaimSet(fingers: [2]), .normal),
            (ClaimSet(edges: Set(PanelEdge.allCases)), .normal), (ClaimSet(fingers: [3], edges: [.left, .bottom]), .rot90),
            (ClaimSet(holds: [1: 500, 2: 500]), .normal),
            // On a compositor that drops touch cancels.
            (ClaimSet(fingers: [3, 4], holds: [1: 500], cancelDropped: true), .normal),
            (ClaimSet(fingers: [2], edges: [.left, .bottom], cancelDropped: true), .normal),
        ] {
            guard let r = try ClaimReplay.run(trace, geometry: geometry, claims: claims, transform: transform) else { break }
            #expect(r.anomalies.isEmpty, "\(trace.file): \(r.anomalies)")
            seen += r.transitions
        }
        return seen
    }

    /// The claimer's transitions over every bundled recording.
    static func bundledClaimerTransitions() throws -> [Transition] {
        var seen: [Transition] = []
        for name in Fixtures.recordingNames() {
            let size = ExpectFile(try Fixtures.read(Fixtures.recordings + "/" + name + ".expect")).size
            let trace = try EvemuReader.parse(try Fixtures.read(Fixtures.recordings + "/" + name + ".evemu"), file: name)
            seen += try Self.claimerTransitions(trace, size: size.map { ($0.width, $0.height) })
        }
        return seen
    }

    @Test("every transition of the claimer met replaying the bundled recordings is drawn in docs/claiming.md")
    func claimer() throws {
        let diagrams = try StateDiagrams.load()
        let undrawn = diagrams.undrawn(try Self.bundledClaimerTransitions())
        #expect(undrawn.isEmpty, "not drawn:\n\(undrawn.sorted().joined(separator: "\n"))")
    }

    @Test(
        "with the real hands of ../shared/traces too, the claimer meets every event of its diagram, and each transition is drawn",
        .enabled(if: Fixtures.sharedTracesPresent || Fixtures.inCI, "../shared/traces is absent: skipped outside CI"))
    func claimerReal() throws {
        try #require(Fixtures.sharedTracesPresent, "../shared/traces must be beside the checkout in CI")
        let diagrams = try StateDiagrams.load()
        var seen = try Self.bundledClaimerTransitions()
        for label in try RealHandsTests.labels() {
            let trace = try EvemuReader.parse(try Fixtures.read(RealHandsTests.dir + "/" + label.file), file: label.file)
            seen += try Self.claimerTransitions(trace, size: label.size.map { ($0.0, $0.1) })
        }
        let events = Set(seen.map(\.event))
        for e in [
            "landing", "edge-landing", "early-landing", "claimed-landing", "inward", "away", "edge-timeout",
            "window-timeout", "hold-deadline", "all-up", "frame",
        ] {
            #expect(events.contains(e), "no recording made the claimer meet \(e)")
        }
        let undrawn = diagrams.undrawn(seen)
        #expect(undrawn.isEmpty, "not drawn:\n\(undrawn.sorted().joined(separator: "\n"))")
    }

    @Test("the label reader takes names, not notes")
    func labels() {
        #expect(
            StateDiagrams.eventNames(" finger-down, finger-up (not moved, or undecided); tap of a bounce touch")
                == ["finger-down", "finger-up", "tap"])
    }
}
