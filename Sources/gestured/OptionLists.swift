import ArgumentParser
import GestureCore
import GestureProtocol

/// What shell completion offers for --gestures and --phases.
let gestureNames = GestureKind.allCases.map(\.rawValue)
let phaseNames = GesturePhase.allCases.map(\.rawValue)

/// A comma-separated option value as its names, blanks dropped: "tap, swipe" is ["tap", "swipe"].
func optionList(_ value: String?) -> [String]? {
    value.map { $0.split(separator: ",").map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty } }
}

/// A comma-separated option of names (gestures, phases), read as the daemon
/// reads them in a subscription; a name it does not know is refused with the
/// option's name and the names it knows.
func namedOption<T: RawRepresentable & CaseIterable & Hashable>(
    _ value: String?, _ option: String, _ what: String
) throws -> Set<T>? where T.RawValue == String {
    guard let names = optionList(value) else { return nil }
    do {
        return try GestureProtocol.named(names, what)
    } catch {
        throw ValidationError("\(option): \(error.message)")
    }
}
