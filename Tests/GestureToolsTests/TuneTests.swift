import Foundation
import GestureCore
import Harness
import Testing
import TraceSynth

/// `gestured tune` on a folder of recordings of slow hands: taps that last
/// up to 520 ms (past the 500 ms tap limit) and long holds.
@Suite("gestured tune", .serialized)
struct TuneTests {
    /// Writes `count` performances per file, one every 2 s: taps of the given
    /// lengths (ms), or holds; returns the folder.
    static func slowHands() throws -> String {
        let dir = NSTemporaryDirectory() + "gestured-tune-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir + "/hold", withIntermediateDirectories: true)
        let panel = SynthPanel.tablet
        let renderer = Renderer(panel: panel)
        func strokes(_ lengths: [Double]) -> [Stroke] {
            lengths.enumerated().map { i, ms in
                Stroke(land: 100 + 2000 * Double(i), lift: 100 + 2000 * Double(i) + ms, x: 60 + 30 * Double(i), y: 70)
            }
        }
        let taps: [[Double]] = [[380, 420, 450], [400, 470, 430], [390, 520, 410]]
        for (i, lengths) in taps.enumerated() {
            let scenario = Scenario(name: "slow taps", strokes: strokes(lengths), expected: [])
            try renderer.evemu(scenario, seed: UInt64(i + 1)).write(
                toFile: dir + "/tap-\(i + 1).evemu", atomically: true, encoding: .utf8)
        }
        let holds = Scenario(name: "holds", strokes: strokes([950, 1100, 1000]), expected: [])
        try renderer.evemu(holds, seed: 9).write(toFile: dir + "/hold/long.evemu", atomically: true, encoding: .utf8)
        try "not a gesture name".write(toFile: dir + "/notes.evemu", atomically: true, encoding: .utf8)
        return dir
    }

    @Test("a confusion matrix, every margin, and a suggestion that fixes the slow taps without breaking the bundled recordings")
    func slowTaps() throws {
        let dir = try Self.slowHands()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let svg = dir + "/margins.svg"
        let r = try runGestured(["tune", dir, "--reference", BuildProducts.packageRoot + "/Recordings", "--svg", svg])
        print(r.out)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("notes.evemu: skipped: its name does not say which gesture it is"), "\(r.err)")
        #expect(r.out.contains("4 recordings"), "\(r.out)")
        // The 520 ms tap stays still past hold.minDuration: a touch-and-hold with the defaults.
        #expect(r.out.contains("recognized as meant: 11 of 12"), "\(r.out)")
        #expect(r.out.contains("tap-3.evemu at 2.") && r.out.contains("meant tap, got touch-and-hold"), "\(r.out)")
        #expect(r.out.contains("your taps lasted 38"), "\(r.out)")
        #expect(r.out.contains("tap.maxDuration = 500 ms  →  suggested"), "\(r.out)")
        // After the suggestion every performance is what was meant, and the
        // report says the miss at the top is fixed.
        #expect(
            r.out.contains("With the suggestion")
                && r.out.hasSuffix(
                    "recognized as meant: 12 of 12 (100 %)\n\nThe suggestion fixes every miss listed at the top (1).\n"),
            "\(r.out)")

        // The snippet works as a configuration: replayed with it, the slow taps are taps
        // and every bundled recording still gives its .expect.
        let snippet = r.out.components(separatedBy: "[thresholds]\n")[1].components(separatedBy: "\n\n")[0]
        let config = dir + "/tuned.toml"
        try ("[thresholds]\n" + snippet + "\n").write(toFile: config, atomically: true, encoding: .utf8)
        let taps = try runGestured(["replay", "--config", config, "--format", "summary", dir + "/tap-3.evemu"])
        #expect(taps.out == "tap fingers=1\ntap fingers=1\ntap fingers=1\n", "\(taps.err)")
        let recordings = try FileManager.default.contentsOfDirectory(atPath: BuildProducts.packageRoot + "/Recordings")
            .filter { $0.hasSuffix(".evemu") }.sorted()
        for name in recordings {
            let path = BuildProducts.packageRoot + "/Recordings/" + name
            let expect = ExpectFile(try String(contentsOfFile: String(path.dropLast(6)) + ".expect", encoding: .utf8))
            let size = expect.size.map { ["--size", "\($0.width)x\($0.height)"] } ?? []
            let out = try runGestured(["replay", "--config", config, "--format", "summary"] + size + [path]).out
            #expect(out == expect.gestures.map { $0 + "\n" }.joined(), "\(name)")
        }
        // The margins drawn: one row per threshold reported, the suggestions marked.
        let picture = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(picture.hasPrefix("<?xml") && picture.contains("data-key=\"tap.maxDuration\""))
        // Each dot says which performance it is.
        #expect(picture.contains(" ms: \(dir)/tap-3.evemu at 2.0 s</title>"), "\(picture)")
        #expect(picture.components(separatedBy: "class=\"suggested\"").count - 1 == snippet.split(separator: "\n").count)
    }

    @Test("a curved drag says nothing about swipe.maxDuration: only drags that a quicker stroke would have made swipes count")
    func curvedDrag() throws {
        let dir = NSTemporaryDirectory() + "gestured-tune-drags-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A quick drag that bows 15 mm sideways (no swipe at any length), then
        // three slow straight ones (swipes, had they been quicker).
        let curved = Stroke(
            land: 100, lift: 490, x: 60, y: 80, moves: [Stroke.Move(start: 110, duration: 330, dx: 45, dy: 0, bulge: 15)])
        let straight = [900.0, 1000, 1100].enumerated().map { i, ms in
            let land = 2100 + 2000 * Double(i)
            return Stroke(
                land: land, lift: land + ms, x: 60, y: 80,
                moves: [Stroke.Move(start: land + 10, duration: ms - 80, dx: 45, dy: 0)])
        }
        let scenario = Scenario(name: "drags", strokes: [curved] + straight, expected: [])
        try Renderer(panel: .tablet).evemu(scenario, seed: 3).write(
            toFile: dir + "/drag-1.evemu", atomically: true, encoding: .utf8)
        let r = try runGestured(["tune", dir, "--reference", BuildProducts.packageRoot + "/Recordings"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("recognized as meant: 4 of 4"), "\(r.out)")
        #expect(r.out.contains("your drags that only their length kept from being swipes took 90"), "\(r.out)")
        #expect(r.out.contains(" ms (3): should reach it"), "\(r.out)")
        #expect(!r.out.contains("swipe.maxDuration = 500 ms  →  suggested"), "\(r.out)")
        #expect(r.out.contains("Suggested configuration: none; the current thresholds fit your gestures."), "\(r.out)")
    }

    @Test("a folder with no labelled recordings is an error that says how to name them")
    func nothingLabelled() throws {
        let dir = NSTemporaryDirectory() + "gestured-tune-empty-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runGestured(["tune", dir])
        #expect(r.status == 1)
        #expect(r.err.contains("no labelled recordings in \(dir)"), "\(r.err)")
        let missing = try runGestured(["tune", dir + "/nope"])
        #expect(missing.status == 1 && missing.err.contains("nope"), "\(missing.err)")
    }
}
