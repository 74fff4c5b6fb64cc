public import GestureCore

/// Turns a scenario into the evdev events a real panel would send: protocol B
/// slots, positions quantized to device units with sensor noise, uneven report
/// intervals, only changed values reported.
public struct Renderer: Sendable {
    public var panel: SynthPanel
    /// Report interval jitter, as a fraction of the nominal interval.
    public var intervalJitter = 0.15
    /// Where the trace's clock starts (seconds).
    public var epochSeconds: Int64 = 1000

    public init(panel: SynthPanel) { self.panel = panel }

    public func render(_ scenario: Scenario, seed: UInt64) -> [EvdevEvent] {
        var rng = SeededRandom(seed: seed)
        let strokes = scenario.strokes
        let phases = strokes.map { _ in rng.uniform(0, 2 * .pi) }
        let start = strokes.map(\.land).min() ?? 0
        let end = strokes.map(\.lift).max() ?? 0
        let interval = 1000 / panel.rateHz
        var events: [EvdevEvent] = []
        var slotOf = [Int](repeating: -1, count: strokes.count)
        var slotBusy = [Bool](repeating: false, count: panel.slots)
        var lastRaw = [(Int32, Int32)](repeating: (-1, -1), count: panel.slots)
        var currentSlot = 0
        var nextTracking: Int32 = 1
        var touching = false
        let sizes = scenario.reportsSize
        // The first report falls anywhere within one interval of the first landing.
        var t = start + rng.uniform(0, interval)
        while true {
            var frame: [EvdevEvent] = []
            let time = Timestamp(microseconds: epochSeconds * 1_000_000 + Int64((t * 1000).rounded()))
            func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
                frame.append(EvdevEvent(time: time, type: type, code: code, value: value))
            }
            func select(_ slot: Int) {
                if slot != currentSlot {
                    emit(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(slot))
                    currentSlot = slot
                }
            }
            for (i, s) in strokes.enumerated() {
                let down = s.land <= t && t < s.lift
                if down && slotOf[i] < 0 {
                    guard let slot = slotBusy.firstIndex(of: false) else { continue }
                    slotBusy[slot] = true
                    slotOf[i] = slot
                    select(slot)
                    emit(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, nextTracking)
                    nextTracking += 1
                    lastRaw[slot] = (-1, -1)
                    if sizes {
                        emit(Evdev.EV_ABS, Evdev.ABS_MT_TOUCH_MAJOR, panel.majorUnits(s.size > 0 ? s.size : SynthPanel.fingertip))
                    }
                }
                if down, slotOf[i] >= 0 {
                    let slot = slotOf[i]
                    let p = s.position(at: t, driftPhase: phases[i])
                    let raw = quantize(x: p.x + rng.gaussian(panel.noise), y: p.y + rng.gaussian(panel.noise))
                    if raw.0 != lastRaw[slot].0 || raw.1 != lastRaw[slot].1 { select(slot) }
                    if raw.0 != lastRaw[slot].0 { emit(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, raw.0) }
                    if raw.1 != lastRaw[slot].1 { emit(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, raw.1) }
                    lastRaw[slot] = raw
                } else if !down, slotOf[i] >= 0, t >= s.lift {
                    let slot = slotOf[i]
                    select(slot)
                    emit(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
                    slotBusy[slot] = false
                    slotOf[i] = -2  // done
                }
            }
            let anyDown = slotBusy.contains(true)
            if anyDown != touching {
                emit(Evdev.EV_KEY, Evdev.BTN_TOUCH, anyDown ? 1 : 0)
                touching = anyDown
            }
            if !frame.isEmpty {
                emit(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
                events += frame
            }
            if t > end && slotOf.allSatisfy({ $0 == -2 }) { break }
            t += interval * (1 + rng.uniform(-intervalJitter, intervalJitter))
            if t > end + 5000 { break }
        }
        return events
    }

    private func quantize(x: Double, y: Double) -> (Int32, Int32) {
        let ux = min(max(x / panel.width, 0), 1)
        let uy = min(max(y / panel.height, 0), 1)
        return (Int32((ux * Double(panel.maxX)).rounded()), Int32((uy * Double(panel.maxY)).rounded()))
    }

    /// The whole trace as evemu text. The version line comes first, as
    /// `evemu-record` writes it: evemu's tools read the version from the
    /// first line and take a file without it for version 1.0.
    public func evemu(_ scenario: Scenario, seed: UInt64) -> String {
        var s = EvemuWriter.description(panel.description(reportingSize: scenario.reportsSize))
        s += "# Synthetic recording made by gestured's TraceSynth (swift run synth-recordings).\n"
        s += "# Scenario: \(scenario.name); seed \(seed); \(panel.width)x\(panel.height) mm at \(Int(panel.rateHz)) Hz.\n"
        for event in render(scenario, seed: seed) { s += EvemuWriter.line(event) }
        return s
    }
}
