internal import CYAML

/// A YAML document loaded by libyaml, read in place through `YAMLNode`s.
///
/// libyaml is the C library made for reading YAML; using it directly instead
/// of a Swift wrapper keeps Foundation out of GestureCore and out of the
/// daemon (about 4 MB of resident memory, docs/performance.md).
final class YAMLDocument {
    private var document: yaml_document_t
    /// Nodes are numbered from 1; 0 when the document is empty.
    let rootID: Int32

    struct Failure: Error {
        /// 1-based, 0 when unknown.
        var line: Int
        var problem: String
    }

    /// Flow collections (`[...]`, `{...}`) nested deeper than this are refused
    /// before libyaml sees them: its scanner takes time quadratic in the depth
    /// (70 s for 200,000 levels). A libinput recording nests two.
    static let maxFlowDepth = 64

    init(_ text: String) throws(Failure) {
        if let line = Self.lineBeyondFlowDepth(text) {
            throw Failure(line: line, problem: "brackets nested more than \(Self.maxFlowDepth) deep")
        }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw Failure(line: 0, problem: "libyaml could not start") }
        defer { yaml_parser_delete(&parser) }
        var bytes = Array(text.utf8)
        var loaded = yaml_document_t()
        let ok = bytes.withUnsafeMutableBufferPointer { buffer -> Bool in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            return yaml_parser_load(&parser, &loaded) == 1
        }
        guard ok else {
            let problem = parser.problem.map { String(cString: $0) } ?? "unreadable YAML"
            let context = parser.context.map { String(cString: $0) + ": " } ?? ""
            throw Failure(line: Int(parser.problem_mark.line) + 1, problem: context + problem)
        }
        rootID = yaml_document_get_root_node(&loaded) == nil ? 0 : 1
        document = loaded
        // Anchors and aliases let a small file name one node many times, and a
        // reader walking it visit exponentially many; libinput never writes them.
        // (Throwing here still runs deinit, which frees the document.)
        let count = nodeCount
        var referenced = [Bool](repeating: false, count: Int(count) + 1)
        for id in stride(from: 1, through: count, by: 1) {
            for child in children(of: id) where child > 0 && child <= count {
                if referenced[Int(child)] {
                    throw Failure(line: line(of: child), problem: "anchors and aliases are not supported in a recording")
                }
                referenced[Int(child)] = true
            }
        }
    }

    deinit { yaml_document_delete(&document) }

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

    private var nodeCount: Int32 {
        guard let start = document.nodes.start, let top = document.nodes.top else { return 0 }
        return Int32(top - start)
    }

    fileprivate func node(_ id: Int32) -> UnsafeMutablePointer<yaml_node_t>? {
        guard id > 0 else { return nil }
        return yaml_document_get_node(&document, id)
    }

    fileprivate func line(of id: Int32) -> Int { node(id).map { Int($0.pointee.start_mark.line) + 1 } ?? 0 }

    /// A sequence's items, or a mapping's keys and values in order.
    fileprivate func children(of id: Int32) -> [Int32] {
        guard let n = node(id) else { return [] }
        switch n.pointee.type {
        case YAML_SEQUENCE_NODE:
            let items = n.pointee.data.sequence.items
            guard let start = items.start, let top = items.top else { return [] }
            return Array(UnsafeBufferPointer(start: start, count: top - start))
        case YAML_MAPPING_NODE:
            let pairs = n.pointee.data.mapping.pairs
            guard let start = pairs.start, let top = pairs.top else { return [] }
            return UnsafeBufferPointer(start: start, count: top - start).flatMap { [$0.key, $0.value] }
        default:
            return []
        }
    }

    var root: YAMLNode? { rootID == 0 ? nil : YAMLNode(document: self, id: rootID) }
}

/// One node of a `YAMLDocument`, with the accessors a recording reader needs.
struct YAMLNode {
    let document: YAMLDocument
    let id: Int32

    private var raw: yaml_node_t? { document.node(id)?.pointee }

    /// The 1-based line the node starts on.
    var line: Int { document.line(of: id) }

    /// A scalar's text.
    var string: String? {
        guard let n = raw, n.type == YAML_SCALAR_NODE, let value = n.data.scalar.value else { return nil }
        return String(decoding: UnsafeBufferPointer(start: value, count: n.data.scalar.length), as: UTF8.self)
    }

    /// A scalar read as an integer: decimal with an optional sign, or 0x hex.
    var int: Int? {
        guard let s = string else { return nil }
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
        guard let n = raw, n.type == YAML_SEQUENCE_NODE else { return nil }
        return document.children(of: id).map { YAMLNode(document: document, id: $0) }
    }

    /// A mapping's entries, in the file's order.
    var mapping: [(key: YAMLNode, value: YAMLNode)]? {
        guard let n = raw, n.type == YAML_MAPPING_NODE else { return nil }
        let c = document.children(of: id)
        return stride(from: 0, to: c.count - 1, by: 2).map {
            (YAMLNode(document: document, id: c[$0]), YAMLNode(document: document, id: c[$0 + 1]))
        }
    }

    /// The value of a mapping's key `key`.
    subscript(key: String) -> YAMLNode? {
        mapping?.first { $0.key.string == key }?.value
    }
}
