/// A configuration that cannot be used: every problem found, each with its
/// file, line and what to do, in file and line order.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public struct Problem: Sendable, CustomStringConvertible {
        public var file: String
        /// 0: the file as a whole.
        public var line: Int
        public var message: String
        public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }

        public init(file: String, line: Int, message: String) {
            self.file = file
            self.line = line
            self.message = message
        }
    }

    /// Never empty.
    public private(set) var problems: [Problem]
    /// The first problem's file, line and message.
    public var file: String { problems[0].file }
    public var line: Int { problems[0].line }
    public var message: String { problems[0].message }
    /// One line per problem.
    public var description: String { problems.map(\.description).joined(separator: "\n") }

    /// `line` 0: the file as a whole.
    public init(file: String, line: Int, message: String) {
        problems = [Problem(file: file, line: line, message: message)]
    }

    package init(problems: [Problem]) {
        precondition(!problems.isEmpty)
        self.problems = problems
    }

    /// The same problems in file and line order (a problem of a file as a whole first).
    public var sortedByLine: ConfigurationError {
        var sorted = self
        sorted.problems = problems.enumerated().sorted {
            ($0.element.file, $0.element.line, $0.offset) < ($1.element.file, $1.element.line, $1.offset)
        }.map(\.element)
        return sorted
    }

    /// Several errors as one, in the order given (nil when there are none).
    public init?(_ errors: [ConfigurationError]) {
        guard !errors.isEmpty else { return nil }
        problems = errors.flatMap(\.problems)
    }
}
