package import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Why the daemon (or one of its parts, or the recorder) cannot start or
/// go on: one sentence naming what was wrong and what to do.
package struct SetupError: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) { self.description = description }

    /// "`what`: the system's reason".
    package init(_ what: String, _ errno: Errno) { description = "\(what): \(errno)" }
}
