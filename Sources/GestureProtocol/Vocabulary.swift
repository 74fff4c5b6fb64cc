import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

/// The protocol's words that the daemon and its clients share: where a
/// client finds the daemon, what it claims, the names of gestures, phases,
/// directions and edges, and JSON strings. The messages themselves are the daemon's
/// (`GestureDaemon/WireProtocol.swift`); docs/protocol.md describes them.

/// A name the protocol does not know, and the names it knows.
package struct UnknownName: Error, Sendable {
    package var message: String
}

/// Names of a kind (`what`: gesture, phase, direction, edge) read as the
/// daemon reads them in a request; one it does not know is refused with
/// the names it knows.
package func named<T: RawRepresentable & CaseIterable & Hashable>(
    _ names: [String], _ what: String
) throws(UnknownName) -> Set<T> where T.RawValue == String {
    var set = Set<T>()
    for name in names {
        guard let value = T(rawValue: name) else {
            let known = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw UnknownName(message: "unknown \(what) '\(name.prefix(40))'; known: \(known)")
        }
        set.insert(value)
    }
    return set
}

/// A JSON string literal.
package func jsonString(_ s: String) -> String {
    var out = ""
    GestureEvent.appendJSONString(s, to: &out)
    return out
}

/// Where a client looks for the daemon: `$GESTURED_SOCKET`, then
/// `$XDG_RUNTIME_DIR/gestured.sock` if it exists (a user instance), then
/// the system socket.
package func clientSocketPath() -> String {
    if let s = getenv("GESTURED_SOCKET").map({ String(cString: $0) }), !s.isEmpty { return s }
    if let dir = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !dir.isEmpty,
        access(dir + "/gestured.sock", F_OK) == 0
    {
        return dir + "/gestured.sock"
    }
    return "/run/gestured/gestured.sock"
}
