/// Replays a trace through the same `GesturePipeline` the daemon uses.
public struct TraceReplay: Sendable {
    public var geometry: PanelGeometry
    public var thresholds: GestureThresholds
    public var wanted: GestureKindSet
    public var tracing = false
    /// With double taps wanted, also report taps at the lift (see `GesturePipeline.setWanted`).
    package var immediateTaps = false
    /// With triple taps wanted, also report double taps at the second lift (see `GesturePipeline.setWanted`).
    package var immediateDoubleTaps = false
    /// The times a hold reports as it lasts them still, ms
    /// (`GesturePipeline.setHoldMarks`): what subscribers waiting for holds ask for.
    public var holdMarks: [Int] = []

    public init(geometry: PanelGeometry, thresholds: GestureThresholds = .defaults, wanted: GestureKindSet = .standard) {
        self.geometry = geometry
        self.thresholds = thresholds
        self.wanted = wanted
    }

    /// What a replay saw besides its events.
    public struct Outcome: Sendable {
        public var frames = 0
        public var warnings: [TraceWarning] = []
        public var transitions: [Transition] = []
        /// Impossible state/event pairs the machines met: always a bug.
        public var anomalies: [Transition] = []
        public var nextID: UInt64 = 1
    }

    /// Feeds every event of `trace` through a fresh pipeline into `sink`, then
    /// fires the timers still pending, as if time went on.
    public func run<S: GestureSink>(_ trace: Trace, firstID: UInt64 = 1, into sink: inout S) throws(TraceError) -> Outcome {
        var pipeline = GesturePipeline(wanted: wanted, firstID: firstID)
        if immediateTaps || immediateDoubleTaps {
            pipeline.setWanted(wanted, immediateTaps: immediateTaps, immediateDoubleTaps: immediateDoubleTaps)
        }
        pipeline.setHoldMarks(holdMarks)
        let id = DeviceID(1)
        pipeline.addDevice(id, geometry: geometry, thresholds: thresholds)
        pipeline.setTracing(tracing)
        var assembler = TouchAssembler(description: trace.device, geometry: geometry, device: id, file: trace.file)
        var out = Outcome()
        var events = GestureEvents()
        for e in trace.events {
            if var frame = try assembler.feed(e) {
                pipeline.process(&frame, into: &events)
                sink.receive(contentsOf: events)
                events.removeAll()
                out.frames += 1
            }
        }
        pipeline.finish(into: &events)
        sink.receive(contentsOf: events)
        out.warnings = assembler.warnings
        out.transitions = pipeline.transitions
        out.anomalies = pipeline.anomalies
        out.nextID = pipeline.nextGestureID
        return out
    }

    /// The trace's touch frames as the pipeline would receive them (pictures,
    /// tuning; allocates).
    public func frames(_ trace: Trace) throws(TraceError) -> [TouchFrame] {
        var assembler = TouchAssembler(description: trace.device, geometry: geometry, device: DeviceID(1), file: trace.file)
        var frames: [TouchFrame] = []
        for e in trace.events {
            if let frame = try assembler.feed(e) { frames.append(frame) }
        }
        return frames
    }

    /// Convenience: the events as an array.
    public func events(_ trace: Trace) throws(TraceError) -> (events: [GestureEvent], outcome: Outcome) {
        var events: [GestureEvent] = []
        let o = try run(trace, into: &events)
        return (events, o)
    }
}
