import GestureConfiguration
import GestureCore
import GestureProtocol
import Logging
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What clients ask: their lines read within the turn's budgets, each
/// parsed and answered; the orientations they give, for the daemon.
extension Server {
    /// Reads what a client sent (at most `Client.readBudget` bytes) and
    /// answers at most `requestBudget` of its requests, until `stop`.
    mutating func serveRequests(_ i: Int, readable: Bool, until stop: Timestamp, now: Timestamp) -> News {
        var news = News()
        if readable && clients[i].wantsInput && !clients[i].readClosed {
            switch clients[i].fill(scratch: &readScratch) {
            case .read: break
            case .endOfFile:
                // Half-closed: the client may still read; it is dropped when the socket hangs up.
                clients[i].readClosed = true
            case .failed(let e):
                return drop(i, "read failed: \(e)")
            }
        }
        var answered = 0
        if let d = clients[i].deferred {
            guard !seatBehind else { return news }
            clients[i].deferred = nil
            news.merge(handle(d, from: i, now: now))
            news.answered = true
            answered += 1
        }
        while answered < Self.requestBudget && clients[i].state != .closing && clients[i].pending < Self.answerBound
            && clients[i].deferred == nil
        {
            guard let line = clients[i].nextLine() else {
                if clients[i].lineTooLong { news.merge(lineTooLong(i, now: now)) }
                return news
            }
            guard line.count <= WireProtocol.maxLineLength else {
                news.merge(lineTooLong(i, now: now))
                return news
            }
            news.merge(handle(line, from: i, now: now))
            news.answered = true
            answered += 1
            if monotonicNow() >= stop { break }
        }
        return news
    }

    /// A line longer than the protocol allows, whole or still coming: told, and closed.
    mutating func lineTooLong(_ i: Int, now: Timestamp) -> News {
        let label = clients[i].label
        clientWarnings.note(now: now, logger) { "\(label): line longer than \(WireProtocol.maxLineLength) bytes; closing" }
        return refuse(
            i, code: "line-too-long", message: "lines are at most \(WireProtocol.maxLineLength) bytes", now: now)
    }

    mutating func handle(_ line: ArraySlice<UInt8>, from i: Int, now: Timestamp) -> News {
        let request: ClientRequest
        do {
            request = try ClientRequest.parse(line)
        } catch {
            logger.debug("\(clients[i].label): \(error.code): \(error.message)")
            return send(ServerMessage.error(code: error.code, message: error.message, fatal: false), to: i, now: now)
        }
        switch request {
        case .keys where seatBehind, .pointer where seatBehind:
            clients[i].deferred = request
            return News()
        default:
            return handle(request, from: i, now: now)
        }
    }

    mutating func handle(_ request: ClientRequest, from i: Int, now: Timestamp) -> News {
        var news = News()
        switch request {
        case .subscribe(let sub):
            let changed =
                clients[i].state != .subscribed || clients[i].subscription.gestures != sub.gestures
                || clients[i].subscription.claims != sub.claims
                || clients[i].subscription.deviceClaims != sub.deviceClaims
            let wasSubscribed = clients[i].state == .subscribed
            news.countsChanged = !wasSubscribed
            clients[i].subscription = sub
            clients[i].state = .subscribed
            clients[i].subscribeDeadline = .never
            // The devices it will use are made first, so that the answer says which cannot be.
            if clients[i].atScreen { input.prepare(keys: sub.keys, pointer: sub.pointer, now: now) }
            let reply = ServerMessage.subscribed(sub, unavailable: unavailable(for: sub))
            logger.debug("\(clients[i].label) subscribed: \(reply)")
            news.merge(send(reply, to: i, now: now))
            if !wasSubscribed && !clients[i].atScreen {
                news.merge(send(ServerMessage.paused(seat: settings.seat, state: seat), to: i, now: now))
            } else if !wasSubscribed {
                news.merge(send(context, to: i, now: now))
            }
            news.subscriptionsChanged = news.subscriptionsChanged || changed
        case .unsubscribe:
            if clients[i].state == .subscribed {
                clients[i].state = .connected
                clients[i].admitted.removeAll()
                clients[i].subscribeDeadline = now + subscribeTimeout
                news.subscriptionsChanged = true
                news.countsChanged = true
            }
            news.merge(send(ServerMessage.unsubscribed, to: i, now: now))
        case .ping:
            news.merge(send(ServerMessage.pong, to: i, now: now))
        case .keys(let chord):
            news.merge(send(input.keys(chord, from: asker(i), locked: locked, why: pausedReason, now: now), to: i, now: now))
        case .pointer(let click):
            if let refused = input.click(click, from: asker(i), locked: locked, why: pausedReason, now: now) {
                news.merge(send(refused, to: i, now: now))
            }
            news.merge(advanceClicks(now: now))
        case .orientation(let device, let transform):
            news.merge(send(orient(device, transform, for: i, now: now), to: i, now: now))
        }
        return news
    }

    /// Takes an orientation from client `i` if its user's session is the
    /// active one on the seat (or it is root or the daemon's user), it has
    /// not sent `orientationsPerSecond` this second, and `device` names a
    /// touchscreen served: the answer.
    mutating func orient(_ device: String, _ transform: ScreenTransform, for i: Int, now: Timestamp) -> String {
        guard access.mayTurn(clients[i].uid, seat: seat) else {
            return ServerMessage.error(
                code: "not-at-screen",
                message: "orientation not taken: only a client of the session active on \(settings.seat) may turn its screen",
                fatal: false)
        }
        var rate = orientationRates[clients[i].uid] ?? RateBucket(perSecond: Self.orientationsPerSecond)
        defer { orientationRates[clients[i].uid] = rate }
        guard rate.take(now: now) else {
            return ServerMessage.error(
                code: "rate-limited",
                message: "orientation not taken: more than \(Self.orientationsPerSecond) in a second", fatal: false)
        }
        let lowered = device.lowercased()
        let matched = devices.filter { $0.name == device || $0.node == device || $0.vendorProduct == lowered }
        guard !matched.isEmpty else {
            return ServerMessage.error(
                code: "no-device",
                message: "no touchscreen '\(logSafe(String(device.prefix(80))))' is served; `gestured devices` lists them",
                fatal: false)
        }
        orientationRequests.append(
            OrientationRequest(client: clients[i].serial, devices: matched.map(\.id), transform: transform))
        logger.debug("\(clients[i].label): \(device) shows its picture turned \(transform.name)")
        return ServerMessage.oriented(transform, devices: matched.map(\.node))
    }

    /// Why a client whose user is not at the screen gets nothing: who is.
    var pausedReason: String { ServerMessage.pausedReason(seat: settings.seat, state: seat) }

    /// Who client `i` is, for `InputForClients`.
    func asker(_ i: Int) -> InputForClients.Asker {
        InputForClients.Asker(
            serial: clients[i].serial, uid: clients[i].uid, label: clients[i].label, atScreen: clients[i].atScreen)
    }

    /// Releases and presses what the pointer's clicks are due for, each
    /// checked again when its turn comes; answers whose clients are still there.
    mutating func advanceClicks(now: Timestamp) -> News {
        let (locked, why) = (self.locked, pausedReason)
        let present = clients.filter { $0.fd >= 0 }.map { (serial: $0.serial, atScreen: $0.atScreen) }
        let answers = input.advance(now: now) { serial in
            guard let c = present.first(where: { $0.serial == serial }) else { return "gone" }
            return InputForClients.standing(atScreen: c.atScreen, locked: locked, why: why, done: "click not made")
        }
        var news = News()
        for (serial, answer) in answers {
            guard let i = clients.firstIndex(where: { $0.serial == serial && $0.fd >= 0 }) else { continue }
            news.merge(send(answer, to: i, now: now))
        }
        return news
    }

    /// The `orientation` requests taken since the last call, in order.
    package mutating func takeOrientationRequests() -> [OrientationRequest] {
        defer { orientationRequests.removeAll() }
        return orientationRequests
    }

    /// While `on`, the serials of closing clients are kept for `takeClosed`
    /// (the daemon forgets the orientation a client gave when it goes).
    package mutating func followClosings(_ on: Bool) {
        followsClosings = on
        if !on { closedSerials.removeAll() }
    }

    /// The serials of the clients closed since the last call.
    package mutating func takeClosed() -> [Int] {
        defer { closedSerials.removeAll() }
        return closedSerials
    }

}
