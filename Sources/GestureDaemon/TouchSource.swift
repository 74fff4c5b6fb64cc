package import GestureCore

/// What the sources saw, in order: the one currency between the sources
/// (libinput, a replayed trace) and the loop. A source appends to it in its
/// `read`; it calls nobody back and knows nothing of the recognizer or the
/// clients. Frames are kept apart from the list, which names them by index,
/// so that no frame is copied on its way to the recognizer.
package struct TouchSourceEvents {
    package enum Event {
        /// A touchscreen appeared: `devices[index]`, with its size in screen orientation.
        case added(index: Int)
        case removed(DeviceID)
        /// All of one device's touch changes at one instant: `frames[index]`.
        case frame(index: Int)
    }

    /// The list holds only indexes and ids (plain values), so emptying it
    /// each turn destroys nothing element by element.
    package private(set) var events: [Event] = []
    package private(set) var frames: [TouchFrame] = []
    package private(set) var devices: [(info: DeviceInfo, geometry: PanelGeometry)] = []

    package init() {}

    package mutating func added(_ info: DeviceInfo, _ geometry: PanelGeometry) {
        devices.append((info, geometry))
        events.append(.added(index: devices.count - 1))
    }

    package mutating func removed(_ id: DeviceID) { events.append(.removed(id)) }

    package mutating func frame(_ frame: TouchFrame) {
        frames.append(frame)
        events.append(.frame(index: frames.count - 1))
    }

    /// Empties the list for the next turn, keeping its storage.
    package mutating func removeAll() {
        if !events.isEmpty { events.removeAll(keepingCapacity: true) }
        if !frames.isEmpty { frames.removeAll(keepingCapacity: true) }
        if !devices.isEmpty { devices.removeAll(keepingCapacity: true) }
    }
}
