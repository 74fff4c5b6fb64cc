package import GestureCore

/// What the sources saw, in order: the one currency between the sources
/// (libinput, a replayed trace) and the loop. A source appends to it in its
/// `read`; it calls nobody back and knows nothing of the recognizer or the
/// clients. Frames are kept apart from the list, which names them by index,
/// so that no frame is copied on its way to the recognizer.
package struct TouchSourceEvents {
    package enum Event {
        /// A touchscreen appeared; `geometry` gives its size in screen orientation.
        case added(DeviceInfo, PanelGeometry)
        case removed(DeviceID)
        /// All of one device's touch changes at one instant: `frames[index]`.
        case frame(index: Int)
    }

    package private(set) var events: [Event] = []
    package private(set) var frames: [TouchFrame] = []

    package init() {}

    package mutating func added(_ info: DeviceInfo, _ geometry: PanelGeometry) { events.append(.added(info, geometry)) }
    package mutating func removed(_ id: DeviceID) { events.append(.removed(id)) }

    package mutating func frame(_ frame: TouchFrame) {
        frames.append(frame)
        events.append(.frame(index: frames.count - 1))
    }

    /// Empties the list for the next turn, keeping its storage.
    package mutating func removeAll() {
        events.removeAll(keepingCapacity: true)
        frames.removeAll(keepingCapacity: true)
    }
}
