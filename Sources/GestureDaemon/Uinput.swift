import CEvdev
import GestureCore
import Logging
import SystemPackage
import ToolSupport

/// A device the daemon makes through uinput: a name, the events `enable`
/// turns on, and nothing else.
final class UinputDevice {
    private let device: OpaquePointer
    private let uinput: OpaquePointer

    /// Makes it; the error names `what` it is and how the daemon gets
    /// write access to /dev/uinput.
    init(name: String, what: String, enable: (OpaquePointer) -> Void) throws(UinputError) {
        guard let dev = libevdev_new() else { throw UinputError(message: "libevdev_new failed") }
        libevdev_set_name(dev, name)
        enable(dev)
        var ui: OpaquePointer?
        let r = libevdev_uinput_create_from_device(dev, Int32(LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue), &ui)
        guard r == 0, let ui else {
            libevdev_free(dev)
            throw UinputError(
                message:
                    "the daemon cannot make its \(what) through /dev/uinput: \(Errno(rawValue: -r)). The service's user gets write access to it from the udev rule 75-gestured-uinput.rules, which the package and sudo make install put in place (after sudo make install: sudo udevadm trigger --sysname-match=uinput); a daemon you run yourself needs write access too"
            )
        }
        device = dev
        uinput = ui
    }

    deinit {
        libevdev_uinput_destroy(uinput)
        libevdev_free(device)
    }

    /// Writes one event; false if the kernel refused it.
    func write(_ type: UInt32, _ code: UInt32, _ value: Int32) -> Bool {
        libevdev_uinput_write_event(uinput, type, code, value) == 0
    }
}

package struct UinputError: Error, Sendable {
    package var message: String
}

/// A uinput device of the daemon's, as `OnDemand` makes it.
package protocol UinputMade: AnyObject {
    init() throws(UinputError)
    /// What it is, for the log: "the keyboard that types clients' keys (…)".
    static var made: String { get }
}

/// A uinput device made when a client first needs it, and tried again
/// 10 s after it could not be (the udev rule that gives access may come later).
struct OnDemand<Device: UinputMade> {
    private(set) var device: Device?
    /// Why it could not be made, and when that was tried.
    private var failure: (message: String, at: Timestamp)?
    let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Makes the device if there is none; why it cannot, if so.
    @discardableResult
    mutating func prepare(now: Timestamp) -> String? {
        if device != nil { return nil }
        if let f = failure, now - f.at < .milliseconds(10_000) { return f.message }
        do {
            device = try Device()
            failure = nil
            logger.info("made \(Device.made)")
            return nil
        } catch {
            failure = (error.message, now)
            logger.warning("\(error.message)")
            return error.message
        }
    }

    /// The error that answers a client's request for the device, if it may
    /// not have it now: its user is not at the screen (`why` says who is),
    /// its `bucket` has no token left this second, or there is no device
    /// (`noDevice`, the code). `done` says what the request would have
    /// done ("typed"), `units` what the bucket counts ("chords").
    mutating func refusal(
        atScreen: Bool, why: String, bucket: inout RateBucket, now: Timestamp, done: String, units: String,
        noDevice: String
    ) -> String? {
        guard atScreen else {
            return ServerMessage.error(code: "not-at-screen", message: "not \(done): \(why)", fatal: false)
        }
        guard bucket.take(now: now) else {
            return ServerMessage.error(
                code: "rate-limited", message: "not \(done): more than \(bucket.perSecond) \(units) in a second", fatal: false)
        }
        if let failure = prepare(now: now) { return ServerMessage.error(code: noDevice, message: failure, fatal: false) }
        return nil
    }
}
