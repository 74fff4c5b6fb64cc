package import GestureCore

/// What the sources saw, in order: the one currency between the sources
/// (libinput, a replayed trace) and the loop. A source appends to it in its
/// `read`; it calls nobody back and knows nothing of the recognizer or the
/// clients. Frames are kept apart from the list, which names them by index:
/// emptying the list each turn destroys nothing one by one. (A frame is
/// still copied whole into `frames` and out of it: docs/performance.md.)
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
    package private(set) var frames = ReusedList<TouchFrame>()
    package private(set) var devices: [(info: DeviceInfo, geometry: PanelGeometry)] = []

    package init() {}

    package mutating func added(_ info: DeviceInfo, _ geometry: PanelGeometry) {
        devices.append((info, geometry))
        events.append(.added(index: devices.count - 1))
    }

    package mutating func removed(_ id: DeviceID) { events.append(.removed(id)) }

    package mutating func frame(_ frame: borrowing TouchFrame) {
        frames.append(frame)
        events.append(.frame(index: frames.count - 1))
    }

    /// Empties the list for the next turn, keeping its storage.
    package mutating func removeAll() {
        events.removeAll()
        frames.removeAll()
        if !devices.isEmpty { devices.removeAll() }
    }
}
