package import GestureCore

/// The orientation each touchscreen's touches are read in, and where it
/// came from. In order of precedence:
///
/// 1. a client of the active session (`gestured act`, from its
///    compositor's `wl_output` transform), for as long as it is connected
///    and its session stays active;
/// 2. the accelerometer, for a device whose `[[device]]` says
///    `rotation = "auto"`;
/// 3. the configuration: the panel as mounted, not turned.
///
/// It decides; the daemon applies (the recognizer, the devices' sizes,
/// the `orientation` event).
package struct Orientations {
    /// What session clients said, per device, with the client's serial.
    private var fromSession: [GestureCore.DeviceID: (transform: ScreenTransform, client: Int)] = [:]
    /// The accelerometer's orientation in force (nil: none known yet).
    private(set) var sensorInForce: ScreenTransform?
    /// The accelerometer's newest orientation, taken once `sensorNextAt` comes.
    private var sensorReported: ScreenTransform?
    private var sensorNextAt = Timestamp.zero
    /// The least time between two of the accelerometer's changes taken: a
    /// sensor that floods changes turns the screen a few times a second at
    /// most, and its last word is kept.
    static let sensorInterval = Timestamp.Duration.milliseconds(250)

    package init() {}

    /// Whether some orientation came from a client (its going matters).
    package var hasSessionWord: Bool { !fromSession.isEmpty }

    /// When a held-back change of the accelerometer is due.
    package var due: Timestamp { sensorReported != sensorInForce ? sensorNextAt : .never }

    package mutating func session(_ request: Server.OrientationRequest) {
        for id in request.devices { fromSession[id] = (request.transform, request.client) }
    }

    /// Forgets what the clients `keep` does not keep said (they closed, or
    /// their session is no longer the active one).
    package mutating func forgetClients(keeping keep: (Int) -> Bool) {
        fromSession = fromSession.filter { keep($0.value.client) }
    }

    package mutating func forget(device id: GestureCore.DeviceID) { fromSession[id] = nil }

    /// The accelerometer's orientation (nil: lying flat, unknown).
    package mutating func sensor(_ t: ScreenTransform?, now: Timestamp) {
        guard let t else { return }
        sensorReported = t
        takeSensor(now: now)
    }

    /// Takes the accelerometer's newest orientation if its interval has passed.
    package mutating func takeSensor(now: Timestamp) {
        guard sensorReported != sensorInForce, now >= sensorNextAt else { return }
        sensorInForce = sensorReported
        sensorNextAt = now + Self.sensorInterval
    }

    /// The sensor was let go: what it said no longer counts.
    package mutating func sensorGone() {
        (sensorInForce, sensorReported) = (nil, nil)
    }

    /// What is in force for a device.
    package func resolve(_ id: GestureCore.DeviceID, followsSensor: Bool) -> (ScreenTransform, OrientationSource) {
        if let s = fromSession[id] { return (s.transform, .session) }
        if followsSensor, let t = sensorInForce { return (t, .sensor) }
        return (.normal, .configuration)
    }
}
