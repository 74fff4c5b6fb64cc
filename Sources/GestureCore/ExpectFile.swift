/// A recording's `.expect` file: the gestures `gestured replay --format
/// summary` must print for it, one per line, in order. Lines starting with
/// `#` are comments; `# size: WxH` gives the panel's size in mm for a
/// recording whose device reports no resolution. The one reader of the
/// format: the bundled recordings' tests, `gestured tune`'s references and
/// the daemon tests all go through it.
public struct ExpectFile: Sendable {
    /// The summaries, in order.
    public var gestures: [String]
    /// The panel's size in mm, from `# size:`.
    public var size: (width: Double, height: Double)?

    public init(_ text: String) {
        gestures = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# size:") {
                size = parseSize(String(line.dropFirst("# size:".count)))
            } else if !line.hasPrefix("#") && !line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) {
                gestures.append(String(line))
            }
        }
    }

    /// A `.expect` file's text: `comment`, the size when the panel needs one, the gestures.
    public static func text(comment: String, size: String?, gestures: [String]) -> String {
        var s = "# \(comment)\n"
        if let size { s += "# size: \(size)\n" }
        return s + gestures.map { $0 + "\n" }.joined()
    }
}
