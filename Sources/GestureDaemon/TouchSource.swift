package import GestureCore

/// What the sources saw, in order: the one currency between the sources
/// (libinput, a replayed trace) and the loop. A source appends to it in its
/// `read`; it calls nobody back and knows nothing of the recognizer or the
/// clients. Frames are kept apart from the list, which names them by index:
/// emptying the list each turn destroys nothing one by one. The libinput
/// source builds each frame where it lies in `frames` (`startFrame`), and
/// the loop hands it to the recognizer from there: a frame is not copied on
/// its way (docs/performance.md).
package struct TouchSourceEvents {
    package enum Event {
        /// A touchscreen appeared: `devices[index]`, with its size in screen orientation.
        case added(index: Int)
        case removed(DeviceID)
        /// All of one device's touch changes at one instant: `frames[index]`.
        case frame(index: Int)
    }

    /// The list holds only indexes and ids, the frames are plain values:
    /// both are overwritten in place next turn.
    package private(set) var events = ReusedList<Event>()
    package var frames = ReusedList<TouchFrame>()
    package private(set) var devices: [(info: DeviceInfo, geometry: PanelGeometry)] = []

    package init() {}

    package mutating func added(_ info: DeviceInfo, _ geometry: PanelGeometry) {
        devices.append((info, geometry))
        events.append(.added(index: devices.count - 1))
    }

    package mutating func removed(_ id: DeviceID) { events.append(.removed(id)) }

    /// A whole frame, copied into `frames` (the replay source's way).
    package mutating func frame(_ frame: borrowing TouchFrame) {
        frames.append(frame)
        finishFrame(frames.count - 1)
    }

    /// An empty frame of `device` at `time` at the end of `frames`, for its
    /// source to fill in place (`frames[index]`); `finishFrame` hands it on.
    package mutating func startFrame(device: DeviceID, time: Timestamp) -> Int {
        frames.appendInPlace(
            reusing: {
                $0.device = device
                $0.time = time
                $0.removeAll()
            }, orMaking: { TouchFrame(device: device, time: time) })
    }

    /// The frame at `frames[index]` is complete: it happened now, in order.
    package mutating func finishFrame(_ index: Int) { events.append(.frame(index: index)) }

    /// Empties the list for the next turn, keeping its storage.
    package mutating func removeAll() {
        events.removeAll()
        frames.removeAll()
        if !devices.isEmpty { devices.removeAll() }
    }
}
