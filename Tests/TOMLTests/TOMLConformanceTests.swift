import TOML
import Testing

/// Classes of input the TOML 1.0 specification rules on and readers most
/// often get wrong, each with cases on both sides of the rule: the text must
/// be UTF-8 (checked on the bytes, before any decoding could repair them),
/// and a date must exist in the calendar.
@Suite("TOML reader: conformance")
struct TOMLConformanceTests {
    /// `a = "é"` as bytes, with `bytes` put where the é would be.
    static func document(_ bytes: [UInt8], line: Int = 1) -> [UInt8] {
        Array(String(repeating: "# line\n", count: line - 1).utf8) + Array("a = \"".utf8) + bytes + Array("\"\n".utf8)
    }

    @Test(
        "bytes that are not UTF-8 are refused with their line, wherever they are",
        arguments: [
            ([0xE9], "a Latin-1 é"),
            ([0xC0, 0xAF], "an overlong '/'"),
            ([0xE0, 0x80, 0xAF], "an overlong three-byte form"),
            ([0xED, 0xA0, 0x80], "a surrogate (U+D800) encoded"),
            ([0xF4, 0x90, 0x80, 0x80], "beyond U+10FFFF"),
            ([0xE2, 0x82], "a sequence cut short"),
            ([0x80], "a lone continuation byte"),
            ([0xFF], "a byte UTF-8 never uses"),
        ] as [([UInt8], String)])
    func invalidUTF8(bytes: [UInt8], what: String) {
        for line in [1, 3] {
            do {
                _ = try TOMLParser.parse(bytes: Self.document(bytes, line: line))
                Issue.record("accepted \(what)")
            } catch {
                #expect(error.line == line && error.message.contains("not valid UTF-8"), "\(what): \(error)")
            }
        }
        // In a comment, a literal string, a quoted key and at the very end, too.
        for text in [
            Array("# ".utf8) + bytes + [0x0A], Array("a = '".utf8) + bytes + Array("'\n".utf8),
            Array("\"".utf8) + bytes + Array("\" = 1\n".utf8), Array("a = 1 #".utf8) + bytes,
        ] {
            #expect(throws: (any Error).self, "\(what)") { try TOMLParser.parse(bytes: text) }
        }
    }

    @Test("UTF-8 of every length is read as the characters it encodes, a byte order mark skipped")
    func validUTF8() throws {
        let t = try TOMLParser.parse(bytes: [0xEF, 0xBB, 0xBF] + Array("a = \"é € 😀\"\n\"ключ\" = 'ü'\n".utf8))
        #expect(t["a"]?.string == "é € 😀")
        #expect(t["ключ"]?.string == "ü")
    }

    @Test(
        "a date must exist: February 29 only in leap years, no 31st in a 30-day month",
        arguments: [
            ("2024-02-29", true), ("2000-02-29", true), ("2023-02-29", false), ("1900-02-29", false),
            ("2100-02-29", false), ("2024-02-30", false), ("2023-02-28", true), ("2023-04-31", false),
            ("2023-06-31", false), ("2023-09-31", false), ("2023-11-31", false), ("2023-01-31", true),
            ("2023-03-31", true), ("2023-12-31", true), ("2023-04-30", true), ("2023-00-10", false),
            ("2023-01-00", false), ("2023-01-32", false),
        ])
    func calendar(date: String, exists: Bool) {
        // Alone, with a time, with an offset, and after a space.
        for value in [date, date + "T07:32:00", date + "T07:32:00Z", date + " 07:32:00.5-07:00"] {
            let parsed = try? TOMLParser.parse("d = \(value)\n")
            if exists {
                #expect(parsed?["d"] != nil, "\(value) refused")
            } else {
                #expect(parsed == nil, "\(value) accepted")
            }
        }
    }
}
