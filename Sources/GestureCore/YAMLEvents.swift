internal import CYAML

/// libyaml's event parser over a text: the YAML read as a stream of events
/// (a mapping starts, a scalar, a sequence ends, ...), so that a reader can
/// keep what it needs and let the rest go by, instead of holding a tree of
/// the whole file (a recording's events are most of it).
///
/// libyaml is the C library made for reading YAML; using it directly keeps
/// Foundation out of GestureCore and out of the daemon.
final class YAMLEvents {
    struct Failure: Error {
        /// 1-based, 0 when unknown.
        var line: Int
        var problem: String
    }

    enum Kind: Equatable {
        case streamStart, streamEnd, documentStart, documentEnd
        case mappingStart, mappingEnd, sequenceStart, sequenceEnd
        case scalar(String)
    }

    struct Event {
        var kind: Kind
        /// 1-based line where it starts.
        var line: Int
    }

    /// Flow collections (`[...]`, `{...}`) nested deeper than this are refused
    /// before libyaml sees them: its scanner takes time quadratic in the depth
    /// (70 s for 200,000 levels). A libinput recording nests two.
    static let maxFlowDepth = 64

    private var parser = yaml_parser_t()
    /// The text's bytes, which the parser reads in place.
    private let bytes: UnsafeMutableBufferPointer<UInt8>

    init(_ text: String) throws(Failure) {
        if let line = Self.lineBeyondFlowDepth(text) {
            throw Failure(line: line, problem: "brackets nested more than \(Self.maxFlowDepth) deep")
        }
        bytes = .allocate(capacity: max(1, text.utf8.count))
        _ = bytes.initialize(from: text.utf8)
        guard yaml_parser_initialize(&parser) == 1 else {
            bytes.deallocate()
            throw Failure(line: 0, problem: "libyaml could not start")
        }
        yaml_parser_set_input_string(&parser, bytes.baseAddress, text.utf8.count)
    }

    deinit {
        yaml_parser_delete(&parser)
        bytes.deallocate()
    }

    /// The next event. Anchors and aliases are refused: they let a small
    /// file name one node many times, and libinput never writes them.
    func next() throws(Failure) -> Event {
        var event = yaml_event_t()
        guard yaml_parser_parse(&parser, &event) == 1 else {
            let problem = parser.problem.map { String(cString: $0) } ?? "unreadable YAML"
            let context = parser.context.map { String(cString: $0) + ": " } ?? ""
            throw Failure(line: Int(parser.problem_mark.line) + 1, problem: context + problem)
        }
        defer { yaml_event_delete(&event) }
        let line = Int(event.start_mark.line) + 1
        let kind: Kind
        switch event.type {
        case YAML_STREAM_START_EVENT: kind = .streamStart
        case YAML_STREAM_END_EVENT: kind = .streamEnd
        case YAML_DOCUMENT_START_EVENT: kind = .documentStart
        case YAML_DOCUMENT_END_EVENT: kind = .documentEnd
        case YAML_MAPPING_START_EVENT: kind = .mappingStart
        case YAML_MAPPING_END_EVENT: kind = .mappingEnd
        case YAML_SEQUENCE_START_EVENT: kind = .sequenceStart
        case YAML_SEQUENCE_END_EVENT: kind = .sequenceEnd
        case YAML_SCALAR_EVENT:
            let s = event.data.scalar
            kind = .scalar(s.value.map { String(decoding: UnsafeBufferPointer(start: $0, count: s.length), as: UTF8.self) } ?? "")
        default:
            throw Failure(line: line, problem: "anchors and aliases are not supported in a recording")
        }
        if case .scalar = kind, event.data.scalar.anchor != nil {
            throw Failure(line: line, problem: "anchors and aliases are not supported in a recording")
        }
        if (kind == .mappingStart && event.data.mapping_start.anchor != nil)
            || (kind == .sequenceStart && event.data.sequence_start.anchor != nil)
        {
            throw Failure(line: line, problem: "anchors and aliases are not supported in a recording")
        }
        return Event(kind: kind, line: line)
    }

    /// The node that starts with `first`, whole (for the small parts of a
    /// file: a device's description).
    func node(from first: Event) throws(Failure) -> YAMLNode {
        switch first.kind {
        case .scalar(let s):
            return YAMLNode(line: first.line, content: .scalar(s))
        case .sequenceStart:
            var items: [YAMLNode] = []
            while true {
                let e = try next()
                if e.kind == .sequenceEnd { return YAMLNode(line: first.line, content: .sequence(items)) }
                items.append(try node(from: e))
            }
        case .mappingStart:
            var pairs: [(YAMLNode, YAMLNode)] = []
            while true {
                let k = try next()
                if k.kind == .mappingEnd { return YAMLNode(line: first.line, content: .mapping(pairs)) }
                let key = try node(from: k)
                pairs.append((key, try node(from: try next())))
            }
        default:
            throw Failure(line: first.line, problem: "unexpected \(first.kind)")
        }
    }

    /// Reads past the node that starts with `first`.
    func skip(from first: Event) throws(Failure) {
        var depth = 0
        var e = first
        while true {
            switch e.kind {
            case .mappingStart, .sequenceStart: depth += 1
            case .mappingEnd, .sequenceEnd: depth -= 1
            default: break
            }
            if depth <= 0 { return }
            e = try next()
        }
    }

    /// The line where flow nesting first exceeds `maxFlowDepth`, if it does.
    /// Brackets inside quotes and comments do not count.
    private static func lineBeyondFlowDepth(_ text: String) -> Int? {
        var depth = 0
        var line = 1
        var quote: UInt8? = nil
        var comment = false
        for b in text.utf8 {
            if b == UInt8(ascii: "\n") {
                line += 1
                comment = false
                continue
            }
            if comment { continue }
            if let q = quote {
                if b == q { quote = nil }
                continue
            }
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = b
            case UInt8(ascii: "#"): comment = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maxFlowDepth { return line }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: break
            }
        }
        return nil
    }
}

/// A small part of a YAML file, read whole: a scalar, a sequence or a
/// mapping, with the line it starts on.
struct YAMLNode {
    indirect enum Content {
        case scalar(String)
        case sequence([YAMLNode])
        case mapping([(YAMLNode, YAMLNode)])
    }

    let line: Int
    let content: Content

    /// A scalar's text.
    var string: String? {
        if case .scalar(let s) = content { return s }
        return nil
    }

    /// A scalar read as an integer: decimal with an optional sign, or 0x hex.
    var int: Int? { string.flatMap(YAMLNode.integer) }

    static func integer(_ s: String) -> Int? {
        var text = Substring(s)
        var negative = false
        if let f = text.first, f == "-" || f == "+" {
            negative = f == "-"
            text = text.dropFirst()
        }
        let magnitude: Int?
        if text.hasPrefix("0x") {
            magnitude = Int(text.dropFirst(2), radix: 16)
        } else {
            magnitude = text.allSatisfy(\.isASCII) ? Int(text) : nil
        }
        guard let m = magnitude else { return nil }
        return negative ? -m : m
    }

    /// A sequence's items.
    var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    /// A mapping's entries, in the file's order.
    var mapping: [(key: YAMLNode, value: YAMLNode)]? {
        if case .mapping(let pairs) = content { return pairs.map { (key: $0.0, value: $0.1) } }
        return nil
    }

    /// The value of a mapping's key `key`.
    subscript(key: String) -> YAMLNode? {
        mapping?.first { $0.key.string == key }?.value
    }
}
