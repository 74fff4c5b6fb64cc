/// What the recognizer knows about one slot's finger.
struct FingerTrack: Sendable {
    var isDown = false
    /// Part of the current touch group (false: landed after its gesture was
    /// decided as a drag, or after it ended).
    var isMember = false
    /// When it lifted; equal to the frame's time while that frame is processed,
    /// so decisions taken at a lift still count it.
    var liftedAt: Timestamp = .never
    var downTime: Timestamp = .zero
    /// Where the finger landed (a tap's point).
    var startX = 0.0, startY = 0.0
    /// Where its motion is measured from: the landing point, moved to where
    /// the finger is when the settle window closes on a group that has not
    /// moved (a pressing finger flattens and its point drifts in its first
    /// ~100 ms), and when a hold begins or a finger joins it.
    var refX = 0.0, refY = 0.0
    var x = 0.0, y = 0.0
    /// Position at the end of the previous frame (per-frame translation).
    var prevX = 0.0, prevY = 0.0
    /// Release velocity (mm/s), set at the lift.
    var releaseVX = 0.0, releaseVY = 0.0
    /// Landed within `grip.band` of an edge: if it rests there while other
    /// fingers move, it is a hand gripping the device (`DeviceRecognizer.dropGrips`).
    var atBezel = false

    mutating func land(at time: Timestamp, x px: Double, y py: Double, member: Bool) {
        self = FingerTrack()
        isDown = true
        isMember = member
        downTime = time
        (startX, startY) = (px, py)
        (refX, refY) = (px, py)
        (x, y) = (px, py)
        (prevX, prevY) = (px, py)
    }

    /// Distance from the reference point, mm.
    var displacement: Double { Trig.hypot(x - refX, y - refY) }

    /// Down where it landed at the bezel, within `slop` of its landing: a
    /// grip's place (`DeviceRecognizer.dropGrips`).
    func restsAtBezel(slop: Double) -> Bool {
        atBezel && isDown && Trig.hypot(x - startX, y - startY) <= slop
    }

    /// Takes over the touch of a finger that lifted and landed again here (a
    /// bounce): its landing time, and its landing and reference points
    /// moved by the jump, so that the jump itself is no motion.
    mutating func continueTouch(of old: FingerTrack) {
        let (jx, jy) = (x - old.x, y - old.y)
        downTime = old.downTime
        (startX, startY) = (old.startX + jx, old.startY + jy)
        (refX, refY) = (old.refX + jx, old.refY + jy)
        atBezel = old.atBezel
    }

    mutating func rebase() {
        (refX, refY) = (x, y)
    }
}

/// Slots as bits (0 ..< `TouchFrame.capacity`): which fingers a loop
/// visits, in slot order, so that a frame's work is for the fingers in use
/// rather than for every slot.
struct SlotSet: Sequence, Sendable, Equatable {
    var bits: UInt16 = 0

    init() {}
    init(bits: UInt16) { self.bits = bits }

    func contains(_ slot: Int) -> Bool { bits & (1 << UInt16(slot)) != 0 }
    mutating func insert(_ slot: Int) { bits |= 1 << UInt16(slot) }
    mutating func remove(_ slot: Int) { bits &= ~(1 << UInt16(slot)) }

    var isEmpty: Bool { bits == 0 }

    static func & (a: SlotSet, b: SlotSet) -> SlotSet { SlotSet(bits: a.bits & b.bits) }
    /// The slots of this set that are not in `other`.
    func subtracting(_ other: SlotSet) -> SlotSet { SlotSet(bits: bits & ~other.bits) }

    struct Iterator: IteratorProtocol {
        var bits: UInt16
        mutating func next() -> Int? {
            guard bits != 0 else { return nil }
            let slot = bits.trailingZeroBitCount
            bits &= bits &- 1
            return slot
        }
    }

    func makeIterator() -> Iterator { Iterator(bits: bits) }
}

/// The fingers of one device: a `FingerTrack` and a `SampleRing` per slot,
/// and the rings' samples (about 26 KB), allocated once when the device is
/// added.
///
/// They live on the heap rather than inline in `DeviceRecognizer` because
/// Swift copies a large struct whole more often than it looks: a non-mutating
/// method reading one `InlineArray` element, or a mutating call inside the
/// arguments of a non-mutating one, copies all of it. Elements are reached
/// through pointers, in place. `DeviceRecognizer` keeps value semantics by copying the storage
/// before it writes to storage it shares (`begin`).
final class FingerStorage: @unchecked Sendable {
    // @unchecked: the buffers are written only by the one recognizer that
    // holds the only reference (copy on write), like an Array's buffer.
    let tracks: UnsafeMutablePointer<FingerTrack>
    let paths: UnsafeMutablePointer<SampleRing>
    private let samples: UnsafeMutablePointer<SampleRing.Sample>

    init() {
        let slots = TouchFrame.capacity
        tracks = .allocate(capacity: slots)
        tracks.initialize(repeating: FingerTrack(), count: slots)
        samples = .allocate(capacity: slots * SampleRing.capacity)
        samples.initialize(repeating: SampleRing.Sample(t: 0, x: 0, y: 0), count: slots * SampleRing.capacity)
        paths = .allocate(capacity: slots)
        for s in 0..<slots { (paths + s).initialize(to: SampleRing(samples + s * SampleRing.capacity)) }
    }

    deinit {
        tracks.deinitialize(count: TouchFrame.capacity)
        tracks.deallocate()
        paths.deinitialize(count: TouchFrame.capacity)
        paths.deallocate()
        samples.deinitialize(count: TouchFrame.capacity * SampleRing.capacity)
        samples.deallocate()
    }

    /// A new storage with the same contents.
    func copy() -> FingerStorage {
        let c = FingerStorage()
        c.tracks.update(from: tracks, count: TouchFrame.capacity)
        c.samples.update(from: samples, count: TouchFrame.capacity * SampleRing.capacity)
        for s in 0..<TouchFrame.capacity { c.paths[s] = SampleRing(c.samples + s * SampleRing.capacity, as: paths[s]) }
        return c
    }
}
