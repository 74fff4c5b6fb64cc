import TOML
import Testing

/// gestured's own TOML 1.0 reader against the specification's examples and
/// rules (toml.io/en/v1.0.0): every value form, every way to make a table,
/// and an error with the right line for what the specification forbids.
@Suite("TOML reader")
struct TOMLParserTests {
    @Test("strings, integers, floats, booleans and date-times in every form")
    func values() throws {
        let t = try TOMLParser.parse(
            #"""
            basic = "tab\there \"q\" \\ \u00E9 \U0001F600"
            literal = 'C:\Users\nodejs'
            multi = """
            Roses are red \
                Violets are blue"""
            quotes = """Here are two quotation marks: "". Simple enough."""
            ends = """a"""""
            raw = '''
            The first newline is
            trimmed in raw strings.'''
            int = +1_000
            neg = -17
            zero = -0
            hex = 0xDEAD_beef
            oct = 0o755
            bin = 0b1101_0110
            float = -3.5e-2
            exp = 5E+22
            under = 224_617.445_991
            pinf = +inf
            nan = -nan
            yes = true
            no = false
            odt = 1979-05-27T07:32:00Z
            offset = 1979-05-27 00:32:00.999999-07:00
            local = 1979-05-27T07:32:00
            date = 1979-05-27
            time = 00:32:00.999
            """#)
        #expect(t["basic"]?.string == "tab\there \"q\" \\ é 😀")
        #expect(t["literal"]?.string == #"C:\Users\nodejs"#)
        #expect(t["multi"]?.string == "Roses are red Violets are blue")
        #expect(t["quotes"]?.string == #"Here are two quotation marks: "". Simple enough."#)
        #expect(t["ends"]?.string == #"a"""#)
        #expect(t["raw"]?.string == "The first newline is\ntrimmed in raw strings.")
        #expect(t["int"]?.int == 1000 && t["neg"]?.int == -17 && t["zero"]?.int == 0)
        #expect(t["hex"]?.int == 0xDEAD_BEEF && t["oct"]?.int == 0o755 && t["bin"]?.int == 0b1101_0110)
        #expect(t["float"]?.double == -0.035 && t["exp"]?.double == 5e22 && t["under"]?.double == 224_617.445_991)
        #expect(t["pinf"]?.double == .infinity && t["nan"]?.double?.isNaN == true)
        #expect(t["int"]?.double == nil, "an integer is not a float")
        #expect(t["yes"]?.bool == true && t["no"]?.bool == false)
        for key in ["odt", "offset", "local", "date", "time"] {
            guard case .dateTime = t[key] else {
                Issue.record("\(key) is \(String(describing: t[key]))")
                continue
            }
        }
        #expect(t.keys.first == "basic" && t.keys.last == "time", "keys keep their order")
    }

    @Test("tables: headers, dotted and quoted keys, sub-tables, arrays of tables, inline tables, arrays over lines")
    func tables() throws {
        let t = try TOMLParser.parse(
            "\u{FEFF}# a comment\r\n"
                + """
                title = "x"
                site."google.com" = true
                fruit . color = "red"
                [a.b.c]
                d = 1
                [a]
                e = 2
                [a.b.c.f]
                [[products]]
                name = "Hammer"
                [products.dims]
                w = 3
                [[products]]
                [[products]]
                name = "Nail"
                [inline]
                point = { x = 1, y.z = 2 }
                empty = {}
                nested = [ [1, 2], ["a"], [ {k = 'v'} ] ]
                list = [
                  1, # one
                  2,
                  # nothing here
                ]
                "" = "empty key"
                """)
        #expect(t["title"]?.string == "x")
        #expect(t["site"]?.table?["google.com"]?.bool == true)
        #expect(t["fruit"]?.table?["color"]?.string == "red")
        let a = try #require(t["a"]?.table)
        #expect(a["e"]?.int == 2 && a.line == 7, "[a] defined after [a.b.c] made it")
        #expect(a["b"]?.table?["c"]?.table?["d"]?.int == 1)
        #expect(a["b"]?.table?["c"]?.table?["f"]?.table?.keys == [])
        let products = try #require(t["products"]?.array)
        #expect(products.count == 3)
        #expect(products[0].table?["name"]?.string == "Hammer" && products[0].table?["dims"]?.table?["w"]?.int == 3)
        #expect(products[1].table?.keys == [] && products[2].table?["name"]?.string == "Nail")
        #expect(products.map { $0.table?.line } == [10, 14, 15], "each [[products]]'s own line")
        let inline = try #require(t["inline"]?.table)
        #expect(inline["point"]?.table?["x"]?.int == 1 && inline["point"]?.table?["y"]?.table?["z"]?.int == 2)
        #expect(inline["empty"]?.table?.keys == [])
        let nested = try #require(inline["nested"]?.array)
        #expect(nested[0].array?.map(\.int) == [1, 2] && nested[1].array?.first?.string == "a")
        #expect(nested[2].array?.first?.table?["k"]?.string == "v")
        #expect(inline["list"]?.array?.map(\.int) == [1, 2])
        #expect(inline[""]?.string == "empty key")
        #expect(
            t.line(of: "title") == 2 && a.line(of: "e") == 8 && inline.line(of: "list") == 21, "lines count CRLF and the BOM line"
        )
    }

    // Deep trees, which the reader walks recursively: bounded.
    static let deepArray = "a = " + String(repeating: "[", count: 70) + "\n"
    static let longHeader = "[" + Array(repeating: "a", count: 65).joined(separator: ".") + "]\n"
    static let deepDottedInline =
        Array(repeating: "a", count: 40).joined(separator: ".") + " = {" + Array(repeating: "b", count: 30).joined(separator: ".")
        + " = 1}\n"

    @Test(
        "what the specification forbids is an error with its line",
        arguments: [
            ("a = 1\na = 2\n", 2, "the key 'a' is already defined"),
            ("[a]\nx = 1\n[a]\n", 3, "the table 'a' is already defined"),
            ("a.b = 1\n[a]\n", 2, "the table 'a' is already defined"),
            ("[a]\nb.c = 1\n[a.b]\n", 3, "the table 'a.b' is already defined"),
            ("[[a]]\n[a]\n", 2, "the table 'a' is already defined"),
            ("a = [1]\n[[a]]\n", 2, "other than an array of tables"),
            ("a = {b = 1}\na.c = 2\n", 2, "a dotted key cannot add to it"),
            ("a = {b = 1}\n[a.c]\n", 2, "a header cannot add to it"),
            ("[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", 4, "a dotted key cannot add to it"),
            ("a = {b = 1, b = 2}\n", 1, "the key 'b' is already defined"),
            ("a = { b = 1, }\n", 1, "expected a key"),
            ("a = { b = 1\n}\n", 1, "must stay on one line"),
            ("a = \"x\n", 1, "without its closing"),
            ("a = '''x\n", 2, "without its closing"),
            ("a = \"\\x\"\n", 1, "unknown escape '\\x'"),
            ("a = \"\\uD800\"\n", 1, "naming a Unicode scalar value"),
            ("a = \"\u{01}\"\n", 1, "a control character"),
            ("a = 1 b = 2\n", 1, "expected the end of the line after a value"),
            ("a = [1 2]\n", 1, "expected ',' or ']'"),
            ("a = [1,\n2\n", 3, "expected ',' or ']'"),
            ("a =\n", 1, "expected a value"),
            ("a = 01\n", 1, "is not a TOML value"),
            ("a = 1__0\n", 1, "is not a TOML value"),
            ("a = _1\n", 1, "is not a TOML value"),
            ("a = 1.\n", 1, "is not a TOML value"),
            ("a = .5\n", 1, "is not a TOML value"),
            ("a = 1e\n", 1, "is not a TOML value"),
            ("a = +0x10\n", 1, "is not a TOML value"),
            ("a = 1979-13-01\n", 1, "is not a TOML value"),
            ("a = 1979-05-27T25:00:00\n", 1, "is not a TOML value"),
            ("a = TRUE\n", 1, "is not a TOML value"),
            ("a = bare\n", 1, "strings are quoted"),
            ("a = 9223372036854775808\n", 1, "does not fit in 64 bits"),
            ("\"\"\"k\"\"\" = 1\n", 1, "a key cannot be a multi-line string"),
            ("[a\n", 1, "expected ']' to close the table header"),
            ("[[a]\n", 1, "expected ']]'"),
            ("[]\n", 1, "a table header must start with a key"),
            ("x = 1 # \u{7F}\n", 1, "a control character in a comment"),
            ("a = 1\r\n b\r = 2\n", 2, "expected '='"),
            // Found by fuzzing TOMLKit (toml++ asserted in parse_value): a comma, then a brace, in an array.
            ("allow-groups = [\"x\",}4293]\n", 1, "expected a value, found '}'"),
            (TOMLParserTests.deepArray, 1, "nested more than 64 deep"),
            (TOMLParserTests.longHeader, 1, "a key of more than 64 parts"),
            (TOMLParserTests.deepDottedInline, 1, "nested more than 64 deep"),
            // 5,000 lines of two-part keys: past 10,000 keys and values on line 3,334.
            ((0..<5000).map { "a.b\($0) = 1\n" }.joined(), 3334, "more than 10000 keys and values"),
            ("a = [" + String(repeating: "1,", count: 20_000) + "]\n", 1, "more than 10000 keys and values"),
        ])
    func invalid(text: String, line: Int, message: String) {
        do {
            let t = try TOMLParser.parse(text)
            Issue.record("accepted \(text.debugDescription): \(t.keys)")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }
}
