package import GestureCore

/// A virtual touchscreen fed from a recorded trace on the daemon's clock
/// (`gestured serve --replay`): it is added like a device, its frames arrive
/// at their recorded intervals (divided by `speed`), and timers run on the
/// daemon's clock, so clients cannot tell it from a real panel.
package struct ReplaySource {
    package let trace: Trace
    package let info: DeviceInfo
    package let geometry: PanelGeometry
    package let thresholds: GestureThresholds
    package let speed: Double
    package let loop: Bool
    /// Pause between the end of the trace and its next round with `loop` (1 s of trace time).
    package var gap: Timestamp.Duration { .milliseconds(1000 / speed) }

    private var assembler: TouchAssembler
    private var index = 0
    /// Daemon time of the trace's first event in this round (nil: not started).
    private var origin: Timestamp?
    package private(set) var rounds = 0

    package init(loaded: LoadedTrace, path: String, id: DeviceID, speed: Double, loop: Bool) {
        trace = loaded.trace
        geometry = loaded.geometry
        thresholds = loaded.thresholds
        self.speed = speed
        self.loop = loop
        info = DeviceInfo(
            id: id, name: loaded.trace.device.name, node: "replay:" + path, vendorProduct: loaded.trace.device.vendorProduct,
            width: loaded.geometry.screenWidth, height: loaded.geometry.screenHeight, sizeSource: loaded.geometry.source,
            rotation: loaded.geometry.rotation, slots: loaded.trace.device.slotCount)
        assembler = TouchAssembler(description: trace.device, geometry: geometry, device: id, file: path)
    }

    package var started: Bool { origin != nil }
    package var finished: Bool { origin != nil && index >= trace.events.count && !loop }

    /// Starts the first round so that the trace's first event happens at `time`.
    package mutating func start(at time: Timestamp) {
        origin = time
        index = 0
    }

    private func scaled(_ e: EvdevEvent) -> Timestamp {
        let first = trace.events.first?.time ?? .zero
        let offset = Double((e.time - first).microseconds) / speed
        return origin! + Timestamp.Duration(microseconds: Int64(offset.rounded()))
    }

    /// When the next event is due (`.never` when done or not started).
    package var nextTime: Timestamp {
        guard origin != nil, index < trace.events.count else { return .never }
        return scaled(trace.events[index])
    }

    /// Feeds every event due by `now`; frames go to `frame`.
    package mutating func run(until now: Timestamp, frame: (TouchFrame) -> Void) throws(TraceError) {
        guard origin != nil else { return }
        while index < trace.events.count {
            let time = scaled(trace.events[index])
            guard time <= now else { return }
            var e = trace.events[index]
            e.time = time
            index += 1
            if let f = try assembler.feed(e) { frame(f) }
            if index == trace.events.count && loop {
                rounds += 1
                origin = time + gap
                index = 0
                assembler = TouchAssembler(description: trace.device, geometry: geometry, device: info.id, file: trace.file)
            }
        }
    }

    /// Warnings from the trace so far (lost events, palms, …).
    package var warnings: [TraceWarning] { assembler.warnings }
}
