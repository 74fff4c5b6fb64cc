/// What the clients at the screen claim on a claimed touchscreen
/// (docs/claiming.md): touch sequences of these finger counts, one-finger
/// touches that start at these edges of the picture, and still holds
/// (`holds`: a count of fingers kept within `slop` of where they landed
/// for so many ms); of the finger counts, those whose claimed sequences
/// are also written to the virtual touchpad (`touchpad`, always within
/// `fingers`). A count only a touchpad entry claims (`padOnly`) is not
/// claimed while the daemon has no touchpad to write it to
/// (`withoutTouchpad`): the sequence goes to the apps whole.
/// `cancelDropped` says how the claimer may take touches: the compositor
/// that reads the clone drops libinput's touch cancel, so touches are held
/// back until no claim can take them, and lifted where they would be
/// cancelled (a claimant that knows the compositor says so; one who says
/// so for a touchscreen says so for all of its claims there).
public struct ClaimSet: Equatable, Sendable {
    public var fingers: Set<Int> = [] {
        didSet { fingerBits = Self.bits(fingers) }
    }
    public var edges: Set<PanelEdge> = []
    /// The finger counts the virtual touchpad (`TouchpadFingers`) follows.
    public private(set) var touchpad: Set<Int> = []
    /// The counts of `touchpad` that no entry claims for its own sake.
    public private(set) var padOnly: Set<Int> = []
    /// Still holds: finger count → ms from the last landing (the shortest
    /// when several ask for one count). A count here is not claimed at its
    /// landing, only when held that long.
    public var holds: [Int: Int] = [:]
    /// The compositor reading the clone drops touch cancels.
    public var cancelDropped = false
    /// `fingers` as one bit per count (bit N: N fingers), for the claimer's
    /// test on every landing.
    private var fingerBits: UInt64 = 0

    /// `fingers` are the counts claimed for their own sake; `touchpad`'s
    /// are claimed too, to go on to the virtual touchpad.
    public init(
        fingers: Set<Int> = [], edges: Set<PanelEdge> = [], touchpad: Set<Int> = [], holds: [Int: Int] = [:],
        cancelDropped: Bool = false
    ) {
        self.fingers = fingers.union(touchpad)
        self.edges = edges
        self.touchpad = touchpad
        self.padOnly = touchpad.subtracting(fingers)
        self.holds = holds
        self.cancelDropped = cancelDropped
        fingerBits = Self.bits(self.fingers)
    }

    /// What is claimed while the daemon has no touchpad: the counts only
    /// touchpad entries claim are left to the apps, and no count goes to a pad.
    public var withoutTouchpad: ClaimSet {
        ClaimSet(fingers: fingers.subtracting(padOnly), edges: edges, holds: holds, cancelDropped: cancelDropped)
    }

    private static func bits(_ fingers: Set<Int>) -> UInt64 {
        fingers.reduce(0) { (0..<64).contains($1) ? $0 | 1 << UInt64($1) : $0 }
    }

    public static func == (a: ClaimSet, b: ClaimSet) -> Bool {
        a.fingers == b.fingers && a.edges == b.edges && a.touchpad == b.touchpad && a.padOnly == b.padOnly
            && a.holds == b.holds && a.cancelDropped == b.cancelDropped
    }

    public var isEmpty: Bool { fingers.isEmpty && edges.isEmpty && holds.isEmpty }

    /// Whether a touch sequence with `count` fingers down is claimed.
    public func claims(fingers count: Int) -> Bool { count >= 0 && count < 64 && fingerBits & (1 << UInt64(count)) != 0 }

    /// Whether a count above `count` is claimed: more fingers landing may
    /// still make the sequence a claimed one.
    public func claims(moreThan count: Int) -> Bool { count >= 0 && count < 63 && fingerBits >> UInt64(count + 1) != 0 }

    /// Whether a claimed sequence of `count` fingers goes to the virtual touchpad.
    public func toTouchpad(fingers count: Int) -> Bool { touchpad.contains(count) }

    /// "3 fingers, left edge, 1-finger hold of 800 ms", for people.
    public var summary: String {
        (fingers.sorted().map { "\($0) fingers" + (touchpad.contains($0) ? " (to the touchpad)" : "") }
            + PanelEdge.allCases.filter(edges.contains).map { "\($0.rawValue) edge" }
            + holds.sorted { $0.key < $1.key }.map { "\($0.key)-finger hold of \($0.value) ms" })
            .joined(separator: ", ")
    }

    /// What both claim: the counts and edges both name, the holds both ask
    /// for (at the later of their times).
    public func intersection(_ other: ClaimSet) -> ClaimSet {
        var holds: [Int: Int] = [:]
        for (count, ms) in self.holds { if let theirs = other.holds[count] { holds[count] = max(ms, theirs) } }
        let touchpad = self.touchpad.intersection(other.touchpad)
        // A count one of them claims only for the pad is, in both, only for the pad.
        let padOnly = touchpad.intersection(self.padOnly.union(other.padOnly))
        // The compositor is the same one whoever said how it handles a cancel.
        return ClaimSet(
            fingers: fingers.intersection(other.fingers).subtracting(padOnly), edges: edges.intersection(other.edges),
            touchpad: touchpad, holds: holds, cancelDropped: cancelDropped || other.cancelDropped)
    }

    public mutating func formUnion(_ other: ClaimSet) {
        let ownSake = fingers.subtracting(padOnly).union(other.fingers.subtracting(other.padOnly))
        fingers.formUnion(other.fingers)
        edges.formUnion(other.edges)
        touchpad.formUnion(other.touchpad)
        padOnly = padOnly.union(other.padOnly).subtracting(ownSake)
        holds.merge(other.holds, uniquingKeysWith: min)
        cancelDropped = cancelDropped || other.cancelDropped
    }
}
