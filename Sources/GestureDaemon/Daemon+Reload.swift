import GestureConfiguration
import GestureCore
import Logging
import ToolSupport

extension Daemon {
    /// SIGHUP: the configuration is read again; on success thresholds,
    /// access lists, claims and the seat apply at once and subscribers get
    /// `config_reloaded`; on failure nothing changes and the log says why.
    mutating func reload(now: Timestamp) {
        chores.notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(now.microseconds)")
        logger.notice("reloading configuration")
        let new: Configuration
        let newAccess: AccessPolicy
        do {
            new = try loadConfiguration(options.configPath)
            newAccess = try AccessPolicy(new.daemon)
            try Privileges.ensureDescriptors(for: new.daemon.maxClients)
        } catch {
            // One log line per problem; STATUS= is one line (a newline would start another assignment).
            let lines = (error as? ConfigurationError)?.problems.map(\.description) ?? ["\(error)"]
            for line in lines { logger.error("configuration not reloaded, keeping the previous one: \(line)") }
            let more = lines.count > 1 ? " (and \(lines.count - 1) more in the journal)" : ""
            chores.notifier.notify("READY=1\nSTATUS=configuration not reloaded: \(lines[0])\(more)")
            return
        }
        configuration = new
        access = newAccess
        libinput?.configuration = new
        if options.logLevel == nil { logger.logLevel = StderrLogHandler.level(named: new.daemon.logLevel) }
        for info in screens.devices {
            let t = new.thresholds(forName: info.name, vendorProduct: info.vendorProduct)
            pipeline.setThresholds(t, for: info.id)
            if claims.reads(info.id) {
                claims.send(.thresholds(info.id, t))
                // Claimed or let go, as the new configuration says: a device read
                // raw stays read raw (libinput would misread it now).
                let wanted = new.claims(name: info.name, vendorProduct: info.vendorProduct)
                if wanted != info.claimed { claims.send(wanted ? .reclaim(info.id) : .release(info.id)) }
            }
        }
        // Devices libinput reads that are to be claimed now.
        libinput?.reconsiderClaims()
        startClaims(now: now)
        var news = server.reload(access: newAccess, settings: new.daemon, now: now)
        do {
            try watchSeat(now: now)
        } catch {
            logger.error("\(error.description)")
        }
        news.merge(server.tellSubscribers(ServerMessage.configReloaded(files: new.sources, time: now), now: now))
        // A device's rotation = "auto" may have come or gone.
        screens.reorientDue = now
        if news.subscriptionsChanged {
            followSubscriptions(now: now)
            claims.follow(server, logger: logger)
        }
        logger.notice("configuration reloaded from \(new.sources.isEmpty ? "defaults" : new.sources.joined(separator: ", "))")
        chores.ready(counts)
    }
}
