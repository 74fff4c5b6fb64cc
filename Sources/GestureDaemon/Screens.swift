import GestureConfiguration
import GestureCore
import Logging
import ToolSupport

/// The touchscreens the daemon serves, in the order they came, and how
/// each is turned now: what `hello` and `gestured devices` say, what the
/// publisher names events by, and where orientations are decided
/// (`Orientations`) and applied to the list.
struct Screens {
    private(set) var devices: [DeviceInfo] = []
    /// Devices removed this turn: they leave `devices` once their last
    /// events are published (`publishedDepartures`).
    private var departed: [GestureCore.DeviceID] = []
    var orientations = Orientations()
    /// When the orientations are to be looked at again (a request, a
    /// device, a client gone): at the start of the next turn.
    var reorientDue = Timestamp.never
    /// Turns of the screen, logged a few times a minute at most.
    private var notes = RepeatLimiter(burst: 6, window: .milliseconds(60_000))

    var count: Int { devices.count }

    /// A device came (or came again under the same id).
    mutating func add(_ info: DeviceInfo, now: Timestamp) {
        devices.removeAll { $0.id == info.id }
        devices.append(info)
        reorientDue = now
    }

    /// A device went: it stays named until its last events are published.
    mutating func remove(_ id: GestureCore.DeviceID, now: Timestamp) -> DeviceInfo? {
        orientations.forget(device: id)
        reorientDue = now
        guard let info = devices.first(where: { $0.id == id }) else { return nil }
        departed.append(id)
        return info
    }

    /// The turn's events are published: the devices that went leave the list.
    mutating func publishedDepartures() {
        guard !departed.isEmpty else { return }
        devices.removeAll { departed.contains($0.id) }
        departed.removeAll()
    }

    mutating func mark(_ id: GestureCore.DeviceID, claimed: Bool) {
        if let i = devices.firstIndex(where: { $0.id == id }) { devices[i].claimed = claimed }
    }

    /// Whether a device present says `rotation = "auto"`.
    func followSensor(_ configuration: Configuration) -> Bool {
        devices.contains {
            !departed.contains($0.id) && configuration.followsSensor(name: $0.name, vendorProduct: $0.vendorProduct)
        }
    }

    /// Applies what `orientations` says to each device present whose
    /// orientation changed (its size is the picture's now) and returns
    /// them: the recognizer, the claimed touchscreens and the subscribers
    /// are to be told.
    mutating func reorient(_ configuration: Configuration, now: Timestamp, logger: Logger) -> [DeviceInfo] {
        orientations.takeSensor(now: now)
        // A change of the accelerometer held back by its rate comes due then.
        reorientDue = orientations.due
        var changed: [DeviceInfo] = []
        for i in devices.indices where !departed.contains(devices[i].id) {
            let d = devices[i]
            let follows = configuration.followsSensor(name: d.name, vendorProduct: d.vendorProduct)
            let (t, source) = orientations.resolve(d.id, followsSensor: follows)
            guard t != d.orientation || source != d.orientationSource else { continue }
            let mounted = d.orientation.size(width: d.width, height: d.height)
            (devices[i].width, devices[i].height) = t.size(width: mounted.width, height: mounted.height)
            devices[i].orientation = t
            devices[i].orientationSource = source
            notes.note(now: now, { logger.notice("\($0)") }) {
                "\(d.name): touches read turned \(t.name) (\(source.rawValue)), from the next touch"
            }
            changed.append(devices[i])
        }
        return changed
    }
}
