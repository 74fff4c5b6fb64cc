package import GestureCore

/// What the sources saw in one turn, in order: the one currency between the
/// sources (libinput, a replayed trace) and the loop. A source appends to it
/// in its `read`; it calls nobody back and knows nothing of the recognizer
/// or the clients.
///
/// One per loop, emptied at the start of each turn and filled again in
/// place: the list holds indexes and ids only, and the frames are kept
/// beside it in storage that is reused, never destroyed one by one. A
/// source hands a finished frame over once, copying the contacts it has
/// (`frame(taking:)`); the loop lends it to the recognizer where it lies
/// (`withFrame(at:)`). A class, so that the sources and
/// the loop change the one buffer; only the loop's thread touches it.
package final class TouchSourceEvents {
    package enum Event {
        /// A touchscreen appeared: `devices[index]`, with its size in screen orientation.
        case added(index: Int)
        case removed(DeviceID)
        /// All of one device's touch changes at one instant: `withFrame(at: index)`.
        case frame(index: Int)
    }

    // Without run-time exclusivity checks: only the loop's thread touches
    // these, and no method calls out while it holds one. Kept for the
    // per-frame instruction budget (`daemon-cost.sh --callgrind`).
    /// How many events this turn has: `event(at:)` 0 ..< `count`.
    @exclusivity(unchecked) package private(set) var count = 0
    @exclusivity(unchecked) package private(set) var devices: [(info: DeviceInfo, geometry: PanelGeometry)] = []
    /// The turn's events and frames: the first `count` and `frameCount`
    /// are this turn's; the rest are kept to be written over.
    @exclusivity(unchecked) private var events = PointerList<Event>()
    @exclusivity(unchecked) private var frames = PointerList<TouchFrame>()
    @exclusivity(unchecked) private var frameCount = 0

    package init() {}

    package func added(_ info: DeviceInfo, _ geometry: PanelGeometry) {
        devices.append((info, geometry))
        append(.added(index: devices.count - 1))
    }

    package func removed(_ id: DeviceID) { append(.removed(id)) }

    /// A finished frame (it happened now, in order), taken from where its
    /// source built it, which is left empty for the source's next frame.
    package func frame(taking frame: inout TouchFrame) {
        nextFrame().pointee.take(from: &frame)
        append(.frame(index: frameCount - 1))
    }

    /// A finished frame, copied.
    package func frame(_ frame: TouchFrame) {
        nextFrame().pointee = frame
        append(.frame(index: frameCount - 1))
    }

    /// The turn's `i`th event.
    package func event(at i: Int) -> Event {
        precondition(i < count, "no such event this turn")
        return events.pointer(to: i).pointee
    }

    private func append(_ event: Event) {
        events.reused(at: count, orMaking: { event }).pointee = event
        count += 1
    }

    /// Lends `body` the frame an event names, where it lies.
    package func withFrame<R>(at index: Int, _ body: (inout TouchFrame) -> R) -> R {
        precondition(index < frameCount, "no such frame this turn")
        return body(&frames.pointer(to: index).pointee)
    }

    /// The place of one more frame this turn (the frame there is written over).
    private func nextFrame() -> UnsafeMutablePointer<TouchFrame> {
        frameCount += 1
        return frames.reused(at: frameCount - 1, orMaking: { TouchFrame(device: DeviceID(0), time: .zero) })
    }

    /// Empties the list for the next turn, keeping its storage.
    package func removeAll() {
        count = 0
        frameCount = 0
        if !devices.isEmpty { devices.removeAll() }
    }
}
