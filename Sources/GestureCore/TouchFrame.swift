/// What happened to one contact in a frame.
public enum ContactPhase: UInt8, Sendable, Hashable {
    /// The finger landed; the position is its first.
    case down
    /// The finger moved; the position is its new one.
    case move
    /// The finger lifted; the position is its last known one (a lift carries none of its own).
    case up
    /// The contact was cancelled (a palm, a device gone): no discrete gesture may come of it.
    case cancel

    /// The phase as one bit, to note which phases a frame has.
    var bit: UInt8 { 1 << rawValue }
}

/// One contact's change within a frame, in millimetres on the panel after calibration.
public struct Contact: Sendable, Hashable {
    /// The contact's slot, 0 ..< `TouchFrame.capacity`, stable from `down` to `up`.
    public var slot: Int {
        get { Int(slotNumber) }
        set { slotNumber = Int32(clamping: newValue) }
    }
    /// The slot, kept in 32 bits (evdev's own width), beside the phase: a
    /// contact is 24 bytes, a frame 408 (a replayed trace's frames are
    /// copied whole on their way to the recognizer). A slot beyond
    /// 32 bits is clamped to it (and ignored, as any slot beyond the
    /// capacity is).
    private var slotNumber: Int32
    public var phase: ContactPhase
    /// The contact's size in tenths of a millimetre, 0 when the panel
    /// reports none; kept in the slot's padding, so a contact stays 24 bytes.
    private var sizeTenths: UInt16 = 0
    /// Position in mm from the panel's top-left corner, screen orientation.
    public var x: Double
    public var y: Double

    /// The length of the contact's major axis (`ABS_MT_TOUCH_MAJOR`), mm;
    /// 0 when the panel reports none. Kept to a tenth of a millimetre, up to 6.5 m.
    public var size: Double {
        get { Double(sizeTenths) / 10 }
        set { sizeTenths = newValue.isFinite ? UInt16(clamping: Int((max(newValue, 0) * 10).rounded())) : 0 }
    }

    public init(slot: Int, phase: ContactPhase, x: Double, y: Double, size: Double = 0) {
        self.slotNumber = Int32(clamping: slot)
        self.phase = phase
        self.x = x
        self.y = y
        self.size = size
    }
}

/// All contact changes of one device at one instant (one evdev `SYN_REPORT`, one
/// libinput `TOUCH_FRAME`). Fixed-size storage: building a frame never allocates.
public struct TouchFrame: Sendable {
    /// The most contacts a device may have down at once.
    public static let capacity = 16

    public var device: DeviceID
    public var time: Timestamp
    public private(set) var count: Int = 0
    /// The contacts; read many through `storage.span`, taken once (each
    /// subscript read of a frame passed as an argument copies all 16 contacts).
    private(set) var storage: InlineArray<16, Contact> = .init(repeating: Contact(slot: 0, phase: .up, x: 0, y: 0))

    public init(device: DeviceID, time: Timestamp) {
        self.device = device
        self.time = time
    }

    public init(device: DeviceID, time: Timestamp, contacts: [Contact]) {
        self.init(device: device, time: time)
        for c in contacts { append(c) }
    }

    /// Adds a change; returns false (and drops it) when the frame is full.
    @discardableResult
    public mutating func append(_ contact: Contact) -> Bool {
        guard count < Self.capacity else { return false }
        storage[count] = contact
        count += 1
        return true
    }

    public mutating func removeAll() { count = 0 }

    /// Takes what `source` holds (its device, its time and the contacts it
    /// has, not the whole storage: a frame holds one or two contacts, its
    /// storage sixteen) and leaves it empty, for the next frame of its
    /// device. `inout`, so that the contacts are read where they lie.
    public mutating func take(from source: inout TouchFrame) {
        device = source.device
        time = source.time
        count = source.count
        for i in 0..<count { storage[i] = source.storage[i] }
        source.count = 0
    }

    public subscript(i: Int) -> Contact {
        get { storage[i] }
        set { storage[i] = newValue }
    }

    public var isEmpty: Bool { count == 0 }

    /// The changes as an array (tests and tools; allocates).
    public var contacts: [Contact] { (0..<count).map { storage[$0] } }
}

/// Identifies a device within one pipeline.
public struct DeviceID: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int
    @inlinable public init(_ rawValue: Int) { self.rawValue = rawValue }
    @inlinable public static func == (a: DeviceID, b: DeviceID) -> Bool { a.rawValue == b.rawValue }
    public var description: String { "device#\(rawValue)" }
}
