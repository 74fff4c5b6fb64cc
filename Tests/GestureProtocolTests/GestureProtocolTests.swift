import GestureCore
import Testing

@testable import GestureProtocol

/// The protocol's words both sides use: key chords, claims, names, JSON strings.
@Suite("Protocol words")
struct GestureProtocolTests {
    @Test("a socket closed to this user: join its group, but never root's; there, name socket-group or install the package")
    func whyNotGroups() {
        // /etc/passwd is root's, of group root, as a socket of a daemon started by hand is.
        let root = ConnectFailure.whyNot("/etc/passwd")
        #expect(!root.contains("usermod -aG root"), "\(root)")
        #expect(root.contains("gave its socket to no group of its users") && root.contains("socket-group"), "\(root)")
        // /etc/shadow is of group shadow on Debian: joining it is what the message says.
        let shadow = ConnectFailure.whyNot("/etc/shadow")
        #expect(shadow.contains("sudo usermod -aG shadow $USER"), "\(shadow)")
    }

    @Test("chords: kernel names with or without KEY_, the usual aliases, in order; what is no key named in the error")
    func chords() throws {
        let altLeft = try Chord("alt+Left")
        #expect(altLeft.codes == [56, 105])
        #expect(try Chord("ctrl + shift + t").codes == [29, 42, 20])
        #expect(try Chord("super").codes == [125])
        #expect(try Chord("KEY_VOLUMEUP").codes == [115])
        // Pressed in order, a report, released in reverse, a report.
        #expect(altLeft.events.map(\.value) == [1, 1, 0, 0, 0, 0])
        #expect(altLeft.events.map(\.code) == [56, 105, 0, 105, 56, 0])
        for (text, says) in [
            ("alt+", "is not a key chord"), ("", "is not a key chord"),
            ("alt+nosuchkey", "'nosuchkey' in 'alt+nosuchkey' is not a key"),
            ("BTN_LEFT", "is a button, not a key"), ("a+a", "'a' appears twice"),
        ] {
            #expect(throws: ChordError.self) { try Chord(text) }
            do {
                _ = try Chord(text)
            } catch {
                #expect(error.message.contains(says), "\(text): \(error.message)")
            }
        }
    }

    @Test("names: every known one taken, an unknown one refused with the known ones listed")
    func names() throws {
        let edges: Set<PanelEdge> = try named(["left", "bottom"], "edge")
        #expect(edges == [.left, .bottom])
        do {
            let _: Set<PanelEdge> = try named(["middle"], "edge")
            Issue.record("an unknown edge was taken")
        } catch {
            #expect(error.message == "unknown edge 'middle'; known: left, right, top, bottom")
        }
    }

    @Test("claims: the union of what each asks, one bit per finger count, said for people")
    func claims() {
        var all = ClaimSet(fingers: [3])
        all.formUnion(ClaimSet(fingers: [4], edges: [.left]))
        #expect(all.fingers == [3, 4] && all.edges == [.left])
        #expect(all.claims(fingers: 3) && all.claims(fingers: 4) && !all.claims(fingers: 2) && !all.claims(fingers: 70))
        #expect(all.summary == "3 fingers, 4 fingers, left edge")
        #expect(ClaimSet().isEmpty)
    }

    @Test("JSON strings: quotes, backslashes and control characters escaped")
    func strings() {
        #expect(jsonString("a\"b\\c\nd\u{1}") == #""a\"b\\c\nd\u0001""#)
        #expect(jsonString("é") == "\"é\"")
    }
}
