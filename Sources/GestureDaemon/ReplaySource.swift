package import GestureConfiguration
package import GestureCore
package import Logging

/// A virtual touchscreen fed from a recorded trace on the daemon's clock
/// (`gestured serve --replay`): it is added like a device, its frames arrive
/// at their recorded intervals (divided by `speed`), and timers run on the
/// daemon's clock, so clients cannot tell it from a real panel.
///
/// Like every source, `read(until:into:)` returns what happened: the device
/// at the first call, then the frames due. A class: the loop asks an
/// optional one for its next time on every turn, and asking a struct in an
/// optional copies it (retaining and releasing its references).
package final class ReplaySource {
    package let trace: Trace
    package let info: DeviceInfo
    package let geometry: PanelGeometry
    package let speed: Double
    package let loop: Bool
    private let logger: Logger
    /// Pause between the end of the trace and its next round with `loop` (1 s of trace time).
    package var gap: Timestamp.Duration { .milliseconds(1000 / speed) }

    private var assembler: TouchAssembler
    private var index = 0
    /// Daemon time of the trace's first event in this round (nil: not started).
    private var origin: Timestamp?
    private var announced = false
    /// The trace could not be read on: the device is gone.
    package private(set) var failed = false
    private var warningsLogged = 0

    /// Loads the trace at `path` (its geometry and thresholds from
    /// `configuration`, its size `size` if the panel reports none).
    package convenience init(
        path: String, size: (width: Double, height: Double)?, configuration: Configuration, id: DeviceID, speed: Double,
        loop: Bool, logger: Logger
    ) throws(SetupError) {
        let loaded: LoadedTrace
        do {
            guard let first = try TraceLoader.load(path, desc: nil, size: size, configuration: configuration).first else {
                throw SetupError("\(path): no device in the trace")
            }
            loaded = first
        } catch let e as SetupError {
            throw e
        } catch {
            throw SetupError("\(error)")
        }
        if loaded.geometry.source == .fallback {
            logger.warning(
                "\(path): no size known; assuming \(NumberText.fixed(loaded.geometry.screenWidth, 1)) x \(NumberText.fixed(loaded.geometry.screenHeight, 1)) mm; pass --size WxH"
            )
        }
        let device = loaded.trace.device
        if configuration.claims(name: device.name, vendorProduct: device.vendorProduct) {
            logger.notice(
                "\(path): claim = true applies to touchscreens read through libinput; a replayed trace is never claimed (gestured replay --claim ACTIONS shows what claiming would do with it)"
            )
        }
        self.init(loaded: loaded, path: path, id: id, speed: speed, loop: loop, logger: logger)
    }

    package init(loaded: LoadedTrace, path: String, id: DeviceID, speed: Double, loop: Bool, logger: Logger) {
        trace = loaded.trace
        geometry = loaded.geometry
        self.speed = speed
        self.loop = loop
        self.logger = logger
        info = DeviceInfo(
            id: id, name: DeviceInfo.boundedName(loaded.trace.device.name), node: "replay:" + path,
            vendorProduct: loaded.trace.device.vendorProduct,
            width: loaded.geometry.screenWidth, height: loaded.geometry.screenHeight, sizeSource: loaded.geometry.source,
            rotation: loaded.geometry.rotation, slots: loaded.trace.device.slotCount)
        assembler = TouchAssembler(description: trace.device, geometry: geometry, device: id, file: path)
    }

    package var started: Bool { origin != nil }

    /// Starts the first round so that the trace's first event happens at `time`.
    package func start(at time: Timestamp) {
        origin = time
        index = 0
    }

    private func scaled(_ e: EvdevEvent) -> Timestamp {
        let first = trace.events.first?.time ?? .zero
        let offset = Double((e.time - first).microseconds) / speed
        return origin! + Timestamp.Duration(microseconds: Int64(offset.rounded()))
    }

    /// When the next event is due (`.never` when done, failed or not started).
    package var nextTime: Timestamp {
        guard origin != nil, !failed, index < trace.events.count else { return .never }
        return scaled(trace.events[index])
    }

    /// The most evdev events read in one turn of the loop: a trace denser
    /// than the loop can follow (or played faster) is read over several
    /// turns, and what waits stays in the trace, not in memory.
    static let eventBudget = 4096

    /// Appends the device (the first time) and the frames due by `now`, at
    /// most `eventBudget` events' worth (the rest are due at once next
    /// turn). A trace that cannot be read on is logged and its device removed.
    package func read(until now: Timestamp, into events: TouchSourceEvents) {
        guard !failed else { return }
        if !announced {
            announced = true
            events.added(info, geometry)
        }
        guard origin != nil else { return }
        do {
            var budget = Self.eventBudget
            while index < trace.events.count && budget > 0 {
                budget -= 1
                let time = scaled(trace.events[index])
                guard time <= now else { break }
                var e = trace.events[index]
                e.time = time
                index += 1
                if let f = try assembler.feed(e) { events.frame(f) }
                if index == trace.events.count && loop {
                    origin = time + gap
                    index = 0
                    warningsLogged = 0
                    assembler = TouchAssembler(description: trace.device, geometry: geometry, device: info.id, file: trace.file)
                }
            }
        } catch {
            logger.error("replay stopped: \(error)")
            failed = true
            events.removed(info.id)
        }
        let warnings = assembler.warnings
        if warnings.count > warningsLogged {
            for w in warnings.dropFirst(warningsLogged) { logger.warning("\(w)") }
            warningsLogged = warnings.count
        }
    }
}
