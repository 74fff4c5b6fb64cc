import GestureCore
import GestureProtocol
import Logging
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The keys and clicks the daemon makes for its clients (`keys`,
/// `pointer`): the keyboard and the pointer, each made when a client at
/// the screen first needs it (`OnDemand`), and every rule of who may have
/// them, answered here and nowhere else, in this order:
///
/// 1. while the session at the screen is locked, nothing (`locked`);
/// 2. only for a client whose user is at the screen (`not-at-screen`);
/// 3. at most `keysPerSecond` chords and `clicksPerSecond` clicks a second
///    for each user, however many connections the user has (`rate-limited`);
/// 4. a device to do it with (`no-keyboard`, `no-pointer`).
///
/// A chord is typed at once. A click is written whole before it is
/// answered `clicked`: the press, then the release `clickHold` later, and
/// the next click's press no sooner than `clickGap` after that release, so
/// that libinput, which takes a press and release closer than its
/// debounce windows (12 and 25 ms) for a bouncing switch, reports each
/// press and each release. Clicks asked for meanwhile wait their turn
/// (at most `clickQueueLimit`); each is checked again when its turn comes.
struct InputForClients {
    /// The most chords one user may have typed in a second (a burst of as
    /// many, then as many a second).
    static let keysPerSecond = 20
    /// The most clicks one user may have made in a second.
    static let clicksPerSecond = 5
    /// How long the pointer's button is held down.
    static let clickHold = Timestamp.Duration.milliseconds(20)
    /// How long after a release the next press may come.
    static let clickGap = Timestamp.Duration.milliseconds(40)
    /// The most clicks waiting for the pointer.
    static let clickQueueLimit = 8

    /// Who asks: a client's serial, its user, what the log calls it,
    /// whether its user is at the screen.
    struct Asker {
        var serial: Int
        var uid: uid_t
        var label: String
        var atScreen: Bool
    }

    private var keyboard: OnDemand<VirtualKeyboard>
    private var pointer: OnDemand<VirtualPointer>
    private var keyRates: [uid_t: RateBucket] = [:]
    private var clickRates: [uid_t: RateBucket] = [:]
    /// Clicks waiting for the pointer, and the one whose button is down.
    private var waiting: [(serial: Int, click: PointerClick)] = []
    private var pressed: (serial: Int, click: PointerClick, releaseAt: Timestamp)?
    private var nextPressAt = Timestamp.zero
    private let logger: Logger

    /// `makeKeyboard` and `makePointer` make the devices (through uinput;
    /// in tests over pipes).
    init(
        logger: Logger, makeKeyboard: @escaping () throws(UinputError) -> VirtualKeyboard = VirtualKeyboard.make,
        makePointer: @escaping () throws(UinputError) -> VirtualPointer = VirtualPointer.make
    ) {
        self.logger = logger
        keyboard = OnDemand(VirtualKeyboard.made, logger: logger, make: makeKeyboard)
        pointer = OnDemand(VirtualPointer.made, logger: logger, make: makePointer)
    }

    /// Makes the devices a client at the screen will use (its subscription's
    /// `keys` and `pointer`), so that the compositor has them before the first use.
    mutating func prepare(keys: Bool, pointer wantsPointer: Bool, now: Timestamp) {
        if keys { keyboard.prepare(now: now) }
        if wantsPointer { pointer.prepare(now: now) }
    }

    /// Why the keyboard and the pointer are not there (`OnDemand.problem`;
    /// `untried` for one never tried yet).
    func problems(untried: String?) -> (keyboard: String?, pointer: String?) {
        (keyboard.problem(untried: untried), pointer.problem(untried: untried))
    }

    /// The answer to `asker`'s `keys` request.
    mutating func keys(_ chord: Chord, from asker: Asker, locked: Bool, why: String, now: Timestamp) -> String {
        if let refused = refusal(.keys, asker, locked: locked, why: why, now: now, done: "\(chord.text) not typed") {
            return refused
        }
        guard keyboard.device!.type(chord) else {
            return ServerMessage.error(code: "no-keyboard", message: "the kernel refused the keys of \(chord.text)", fatal: false)
        }
        logger.debug("\(asker.label) typed \(chord.text)")
        return ServerMessage.typed(chord)
    }

    /// The answer to `asker`'s `pointer` request if it is refused; nil when
    /// the click waits for its turn, and is answered by `advance`.
    mutating func click(_ c: PointerClick, from asker: Asker, locked: Bool, why: String, now: Timestamp) -> String? {
        if let refused = refusal(.clicks, asker, locked: locked, why: why, now: now, done: "\(c.button.rawValue) click not made")
        {
            return refused
        }
        guard waiting.count < Self.clickQueueLimit else {
            return ServerMessage.error(
                code: "rate-limited",
                message: "\(c.button.rawValue) click not made: \(Self.clickQueueLimit) clicks wait for the pointer already",
                fatal: false)
        }
        waiting.append((asker.serial, c))
        logger.debug("\(asker.label) asked for a \(c.button.rawValue) click at \(c.x), \(c.y)")
        return nil
    }

    /// When `advance` has a release or a press to make (`.never`: none).
    var deadline: Timestamp {
        if let pressed { return pressed.releaseAt }
        return waiting.isEmpty ? .never : nextPressAt
    }

    /// Releases the button whose time came and presses the next click
    /// whose turn it is, if `check` (its client's serial: why it may not
    /// click now, or nil) lets it; the answers for the clients, by serial.
    mutating func advance(now: Timestamp, check: (Int) -> String?) -> [(serial: Int, answer: String)] {
        var answers: [(serial: Int, answer: String)] = []
        if let p = pressed, now >= p.releaseAt {
            pressed = nil
            nextPressAt = now + Self.clickGap
            let released = pointer.device?.release(p.click.button) ?? false
            answers.append(
                (
                    p.serial,
                    released
                        ? ServerMessage.clicked(p.click)
                        : ServerMessage.error(
                            code: "no-pointer", message: "the kernel refused the \(p.click.button.rawValue) release",
                            fatal: false)
                ))
        }
        while pressed == nil, !waiting.isEmpty, now >= nextPressAt {
            let (serial, c) = waiting.removeFirst()
            if let refused = check(serial) {
                answers.append((serial, refused))
                continue
            }
            guard let device = pointer.device, device.press(c) else {
                answers.append(
                    (
                        serial,
                        ServerMessage.error(
                            code: "no-pointer", message: "the kernel refused the \(c.button.rawValue) click", fatal: false)
                    ))
                continue
            }
            pressed = (serial, c, now + Self.clickHold)
        }
        return answers
    }

    /// A client went: its clicks that have not begun are dropped (one whose
    /// button is down is released in its time).
    mutating func forget(_ serial: Int) {
        waiting.removeAll { $0.serial == serial }
    }

    private enum Kind {
        case keys, clicks
    }

    /// The refusals of who asks: a client whose user is not at the screen
    /// (`why` says who is), and everyone while the session at the screen is
    /// locked. Checked when a request comes, and again when a click that
    /// waited gets its turn.
    static func standing(atScreen: Bool, locked: Bool, why: String, done: String) -> String? {
        if locked && atScreen {
            return ServerMessage.error(
                code: "locked", message: "\(done): the session at the screen is locked", fatal: false)
        }
        guard atScreen else {
            return ServerMessage.error(code: "not-at-screen", message: "\(done): \(why)", fatal: false)
        }
        return nil
    }

    /// The one place every refusal is decided (see the type's rules).
    private mutating func refusal(
        _ kind: Kind, _ asker: Asker, locked: Bool, why: String, now: Timestamp, done: String
    ) -> String? {
        if let refused = Self.standing(atScreen: asker.atScreen, locked: locked, why: why, done: done) {
            return refused
        }
        let (perSecond, units) = kind == .keys ? (Self.keysPerSecond, "chords") : (Self.clicksPerSecond, "clicks")
        var bucket = (kind == .keys ? keyRates : clickRates)[asker.uid] ?? RateBucket(perSecond: perSecond)
        let allowed = bucket.take(now: now)
        if kind == .keys { keyRates[asker.uid] = bucket } else { clickRates[asker.uid] = bucket }
        guard allowed else {
            return ServerMessage.error(
                code: "rate-limited", message: "\(done): more than \(perSecond) \(units) a second from uid \(asker.uid)",
                fatal: false)
        }
        let failure = kind == .keys ? keyboard.prepare(now: now) : pointer.prepare(now: now)
        if let failure {
            return ServerMessage.error(code: kind == .keys ? "no-keyboard" : "no-pointer", message: failure, fatal: false)
        }
        return nil
    }
}
