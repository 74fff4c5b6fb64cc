import GestureCore
import Testing

/// A claimed sequence as the virtual touchpad's fingers (`TouchpadFingers`;
/// docs/claiming.md, "The touchpad output"): the claimer decides which
/// sequences go there, the fingers follow the screen's mm for mm.
@Suite("The touchpad output")
struct TouchpadFingersTests {
    typealias C = ClaimerTests

    /// The pad as its frames leave it: each finger by tracking id, and the tool key down.
    struct Pad {
        var slot: Int32 = -1
        var ids = [Int32](repeating: -1, count: TouchpadFingers.slots)
        var x = [Int32](repeating: 0, count: TouchpadFingers.slots)
        var y = [Int32](repeating: 0, count: TouchpadFingers.slots)
        var keys: Set<UInt16> = []
        var frames = 0

        mutating func apply(_ events: [RawEvent]) {
            guard !events.isEmpty else { return }
            #expect(events.last == .report, "\(events)")
            frames += 1
            // The pad is shared: a frame selects its slot before writing one.
            slot = -1
            for e in events {
                let slotted = [Evdev.ABS_MT_TRACKING_ID, Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y].contains(e.code)
                if e.type == Evdev.EV_ABS && slotted && slot < 0 {
                    Issue.record("a slot's value before ABS_MT_SLOT in the frame: \(events)")
                    return
                }
                switch (e.type, e.code) {
                case (Evdev.EV_ABS, Evdev.ABS_MT_SLOT): slot = e.value
                case (Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID): ids[Int(slot)] = e.value
                case (Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X): x[Int(slot)] = e.value
                case (Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y): y[Int(slot)] = e.value
                case (Evdev.EV_KEY, _): if e.value != 0 { keys.insert(e.code) } else { keys.remove(e.code) }
                default: break
                }
            }
        }

        /// The fingers down, in mm from the pad's top-left corner, by slot.
        var fingers: [(x: Double, y: Double)] {
            (0..<TouchpadFingers.slots).filter { ids[$0] >= 0 }.map {
                (Double(x[$0]) / Double(TouchpadFingers.resolution), Double(y[$0]) / Double(TouchpadFingers.resolution))
            }
        }
    }

    /// A claimed device and its fingers on the pad.
    struct Bench {
        var device: C.Bench
        var fingers = TouchpadFingers()
        var pad = Pad()
        var transform = ScreenTransform.normal

        init(claims: ClaimSet) { device = C.Bench(claims: claims) }

        mutating func frame(_ events: [RawEvent]) {
            device.claimer.transform = transform
            device.frame(events)
            fingers.follow(
                device.touches, active: device.claimer.toTouchpad, transform: transform, width: device.claimer.width,
                height: device.claimer.height)
            pad.apply(fingers.output)
        }
    }

    /// Within the panel's unit (about 0.05 mm) and the pad's (0.025 mm).
    static func near(_ a: [(x: Double, y: Double)], _ b: [(x: Double, y: Double)]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0.x - $1.x) < 0.11 && abs($0.y - $1.y) < 0.11 }
    }

    /// `n` fingers landing in one frame, 15 mm apart along x from `x` (or along y with `column`), ids from `id`.
    static func land(_ n: Int, id: Int32, x: Double, y: Double, column: Bool = false) -> [RawEvent] {
        var events: [RawEvent] = []
        for k in 0..<n {
            let d = Double(k) * 15
            events += C.down(Int32(k), id: id + Int32(k), at: column ? x : x + d, column ? y + d : y)
        }
        return events + [C.touch]
    }

    /// The same fingers moved to `x`, `y` (and their spacing).
    static func move(_ n: Int, x: Double, y: Double, column: Bool = false) -> [RawEvent] {
        var events: [RawEvent] = []
        for k in 0..<n {
            let d = Double(k) * 15
            events += C.move(Int32(k), to: column ? x : x + d, column ? y + d : y)
        }
        return events
    }

    /// Every one of `n` fingers lifted.
    static func lift(_ n: Int) -> [RawEvent] {
        var events: [RawEvent] = []
        for k in 0..<n { events += C.up(Int32(k)) }
        return events + [C.release]
    }

    @Test(
        "three fingers claimed for the touchpad land on it together at the third, around its middle as they lie on the screen; they follow mm for mm and lift together"
    )
    func followsTheFingers() {
        var b = Bench(claims: ClaimSet(touchpad: [3]))
        let (cx, cy) = (TouchpadFingers.width / 2, TouchpadFingers.height / 2)
        b.frame(C.down(0, id: 1, at: 50, 60) + [C.touch])
        b.frame(C.down(1, id: 2, at: 70, 62))
        #expect(b.pad.frames == 0, "nothing reaches the pad before the sequence is claimed")
        b.frame(C.down(2, id: 3, at: 90, 64))
        #expect(b.device.claimer.toTouchpad)
        #expect(b.pad.frames == 1)
        #expect(b.pad.keys == [Evdev.BTN_TOUCH, Evdev.BTN_TOOL_TRIPLETAP], "\(b.pad.keys)")
        #expect(Self.near(b.pad.fingers, [(cx - 20, cy - 2), (cx, cy), (cx + 20, cy + 2)]), "\(b.pad.fingers)")
        for step in 1...5 {
            let dy = Double(step) * -6
            b.frame(C.move(0, to: 50, 60 + dy) + C.move(1, to: 70, 62 + dy) + C.move(2, to: 90, 64 + dy))
        }
        #expect(Self.near(b.pad.fingers, [(cx - 20, cy - 32), (cx, cy - 30), (cx + 20, cy - 28)]), "\(b.pad.fingers)")
        b.frame(C.up(0))
        #expect(b.pad.fingers.count == 2 && b.pad.keys == [Evdev.BTN_TOUCH, Evdev.BTN_TOOL_DOUBLETAP], "\(b.pad.keys)")
        b.frame(C.up(1) + C.up(2) + [C.release])
        #expect(b.pad.fingers.isEmpty && b.pad.keys.isEmpty && !b.fingers.isDown)
        #expect(!b.device.claimer.toTouchpad)
    }

    @Test("a count claimed but not for the touchpad, and a count nobody claims, never reach it; the next touchpad count does")
    func onlyItsCounts() {
        var b = Bench(claims: ClaimSet(fingers: [4], touchpad: [3]))
        #expect(b.device.claimer.claims.claims(fingers: 3) && b.device.claimer.claims.claims(fingers: 4))
        // Two fingers: passed on to the clone, never to the pad.
        b.frame(C.down(0, id: 1, at: 50, 60) + C.down(1, id: 2, at: 70, 60) + [C.touch])
        b.frame(C.up(0) + C.up(1) + [C.release])
        // Four at once: claimed, not for the pad.
        b.frame(Self.land(4, id: 10, x: 40, y: 60))
        #expect(b.device.claimer.state == .claimed && !b.device.claimer.toTouchpad)
        b.frame(Self.lift(4))
        #expect(b.pad.frames == 0)
        b.frame(Self.land(3, id: 20, x: 40, y: 60))
        #expect(b.pad.fingers.count == 3)
    }

    @Test("the pad moves as the picture: turned 90, a stroke toward the panel's left edge is one up the picture")
    func turnsWithThePicture() {
        var b = Bench(claims: ClaimSet(touchpad: [3]))
        b.transform = .rot90
        b.frame(Self.land(3, id: 1, x: 100, y: 40, column: true))
        let before = b.pad.fingers
        // Three fingers in a column on the panel lie in a row in the picture.
        #expect(Set(before.map(\.y)).count == 1 && Set(before.map(\.x)).count == 3, "\(before)")
        b.frame(Self.move(3, x: 90, y: 40, column: true))
        #expect(Self.near(b.pad.fingers, before.map { ($0.x, $0.y - 10) }), "\(before) → \(b.pad.fingers)")
    }

    @Test("a finger that would leave the pad stays a margin inside its edge; a sixth finger is left out")
    func keptOnThePad() {
        var b = Bench(claims: ClaimSet(touchpad: [5]))
        b.frame(Self.land(5, id: 1, x: 20, y: 60))
        #expect(b.pad.keys.contains(Evdev.BTN_TOOL_QUINTTAP))
        b.frame(C.move(0, to: 20, 1))
        b.frame(C.down(5, id: 9, at: 100, 100))
        #expect(b.pad.fingers.count == 5)
        for f in b.pad.fingers {
            #expect(f.x >= TouchpadFingers.margin && f.x <= TouchpadFingers.width - TouchpadFingers.margin)
            #expect(f.y >= TouchpadFingers.margin && f.y <= TouchpadFingers.height - TouchpadFingers.margin)
        }
    }

    @Test("claiming ends mid-sequence: every finger lifts from the pad")
    func cancelLifts() {
        var b = Bench(claims: ClaimSet(touchpad: [3]))
        b.frame(Self.land(3, id: 1, x: 40, y: 60))
        #expect(b.pad.fingers.count == 3)
        b.device.claimer.cancelAll(at: Timestamp(microseconds: b.device.time + 1000))
        #expect(!b.device.claimer.toTouchpad)
        b.frame(Self.move(3, x: 40, y: 50))
        #expect(b.pad.fingers.isEmpty && b.pad.keys.isEmpty)
    }
}
