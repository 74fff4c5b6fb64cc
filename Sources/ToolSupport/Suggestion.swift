/// "Did you mean": the known name a mistyped one is closest to.
public enum Suggestion {
    /// The name of `known` fewest single-character edits (insertions,
    /// deletions, substitutions, and swaps of neighbours) away from `name`,
    /// when that is at most a third of its length (at least one edit), and
    /// no other is as close; nil otherwise. Case is ignored.
    public static func closest(to name: String, among known: [String]) -> String? {
        let a = Array(name.lowercased().utf8)
        let limit = max(1, a.count / 3)
        var best: (name: String, distance: Int)?
        var tied = false
        for candidate in known {
            let d = distance(a, Array(candidate.lowercased().utf8))
            guard d <= limit else { continue }
            if let b = best, d >= b.distance {
                if d == b.distance { tied = true }
                continue
            }
            best = (candidate, d)
            tied = false
        }
        return tied ? nil : best?.name
    }

    /// The optimal-string-alignment distance between `a` and `b`.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }

    /// "unknown WHAT 'name'; did you mean 'x'? known: a, b, c" (the
    /// suggestion only when one is close).
    public static func unknown(_ what: String, _ name: String, known: [String], context: String = "") -> String {
        let guess = closest(to: name, among: known).map { "did you mean '\($0)'? " } ?? ""
        return "unknown \(what) '\(name)'\(context); \(guess)known: " + known.joined(separator: ", ")
    }
}
