import Foundation
public import Testing

/// Bounds on a process's resident memory, in KiB. They hold in a normal
/// build only: under `make sanitize` AddressSanitizer keeps freed memory in
/// quarantine and maps shadow memory beside the heap, so resident memory
/// then measures the sanitizer rather than the program, and the bound is
/// printed as not checked. The sanitized run is there for memory errors;
/// the normal run (`make test`'s first) checks the bounds.
public enum ResidentMemory {
    public static let measurable = ProcessInfo.processInfo.environment["GESTURED_SANITIZER"] == nil

    /// Expects `kib` below `limit` KiB where resident memory is measurable.
    public static func expect(
        _ kib: Int, below limit: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard measurable else {
            print("\(what): \(kib) KiB resident; the \(limit) KiB bound is not checked under a sanitizer")
            return
        }
        #expect(kib < limit, "\(what): \(kib) KiB resident, bound \(limit) KiB", sourceLocation: sourceLocation)
    }
}
