internal import CEvdev
import CLinux
package import GestureCore
package import Logging
import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A touchscreen the daemon claims (`claim = true` in its `[[device]]`
/// section; docs/claiming.md): read here, raw, instead of through
/// libinput; its frames go to the recognizer, and through the `Claimer` to
/// a clone made with uinput, which the compositor reads instead.
///
/// The clone is made first (the compositor meets it idle); the device is
/// grabbed (`EVIOCGRAB`) only while no finger is down on it, so that the
/// compositor never keeps a touch it will not see end. Until then, and
/// after a grab fails, the compositor reads the device itself and nothing
/// is written to the clone. Closing the descriptors (at exit, a crash,
/// `kill -9`) releases the grab and destroys the clone: the kernel does
/// both.
///
/// A device let go (claiming turned off) is still read here, ungrabbed and
/// without a clone, for as long as it is there: libinput, which read
/// nothing of it meanwhile, would misread the next touch of a slot whose
/// values changed while it was not looking.
///
/// Made on the loop's thread, then owned by the pass-through's alone
/// (`PassThrough`): never touched by two threads.
package final class ClaimedDevice: @unchecked Sendable {
    package let id: GestureCore.DeviceID
    package let path: String
    package let name: String
    private let input: any ClaimedInput
    private var clone: (any UinputOutput)?
    /// Makes a clone again when claiming is turned on again (nil: it cannot).
    private let makeClone: (() throws(SetupError) -> any UinputOutput)?
    package private(set) var grabbed = false
    /// A grab failed for a reason waiting will not change (another program holds one).
    package private(set) var grabRefused = false
    /// The device as its other readers last read it: its state when it was grabbed.
    private var beforeGrab: DeviceState?
    /// Giving the device back as it was could not be done, said once.
    private var saidNoRestore = false
    private var assembler: TouchAssembler
    package private(set) var claimer: Claimer
    private let logger: Logger
    /// The events of the frame being read, up to its `SYN_REPORT`.
    private var pending: [RawEvent] = []
    /// The frame being read follows a `SYN_DROPPED`.
    private var resynchronized = false
    /// Asked to let the device go once no finger is down.
    package private(set) var releasing = false
    /// One frame's events as the kernel takes them, kept to be filled again.
    private var writeBuffer: [input_event] = []
    /// Writes to the clone failed, and since when (said a few times a minute).
    private var writesFailing = false
    private var writeWarnings = RepeatLimiter(burst: 3, window: .milliseconds(60_000))
    /// The kernel dropped events the daemon had not read (said a few times a minute).
    private var dropWarnings = RepeatLimiter(burst: 3, window: .milliseconds(60_000))
    /// The virtual touchpad claimed sequences may go to (the pass-through's, shared), and this device's fingers on it.
    package var touchpad: TouchpadOutput? {
        didSet { applyClaims(at: monotonicNow()) }
    }
    /// What the clients claim on it; the claimer takes it whole while the
    /// pad its touchpad entries need is there, and without them otherwise
    /// (`ClaimSet.withoutTouchpad`: never take what cannot be delivered).
    private var wanted: ClaimSet
    /// The claimer goes without the touchpad entries that are wanted.
    private var padWithheld = false
    private var padFingers = TouchpadFingers()
    /// A write to the touchpad failed in this sequence: the rest of it goes to the clone's side only.
    private var padAbandoned = false

    /// The suffix of every clone's name: the daemon never reads, claims or
    /// clones a device that has it.
    package static let cloneSuffix = " (gestured)"

    /// Why `description` (of the device at `path`) cannot be claimed, or nil.
    package static func refusal(_ d: DeviceDescription, path: String) -> String? {
        let keys = d.codes[Evdev.EV_KEY] ?? []
        if !d.hasSlots { return "it does not report touches in slots (multitouch protocol B)" }
        if d.slotCount > DeviceState.maxSlots { return "it has \(d.slotCount) slots, more than \(DeviceState.maxSlots)" }
        if keys.contains(Evdev.BTN_TOOL_PEN) { return "it reports a pen (BTN_TOOL_PEN), and a pen is never claimed" }
        if d.name.hasSuffix(cloneSuffix) { return "it is a clone gestured made" }
        return nil
    }

    /// Opens the touchscreen at `path` with libevdev, checks it can be
    /// claimed, makes its clone through uinput and grabs it if no finger is down.
    package static func open(
        id: GestureCore.DeviceID, path: String, geometry: PanelGeometry, thresholds: GestureThresholds, claims: ClaimSet,
        logger: Logger
    ) throws(SetupError) -> ClaimedDevice {
        let input = try EvdevClaimedInput(path: path)
        let name = input.name
        if let why = EvdevDevice.notTouchscreenReason(input.description) ?? refusal(input.description, path: path) {
            throw SetupError("\(path) (\(name)) is not claimed: \(why)")
        }
        let clone = try input.makeClone(path: path)
        return ClaimedDevice(
            id: id, path: path, input: input, clone: clone,
            makeClone: { () throws(SetupError) in try input.makeClone(path: path) },
            geometry: geometry, thresholds: thresholds, claims: claims, logger: logger)
    }

    /// A claimed device reading `input` and writing `clone`; grabbed at
    /// once if no finger is down.
    package init(
        id: GestureCore.DeviceID, path: String, input: any ClaimedInput, clone: any UinputOutput,
        makeClone: (() throws(SetupError) -> any UinputOutput)? = nil, geometry: PanelGeometry,
        thresholds: GestureThresholds, claims: ClaimSet, logger: Logger
    ) {
        self.id = id
        self.path = path
        self.input = input
        self.clone = clone
        self.makeClone = makeClone
        self.logger = logger
        let d = input.description
        name = d.name
        // The size and calibration libinput's side found, on the device's own axes.
        var raw = geometry
        if let axes = d.positionAxes {
            (raw.minX, raw.maxX, raw.minY, raw.maxY) = (axes.x.minimum, axes.x.maximum, axes.y.minimum, axes.y.maximum)
        }
        assembler = TouchAssembler(description: d, geometry: raw, device: id, file: path)
        claimer = Claimer(
            width: geometry.screenWidth, height: geometry.screenHeight, thresholds: thresholds,
            device: input.state(fresh: false), clone: input.state(fresh: true))
        wanted = claims
        padWithheld = !claims.touchpad.isEmpty
        claimer.claims = padWithheld ? claims.withoutTouchpad : claims
        pending.reserveCapacity(64)
        writeBuffer.reserveCapacity(64)
        logger.notice("\(name): claimed, through its clone \(clone.path ?? "(no node yet)")")
        tryGrab()
    }

    deinit {
        if grabbed { input.ungrab() }
    }

    /// The device's descriptor, for the pass-through's wait.
    package var fd: Int32 { input.fd }

    /// Whether it is claimed now (it has a clone), rather than let go.
    package var isClaimed: Bool { clone != nil }

    /// Grabs the device if it is claimed, no finger is down on it and it is not grabbed.
    private func tryGrab() {
        guard clone != nil, !grabbed, !grabRefused, !releasing, !claimer.source.anyTouch else { return }
        if let e = input.grab() {
            grabRefused = true
            let why = e == .resourceBusy ? "another program holds a grab on it" : "\(e)"
            logger.warning("\(name): cannot grab \(path) (\(why)): not claimed; it is read as any other")
        } else {
            grabbed = true
            beforeGrab = input.state(fresh: false)
            logger.info("\(name): grabbed; its frames reach the compositor through the clone")
        }
    }

    /// How reading ended.
    package enum ReadEnd {
        /// Nothing more waits.
        case drained
        /// `budget` events were read; more may wait.
        case budgetSpent
        /// The device went away.
        case gone
    }

    /// Reads at most `budget` events: each finished frame goes to the clone
    /// (as the claimer says) and its touches to `frames`.
    package func read(budget: Int, into frames: inout [TouchFrame]) -> ReadEnd {
        for _ in 0..<budget {
            switch input.next() {
            case .event(let e, let time):
                take(e, at: time, into: &frames)
            case .dropped:
                resynchronized = true
                pending.removeAll(keepingCapacity: true)
            case .resynchronizing(let e, let time):
                take(e, at: time, into: &frames)
            case .empty:
                return .drained
            case .gone:
                return .gone
            }
        }
        return .budgetSpent
    }

    private func take(_ e: RawEvent, at time: Timestamp, into frames: inout [TouchFrame]) {
        let isReport = e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT
        if e.type != Evdev.EV_SYN { pending.append(e) }
        var frame: TouchFrame?
        do {
            frame = try assembler.feed(EvdevEvent(time: time, type: e.type, code: e.code, value: e.value))
        } catch {
            logger.warning("\(name): \(error)")
        }
        if let frame { frames.append(frame) }
        guard isReport else { return }
        let touches = frame ?? TouchFrame(device: id, time: time)
        // A sequence beginning while the pad is wanted and missing tries to make it again first.
        if padWithheld && !claimer.anyDown && !touches.isEmpty { applyClaims(at: monotonicNow()) }
        if grabbed {
            if resynchronized {
                let (name, down) = (self.name, claimer.anyDown)
                dropWarnings.note(now: time, logger) {
                    "\(name): the kernel dropped events the daemon had not read in time (SYN_DROPPED: the machine did not run it for a while)"
                        + (down ? "; the touches under way are cancelled on the clone" : "")
                }
            }
            claimer.process(pending, at: time, touches: touches, resynchronized: resynchronized)
            write(at: time)
        } else {
            claimer.observe(pending, at: time, touches: touches)
            if !claimer.anyDown { tryGrab() }
        }
        followOnTouchpad(touches, at: time)
        pending.removeAll(keepingCapacity: true)
        resynchronized = false
        if releasing && !claimer.anyDown { letGo() }
    }

    /// Time passed: a held-back touch goes on, a cancel owed is tried again.
    package func advance(to now: Timestamp) {
        claimer.advance(to: now)
        if grabbed { write(at: now) }
    }

    /// When `advance` must be called (`.never`: nothing waits).
    package var deadline: Timestamp { grabbed ? claimer.deadline : .never }

    /// What is claimed changed (clients came, went or subscribed again);
    /// `withdrawn`: a client that claimed went.
    package func set(claims: ClaimSet, withdrawn: Bool = false) {
        wanted = claims
        applyClaims(at: monotonicNow(), withdrawn: withdrawn)
    }

    /// Gives the claimer what is wanted, making the virtual touchpad first
    /// if a claim asks for it; while the pad cannot be made, the counts
    /// only touchpad entries claim are not claimed.
    private func applyClaims(at now: Timestamp, withdrawn: Bool = false) {
        let padReady = wanted.touchpad.isEmpty || touchpad?.prepare(now: now) == true
        padWithheld = !padReady
        let claims = padReady ? wanted : wanted.withoutTouchpad
        if withdrawn { claimer.withdraw(to: claims) } else if claimer.claims != claims { claimer.claims = claims }
    }

    /// The fingers of a sequence claimed for the touchpad go on to it, as
    /// they move; they lift when it ends, or when claiming does. Screen
    /// positions are followed while some claim asks for the touchpad, so
    /// that every finger already down lands on the pad with the claimed one.
    private func followOnTouchpad(_ touches: TouchFrame, at time: Timestamp) {
        guard let touchpad, !claimer.claims.touchpad.isEmpty || padFingers.isDown else { return }
        let active = claimer.toTouchpad && touchpad.available(to: id) && !padAbandoned
        padFingers.follow(
            touches, active: active, transform: claimer.transform, width: claimer.width, height: claimer.height)
        if !touchpad.write(padFingers.output, at: time, from: id, down: padFingers.isDown) {
            // The pad lifts what it has once writing works; this sequence is over there.
            padFingers.lift()
            padAbandoned = true
        }
        if padAbandoned && !claimer.anyDown { padAbandoned = false }
    }

    /// Lifts whatever this device has on the touchpad (claiming ends, the device goes).
    package func leaveTouchpad(at time: Timestamp) {
        guard let touchpad, padFingers.isDown else { return }
        padFingers.lift()
        _ = touchpad.write(padFingers.output, at: time, from: id, down: false)
    }

    package func set(thresholds: GestureThresholds) { claimer.set(thresholds: thresholds) }

    /// How the picture is turned: the edges claimed are the picture's.
    package func set(transform: ScreenTransform) { claimer.transform = transform }

    /// Lets the device go back to the compositor: at once if no finger is
    /// down, else once the last lifts (a grab ended mid-touch would leave
    /// the compositor a touch that never ends). Whatever the clone has down
    /// is cancelled first; the clone goes once the device is let go.
    package func release(at now: Timestamp) {
        guard clone != nil else { return }
        releasing = true
        if grabbed {
            claimer.cancelAll(at: now)
            write(at: now)
        }
        leaveTouchpad(at: now)
        if !claimer.anyDown { letGo() }
    }

    /// Claims it again (a reload turned claiming back on): a new clone, and
    /// the grab once no finger is down. Why not, if it cannot.
    package func reclaim() -> String? {
        releasing = false
        guard clone == nil else { return nil }
        guard let makeClone else { return "its clone cannot be made again" }
        do {
            let c = try makeClone()
            clone = c
            // A new clone has every slot empty and no key down.
            claimer.newClone(input.state(fresh: true))
            logger.notice("\(name): claimed again, through its clone \(c.path ?? "(no node yet)")")
            tryGrab()
            return nil
        } catch {
            return error.description
        }
    }

    private func letGo() {
        releasing = false
        if grabbed {
            giveBack()
            input.ungrab()
            grabbed = false
        }
        clone = nil
        logger.info("\(name): let go; the compositor reads it again")
    }

    /// Makes the device's state what its other readers (the compositor's
    /// libinput) last read of it before the grab, while it is still
    /// grabbed: the kernel names a slot or a value only when it changes,
    /// so a reader that missed the claimed touches would otherwise take the
    /// next touch's first values for another slot's ("double tracking ID").
    private func giveBack() {
        guard let before = beforeGrab, !claimer.anyDown else { return }
        beforeGrab = nil
        if let e = input.restore(before), !saidNoRestore {
            saidNoRestore = true
            logger.warning(
                "\(name): cannot give the compositor back the device's state (\(e)): it may misread its next touch; 74-gestured.rules gives the daemon write access to claimed touchscreens"
            )
        }
    }

    /// Writes the claimer's output to the clone, one `write` per frame,
    /// each event with its frame's own time (uinput keeps a time that is
    /// not in the future and at most 10 s old). A write that fails leaves
    /// the clone's touches to be cancelled when writing works again.
    private func write(at now: Timestamp) {
        let out = claimer.output
        guard let clone, !out.isEmpty else { return }
        var written = 0
        var failure: Errno?
        for i in 0..<out.count {
            let f = out[i]
            let t = timeval(tv_sec: Int(f.time.microseconds / 1_000_000), tv_usec: Int(f.time.microseconds % 1_000_000))
            writeBuffer.removeAll(keepingCapacity: true)
            for e in f.events { writeBuffer.append(input_event(time: t, type: e.type, code: e.code, value: e.value)) }
            if let e = writeBuffer.withUnsafeBufferPointer({ clone.write($0) }) {
                failure = e
                break
            }
            written += 1
        }
        if let failure {
            claimer.written(written, at: now)
            writesFailing = true
            let name = self.name
            writeWarnings.note(now: now, logger) {
                "\(name): writing to the clone failed (\(failure)); its touches are cancelled once writing works again"
            }
        } else if writesFailing {
            writesFailing = false
            logger.notice("\(name): writing to the clone works again; the touches it had were cancelled")
        }
    }
}
