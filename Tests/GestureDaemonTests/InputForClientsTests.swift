import CEvdev
import Foundation
import GestureCore
import GestureProtocol
import Logging
import SystemPackage
import Testing

@testable import GestureDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// The keys and clicks the daemon makes for clients, over pipes instead of
/// uinput: every refusal in its order, the rates per user, and clicks
/// written whole and spaced for libinput's debounce.
@Suite("Keys and clicks for clients")
struct InputForClientsTests {
    /// A device written to a pipe, each write with the time it came.
    final class Recorded: UinputOutput, @unchecked Sendable {
        var frames: [(at: Timestamp, events: [RawEvent])] = []
        var clock: () -> Timestamp
        init(clock: @escaping () -> Timestamp) { self.clock = clock }
        var path: String? { "pipe" }
        func write(_ events: UnsafeBufferPointer<input_event>) -> Errno? {
            frames.append((clock(), events.map { RawEvent($0.type, $0.code, $0.value) }))
            return nil
        }
    }

    static let logger = Logger(label: "input-test") { _ in SwiftLogNoOpLogHandler() }

    /// An `InputForClients` whose devices are recorded, at the time `now` says.
    static func input(_ now: @escaping () -> Timestamp) -> (InputForClients, keyboard: Recorded, pointer: Recorded) {
        let (k, p) = (Recorded(clock: now), Recorded(clock: now))
        let input = InputForClients(
            logger: logger, makeKeyboard: { () throws(UinputError) in VirtualKeyboard(k) },
            makePointer: { () throws(UinputError) in VirtualPointer(p) })
        return (input, k, p)
    }

    static func asker(_ serial: Int, uid: uid_t = 1000, atScreen: Bool = true) -> InputForClients.Asker {
        .init(serial: serial, uid: uid, label: "client \(serial)", atScreen: atScreen)
    }

    static func code(_ answer: String) -> String {
        (try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]).flatMap {
            $0["type"] as? String == "error" ? $0["code"] as? String : $0["type"] as? String
        } ?? answer
    }

    @Test("refusals in their order: locked, then not at the screen, then the rate, then the device")
    func refusals() throws {
        let now = Timestamp(microseconds: 1_000_000)
        var (input, keyboard, _) = Self.input { now }
        let chord = try Chord("alt+Left")
        #expect(Self.code(input.keys(chord, from: Self.asker(1), locked: true, why: "", now: now)) == "locked")
        #expect(
            Self.code(input.keys(chord, from: Self.asker(1, atScreen: false), locked: true, why: "", now: now)) == "not-at-screen"
        )
        #expect(Self.code(input.keys(chord, from: Self.asker(1), locked: false, why: "", now: now)) == "typed")
        #expect(keyboard.frames.count == 2, "the press and the release: \(keyboard.frames)")
        var broken = InputForClients(
            logger: Self.logger, makeKeyboard: { () throws(UinputError) in throw UinputError(message: "no uinput") })
        #expect(Self.code(broken.keys(chord, from: Self.asker(1), locked: false, why: "", now: now)) == "no-keyboard")
    }

    @Test("a user's chords and clicks are limited per user, however many connections it has; another user has its own")
    func ratePerUser() throws {
        let now = Timestamp(microseconds: 1_000_000)
        var (input, _, _) = Self.input { now }
        let chord = try Chord("ctrl+c")
        // 64 connections of one user, ten chords each, in one instant.
        var typed = 0
        for serial in 1...64 {
            for _ in 0..<10
            where Self.code(input.keys(chord, from: Self.asker(serial), locked: false, why: "", now: now)) == "typed" {
                typed += 1
            }
        }
        #expect(typed == InputForClients.keysPerSecond, "\(typed) chords typed for one user in an instant")
        #expect(Self.code(input.keys(chord, from: Self.asker(99, uid: 1001), locked: false, why: "", now: now)) == "typed")
        var clicks = 0
        for serial in 1...64 {
            let c = PointerClick(.left, x: 0.5, y: 0.5)!
            if input.click(c, from: Self.asker(serial), locked: false, why: "", now: now) == nil { clicks += 1 }
        }
        #expect(clicks == InputForClients.clicksPerSecond, "\(clicks) clicks taken for one user in an instant")
    }

    @Test(
        "clicks asked back to back: each pressed, released 20 ms later and answered clicked then, the next pressed 40 ms after that release; a client gone or no longer at the screen is not clicked for"
    )
    func clicksSpaced() {
        var now = Timestamp(microseconds: 1_000_000)
        var (input, _, pointer) = Self.input { now }
        for serial in 1...3 {
            #expect(
                input.click(PointerClick(.right, x: 0.25, y: 0.75)!, from: Self.asker(serial), locked: false, why: "", now: now)
                    == nil)
        }
        var answers: [(serial: Int, answer: String, at: Timestamp)] = []
        var gone: Set<Int> = []
        // The loop: advance whenever the deadline comes, as the server does.
        for _ in 0..<20 {
            guard input.deadline != .never else { break }
            now = max(now, input.deadline)
            if now >= Timestamp(microseconds: 1_000_000) + .milliseconds(30) { gone.insert(3) }
            for a in input.advance(now: now, check: { gone.contains($0) ? "gone" : nil }) {
                answers.append((a.serial, a.answer, now))
            }
        }
        let presses = pointer.frames.filter { $0.events.contains { $0.type == Evdev.EV_KEY && $0.value == 1 } }
        let releases = pointer.frames.filter { $0.events.contains { $0.type == Evdev.EV_KEY && $0.value == 0 } }
        #expect(presses.count == 2 && releases.count == 2, "\(pointer.frames)")
        for (p, r) in zip(presses, releases) { #expect(r.at - p.at >= InputForClients.clickHold) }
        if presses.count == 2 && releases.count == 2 {
            #expect(presses[1].at - releases[0].at >= InputForClients.clickGap)
        }
        // Each moves first, to the click's place.
        #expect(pointer.frames.first?.events.contains(RawEvent(Evdev.EV_ABS, 0, VirtualPointer.value(0.25))) == true)
        let clicked = answers.filter { Self.code($0.answer) == "clicked" }
        #expect(clicked.map(\.serial) == [1, 2], "\(answers)")
        for (c, r) in zip(clicked, releases) { #expect(c.at >= r.at, "answered before its release") }
        #expect(answers.contains { $0.serial == 3 && $0.answer == "gone" }, "\(answers)")
    }
}
