import GestureCore

/// The recordings committed in `Recordings/`: every catalog scenario, each on
/// one of the synthetic panels in turn, from fixed seeds, so the generator
/// and the files can be checked against each other.
public enum BundledRecordings {
    public static let seed: UInt64 = 20_261_121

    /// (file name, contents) for every `.evemu` and `.expect` file.
    public static func files() -> [(String, String)] {
        var out: [(String, String)] = []
        var rng = SeededRandom(seed: seed)
        // Every scenario once per panel size, so positions fit each panel;
        // each scenario is written for one panel, rotating through them.
        out += rotating(Catalog.scenarios, rng: &rng, traceSeeds: seed)
        // What real hands do (`Catalog.handScenarios`), and what they do in
        // everyday use (`Catalog.everydayScenarios`), each from a random
        // stream of its own, so the recordings above stay as they were.
        var handRNG = SeededRandom(seed: seed &+ 12)
        out += rotating(Catalog.handScenarios, rng: &handRNG, traceSeeds: seed &+ 500_000)
        var everydayRNG = SeededRandom(seed: seed &+ 36)
        out += rotating(Catalog.everydayScenarios, rng: &everydayRNG, traceSeeds: seed &+ 900_000)
        // The ten-second session the README's picture shows, on the tablet.
        let panel = SynthPanel.tablet
        let tour = Catalog.tour(width: panel.width, height: panel.height, rng: &rng)
        out.append(("tour.tablet.evemu", Renderer(panel: panel).evemu(tour, seed: seed &+ 104_729)))
        out.append(
            (
                "tour.tablet.expect",
                ExpectFile.text(
                    comment: "Gestures `gestured replay --format summary` must print for tour.tablet.evemu, in order.",
                    size: nil, gestures: tour.expected)
            ))
        return out
    }

    /// Every scenario of `list`, drawn once per panel size so positions fit
    /// each panel, each written for one panel, rotating through them.
    static func rotating(
        _ list: (Double, Double, inout SeededRandom) -> [Scenario], rng: inout SeededRandom, traceSeeds: UInt64
    ) -> [(String, String)] {
        let perPanel = SynthPanel.all.map { list($0.width, $0.height, &rng) }
        var out: [(String, String)] = []
        for i in perPanel[0].indices {
            let p = i % SynthPanel.all.count
            out += files(for: perPanel[p][i], on: SynthPanel.all[p], seed: traceSeeds &+ UInt64(i) &* 7919)
        }
        return out
    }

    /// A scenario's `.evemu` and `.expect` files on `panel`.
    static func files(for scenario: Scenario, on panel: SynthPanel, seed: UInt64) -> [(String, String)] {
        let base = "\(scenario.name).\(panelTag(panel))"
        let expect = ExpectFile.text(
            comment: "Gestures `gestured replay --format summary` must print for \(base).evemu, in order.",
            size: panel.sizeNeeded, gestures: scenario.expected)
        return [(base + ".evemu", Renderer(panel: panel).evemu(scenario, seed: seed)), (base + ".expect", expect)]
    }

    static func panelTag(_ p: SynthPanel) -> String {
        switch p.name {
        case SynthPanel.phone.name: "phone"
        case SynthPanel.tablet.name: "tablet"
        case SynthPanel.laptop.name: "laptop"
        default: "kiosk"
        }
    }
}
