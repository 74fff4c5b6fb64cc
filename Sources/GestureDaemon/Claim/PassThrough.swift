internal import CLinux
package import GestureCore
package import Logging
import Synchronization
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The claimed touchscreens, served on a thread of their own: each frame a
/// device delivers is read, decided (`Claimer`) and written on to its
/// clone as it arrives, whatever the loop is doing. Nothing a client does
/// (a flood of costly requests, a thousand connections) can delay a touch
/// on its way to the compositor: the loop's work and the pass-through's
/// share nothing but two short queues (docs/security.md, "Pass-through
/// first").
///
/// The loop hands it devices and settings (`send`) and takes, when its
/// descriptor is readable, the frames read for the recognizer and what
/// happened to the devices (`take`). The thread owns the devices, their
/// descriptors, the grabs and the clones; the queues are the only state
/// both threads touch, each behind a lock held for a copy.
package final class PassThrough: Sendable {
    /// What the loop asks of it.
    package enum Command: Sendable {
        case add(ClaimedDevice)
        /// libinput saw the device go: stop reading it.
        case remove(GestureCore.DeviceID)
        /// What the clients at the screen claim on this device; `withdrawn`:
        /// because a client that claimed went (`Claimer.withdraw`).
        case claims(GestureCore.DeviceID, ClaimSet, withdrawn: Bool)
        case thresholds(GestureCore.DeviceID, GestureThresholds)
        case transform(GestureCore.DeviceID, ScreenTransform)
        /// Claiming turned off: cancel, let go once no finger is down, keep reading it.
        case release(GestureCore.DeviceID)
        /// Claiming turned on again for a device let go.
        case reclaim(GestureCore.DeviceID)
    }

    /// What it tells the loop, in the order it happened.
    package enum Notice: Sendable, Equatable {
        /// A frame of a claimed device, for the recognizer.
        case frame(TouchFrame)
        /// The device went away.
        case gone(GestureCore.DeviceID)
        /// The device could not be grabbed: libinput is to read it.
        case refused(GestureCore.DeviceID)
        /// It was let go (`release`), or claimed again (`reclaim`): whether it is claimed now.
        case claimed(GestureCore.DeviceID, Bool)
        /// Frames were dropped because the loop did not take them: the
        /// recognizer's picture of the device's touches has a gap.
        case lost(GestureCore.DeviceID)
        /// The virtual touchpad a claim asks for cannot be made (why), or
        /// can again (nil): its claims are left to the apps meanwhile.
        case touchpad(String?)

        package static func == (a: Notice, b: Notice) -> Bool {
            switch (a, b) {
            case (.frame(let x), .frame(let y)): x.device == y.device && x.time == y.time && x.contacts == y.contacts
            case (.gone(let x), .gone(let y)), (.refused(let x), .refused(let y)), (.lost(let x), .lost(let y)): x == y
            case (.claimed(let x, let p), .claimed(let y, let q)): x == y && p == q
            case (.touchpad(let x), .touchpad(let y)): x == y
            default: false
            }
        }
    }

    /// The most frames waiting for the loop; beyond, frames are dropped
    /// (and `lost` said once) until it takes them.
    package static let maxWaiting = 4096
    /// The most events read from one device before the others' turn.
    package static let readBudget = 512

    private struct Queues: ~Copyable {
        var commands: [Command] = []
        var notices: [Notice] = []
        var waitingFrames = 0
        /// Devices whose frames were dropped since the loop last took them.
        var lost: [GestureCore.DeviceID] = []
        var stopping = false
    }

    private let queues = Mutex(Queues())
    /// Written by the loop to wake the thread; by the thread to wake the loop.
    private let wake: Int32
    /// The loop's: readable when notices wait.
    package let fd: Int32
    private let logger: Logger
    private let started = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)
    /// Makes the virtual touchpad (uinput; in tests a pipe), on the thread, when a claim first asks for it.
    private let makeTouchpad: @Sendable () throws(SetupError) -> any UinputOutput

    /// How long after a failed making the touchpad is tried again.
    private let remakeTouchpad: Timestamp.Duration

    package init(
        logger: Logger, remakeTouchpad: Timestamp.Duration = TouchpadOutput.remakeInterval,
        makeTouchpad: @escaping @Sendable () throws(SetupError) -> any UinputOutput = TouchpadOutput.makeUinput
    ) throws(SetupError) {
        self.logger = logger
        self.makeTouchpad = makeTouchpad
        self.remakeTouchpad = remakeTouchpad
        wake = clinux_eventfd()
        fd = clinux_eventfd()
        guard wake >= 0, fd >= 0 else {
            let e = Errno.last
            if wake >= 0 { close(wake) }
            if fd >= 0 { close(fd) }
            throw SetupError("cannot make an eventfd for the claimed touchscreens", e)
        }
    }

    deinit {
        close(wake)
        close(fd)
    }

    /// Hands the thread a command (starting it with the first device).
    package func send(_ command: Command) {
        queues.withLock { $0.commands.append(command) }
        if case .add = command, !started.exchange(true, ordering: .acquiringAndReleasing) { start() }
        _ = clinux_eventfd_signal(wake)
    }

    /// Takes what the thread has told: frames into `events`, in order, the
    /// rest into `notices`. `scratch` is the caller's, kept from call to
    /// call: it and the thread's queue trade storage, so that taking
    /// allocates nothing.
    package func take(into events: TouchSourceEvents, notices: inout [Notice], scratch: inout [Notice]) {
        _ = clinux_eventfd_drain(fd)
        scratch.removeAll(keepingCapacity: true)
        queues.withLock {
            swap(&scratch, &$0.notices)
            $0.waitingFrames = 0
            for id in $0.lost { scratch.append(.lost(id)) }
            $0.lost.removeAll()
        }
        for n in scratch {
            if case .frame(let f) = n { events.frame(f) } else { notices.append(n) }
        }
        scratch.removeAll(keepingCapacity: true)
    }

    /// Stops the thread: every clone's touches cancelled, the grabs
    /// released and the clones destroyed; returns once it has ended.
    package func stop() {
        queues.withLock { $0.stopping = true }
        _ = clinux_eventfd_signal(wake)
        if let t = thread.withLock({ $0 }) {
            pthread_join(t, nil)
            thread.withLock { $0 = nil }
        }
    }

    private func start() {
        var t = pthread_t()
        let me = Unmanaged.passRetained(self).toOpaque()
        let r = pthread_create(
            &t, nil,
            { raw in
                let me = Unmanaged<PassThrough>.fromOpaque(raw!).takeRetainedValue()
                me.run()
                return nil
            }, me)
        if r == 0 {
            thread.withLock { $0 = t }
        } else {
            Unmanaged<PassThrough>.fromOpaque(me).release()
            logger.error("cannot start the thread of the claimed touchscreens: \(Errno(rawValue: r)); they are not read")
        }
    }

    // MARK: The thread

    /// The thread's loop: wait for a device, a command or a held touch's
    /// deadline; read each ready device (at most `readBudget` events, so
    /// that a flooding device leaves room for the others and for
    /// commands); hand the frames to the loop.
    private func run() {
        let epoll = clinux_epoll_create()
        guard epoll >= 0 else {
            logger.error("the claimed touchscreens' thread cannot make an epoll set: \(Errno.last)")
            return
        }
        defer { close(epoll) }
        _ = clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_ADD), wake, UInt32(CLINUX_EPOLLIN), 0)
        var devices: [ClaimedDevice] = []
        let touchpad = TouchpadOutput(logger: logger, remakeInterval: remakeTouchpad, make: makeTouchpad)
        var frames: [TouchFrame] = []
        frames.reserveCapacity(64)
        var notices: [Notice] = []
        notices.reserveCapacity(64)
        var commands: [Command] = []
        var tokens = [UInt64](repeating: 0, count: 16)
        var events = [UInt32](repeating: 0, count: 16)
        while true {
            var due = touchpad.deadline
            for d in devices { due = min(due, d.deadline) }
            let timeout: Int64 = due == .never ? -1 : max(0, (due - monotonicNow()).microseconds)
            let n = clinux_epoll_wait_usec(epoll, &tokens, &events, Int32(tokens.count), timeout)
            let now = monotonicNow()
            var stopping = false
            queues.withLock {
                swap(&commands, &$0.commands)
                stopping = $0.stopping
            }
            _ = clinux_eventfd_drain(wake)
            if stopping {
                for d in devices { d.release(at: now) }
                devices.removeAll()
                return
            }
            for c in commands { apply(c, to: &devices, touchpad: touchpad, epoll: epoll, at: now, notices: &notices) }
            commands.removeAll(keepingCapacity: true)
            for i in 0..<max(0, Int(n)) where tokens[i] != 0 {
                guard let k = devices.firstIndex(where: { UInt64($0.id.rawValue) == tokens[i] }) else { continue }
                let d = devices[k]
                let end = d.read(budget: Self.readBudget, into: &frames)
                for f in frames { notices.append(.frame(f)) }
                frames.removeAll(keepingCapacity: true)
                if end == .gone {
                    logger.notice("\(d.name): gone")
                    d.leaveTouchpad(at: now)
                    _ = clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_DEL), d.fd, 0, 0)
                    devices.remove(at: k)
                    notices.append(.gone(d.id))
                }
            }
            for d in devices where now >= d.deadline { d.advance(to: now) }
            touchpad.advance(to: now)
            if touchpad.takeChange() { notices.append(.touchpad(touchpad.problem)) }
            if !notices.isEmpty {
                deliver(&notices)
                _ = clinux_eventfd_signal(fd)
            }
        }
    }

    private func apply(
        _ command: Command, to devices: inout [ClaimedDevice], touchpad: TouchpadOutput, epoll: Int32, at now: Timestamp,
        notices: inout [Notice]
    ) {
        func device(_ id: GestureCore.DeviceID) -> ClaimedDevice? { devices.first { $0.id == id } }
        switch command {
        case .add(let d):
            if d.grabRefused {
                notices.append(.refused(d.id))
            } else if clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_ADD), d.fd, UInt32(CLINUX_EPOLLIN), UInt64(d.id.rawValue))
                != 0
            {
                logger.warning("\(d.name): cannot watch \(d.path): \(Errno.last); not claimed")
                notices.append(.refused(d.id))
            } else {
                d.touchpad = touchpad
                devices.append(d)
            }
        case .remove(let id):
            if let k = devices.firstIndex(where: { $0.id == id }) {
                _ = clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_DEL), devices[k].fd, 0, 0)
                devices[k].leaveTouchpad(at: now)
                devices.remove(at: k)
            }
        case .claims(let id, let c, let withdrawn):
            device(id)?.set(claims: c, withdrawn: withdrawn)
        case .thresholds(let id, let t):
            device(id)?.set(thresholds: t)
        case .transform(let id, let t):
            device(id)?.set(transform: t)
        case .release(let id):
            guard let d = device(id) else { return }
            logger.notice("\(d.name): no longer claimed; let go once no finger is down")
            d.release(at: now)
            notices.append(.claimed(id, false))
        case .reclaim(let id):
            guard let d = device(id) else { return }
            if let why = d.reclaim() {
                logger.warning("\(d.name): not claimed again: \(why)")
            } else {
                notices.append(.claimed(id, true))
            }
        }
    }

    /// Hands the thread's notices to the loop: frames up to `maxWaiting`
    /// waiting, the rest of a device's frames dropped (said once, `lost`),
    /// every other notice always.
    private func deliver(_ notices: inout [Notice]) {
        queues.withLock { q in
            for n in notices {
                if case .frame(let f) = n {
                    guard q.waitingFrames < Self.maxWaiting else {
                        if !q.lost.contains(f.device) { q.lost.append(f.device) }
                        continue
                    }
                    q.waitingFrames += 1
                }
                q.notices.append(n)
            }
        }
        notices.removeAll(keepingCapacity: true)
    }
}
