/// A list owned by one holder whose elements are reached by pointer: reading
/// or changing one costs an index check, where an array in a class also
/// checks, at each change, that its storage is not shared (it never is).
/// Not copyable, so that it has one owner, which frees the memory. For the
/// loop's per-frame state: the libinput source's devices, the turn's events
/// and frames, within the per-frame instruction budget
/// (`Performance/scripts/daemon-cost.sh --callgrind`).
///
/// A pointer from `pointer(to:)` is good until the next `append` or
/// `removeAll`, which may move or end the elements: take it, use it, drop it.
struct PointerList<Element>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>?
    private(set) var count = 0
    private var capacity = 0

    init() {}

    deinit {
        if let base {
            base.deinitialize(count: count)
            base.deallocate()
        }
    }

    mutating func append(_ element: consuming Element) {
        if count == capacity {
            let grown = max(4, capacity * 2)
            let new = UnsafeMutablePointer<Element>.allocate(capacity: grown)
            if let base {
                new.moveInitialize(from: base, count: count)
                base.deallocate()
            }
            base = new
            capacity = grown
        }
        (base! + count).initialize(to: element)
        count += 1
    }

    /// The element at `i` (at most `count`) to be written over, for a
    /// holder that keeps its elements to reuse them: the one there, or,
    /// where the list ends, a new one `make` builds.
    mutating func reused(at i: Int, orMaking make: () -> Element) -> UnsafeMutablePointer<Element> {
        if i == count { append(make()) }
        return pointer(to: i)
    }

    /// The element at `i`, which must be below `count`.
    func pointer(to i: Int) -> UnsafeMutablePointer<Element> {
        precondition(i >= 0 && i < count, "index beyond the list")
        return base.unsafelyUnwrapped + i
    }

    mutating func removeAll() {
        base?.deinitialize(count: count)
        count = 0
    }
}
