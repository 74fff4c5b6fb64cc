import Foundation
import Testing

/// Strokes on a claimed touchscreen on the real kernel
/// (scripts/kernel-guest-claim.sh, 2e; docs/gestures.md, "When a stroke is
/// a stroke"): act binds an L drawn with two fingers (`claim = true`) and
/// an L drawn by one finger after a 600 ms rest (`hold-ms = 600`), a
/// claimed tablet panel plays both, and `libinput debug-events` reads the
/// clone as a compositor would.
extension KernelTests {
    /// How far the touches a reader got strayed from where they landed, in
    /// device units: the largest spread of any slot's x or y.
    static func spread(_ frames: [ReadFrame]) -> Int32 {
        var slot = "0"
        var seen: [String: (lo: Int32, hi: Int32)] = [:]
        for frame in frames {
            for event in frame.events {
                let f = event.split(separator: " ")
                guard f.count == 3, f[0] == "0003", let v = Int32(f[2]) else { continue }
                if f[1] == "002f" { slot = String(f[2]) }
                guard f[1] == "0035" || f[1] == "0036" else { continue }
                let key = slot + "/" + f[1]
                let old = seen[key] ?? (v, v)
                seen[key] = (min(old.lo, v), max(old.hi, v))
            }
        }
        return seen.values.map { $0.hi - $0.lo }.max() ?? 0
    }

    @Test(
        "strokes claimed on the real kernel: an L drawn with two fingers (claim = true) and one drawn after a 600 ms rest (hold-ms) each give the clone one touch down and a cancel, never an up, and nothing of the shape (within 2 mm of the landing); the rest is cancelled when it has lasted 600 ms; act runs each binding once"
    )
    func claimedStrokes() throws {
        let run = try Self.run()
        let ran = try Self.claimFile(run, "ran-strokes.out").split(separator: "\n").map(String.init)
        #expect(ran.sorted() == ["stroke-rest", "stroke-two"], "act ran \(ran)")
        var rested = 0.0
        for tag in ["stroketwo", "strokerest"] {
            let seen = Self.touches(try Self.claimFile(run, "libinput-claim-\(tag).out"))
            #expect(seen.down == 1 && seen.cancel == 1 && seen.up == 0, "\(tag): \(seen)")
            let read = Self.frames(try Self.claimFile(run, "read-claim-\(tag).evemu"))
            // 2 mm on the tablet panel (19 units a mm); the L is 40 mm by 25.
            #expect(Self.spread(read) <= 38, "\(tag): the clone's touches moved \(Self.spread(read)) units")
            let after = try Self.cancelledAfter(run, tag)
            if tag == "strokerest" {
                rested = after
                #expect(after >= 0.6, "the rest was cancelled \(after) s after the finger landed")
            }
        }
        print("kernel harness: a stroke after a rest was claimed \(Int(rested * 1000)) ms after the finger landed")
    }
}
