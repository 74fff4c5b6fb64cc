import GestureCore
import GestureProtocol
import Logging

/// The loop's side of the claimed touchscreens: the pass-through thread
/// (`PassThrough`), made with the first device to claim, the token of its
/// queue's descriptor, which devices it reads, and what the clients at the
/// screen claim on each (the union of their claims, `claims(of:locked:...)`).
struct ClaimedTouchscreens {
    private var passThrough: PassThrough?
    private var token: Readiness.Token?
    /// Storage the queue and the loop trade (`PassThrough.take`).
    private var scratch: [PassThrough.Notice] = []
    /// The devices the pass-through reads (claimed, or let go and still read raw).
    private(set) var ids: [GestureCore.DeviceID] = []
    /// Each one's name, node and vendor:product id, which claims may name.
    private var names: [GestureCore.DeviceID: (name: String, node: String, vendorProduct: String)] = [:]
    /// What the clients at the screen claim (said in the log), and on
    /// each touchscreen, as last followed.
    private var wanted = "nothing"
    private var wantedOn: [GestureCore.DeviceID: ClaimSet] = [:]

    var tokens: [Readiness.Token] { token.map { [$0] } ?? [] }
    var isEmpty: Bool { ids.isEmpty }
    func reads(_ id: GestureCore.DeviceID) -> Bool { ids.contains(id) }

    /// Claims the touchscreen libinput handed over: opened raw, its clone
    /// made, handed to the pass-through, which takes what the clients at
    /// the screen claim on it (`server`). Why not, if it cannot be.
    mutating func claim(
        _ r: LibinputSource.ClaimRequest, thresholds: GestureThresholds, server: borrowing Server, loop: Readiness,
        logger: Logger
    ) -> SetupError? {
        let claims = Self.claims(
            of: server.clients, locked: server.locked, name: r.name, node: r.node, vendorProduct: r.vendorProduct)
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
            names[r.id] = (r.name, r.node, r.vendorProduct)
            wantedOn[r.id] = claims
            return nil
        } catch {
            return error
        }
    }

    func send(_ command: PassThrough.Command) { passThrough?.send(command) }

    /// What the clients at the screen claim now (`server`; none while the
    /// session there is locked): each claimed touchscreen takes what is
    /// claimed on it, and the log says what changed (debug). With
    /// `claimantLeft` (a client that claimed went), what the change takes
    /// away ends even for a sequence under way, as far as nothing of it was
    /// taken yet (`Claimer.withdraw`).
    mutating func follow(_ server: borrowing Server, logger: Logger, claimantLeft: Bool = false) {
        let summary = Self.summary(of: server.clients, locked: server.locked)
        if summary != wanted {
            wanted = summary
            logger.debug(
                "clients at the screen claim \(summary)\(server.locked ? ": the session at the screen is locked" : "")")
        }
        for id in ids {
            guard let n = names[id] else { continue }
            let on = Self.claims(
                of: server.clients, locked: server.locked, name: n.name, node: n.node, vendorProduct: n.vendorProduct)
            guard on != wantedOn[id] else { continue }
            wantedOn[id] = on
            send(.claims(id, on, withdrawn: claimantLeft))
        }
    }

    /// What the subscribers at the screen among `clients` claim on one
    /// touchscreen: what they claim everywhere and what they claim on it (a
    /// claim lasts while its client is connected and at the screen).
    /// Nothing while the session at the screen is `locked`: the lock screen
    /// gets every touch.
    static func claims(of clients: [Client], locked: Bool, name: String, node: String, vendorProduct: String) -> ClaimSet {
        var all = ClaimSet()
        guard !locked else { return all }
        for c in clients where c.state == .subscribed && c.atScreen && c.fd >= 0 {
            all.formUnion(c.subscription.claims(name: name, node: node, vendorProduct: vendorProduct))
        }
        return all
    }

    /// What they claim, for the log: "3 fingers; left edge on /dev/input/event5".
    static func summary(of clients: [Client], locked: Bool) -> String {
        guard !locked else { return "nothing" }
        var everywhere = ClaimSet()
        var parts: [String] = []
        for c in clients where c.state == .subscribed && c.atScreen && c.fd >= 0 {
            everywhere.formUnion(c.subscription.claims)
            for d in c.subscription.deviceClaims {
                let part = "\(d.set.summary) on \(d.devices.joined(separator: ", "))"
                if !parts.contains(part) { parts.append(part) }
            }
        }
        parts.insert(contentsOf: everywhere.isEmpty ? [] : [everywhere.summary], at: 0)
        return parts.isEmpty ? "nothing" : parts.joined(separator: "; ")
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
            case .gone(let id), .refused(let id): drop(id)
            case .frame, .claimed, .lost, .touchpad: break
            }
        }
        return notices
    }

    /// A device libinput saw go.
    mutating func forget(_ id: GestureCore.DeviceID) {
        guard reads(id) else { return }
        drop(id)
        passThrough?.send(.remove(id))
    }

    private mutating func drop(_ id: GestureCore.DeviceID) {
        ids.removeAll { $0 == id }
        names[id] = nil
        wantedOn[id] = nil
    }

    /// Stops the thread: clones' touches cancelled, grabs and clones gone.
    mutating func stop() {
        passThrough?.stop()
        passThrough = nil
        ids.removeAll()
        names.removeAll()
        wantedOn.removeAll()
    }
}
