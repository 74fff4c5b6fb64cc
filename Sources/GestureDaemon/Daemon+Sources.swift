import GestureConfiguration
import GestureCore
import Logging
import ToolSupport

/// The daemon's glue to the sources beyond the frames: the claimed
/// touchscreens, who is at the screen, the accelerometer and the
/// orientations. Each source keeps its own state; these say what its news
/// means for the others.
extension Daemon {
    // MARK: Claimed touchscreens

    /// Claims the touchscreens libinput handed over since the last turn.
    mutating func startClaims(now: Timestamp) {
        guard let requests = libinput?.takeClaimRequests(), !requests.isEmpty else { return }
        chores.oneOffWorkRan(now: now, serverDue: server.activityDue)
        for r in requests {
            let t = configuration.thresholds(forName: r.name, vendorProduct: r.vendorProduct)
            if let error = claims.claim(r, thresholds: t, server: server, loop: loop, logger: logger) {
                logger.warning("\(error.description); libinput reads it as any other")
                libinput?.unclaim(r.id)
            } else {
                screens.mark(r.id, claimed: true)
            }
        }
    }

    /// What the pass-through read (into the turn's frames) and what
    /// happened to its devices.
    mutating func takeClaimed(now: Timestamp) {
        for n in claims.take(into: sourceEvents) {
            switch n {
            case .frame, .gone:
                break
            case .refused(let id):
                libinput?.unclaim(id)
                screens.mark(id, claimed: false)
            case .claimed(let id, let on):
                screens.mark(id, claimed: on)
            case .lost(let id):
                let name = screens.devices.first { $0.id == id }?.name ?? "\(id)"
                logger.warning("\(name): frames were dropped while the daemon was busy; its gestures under way are cancelled")
                pipeline.resetDevice(id, at: now, into: &outbound.gestures)
            case .touchpad(let why):
                follow(server.touchpadChanged(why, now: now), now: now)
            }
        }
    }

    // MARK: The seat

    /// Starts asking logind who is at the screen (`deliver =
    /// "active-session"`), or stops (`everyone`); the clients follow.
    mutating func watchSeat(now: Timestamp) throws(SetupError) {
        let wanted = configuration.daemon.deliver == "active-session"
        if let w = seat.watcher as? SeatWatcher, !wanted || w.seat != configuration.daemon.seat { seat.stop(loop: loop) }
        if wanted && seat.watcher == nil {
            let w = SeatWatcher(seat: configuration.daemon.seat)
            try seat.start(w, loop: loop)
            tellSeat(w.state, now: now)
        }
        let news = server.seatChanged(seat.watcher?.state, now: now)
        if news.subscriptionsChanged {
            followSubscriptions(now: now)
            claims.follow(server, logger: logger)
        }
    }

    /// Who is at the screen changed: the clients are told, and only the
    /// active session's compositor still says what is on the screen.
    mutating func seatChanged(_ state: SeatState, now: Timestamp) -> Server.News {
        tellSeat(state, now: now)
        chores.oneOffWorkRan(now: now, serverDue: server.activityDue)
        let news = server.seatChanged(state, now: now)
        if screens.orientations.hasSessionWord {
            let clients = server.clients
            let access = self.access
            screens.orientations.forgetClients { serial in
                clients.contains { $0.serial == serial && $0.fd >= 0 && access.mayTurn($0.uid, seat: state) }
            }
            screens.reorientDue = now
        }
        return news
    }

    private mutating func tellSeat(_ state: SeatState, now: Timestamp) {
        let seatName = configuration.daemon.seat
        let logger = self.logger
        seatNotes.note(now: now, { logger.notice("\($0)") }) {
            switch state {
            case .waiting:
                "\(seatName): asking logind who is at the screen; until it answers, gestures go only to root, the daemon's user and any-session-users"
            case .active(let uid, let locked):
                locked
                    ? "\(seatName): the active session, uid \(uid)'s, is locked: gestures go to its clients, nothing is claimed and no key is typed"
                    : "\(seatName): the active session is uid \(uid)'s: gestures go to its clients"
            case .nobody:
                "\(seatName): no session is active: gestures go only to root, the daemon's user and any-session-users"
            case .unconfirmed:
                "\(seatName): logind has not confirmed who is at the screen (it said the active session changed, or has not answered within \(SeatWatcher.answerBound.microseconds / 1000) ms): until it does, gestures go only to root, the daemon's user and any-session-users"
            case .unavailable(let why):
                "\(seatName): \(why): nobody is known to be at the screen, so gestures go only to root, the daemon's user and any-session-users (on a machine without logind, set deliver = \"everyone\" in [daemon])"
            }
        }
    }

    // MARK: Orientation

    /// Starts following the accelerometer when a device present says
    /// `rotation = "auto"`, and stops (releasing the claim) when none does.
    mutating func watchSensor(now: Timestamp) {
        let wanted = screens.followSensor(configuration)
        if let s = sensor.watcher as? SensorWatcher, !wanted {
            s.release()
            sensor.stop(loop: loop)
            screens.orientations.sensorGone()
            logger.info("no touchscreen follows the accelerometer: released it")
        } else if wanted && sensor.watcher == nil {
            do {
                try sensor.start(SensorWatcher(), loop: loop)
            } catch {
                logger.warning("\(error.description); the configured rotation stays")
            }
        }
    }

    /// Lets the accelerometer's watcher read and write; its change, if it
    /// made one, applies (at most one each `Orientations.sensorInterval`).
    mutating func followSensor(now: Timestamp) -> Server.News {
        switch sensor.follow(loop, now: now) {
        case .unavailable(let why):
            logger.notice("\(why): touchscreens with rotation = \"auto\" stay as they are turned now")
        case .orientation(let t):
            logger.debug("the accelerometer says \(t?.name ?? "undefined (lying flat)")")
            screens.orientations.sensor(t, now: now)
        case .waiting, nil:
            break
        }
        return reorient(now: now)
    }

    /// Applies what the orientations say to each device whose orientation
    /// changed: the recognizer reads its next touch turned, the claimed
    /// touchscreen's edges are the picture's, the subscribers are told.
    mutating func reorient(now: Timestamp) -> Server.News {
        watchSensor(now: now)
        var news = Server.News()
        for d in screens.reorient(configuration, now: now, logger: logger) {
            pipeline.setTransform(d.orientation, for: d.id)
            if claims.reads(d.id) { claims.send(.transform(d.id, d.orientation)) }
            news.merge(server.tellSubscribers(ServerMessage.orientation(d, time: now), now: now))
        }
        chores.oneOffWorkRan(now: now, serverDue: server.activityDue)
        return news
    }
}
