/// A list emptied and filled again on every turn or frame (a frame's
/// events, a turn's source events): its storage is kept and overwritten in
/// place, where `Array.removeAll(keepingCapacity:)` goes through the general
/// `replaceSubrange` each time. For plain values: an element removed stays in
/// the storage until it is overwritten.
///
/// Inlinable, so that the daemon's module specializes it for its own
/// elements (unspecialized, each call looked its type's metadata up).
@frozen
public struct ReusedList<Element>: Sendable where Element: Sendable {
    @usableFromInline var storage: [Element] = []
    @usableFromInline var used = 0

    @inlinable public init() {}

    @inlinable public var count: Int { used }
    @inlinable public var isEmpty: Bool { used == 0 }
    @inlinable public var indices: Range<Int> { 0..<used }

    @inlinable public mutating func append(_ element: borrowing Element) {
        if used < storage.count {
            storage[used] = copy element
        } else {
            storage.append(copy element)
        }
        used += 1
    }

    /// The element at `i`, lent or changed in place (a read does not copy it out).
    @inlinable public subscript(i: Int) -> Element {
        _read {
            precondition(i < used, "index beyond the list")
            yield storage[i]
        }
        _modify {
            precondition(i < used, "index beyond the list")
            yield &storage[i]
        }
    }

    /// Empties the list; the storage stays for the next fill.
    @inlinable public mutating func removeAll() { used = 0 }
}
