import Foundation
import Testing

/// The touchpad output on the real kernel (scripts/kernel-guest-claim.sh,
/// 2c; docs/claiming.md, "The touchpad output"): act binds a three-finger
/// swipe and pinch `touchpad = true`, a claimed touchscreen plays them, and
/// `libinput debug-events` reads the daemon's virtual touchpad as a
/// compositor would.
extension KernelTests {
    /// A gesture as `libinput debug-events` printed it: its finger count,
    /// its updates' unaccelerated motion, its last scale, and
    /// whether it ended cancelled.
    struct LibinputGesture {
        var kind: String
        var fingers: Int
        /// Each update's unaccelerated motion, x and y.
        var motions: [(x: Double, y: Double)] = []
        var updates: Int { motions.count }
        /// What its updates add up to.
        var dy: Double { motions.reduce(0) { $0 + $1.y } }
        var scale: Double?
        var ended = false
        var cancelled = false
    }

    /// Every `GESTURE_SWIPE_*` or `GESTURE_PINCH_*` gesture of a debug-events output.
    static func gestures(_ text: String) -> [LibinputGesture] {
        var out: [LibinputGesture] = []
        for line in text.split(separator: "\n") {
            let f = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard f.count >= 4, f[1].hasPrefix("GESTURE_") else { continue }
            let name = f[1].dropFirst("GESTURE_".count)
            guard let cut = name.lastIndex(of: "_") else { continue }
            let kind = String(name[..<cut])
            let phase = name[name.index(after: cut)...]
            let fingers = Int(f[3]) ?? 0
            switch phase {
            case "BEGIN":
                out.append(LibinputGesture(kind: kind, fingers: fingers))
            case "UPDATE":
                guard !out.isEmpty else { continue }
                // "3  0.00/-2.32 ( 0.00/-2.32 unaccelerated)  1.02 @  0.00"
                let rest = line.split(separator: "(", maxSplits: 1)
                guard rest.count == 2 else { continue }
                let unaccelerated = rest[1].split(separator: "u", maxSplits: 1)[0].split(separator: "/")
                if unaccelerated.count == 2, let x = Double(unaccelerated[0].trimmingCharacters(in: .whitespaces)),
                    let y = Double(unaccelerated[1].trimmingCharacters(in: .whitespaces))
                {
                    out[out.count - 1].motions.append((x, y))
                }
                let after = rest[1].split(separator: ")", maxSplits: 1)
                if after.count == 2, let s = Double(after[1].split(separator: "@")[0].trimmingCharacters(in: .whitespaces)) {
                    out[out.count - 1].scale = s
                }
            case "END":
                guard !out.isEmpty else { continue }
                out[out.count - 1].ended = true
                out[out.count - 1].cancelled = line.contains("cancelled")
            default: break
            }
        }
        return out
    }

    /// Where the centroid of the fingers was (mm) in each frame with
    /// `fingers` down, of the frames a player sent or a reader got on a panel
    /// of `size` mm over `units` on each axis.
    static func centroids(
        _ frames: [ReadFrame], fingers: Int, size: (Double, Double), units: (Double, Double)
    )
        -> [(x: Double, y: Double)]
    {
        var slot = 0
        var ids: [Int: Int] = [:]
        var x: [Int: Double] = [:]
        var y: [Int: Double] = [:]
        var out: [(x: Double, y: Double)] = []
        for frame in frames {
            for e in frame.events {
                let p = e.split(separator: " ")
                guard p.count == 3, p[0] == "0003", let v = Int(p[2]) else { continue }
                switch p[1] {
                case "002f": slot = v
                case "0039": ids[slot] = v >= 0 ? v : nil
                case "0035": x[slot] = Double(v) * size.0 / units.0
                case "0036": y[slot] = Double(v) * size.1 / units.1
                default: break
                }
            }
            let down = ids.keys.sorted()
            guard down.count == fingers else { continue }
            let n = Double(fingers)
            out.append((down.reduce(0.0) { $0 + (x[$1] ?? 0) } / n, down.reduce(0.0) { $0 + (y[$1] ?? 0) } / n))
        }
        return out
    }

    /// How far the centroid moved from the first of `c` to the last.
    static func motion(_ c: [(x: Double, y: Double)]) -> (dx: Double, dy: Double) {
        guard let first = c.first, let last = c.last else { return (0, 0) }
        return (last.x - first.x, last.y - first.y)
    }

    /// libinput's unaccelerated touchpad motion per mm of the pad: a
    /// 1000-dpi device's units (39.37 a mm), times its touchpad slowdown
    /// (0.2968) and the baseline of its unaccelerated filter (0.9), as
    /// libinput's filter-touchpad.c has them.
    static let libinputUnitsPerMM = 1000 / 25.4 * 0.2968 * 0.9

    /// The pad: 240 x 150 mm at 40 units a mm.
    static let pad = (size: (240.0, 150.0), units: (9600.0, 6000.0))

    @Test(
        "touchpad = true on the real kernel: libinput reads the virtual touchpad (tagged external) as a three-finger swipe whose updates are the pad's frames, mm for mm with the screen, ending whole, and as a three-finger pinch with its scale; the touchscreen's own touches are cancelled; in tablet mode, right after a key on an internal keyboard, the swipe still arrives whole"
    )
    func touchpadOutput() throws {
        let run = try Self.run()
        let act = run.files["claim-act-touchpad.log"] ?? ""
        #expect(act.contains("claiming 3 fingers (to the touchpad)"), "\(act)")
        let udev = try Self.claimFile(run, "touchpad-udev.out")
        #expect(
            udev.contains("ID_INPUT_TOUCHPAD=1") && udev.contains("ID_INPUT_TOUCHPAD_INTEGRATION=external"),
            "\(udev)\n\(run.files["claim-touchpad-udevtest.out"] ?? "")")
        // Devices made with uinput carry the phys udev rules match: the
        // pad's, and a clone's naming its touchscreen, whose properties
        // (here the output the touchscreen shows on) it then gets.
        let devices = try Self.claimFile(run, "touchpad-devices.out")
        #expect(devices.contains("Virtual touchpad (gestured) phys=gestured-touchpad\n"), "\(devices)")
        #expect(devices.contains("#claim-padswipe (gestured) phys=gestured-clone:event"), "\(devices)")
        let clone = try Self.claimFile(run, "clone-udev.out")
        #expect(clone.contains("E: WL_OUTPUT=DSI-1") && clone.contains("E: LIBINPUT_CALIBRATION_MATRIX=1 0 0 0 1 0"), "\(clone)")
        for tag in ["padswipe", "padmode"] {
            let li = try Self.claimFile(run, "touchpad-\(tag).out")
            let swipes = Self.gestures(li).filter { $0.kind == "SWIPE" }
            let swipe = try #require(swipes.first, "\(tag): libinput saw no swipe on the pad:\n\(li)")
            #expect(swipes.count == 1 && swipe.fingers == 3 && swipe.ended && !swipe.cancelled, "\(tag): \(swipes)")
            let sent = Self.frames(try Self.claimFile(run, "sent-claim-\(tag).evemu"))
            let padFrames = Self.frames(try Self.claimFile(run, "read-touchpad-\(tag).evemu"))
            // The kiosk recording: 476 x 268 mm over 0...32767 on both axes.
            let screen = Self.centroids(sent, fingers: 3, size: (476, 268), units: (32767, 32767))
            let pad = Self.centroids(padFrames, fingers: 3, size: Self.pad.size, units: Self.pad.units)
            let moved = Self.motion(screen)
            let onPad = Self.motion(pad)
            // One mm on the screen is one on the pad.
            #expect(
                abs(onPad.dy - moved.dy) <= 0.01 * abs(moved.dy) && abs(moved.dy) > 20,
                "\(tag): \(onPad) on the pad, \(moved) on the screen")
            // Once libinput has begun the swipe, each of its updates (after
            // the first, which sums what came while it decided) is one
            // frame of the pad, scaled by its units: matched in order. The
            // shipped quirk turns libinput's jump detection off for the pad,
            // so a burst of frames (uinput stamps events as written before
            // Linux 6.5, and a busy machine writes in bursts) loses nothing:
            // from the first frame matched on, the updates add up to the
            // fingers' motion within 5 %.
            let quirks = try Self.claimFile(run, "touchpad-quirks-\(tag).out")
            #expect(quirks.contains("ModelLenovoX1Gen6Touchpad=1"), "\(tag): the pad's quirks: \(quirks)")
            let deltas = (1..<pad.count).map { pad[$0].y - pad[$0 - 1].y }
            // `first`: the first pad frame matched; `from`: the update that matched it.
            let updates = swipe.motions.map { $0.y / Self.libinputUnitsPerMM }
            var (next, first, from, count) = (0, Int?.none, Int?.none, 0)
            for (i, u) in updates.enumerated().dropFirst() {
                guard let k = deltas[next...].firstIndex(where: { abs($0 - u) <= max(0.02 * abs($0), 0.05) }) else {
                    continue
                }
                (first, from) = (first ?? k, from ?? i)
                count += 1
                next = k + 1
            }
            let after = deltas[(first ?? deltas.count)...].reduce(0, +)
            let followed = updates[(from ?? updates.count)...].reduce(0, +)
            let all = swipe.dy / Self.libinputUnitsPerMM
            print(
                "touchpad \(tag): the fingers moved \(moved.dy) mm on the screen, \(onPad.dy) on the pad; libinput's \(swipe.updates) updates add up to \(all) mm (its start took \(moved.dy - all)); from the first that is a frame of the pad (\(count) are), \(followed) of the \(after) mm the pad moved since"
            )
            #expect(
                abs(after) > 20 && abs(followed - after) <= 0.05 * abs(after),
                "\(tag): libinput's updates add up to \(followed) mm where the pad moved \(after) (\(swipe.motions))")
            // The touchscreen's own touches: cancelled as in any claim.
            let own = Self.touches(try Self.claimFile(run, "libinput-claim-\(tag).out"))
            #expect(own.down == own.cancel && own.up == 0, "\(tag): \(own)")
        }
        // Three fingers spreading from their first frame (the guest's
        // spread-3f.kiosk.evemu): libinput tells a pinch from a swipe by
        // then, where a pinch that starts slowly is a swipe to it.
        let li = try Self.claimFile(run, "touchpad-padpinch.out")
        let pinches = Self.gestures(li).filter { $0.kind == "PINCH" }
        let pinch = try #require(pinches.first, "libinput saw no pinch on the pad:\n\(li)")
        print("touchpad pinch: \(pinches)")
        #expect(
            pinches.count == 1 && pinch.fingers == 3 && pinch.ended && !pinch.cancelled && (pinch.scale ?? 0) > 1.5,
            "\(pinches)\n\(li)")
    }
}
