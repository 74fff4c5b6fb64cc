/// The per-slot state of one device's recognizer: 16 fingers and their
/// velocity histories, about 26 KB, allocated once when the device is added.
///
/// It lives on the heap rather than inline in `DeviceRecognizer` because Swift
/// copies a large struct whole more often than it looks: a non-mutating method
/// reading one `InlineArray` element, or a mutating call inside the arguments
/// of a non-mutating one, copied all 26 KB, several times per frame (profiled
/// in docs/performance.md). Elements are reached through pointers, in place.
/// `DeviceRecognizer` keeps value semantics by copying the storage before it
/// writes to storage it shares (`ensureUniqueSlots`).
final class SlotStorage: @unchecked Sendable {
    // @unchecked: the buffers are written only by the one recognizer that
    // holds the only reference (copy on write), like an Array's buffer.
    let fingers: UnsafeMutablePointer<FingerTrack>
    let histories: UnsafeMutablePointer<VelocityHistory>

    init() {
        fingers = .allocate(capacity: TouchFrame.capacity)
        fingers.initialize(repeating: FingerTrack(), count: TouchFrame.capacity)
        histories = .allocate(capacity: TouchFrame.capacity)
        histories.initialize(repeating: VelocityHistory(), count: TouchFrame.capacity)
    }

    deinit {
        fingers.deinitialize(count: TouchFrame.capacity)
        fingers.deallocate()
        histories.deinitialize(count: TouchFrame.capacity)
        histories.deallocate()
    }

    /// A new storage with the same contents.
    func copy() -> SlotStorage {
        let c = SlotStorage()
        c.fingers.update(from: fingers, count: TouchFrame.capacity)
        c.histories.update(from: histories, count: TouchFrame.capacity)
        return c
    }
}
