package import GestureCore
package import GestureProtocol
import TOML
import ToolSupport

/// One `[[shape]]` of an actions file: a shape the user drew, which act
/// sends the daemon (protocol 1.11) so that a stroke binding's `shape` can
/// name it.
///
/// ```toml
/// [[shape]]
/// name = "Z"
/// examples = ["0,0 30,0 0,35 30,35"]
/// rotates = false
/// tolerance = 0.1
/// ```
package struct ShapeDefinition: Sendable, Equatable {
    /// Where it was written: "FILE:LINE".
    package var origin: String
    package var name: String
    /// Each example as "x,y x,y …" (any unit: only the proportions count).
    package var examples: [String]
    package var rotates = false
    /// nil: the daemon's default (`StrokeShapes.defaultTolerance`).
    package var tolerance: Double?

    package init(origin: String, name: String, examples: [String], rotates: Bool = false, tolerance: Double? = nil) {
        (self.origin, self.name, self.examples, self.rotates, self.tolerance) = (origin, name, examples, rotates, tolerance)
    }

    /// As the protocol sends it.
    package var request: SubscribeRequest.Shape {
        SubscribeRequest.Shape(name: name, examples: examples, rotates: rotates, tolerance: tolerance)
    }

    /// The shape the daemon matches with, made here as it is there.
    package var shape: StrokeShapes.Shape? {
        let points = examples.compactMap(StrokeShapes.points)
        return StrokeShapes.Shape(
            name: name, examples: points, rotates: rotates, tolerance: tolerance ?? StrokeShapes.defaultTolerance)
    }
}

/// Reads `[[shape]]` tables, each mistake an error with its line.
enum ShapesReader {
    static let keys = ["name", "examples", "rotates", "tolerance"]
    static let limits = SubscribeRequest.Shape.limits

    static func shapes(
        _ value: TOMLValue, _ root: TOMLTable, file: String
    ) -> (
        [ShapeDefinition], [ConfigurationError]
    ) {
        guard let array = value.array else {
            return (
                [],
                [
                    ConfigurationError(
                        file: file, line: root.line(of: "shape"), message: "'shape' must be an array of tables: [[shape]]")
                ]
            )
        }
        var out: [ShapeDefinition] = []
        var errors: [ConfigurationError] = []
        for item in array {
            guard let t = item.table else {
                errors.append(
                    ConfigurationError(file: file, line: root.line(of: "shape"), message: "each [[shape]] must be a table"))
                continue
            }
            do {
                out.append(try shape(t, file: file))
            } catch {
                errors.append(error)
            }
        }
        return (out, errors)
    }

    static func shape(_ t: TOMLTable, file: String) throws(ConfigurationError) -> ShapeDefinition {
        func fail(_ key: String, _ message: String) -> ConfigurationError {
            ConfigurationError(file: file, line: key.isEmpty ? t.line : t.line(of: key), message: message)
        }
        for key in t.keys where !keys.contains(key) {
            throw fail(key, Suggestion.unknown("key", key, known: keys, context: " in [[shape]]"))
        }
        guard let name = t["name"]?.string, (1...limits.nameBytes).contains(name.utf8.count) else {
            throw fail(
                t["name"] == nil ? "" : "name",
                "[[shape]] needs name = \"…\", 1 to 64 bytes, which a stroke binding's shape names")
        }
        let help =
            "examples must be a list of 1 to \(limits.examples) strings of 2 to \(limits.points) points \"x,y\" apart by spaces, e.g. [\"0,0 30,0 0,35 30,35\"] (gestured stroke record \(name) draws them)"
        guard let list = t["examples"]?.array, (1...limits.examples).contains(list.count) else { throw fail("examples", help) }
        var examples: [String] = []
        for item in list {
            guard let text = item.string, let points = StrokeShapes.points(text), (2...limits.points).contains(points.count)
            else { throw fail("examples", help) }
            examples.append(text)
        }
        var d = ShapeDefinition(origin: "\(file):\(t.line)", name: name, examples: examples)
        if let v = t["rotates"] {
            guard let b = v.bool else { throw fail("rotates", "rotates must be true (matched at any rotation) or false") }
            d.rotates = b
        }
        if let v = t["tolerance"] {
            guard let x = v.number, x > 0 && x <= 1 else {
                throw fail(
                    "tolerance",
                    "tolerance must be a number above 0 and at most 1 (the default is \(StrokeShapes.defaultTolerance))")
            }
            d.tolerance = x
        }
        guard d.shape != nil else {
            throw fail("examples", "shape \"\(name)\": no example is a path (each needs two points apart)")
        }
        return d
    }
}
