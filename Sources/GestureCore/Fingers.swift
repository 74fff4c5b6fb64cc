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
    /// fingers move, it is a hand gripping the device (`TouchGroup.dropGrips`).
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
    /// grip's place (`TouchGroup.dropGrips`).
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
    var count: Int { bits.nonzeroBitCount }

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

/// The fingers of one device: each slot's `FingerTrack` and recent path
/// (`SampleRing`), which slots are down, and which took part in the touch
/// group under way. `DeviceRecognizer` keeps them and routes each contact
/// to them; the arbiter (`TouchGroup`) measures them.
///
/// A value: a copy that is written to first takes storage of its own
/// (`makeUnique`, at the start of every call into the recognizer).
struct Fingers: Sendable {
    private var storage = FingerStorage()
    /// The slots with a finger down, now and at the end of the previous frame.
    private(set) var down = SlotSet()
    private(set) var wasDown = SlotSet()
    /// The slots whose finger took part in the group under way: landed as
    /// one of its members since its first touch, down or lifted since.
    private(set) var inGroup = SlotSet()

    var downCount: Int { down.count }
    /// Members of the group down now.
    var memberDown: Int { (inGroup & down).count }

    /// A slot's finger, read and written in place.
    subscript(slot: Int) -> FingerTrack {
        unsafeAddress { UnsafePointer(storage.tracks + slot) }
        unsafeMutableAddress { storage.tracks + slot }
    }

    /// A slot's recent positions.
    subscript(path slot: Int) -> SampleRing {
        unsafeAddress { UnsafePointer(storage.paths + slot) }
        unsafeMutableAddress { storage.paths + slot }
    }

    /// Storage of its own, before this value is written to.
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    // MARK: - Changes

    /// A finger lands in a free slot, as a member of the group or not.
    mutating func land(_ slot: Int, x: Double, y: Double, member: Bool, now: Timestamp) {
        self[slot].land(at: now, x: x, y: y, member: member)
        self[path: slot].removeAll()
        self[path: slot].add(time: now, x: x, y: y)
        down.insert(slot)
        if member { inGroup.insert(slot) } else { inGroup.remove(slot) }
    }

    mutating func move(_ slot: Int, x: Double, y: Double, now: Timestamp) {
        self[slot].x = x
        self[slot].y = y
        self[path: slot].add(time: now, x: x, y: y)
    }

    /// A finger lifts (or its touch is cancelled); a member stays in the group, lifted.
    mutating func release(_ slot: Int, now: Timestamp) {
        self[slot].isDown = false
        self[slot].liftedAt = now
        down.remove(slot)
    }

    /// A finger that bounced (`TouchGroup.bouncedFinger`) landed again in
    /// `slot`: it goes on as `old`, the one that lifted from `oldSlot`
    /// (which may be `slot` itself).
    mutating func takeOver(_ slot: Int, from oldSlot: Int, _ old: FingerTrack) {
        self[slot].continueTouch(of: old)
        inGroup.remove(oldSlot)
        inGroup.insert(slot)
    }

    /// A member down stops being one.
    mutating func leaveGroup(_ slot: Int) {
        self[slot].isMember = false
        inGroup.remove(slot)
    }

    /// A new group begins: no finger has taken part in it yet.
    mutating func newGroup() { inGroup = SlotSet() }

    /// Members down now measure their motion from where they are.
    mutating func rebaseMembers() {
        for s in inGroup & down { self[s].rebase() }
    }

    /// The frame is over: where the fingers are is where the next one's motion starts.
    mutating func endFrame() {
        for s in down {
            self[s].prevX = self[s].x
            self[s].prevY = self[s].y
        }
        wasDown = down
    }

    // MARK: - Measures

    /// The mean of `value` over the slots in `slots`; nil when there are
    /// none. Every centroid of the recognizer is one.
    func mean(_ slots: SlotSet, _ value: (Int) -> (Double, Double)) -> (Double, Double)? {
        var n = 0.0
        var sx = 0.0
        var sy = 0.0
        for s in slots {
            let v = value(s)
            sx += v.0
            sy += v.1
            n += 1
        }
        return n == 0 ? nil : (sx / n, sy / n)
    }

    /// The centroid of the fingers in `slots`, at their references or
    /// where they are; nil when there are none.
    func centroid(of slots: SlotSet, atReferences: Bool) -> (Double, Double)? {
        atReferences ? mean(slots) { (self[$0].refX, self[$0].refY) } : mean(slots) { (self[$0].x, self[$0].y) }
    }

    /// The fingers taking part in a decision taken now: the members down, and
    /// those lifting in this very frame.
    func takingPart(at now: Timestamp) -> SlotSet {
        var slots = inGroup & down
        for s in inGroup where self[s].liftedAt == now { slots.insert(s) }
        return slots
    }

    /// The motion of the fingers taking part now, from their references.
    /// With `below`, measured only as far as comparisons with distances of
    /// at least that need (`GroupMotion.init(_:_:below:)`).
    func motion(now: Timestamp, below limit: Double = 0) -> GroupMotion {
        GroupMotion(self, takingPart(at: now), below: limit)
    }

    /// The motion of every finger that took part, each where it is or where it
    /// lifted: how far a lifting group got from where it landed.
    func groupMotion() -> GroupMotion { GroupMotion(self, inGroup) }

    /// This frame's motion of the members down in both frames: the centroid's
    /// step, and with `turns`, for two fingers or more, the ratio of their
    /// spans and their mean turn about the centroid. Nil when no member was
    /// down in both. Two fingers lie opposite each other about their
    /// centroid, with the same span and the same turn: the first stands for
    /// both.
    func step(turns: Bool) -> (dx: Double, dy: Double, transform: (scale: Double, turn: Double)?)? {
        let moving = inGroup & down & wasDown
        guard let (px, py) = mean(moving, { (self[$0].prevX, self[$0].prevY) }) else { return nil }
        let (cx, cy) = mean(moving) { (self[$0].x, self[$0].y) } ?? (px, py)
        guard turns, moving.count >= 2 else { return (cx - px, cy - py, nil) }
        var prevSpan = 0.0
        var curSpan = 0.0
        var turn = 0.0
        var measured = 0.0
        for s in moving {
            let f = self[s]
            prevSpan += Trig.hypot(f.prevX - px, f.prevY - py)
            curSpan += Trig.hypot(f.x - cx, f.y - cy)
            turn += GroupMotion.turn(from: f.prevX - px, f.prevY - py, to: f.x - cx, f.y - cy)
            measured += 1
            if moving.count == 2 { break }
        }
        return (cx - px, cy - py, (prevSpan > 1e-6 ? curSpan / prevSpan : 1, turn / measured))
    }

    /// The root-mean-square distance of the fingers in `slots` from their
    /// centroid, at their references or where they are: for two fingers
    /// their span (half their distance), for more a spread close to it, in
    /// one square root where the span takes one per finger.
    func spread(_ slots: SlotSet, atReferences: Bool) -> Double {
        func at(_ s: Int) -> (Double, Double) { atReferences ? (self[s].refX, self[s].refY) : (self[s].x, self[s].y) }
        guard let (cx, cy) = mean(slots, at) else { return 0 }
        let (squares, _) =
            mean(slots) {
                let (x, y) = at($0)
                return (x * x + y * y, 0)
            } ?? (0, 0)
        return (max(0, squares - cx * cx - cy * cy)).squareRoot()
    }

    /// Centroid of the fingers taking part now.
    func centroid(now: Timestamp) -> (x: Double, y: Double) {
        mean(takingPart(at: now)) { (self[$0].x, self[$0].y) } ?? groupCentroid()
    }

    /// Centroid of every finger that took part in the group, each where it is or where it lifted.
    func groupCentroid() -> (x: Double, y: Double) {
        mean(inGroup) { (self[$0].x, self[$0].y) } ?? (0, 0)
    }

    /// The release velocity: each member's own estimate at its lift, averaged.
    func releaseVelocity() -> (vx: Double, vy: Double) {
        mean(inGroup.subtracting(down)) { (self[$0].releaseVX, self[$0].releaseVY) } ?? (0, 0)
    }

    /// The current velocity of the members down, averaged.
    func currentVelocity(now: Timestamp, window: Duration) -> (vx: Double, vy: Double) {
        mean(inGroup & down) { self[path: $0].velocity(at: now, window: window) } ?? (0, 0)
    }

    /// Whether some member down moves steadily: its trend over `window`
    /// (`SampleRing.trend`) carries it at least `distance` over that window.
    func isCreeping(now: Timestamp, window: Duration, distance: Double) -> Bool {
        let limit = distance / window.seconds
        for s in inGroup & down {
            let v = self[path: s].trend(at: now, window: window)
            if Trig.hypot(v.vx, v.vy) >= limit { return true }
        }
        return false
    }

    /// Whether every member down landed at the bezel and rests there
    /// (within `slop` of its landing).
    /// Whether every member down is within `within` mm of where it landed
    /// (a still hold's test, as the Claimer makes it).
    func membersNearLanding(within distance: Double) -> Bool {
        for s in inGroup & down where Trig.hypot(self[s].x - self[s].startX, self[s].y - self[s].startY) > distance {
            return false
        }
        return true
    }

    /// The latest landing of the members down.
    var lastMemberLanding: Timestamp {
        var latest = Timestamp.zero
        for s in inGroup & down where self[s].downTime > latest { latest = self[s].downTime }
        return latest
    }

    func onlyRestingAtBezel(slop: Double) -> Bool {
        guard memberDown > 0 else { return false }
        for s in inGroup & down where !self[s].restsAtBezel(slop: slop) { return false }
        return true
    }
}

/// Where `Fingers` keeps its slots' tracks and paths (about 26 KB),
/// allocated once when the device is added: on the heap rather than inline,
/// because Swift copies a large struct whole more often than it looks (a
/// non-mutating method reading one `InlineArray` element, or a mutating call
/// inside the arguments of a non-mutating one, copies all of it). Only
/// `Fingers` reaches it, through its subscripts.
///
/// Pointers rather than arrays: `Pipeline.fingers-5` and `-10` (`make
/// bench`) run a third slower and more with arrays of tracks and rings.
private final class FingerStorage: @unchecked Sendable {
    // @unchecked: the buffers are written only by the one `Fingers` value
    // that holds the only reference (copy on write), like an Array's buffer.
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
