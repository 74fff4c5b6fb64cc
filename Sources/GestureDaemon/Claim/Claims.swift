import GestureCore
import GestureProtocol
import Logging

/// The loop's side of the claimed touchscreens: the pass-through thread
/// (`PassThrough`), made with the first device to claim, the token of its
/// queue's descriptor, and which devices it reads.
struct Claims {
    private var passThrough: PassThrough?
    private var token: Readiness.Token?
    /// Storage the queue and the loop trade (`PassThrough.take`).
    private var scratch: [PassThrough.Notice] = []
    /// The devices the pass-through reads (claimed, or let go and still read raw).
    private(set) var ids: [GestureCore.DeviceID] = []
    /// What the clients at the screen claim, as last followed.
    private var wanted = ClaimSet()

    var tokens: [Readiness.Token] { token.map { [$0] } ?? [] }
    var isEmpty: Bool { ids.isEmpty }
    func reads(_ id: GestureCore.DeviceID) -> Bool { ids.contains(id) }

    /// Claims the touchscreen libinput handed over: opened raw, its clone
    /// made, handed to the pass-through. Why not, if it cannot be.
    mutating func claim(
        _ r: LibinputSource.ClaimRequest, thresholds: GestureThresholds, claims: ClaimSet, loop: Readiness,
        logger: Logger
    ) -> SetupError? {
        do {
            if passThrough == nil {
                let p = try PassThrough(logger: logger)
                token = try loop.watch(p.fd, "the claimed touchscreens' queue", owner: .claimed)
                passThrough = p
            }
            let device = try ClaimedDevice.open(
                id: r.id, path: r.node, geometry: r.geometry, thresholds: thresholds, claims: claims, logger: logger)
            passThrough?.send(.add(device))
            ids.append(r.id)
            return nil
        } catch {
            return error
        }
    }

    func send(_ command: PassThrough.Command) { passThrough?.send(command) }

    /// What the clients at the screen claim now (none while the session
    /// there is `locked`): the claimed touchscreens take it, and the log
    /// says what changed (debug).
    mutating func follow(_ set: ClaimSet, locked: Bool, logger: Logger) {
        guard set != wanted else { return }
        wanted = set
        logger.debug(
            "clients at the screen claim \(set.isEmpty ? "nothing" : set.summary)\(locked ? ": the session at the screen is locked" : "")"
        )
        if !isEmpty { send(.claims(set)) }
    }

    /// Whether the last wait found the pass-through's queue ready.
    func isReady(_ loop: Readiness) -> Bool { token.map { loop.readable($0) } ?? false }

    /// Takes what the pass-through read and saw: frames into `events`, the
    /// rest returned. A device gone or given back leaves `ids`.
    mutating func take(into events: TouchSourceEvents) -> [PassThrough.Notice] {
        guard let passThrough else { return [] }
        var notices: [PassThrough.Notice] = []
        passThrough.take(into: events, notices: &notices, scratch: &scratch)
        for n in notices {
            switch n {
            case .gone(let id), .refused(let id): ids.removeAll { $0 == id }
            case .frame, .claimed, .lost: break
            }
        }
        return notices
    }

    /// A device libinput saw go.
    mutating func forget(_ id: GestureCore.DeviceID) {
        guard reads(id) else { return }
        ids.removeAll { $0 == id }
        passThrough?.send(.remove(id))
    }

    /// Stops the thread: clones' touches cancelled, grabs and clones gone.
    mutating func stop() {
        passThrough?.stop()
        passThrough = nil
        ids.removeAll()
    }
}
