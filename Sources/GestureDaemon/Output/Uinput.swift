package import CEvdev
internal import CLinux
import GestureCore
import Logging
package import SystemPackage
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What a device the daemon makes is written through: uinput, or in tests
/// a pipe.
package protocol UinputOutput: AnyObject {
    /// The device's node, once udev made it.
    var path: String? { get }
    /// Writes one frame's events in one write; why not, if it failed.
    func write(_ events: UnsafeBufferPointer<input_event>) -> Errno?
}

extension UinputOutput {
    /// Writes `events` (a frame, ending with its report), stamped by the kernel.
    func write(_ events: [RawEvent]) -> Errno? {
        let frame = events.map { input_event(time: timeval(), type: $0.type, code: $0.code, value: $0.value) }
        return frame.withUnsafeBufferPointer { write($0) }
    }
}

/// A device the daemon makes through uinput: a claimed touchscreen's clone
/// (`Clone.swift`), the virtual touchpad (`Touchpad.swift`), the keyboard
/// and the pointer that type and click for clients (`Keyboard.swift`,
/// `Pointer.swift`). The one maker of them all: a libevdev description
/// with a name and the events it has, a `phys` that udev rules can match
/// (libevdev's own creation leaves it empty), libevdev's uinput creation.
/// Destroyed, and so gone from the compositor's view, when it goes or when
/// the process ends.
package final class UinputDevice: UinputOutput {
    private let device: OpaquePointer
    private let fd: Int32

    private init(_ device: OpaquePointer, fd: Int32) {
        self.device = device
        self.fd = fd
    }

    deinit {
        libevdev_uinput_destroy(device)
        Glibc.close(fd)
    }

    /// Makes the device `dev` describes, its `phys` set to `phys`.
    static func make(from dev: OpaquePointer, phys: String) -> Result<UinputDevice, Errno> {
        let fd = clinux_uinput_open(phys)
        guard fd >= 0 else { return .failure(Errno.last) }
        let kept = libevdev_get_phys(dev).map { String(cString: $0) }
        libevdev_set_phys(dev, nil)
        var ui: OpaquePointer?
        let r = libevdev_uinput_create_from_device(dev, fd, &ui)
        libevdev_set_phys(dev, kept)
        guard r == 0, let ui else {
            Glibc.close(fd)
            return .failure(Errno(rawValue: -r))
        }
        return .success(UinputDevice(ui, fd: fd))
    }

    /// Makes a device named `name` with the events `enable` turns on.
    static func make(name: String, phys: String, enable: (OpaquePointer) -> Void) -> Result<UinputDevice, Errno> {
        guard let dev = libevdev_new() else { return .failure(.noMemory) }
        defer { libevdev_free(dev) }
        libevdev_set_name(dev, name)
        enable(dev)
        return make(from: dev, phys: phys)
    }

    package var path: String? { libevdev_uinput_get_devnode(device).map { String(cString: $0) } }

    /// Writes one frame's events in one write; why not, if it failed.
    package func write(_ events: UnsafeBufferPointer<input_event>) -> Errno? {
        do {
            _ = try FileDescriptor(rawValue: fd).write(UnsafeRawBufferPointer(events))
            return nil
        } catch {
            return error as? Errno ?? .ioError
        }
    }

    /// What the daemon cannot do for want of /dev/uinput, said at start
    /// (nil: it opens for writing): every device it makes goes through it,
    /// so without it no touchscreen is claimed (a claim needs the clone the
    /// apps read meanwhile) and keys, clicks and the virtual touchpad are
    /// refused. Each is still tried when it is first needed, since the udev
    /// rule that gives access may come later.
    static func startCheck() -> String? {
        let fd = clinux_uinput_open(nil)
        guard fd < 0 else {
            Glibc.close(fd)
            return nil
        }
        let why = cannotMake(
            "a device (a claimed touchscreen's clone, its keyboard, its pointer, the virtual touchpad)", Errno.last)
        return
            "\(why). Until it can, no touchscreen is claimed and no key, click or virtual touchpad can be made; each is tried again when a client needs it"
    }

    /// Why `what` could not be made, and what gives the daemon /dev/uinput.
    static func cannotMake(_ what: String, _ e: Errno) -> String {
        switch e {
        case .noSuchFileOrDirectory, .operationNotSupportedByDevice:
            return
                "the daemon cannot make \(what): there is no /dev/uinput (\(e)); load the module: sudo modprobe uinput (and have it loaded at boot: echo uinput | sudo tee /etc/modules-load.d/uinput.conf)"
        case .tooManyOpenFiles, .tooManyOpenFilesInSystem:
            return
                "the daemon cannot make \(what): out of file descriptors (RLIMIT_NOFILE); lower max-clients in [daemon] or raise the limit"
        default:
            return
                "the daemon cannot make \(what) through /dev/uinput: \(e). The service's user gets write access to it from the udev rule 75-gestured-uinput.rules, which the package and sudo make install put in place (after sudo make install: sudo udevadm trigger --sysname-match=uinput); a daemon you run yourself needs write access too"
        }
    }
}

package struct UinputError: Error, Sendable {
    package var message: String
}

/// A device the daemon makes when a client first needs it (the keyboard,
/// the pointer), and tries again 10 s after it could not (the udev rule
/// that gives access may come later).
struct OnDemand<Device> {
    private(set) var device: Device?
    /// Why it could not be made, and when that was tried.
    private var failure: (message: String, at: Timestamp)?
    /// What it is, for the log: "the keyboard that types clients' keys (…)".
    private let made: String
    private let make: () throws(UinputError) -> Device
    let logger: Logger

    init(_ made: String, logger: Logger, make: @escaping () throws(UinputError) -> Device) {
        self.made = made
        self.logger = logger
        self.make = make
    }

    /// Why the device is not there: why it could not be made when last
    /// tried, or `untried` if it never was (nil: it is there).
    func problem(untried: String?) -> String? { device == nil ? failure?.message ?? untried : nil }

    /// Makes the device if there is none; why it cannot, if so.
    @discardableResult
    mutating func prepare(now: Timestamp) -> String? {
        if device != nil { return nil }
        if let f = failure, now - f.at < .milliseconds(10_000) { return f.message }
        do {
            device = try make()
            failure = nil
            logger.info("made \(made)")
            return nil
        } catch {
            failure = (error.message, now)
            logger.warning("\(error.message)")
            return error.message
        }
    }
}
