import CEvdev
import Foundation
import GestureCore
import Harness
import Logging
import Synchronization
import SystemPackage
import Testing
import ToolSupport

@testable import GestureDaemon

/// The claimed touchscreens' thread (`PassThrough`) in the test process, its
/// device and clone played by pipes: a frame written to the device's pipe is
/// read, decided and written on to the clone's pipe by the thread alone.
@Suite("Pass-through first")
struct PassThroughTests {
    /// A touchscreen read from a pipe of `input_event`s, described as `description`.
    final class PipeInput: ClaimedInput {
        let fd: Int32
        let description: DeviceDescription

        init(fd: Int32, description: DeviceDescription) {
            self.fd = fd
            self.description = description
        }

        func next() -> ClaimedRead {
            var e = input_event()
            let n = withUnsafeMutableBytes(of: &e) { read(fd, $0.baseAddress, $0.count) }
            if n == MemoryLayout<input_event>.size {
                // What libevdev reports of the kernel's SYN_DROPPED; the
                // events after it stand for its difference.
                if e.type == Evdev.EV_SYN && e.code == Evdev.SYN_DROPPED { return .dropped }
                let time = Timestamp(microseconds: Int64(e.time.tv_sec) * 1_000_000 + Int64(e.time.tv_usec))
                return .event(RawEvent(e.type, e.code, e.value), time: time)
            }
            return n < 0 && errno == EAGAIN ? .empty : .gone
        }

        func grab() -> Errno? { nil }
        func ungrab() {}
        func state(fresh: Bool) -> DeviceState { DeviceState(description: description) }
        func restore(_ state: DeviceState) -> Errno? { nil }
    }

    /// A clone written to a pipe; while `failing`, every write fails.
    final class PipeClone: UinputOutput, @unchecked Sendable {
        let fd: Int32
        let failing = Atomic<Bool>(false)
        init(fd: Int32) { self.fd = fd }
        var path: String? { "pipe:\(fd)" }

        func write(_ events: UnsafeBufferPointer<input_event>) -> Errno? {
            if failing.load(ordering: .relaxed) { return .ioError }
            let n = Glibc.write(fd, events.baseAddress, events.count * MemoryLayout<input_event>.stride)
            return n < 0 ? Errno(rawValue: errno) : nil
        }
    }

    /// A switch the test turns and the thread reads.
    final class Flag: Sendable {
        let on = Atomic<Bool>(false)
    }

    /// A log that keeps its lines.
    final class Lines: LogHandler, @unchecked Sendable {
        let lock = NSLock()
        private var kept: [String] = []
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { nil }
            set {}
        }
        func log(event: LogEvent) { lock.withLock { kept.append(event.message.description) } }
        var lines: [String] { lock.withLock { kept } }
    }

    /// A device of the tablet recordings, claimed, its pipes and the thread.
    struct Rig {
        let passThrough: PassThrough
        let device: (read: Int32, write: Int32)
        let clone: (read: Int32, write: Int32)
        let pipeClone: PipeClone
        /// The virtual touchpad, a pipe too.
        let pad: (read: Int32, write: Int32)
        let padClone: PipeClone
        /// While on, the virtual touchpad cannot be made.
        let padRefused = Flag()
        let trace: Trace
        let lines = Lines()

        init(recording: String, claims: ClaimSet, padRefused: Bool = false) throws {
            trace = try EvemuReader.parse(
                try String(contentsOfFile: DaemonProcess.recording(recording), encoding: .utf8), file: recording)
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw ChannelError("pipe: \(errno)") }
            device = (fds[0], fds[1])
            guard pipe(&fds) == 0 else { throw ChannelError("pipe: \(errno)") }
            clone = (fds[0], fds[1])
            guard pipe(&fds) == 0 else { throw ChannelError("pipe: \(errno)") }
            pad = (fds[0], fds[1])
            for fd in [device.read, clone.read, pad.read] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
            // The clone's pipe holds a whole trace: nothing waits on its reader.
            // F_SETPIPE_SZ (1031), which Glibc's module does not name.
            _ = fcntl(clone.write, 1031, 1 << 20)
            _ = fcntl(pad.write, 1031, 1 << 20)
            let handler = lines
            let logger = Logger(label: "pass-through-test") { _ in handler }
            let padClone = PipeClone(fd: pad.write)
            self.padClone = padClone
            let refused = self.padRefused
            refused.on.store(padRefused, ordering: .relaxed)
            passThrough = try PassThrough(
                logger: logger, remakeTouchpad: .milliseconds(0),
                makeTouchpad: { () throws(SetupError) in
                    if refused.on.load(ordering: .relaxed) { throw SetupError("no /dev/uinput in this test") }
                    return padClone
                })
            pipeClone = PipeClone(fd: clone.write)
            let geometry = TouchAssembler.geometry(for: trace.device, size: nil, source: .resolution)!
            let claimed = ClaimedDevice(
                id: DeviceID(1), path: "pipe", input: PipeInput(fd: device.read, description: trace.device), clone: pipeClone,
                geometry: geometry, thresholds: .defaults, claims: claims, logger: logger)
            passThrough.send(.add(claimed))
        }

        func close() {
            passThrough.stop()
            for fd in [device.read, device.write, clone.read, clone.write, pad.read, pad.write] { Glibc.close(fd) }
        }

        /// Writes the trace's events to the device, now-stamped as a kernel would.
        func play(_ events: ArraySlice<EvdevEvent>) {
            let base = monotonicNow()
            let first = trace.events.first?.time ?? .zero
            for e in events {
                let t = base + (e.time - first)
                var ie = input_event(
                    time: timeval(tv_sec: Int(t.microseconds / 1_000_000), tv_usec: Int(t.microseconds % 1_000_000)),
                    type: e.type, code: e.code, value: e.value)
                _ = withUnsafeBytes(of: &ie) { write(device.write, $0.baseAddress, $0.count) }
            }
        }

        /// The clone's frames read within `timeout` s, until `count` came.
        func cloneFrames(_ count: Int, timeout: Double = 10) -> [[RawEvent]] { frames(clone.read, count, timeout: timeout) }

        /// The virtual touchpad's frames, as `cloneFrames`.
        func padFrames(_ count: Int, timeout: Double = 10) -> [[RawEvent]] { frames(pad.read, count, timeout: timeout) }

        private func frames(_ fd: Int32, _ count: Int, timeout: Double) -> [[RawEvent]] {
            var frames: [[RawEvent]] = []
            var current: [RawEvent] = []
            let end = Date().addingTimeInterval(timeout)
            while frames.count < count && Date() < end {
                var e = input_event()
                let n = withUnsafeMutableBytes(of: &e) { read(fd, $0.baseAddress, $0.count) }
                guard n == MemoryLayout<input_event>.size else {
                    usleep(1000)
                    continue
                }
                if e.type == 0 && e.code == 0 {
                    frames.append(current)
                    current = []
                } else {
                    current.append(RawEvent(e.type, e.code, e.value))
                }
            }
            return frames
        }
    }

    /// A trace's events as the frames a clone passing them on writes
    /// (each up to its `SYN_REPORT`, the report left out).
    static func frames(_ events: some Collection<EvdevEvent>) -> [[RawEvent]] {
        var frames: [[RawEvent]] = []
        var current: [RawEvent] = []
        for e in events {
            if e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT {
                frames.append(current)
                current = []
            } else if e.type != Evdev.EV_SYN {
                current.append(RawEvent(e.type, e.code, e.value))
            }
        }
        return frames
    }

    /// The frames of a trace's events (its `SYN_REPORT`s).
    static func frameCount(_ events: some Collection<EvdevEvent>) -> Int {
        events.count { $0.type == Evdev.EV_SYN && $0.code == Evdev.SYN_REPORT }
    }

    @Test(
        "with the loop never turning (nothing takes the recognizer's frames), every frame of a drag reaches the clone: passing a frame on waits for nothing the loop does"
    )
    func passesWithoutTheLoop() throws {
        let rig = try Rig(recording: "slow-drag-right.tablet.evemu", claims: ClaimSet(fingers: [3]))
        defer { rig.close() }
        let n = Self.frameCount(rig.trace.events)
        rig.play(rig.trace.events[...])
        let got = rig.cloneFrames(n)
        #expect(got.count == n, "the clone got \(got.count) of \(n) frames")
        // Event for event the device's own (SYN_REPORT aside).
        #expect(got == Self.frames(rig.trace.events))
        // And the recognizer's frames wait for the loop, every one. The
        // thread hands them over after writing them on, so the clone can
        // have a frame the loop has not been told of yet: the loop's
        // eventfd says when to take.
        let events = TouchSourceEvents()
        var notices: [PassThrough.Notice] = []
        var scratch: [PassThrough.Notice] = []
        let end = Date().addingTimeInterval(10)
        while events.count < n && Date() < end {
            var p = pollfd(fd: rig.passThrough.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 100)
            rig.passThrough.take(into: events, notices: &notices, scratch: &scratch)
        }
        #expect(events.count == n, "the loop was handed \(events.count) of \(n) frames")
        #expect(notices.isEmpty, "\(notices)")
    }

    @Test(
        "a loop that takes nothing for a long while: the clone still gets everything, the frames waiting for it stop at a bound, and the gap is said once"
    )
    func boundedForTheLoop() throws {
        let rig = try Rig(recording: "slow-drag-right.tablet.evemu", claims: ClaimSet(fingers: [3]))
        defer { rig.close() }
        let n = Self.frameCount(rig.trace.events)
        let rounds = PassThrough.maxWaiting / n + 2
        for _ in 0..<rounds {
            rig.play(rig.trace.events[...])
            #expect(rig.cloneFrames(n).count == n)
        }
        let events = TouchSourceEvents()
        var notices: [PassThrough.Notice] = []
        var scratch: [PassThrough.Notice] = []
        rig.passThrough.take(into: events, notices: &notices, scratch: &scratch)
        #expect(events.count == PassThrough.maxWaiting, "\(events.count) frames waited for the loop")
        #expect(notices == [.lost(DeviceID(1))])
        // Taken, the queue fills again from the next frame on.
        rig.play(rig.trace.events[...])
        #expect(rig.cloneFrames(n).count == n)
        notices.removeAll()
        rig.passThrough.take(into: events, notices: &notices, scratch: &scratch)
        #expect(notices.isEmpty)
    }

    /// Plays the two-finger pinch's first third (both fingers down and
    /// moving) and checks the clone got all of it: the pinch's events, the
    /// indices of its reports, and the last one played.
    static func pinchUnderWay(_ rig: Rig) -> (events: [EvdevEvent], reports: [Int], third: Int) {
        let events = rig.trace.events
        let reports = events.indices.filter { events[$0].type == Evdev.EV_SYN && events[$0].code == Evdev.SYN_REPORT }
        let third = reports[reports.count / 3]
        rig.play(events[...third])
        let before = rig.cloneFrames(reports.firstIndex(of: third)! + 1)
        #expect(before.count == reports.firstIndex(of: third)! + 1)
        return (events, reports, third)
    }

    /// The clone's next frames are libinput's cancel of the pinch's two
    /// touches (the palm on both slots, then each ended), and nothing of the
    /// rest of the pinch follows.
    static func expectPinchCancelled(_ rig: Rig) {
        let after = rig.cloneFrames(2, timeout: 5)
        let palm = RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_PALM)
        #expect(after.count == 2 && after[0].count { $0 == palm } == 2, "\(after)")
        #expect(after.count == 2 && after[1].count { $0 == RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1) } == 2)
        #expect(rig.cloneFrames(1, timeout: 0.5).isEmpty, "nothing of the rest of the pinch")
    }

    @Test(
        "writes to the clone fail in the middle of a pinch: once they work again the clone's touches are cancelled, nothing of the rest of the pinch follows, and the warning is said a few times, not once a frame"
    )
    func cloneWritesFail() throws {
        let rig = try Rig(recording: "pinch-close-2f.phone.evemu", claims: ClaimSet(fingers: [3]))
        defer { rig.close() }
        let (events, reports, third) = Self.pinchUnderWay(rig)
        rig.pipeClone.failing.store(true, ordering: .relaxed)
        let twoThirds = reports[2 * reports.count / 3]
        rig.play(events[(third + 1)...twoThirds])
        usleep(200_000)
        rig.pipeClone.failing.store(false, ordering: .relaxed)
        rig.play(events[(twoThirds + 1)...])
        Self.expectPinchCancelled(rig)
        let warnings = rig.lines.lines.filter { $0.contains("writing to the clone failed") }
        #expect((1...3).contains(warnings.count), "\(rig.lines.lines)")
        #expect(rig.lines.lines.contains { $0.contains("writing to the clone works again") })
    }

    @Test(
        "the kernel drops events (SYN_DROPPED) in the middle of an unclaimed pinch: the clone's touches are cancelled, nothing of the rest of the pinch follows, and the warning says why, a few times a minute"
    )
    func kernelDropped() throws {
        let rig = try Rig(recording: "pinch-close-2f.phone.evemu", claims: ClaimSet(fingers: [3]))
        defer { rig.close() }
        let (events, reports, third) = Self.pinchUnderWay(rig)
        #expect(!rig.lines.lines.contains { $0.contains("SYN_DROPPED") }, "\(rig.lines.lines)")
        // The kernel's buffer ran over: the rest of the pinch comes after the drop.
        let dropped = EvdevEvent(time: events[third].time, type: Evdev.EV_SYN, code: Evdev.SYN_DROPPED, value: 0)
        rig.play(([dropped] + events[(third + 1)...])[...])
        Self.expectPinchCancelled(rig)
        let said = rig.lines.lines.filter { $0.contains("SYN_DROPPED") }
        #expect(
            said.count == 1 && said[0].contains("the kernel dropped events the daemon had not read in time")
                && said[0].contains("the touches under way are cancelled on the clone"), "\(rig.lines.lines)")
        // Drops again and again: three warnings a minute at most.
        for _ in 0..<6 {
            rig.play(([dropped] + events)[...])
            _ = rig.cloneFrames(reports.count, timeout: 1)
        }
        let again = rig.lines.lines.filter { $0.contains("SYN_DROPPED") }
        #expect(again.count == 3, "\(again)")
    }

    @Test(
        "a three-finger pinch claimed for the touchpad: the touchpad gets all three fingers at once when the third lands, every movement, and each finger lifted as it lifts"
    )
    func toTheTouchpad() throws {
        let rig = try Rig(recording: "pinch-close-3f.tablet.evemu", claims: ClaimSet(touchpad: [3]))
        defer { rig.close() }
        rig.play(rig.trace.events[...])
        // The last frame lifts every finger: read until one does.
        var got: [[RawEvent]] = []
        let touch = RawEvent(Evdev.EV_KEY, Evdev.BTN_TOUCH, 0)
        let end = Date().addingTimeInterval(10)
        while !got.contains(where: { $0.contains(touch) }) && Date() < end { got += rig.padFrames(1, timeout: 0.5) }
        let ids = got.first?.filter { $0.type == Evdev.EV_ABS && $0.code == Evdev.ABS_MT_TRACKING_ID } ?? []
        #expect(ids.count == 3 && ids.allSatisfy { $0.value >= 0 }, "\(got.first ?? [])")
        #expect(got.first?.contains(RawEvent(Evdev.EV_KEY, Evdev.BTN_TOOL_TRIPLETAP, 1)) == true)
        #expect(got.count > 10, "the pinch moved the pad's fingers \(got.count - 2) times")
        let lifted = got.joined().filter { $0 == RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1) }
        #expect(lifted.count == 3 && got.last?.contains(touch) == true, "\(got.suffix(3))")
        #expect(rig.lines.lines.contains { $0.contains("made the virtual touchpad pipe:") }, "\(rig.lines.lines)")
        // The loop is told the pad is there.
        let told = Self.notices(rig) { $0.contains(.touchpad(nil)) }
        #expect(told.contains(.touchpad(nil)), "\(told)")
    }

    /// The notices the pass-through gives the loop within `timeout` s,
    /// until one `until` accepts; its frames dropped.
    static func notices(
        _ rig: Rig, timeout: Double = 10, until done: ([PassThrough.Notice]) -> Bool
    ) -> [PassThrough.Notice] {
        let events = TouchSourceEvents()
        var notices: [PassThrough.Notice] = []
        var scratch: [PassThrough.Notice] = []
        let end = Date().addingTimeInterval(timeout)
        while !done(notices) && Date() < end {
            var p = pollfd(fd: rig.passThrough.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 100)
            rig.passThrough.take(into: events, notices: &notices, scratch: &scratch)
        }
        return notices
    }

    @Test(
        "a three-finger pinch claimed for the touchpad while the touchpad cannot be made is not claimed: the clone passes every frame as it came, the loop is told why; once the pad can be made, the next pinch is claimed and goes to it"
    )
    func touchpadMissing() throws {
        let rig = try Rig(recording: "pinch-close-3f.tablet.evemu", claims: ClaimSet(touchpad: [3]), padRefused: true)
        defer { rig.close() }
        let events = rig.trace.events
        let n = Self.frameCount(events)
        rig.play(events[...])
        let got = rig.cloneFrames(n)
        #expect(got == Self.frames(events), "the clone got \(got.count) of \(n) frames, or not as they came")
        #expect(rig.padFrames(1, timeout: 0.3).isEmpty, "the pad got frames it could not have been made for")
        let told = Self.notices(rig) { $0.contains { if case .touchpad(.some) = $0 { true } else { false } } }
        let why = told.compactMap { if case .touchpad(let w) = $0 { w } else { nil } }.first
        #expect(why?.contains("no /dev/uinput in this test") == true, "\(told)")
        #expect(
            rig.lines.lines.contains { $0.contains("no /dev/uinput in this test") && $0.contains("left to the apps") },
            "\(rig.lines.lines)")
        // The pad can be made now: the next pinch's landing makes it and is claimed.
        rig.padRefused.on.store(false, ordering: .relaxed)
        rig.play(([EvdevEvent(time: events[0].time, type: Evdev.EV_ABS, code: Evdev.ABS_MT_SLOT, value: 0)] + events)[...])
        var pad: [[RawEvent]] = []
        let end = Date().addingTimeInterval(10)
        while !pad.contains(where: { $0.contains(RawEvent(Evdev.EV_KEY, Evdev.BTN_TOUCH, 0)) }) && Date() < end {
            pad += rig.padFrames(1, timeout: 0.5)
        }
        #expect(pad.first?.filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 }.count == 3, "\(pad.prefix(2))")
        let again = Self.notices(rig) { $0.contains(.touchpad(nil)) }
        #expect(again.contains(.touchpad(nil)), "\(again)")
    }

    @Test(
        "writes to the virtual touchpad fail while a claimed three-finger pinch lifts: once writing works, every slot of the pad is lifted, the rest of that sequence stays off it, and the warnings are a few"
    )
    func touchpadRecovers() throws {
        let rig = try Rig(recording: "pinch-close-3f.tablet.evemu", claims: ClaimSet(touchpad: [3]))
        defer { rig.close() }
        // Up to the middle of the pinch: its three fingers are on the pad.
        let events = rig.trace.events
        let half = events.count / 2
        rig.play(events[..<half])
        var got: [[RawEvent]] = []
        let end = Date().addingTimeInterval(10)
        while !got.contains(where: { $0.contains(RawEvent(Evdev.EV_KEY, Evdev.BTN_TOOL_TRIPLETAP, 1)) }) && Date() < end {
            got += rig.padFrames(1, timeout: 0.5)
        }
        #expect(got.joined().filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 }.count == 3, "\(got.prefix(2))")
        // What the pad has had so far, read; then the rest, lifts included,
        // while every write fails; then writing works.
        while !rig.padFrames(1, timeout: 0.3).isEmpty {}
        rig.padClone.failing.store(true, ordering: .relaxed)
        rig.play(events[half...])
        usleep(300_000)
        rig.padClone.failing.store(false, ordering: .relaxed)
        let lift = rig.padFrames(1, timeout: 2).first ?? []
        for slot in 0..<Int32(TouchpadFingers.slots) {
            #expect(lift.contains(RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, slot)), "\(lift)")
        }
        #expect(lift.filter { $0 == RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1) }.count == TouchpadFingers.slots)
        #expect(
            lift.contains(RawEvent(Evdev.EV_KEY, Evdev.BTN_TOUCH, 0))
                && lift.contains(RawEvent(Evdev.EV_KEY, Evdev.BTN_TOOL_TRIPLETAP, 0)))
        #expect(rig.padFrames(1, timeout: 0.5).isEmpty, "the pad got more of the sequence after the lift")
        let warnings = rig.lines.lines.filter { $0.contains("virtual touchpad") && $0.contains("fail") }
        #expect(!warnings.isEmpty && warnings.count <= 3, "\(warnings)")
        #expect(rig.lines.lines.contains { $0.contains("writing to the virtual touchpad works again") }, "\(rig.lines.lines)")
        // The next pinch goes to the pad whole (the recording starts in
        // slot 0, where the last pinch left slot 2 selected).
        rig.play(([EvdevEvent(time: events[0].time, type: Evdev.EV_ABS, code: Evdev.ABS_MT_SLOT, value: 0)] + events)[...])
        var again: [[RawEvent]] = []
        let end2 = Date().addingTimeInterval(10)
        while !again.contains(where: { $0.contains(RawEvent(Evdev.EV_KEY, Evdev.BTN_TOUCH, 0)) }) && Date() < end2 {
            again += rig.padFrames(1, timeout: 0.5)
        }
        #expect(
            again.first?.filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 }.count == 3,
            "\(again.prefix(2)) \(rig.lines.lines)")
    }

    @Test(
        "a one-finger hold claim whose client goes 200 ms after the landing: the hold reaches the clone whole, to its lift, with no cancel; a claim only changed meanwhile still takes it at its time"
    )
    func holdClaimEndsWithItsClient() throws {
        for withdrawn in [true, false] {
            let rig = try Rig(recording: "hold-1f.tablet.evemu", claims: ClaimSet(holds: [1: 800]))
            defer { rig.close() }
            let events = rig.trace.events
            let landed = try #require(events.first).time
            let split = try #require(events.firstIndex { $0.time - landed > .milliseconds(200) })
            rig.play(events[..<split])
            _ = rig.cloneFrames(Self.frameCount(events[..<split]), timeout: 3)
            rig.passThrough.send(.claims(DeviceID(1), ClaimSet(), withdrawn: withdrawn))
            usleep(100_000)
            rig.play(events[split...])
            var rest: [[RawEvent]] = []
            while let more = Optional(rig.cloneFrames(1, timeout: 1)), !more.isEmpty { rest += more }
            let palm = RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, 2)
            let lift = RawEvent(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
            let cancelled = rest.contains { $0.contains(palm) }
            let lifted = rest.contains { $0.contains(lift) }
            if withdrawn {
                #expect(!cancelled && lifted, "the hold of a client gone was taken: \(rest.suffix(3))")
            } else {
                #expect(cancelled, "a claim only changed no longer took the hold: \(rest.suffix(3))")
            }
        }
    }
}
