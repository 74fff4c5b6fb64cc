import Foundation
import Harness
import Testing

/// What the command line does when something is off, or several things are
/// asked at once: each message names what was wrong and what to do.
@Suite("The command line when something is off")
struct CommandLineTests {
    let scratch: String

    init() throws {
        scratch = NSTemporaryDirectory() + "gestured-cli-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    @Test("replay of several files: a header before each, ids from 1 in each, and a bad file in the middle stops nothing")
    func severalFiles() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let bad = scratch + "/broken.evemu"
        try "not a trace\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let (a, b) = (DaemonProcess.recording("hold-1f.tablet.evemu"), DaemonProcess.recording("tap-2f.tablet.evemu"))
        let summary = try runGestured(["replay", "--format", "summary", a, bad, b])
        #expect(summary.status == 1)
        #expect(summary.out == "# \(a)\ntouch-and-hold fingers=1\n# \(b)\ntap fingers=2\n", "\(summary.out)")
        #expect(summary.err.contains("\(bad):1: not an evemu line"), "\(summary.err)")
        // JSON lines carry no header; each file's gestures are numbered from 1.
        let json = try runGestured(["replay", a, b])
        #expect(json.status == 0)
        let ids = json.out.split(separator: "\n").compactMap { line -> Int? in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["id"] as? Int
        }
        #expect(ids.first == 1 && ids.last == 1 && ids.count > 2, "\(ids)")
    }

    @Test("replay --phases prints only those phases; an unknown phase is refused with the known ones")
    func phases() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let trace = DaemonProcess.recording("hold-then-drag.phone.evemu")
        let all = try runGestured(["replay", "--format", "text", trace])
        let some = try runGestured(["replay", "--format", "text", "--phases", "began,ended", trace])
        #expect(all.out.contains(" changed "))
        let lines = some.out.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains(" began ") || $0.contains(" ended ") }, "\(some.out)")
        #expect(lines.count == all.out.split(separator: "\n").filter { $0.contains(" began ") || $0.contains(" ended ") }.count)
        let refused = try runGestured(["replay", "--phases", "begun", trace])
        #expect(refused.status == 64)
        #expect(refused.err.contains("--phases: unknown phase 'begun'; known: recognized, began"), "\(refused.err)")
    }

    @Test("serve --socket in a directory that does not exist is refused, and no directory is made")
    func socketDirectoryMissing() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let path = scratch + "/typo/gestured.sock"
        let r = try runGestured(["serve", "--socket", path, "--replay", DaemonProcess.recording("tap-2f.tablet.evemu")])
        #expect(r.status == 1)
        #expect(r.err.contains("its directory \(scratch)/typo does not exist; create it first"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: scratch + "/typo"))
    }

    @Test("a device node that does not exist is named as such by devices and serve")
    func missingDevice() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let node = scratch + "/event99"
        for args in [["devices", "--device", node], ["serve", "--socket", scratch + "/g.sock", "--device", node]] {
            let r = try runGestured(args)
            #expect(r.status == 1, "\(args)")
            #expect(r.err.contains("cannot use \(node): no such device"), "\(args): \(r.err)")
            #expect(!r.err.contains("client bug"), "\(r.err)")
        }
        try "x".write(toFile: node, atomically: true, encoding: .utf8)
        let file = try runGestured(["devices", "--device", node])
        #expect(file.err.contains("cannot use \(node): not a device node"), "\(file.err)")
    }

    @Test("help text states each default once")
    func defaultsOnce() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for command in ["serve", "act", "monitor", "devices", "record", "replay", "tune", "check-config"] {
            let help = try runGestured([command, "--help"]).out.replacingOccurrences(of: "\n", with: " ")
            let words = help.split(separator: " ").joined(separator: " ")
            #expect(words.range(of: #"\(default: [^)]*\)\.? \(default:"#, options: .regularExpression) == nil, "\(command)")
        }
    }
}
