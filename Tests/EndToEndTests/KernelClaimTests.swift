import Foundation
import GestureCore
import Testing

/// Claimed touchscreens on the real kernel (scripts/kernel-guest-claim.sh,
/// docs/claiming.md): what readers of a clone (the compositor's place)
/// got, beside plain readers of unclaimed devices playing the same
/// recordings.
extension KernelTests {
    /// One frame a reader got: its time and events ("0003 0035 11", the
    /// `SYN_REPORT` left out), and when it was read (µs, CLOCK_MONOTONIC).
    struct ReadFrame: Equatable {
        var time: Int64
        var events: [String]
        var read: Int64?
    }

    /// The frames of an `E:` file written by uinput-touch (`record`, `--sent`).
    static func frames(_ text: String) -> [ReadFrame] {
        var out: [ReadFrame] = []
        var events: [String] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# read +"), let n = Int64(line.dropFirst(8).prefix { $0.isNumber }), !out.isEmpty {
                out[out.count - 1].read = out[out.count - 1].time + n
                continue
            }
            let f = line.split(separator: " ")
            guard f.count == 5, f[0] == "E:" else { continue }
            let t = f[1].split(separator: ".")
            guard t.count == 2, let s = Int64(t[0]), let us = Int64(t[1]) else { continue }
            if f[2] == "0000" && f[3] == "0000" {
                out.append(ReadFrame(time: s * 1_000_000 + us, events: events))
                events = []
            } else {
                events.append(f[2...].joined(separator: " "))
            }
        }
        return out
    }

    /// What `libinput debug-events` printed of touches: how many began,
    /// ended and were cancelled.
    static func touches(_ text: String) -> (down: Int, up: Int, cancel: Int) {
        var c = (down: 0, up: 0, cancel: 0)
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count > 1 else { continue }
            switch f[1] {
            case "TOUCH_DOWN": c.down += 1
            case "TOUCH_UP": c.up += 1
            case "TOUCH_CANCEL": c.cancel += 1
            default: break
            }
        }
        return c
    }

    static func claimFile(_ run: KernelRun, _ name: String) throws -> String {
        try #require(run.files["claim-" + name], "the guest wrote no claim-\(name)")
    }

    /// Whether this kernel keeps the times a uinput writer gives its events
    /// (Linux 6.5 and later): a plain reader of the player's device got
    /// exactly the times the player wrote.
    static func keepsTimes(_ run: KernelRun) throws -> Bool {
        let sent = frames(try claimFile(run, "sent-plain-tap.evemu"))
        let read = frames(try claimFile(run, "read-plain-tap.evemu"))
        return !sent.isEmpty && sent.map(\.time) == read.map(\.time)
    }

    @Test(
        "on a claimed touchscreen, touches no client claims reach the clone whole: the frames a plain reader of the device gets, in order, none lost, each with the device's time where the kernel keeps it"
    )
    func claimPassesThrough() throws {
        let run = try Self.run()
        let keeps = try Self.keepsTimes(run)
        print("kernel harness: uinput \(keeps ? "keeps" : "does not keep (Linux before 6.5)") the times it is given")
        var setAside: [String] = []
        for tag in ["tap", "drag", "pinch", "free", "edgetap", "edgerest"] {
            let plain = Self.frames(try Self.claimFile(run, "read-plain-\(tag).evemu"))
            let clone = Self.frames(try Self.claimFile(run, "read-claim-\(tag).evemu"))
            let sent = Self.frames(try Self.claimFile(run, "sent-claim-\(tag).evemu"))
            let libinputPlain = Self.touches(try Self.claimFile(run, "libinput-plain-\(tag).out"))
            let libinputClone = Self.touches(try Self.claimFile(run, "libinput-claim-\(tag).out"))
            // What the daemon said of the device (a drop, a failed write), for a failure's message.
            let said = (run.files["claim-serve.log"] ?? "").split(separator: "\n").filter { $0.contains("#claim-\(tag)") }
                .joined(separator: "\n")
            #expect(!plain.isEmpty, "\(tag): the plain reader got nothing")
            // The kernel dropped events for the daemon's reader (a reader not
            // run for a while under emulation; the daemon says SYN_DROPPED):
            // the frames lost never reach the clone, so it must have the
            // device's frames up to the drop, then the cancel of its touches
            // (the palm, then the lift), and nothing more. At most one
            // scenario a run is let off this way.
            let dropped = said.contains("SYN_DROPPED")
            let passed = dropped ? Array(clone.dropLast(2)) : clone
            if dropped {
                setAside.append(tag)
                #expect(
                    clone.count >= 2 && passed.count < plain.count
                        && passed.map(\.events) == plain.prefix(passed.count).map(\.events),
                    "\(tag): before the drop, the clone's frames are not the device's; the daemon said:\n\(said)")
                #expect(
                    clone.suffix(2).first?.events.contains("0003 0037 2") == true
                        && clone.last?.events.contains("0003 0039 -1") == true,
                    "\(tag): the clone's touches were not cancelled after the drop: \(clone.suffix(2).map(\.events))")
                #expect(
                    libinputClone.down > 0 && libinputClone.up == 0 && libinputClone.cancel == libinputClone.down,
                    "\(tag): after a drop, libinput read \(libinputClone) of the clone")
            } else {
                #expect(
                    clone.map(\.events) == plain.map(\.events),
                    "\(tag): the clone's frames are not the device's; the daemon said:\n\(said)")
                #expect(
                    clone.count == sent.count,
                    "\(tag): \(sent.count) frames written, \(clone.count) reached the clone; the daemon said:\n\(said)")
                #expect(
                    libinputPlain.down > 0 && libinputClone == libinputPlain, "\(tag): \(libinputClone) against \(libinputPlain)")
            }
            for (c, s) in zip(passed, sent) {
                if keeps {
                    #expect(c.time == s.time, "\(tag): a frame written at \(s.time) µs reached the clone stamped \(c.time)")
                } else {
                    #expect(c.time >= s.time, "\(tag): a frame reached the clone stamped before it was written")
                }
            }
            #expect(zip(clone, clone.dropFirst()).allSatisfy { $0.time <= $1.time }, "\(tag): frames out of order")
        }
        if !setAside.isEmpty {
            print(
                "kernel harness: claimed \(setAside.joined(separator: ", ")): the kernel dropped events for the daemon's reader; checked up to the drop and its cancel"
            )
        }
        #expect(setAside.count <= 1, "the kernel dropped events for the daemon's reader in \(setAside)")
    }

    /// The `q` quantile of `values` (sorted), µs.
    static func quantile(_ values: [Int64], _ q: Double) -> Int64 {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)]
    }

    /// How long each frame took from the player's write to the clone: the
    /// clone's own stamp where the kernel stamps a uinput write itself (it
    /// is the daemon's write), the reader's time where it keeps the
    /// device's (the daemon's write is then the reader's at the latest).
    static func passThroughLatency(sent: [ReadFrame], clone: [ReadFrame], keepsTimes: Bool) -> [Int64] {
        zip(sent, clone).map { s, c in (keepsTimes ? (c.read ?? c.time) : c.time) - s.time }
    }

    @Test(
        "16 connections sending the costliest requests while a claimed drag plays: every frame reaches the clone, in order; the pass-through's latency is printed beside the calm drag's"
    )
    func claimUnderLoad() throws {
        let run = try Self.run()
        let keeps = try Self.keepsTimes(run)
        let sent = Self.frames(try Self.claimFile(run, "sent-claim-load.evemu"))
        let clone = Self.frames(try Self.claimFile(run, "read-claim-load.evemu"))
        #expect(
            !sent.isEmpty && clone.map(\.events) == sent.map(\.events), "\(sent.count) written, \(clone.count) reached the clone")
        let attack = try Self.claimFile(run, "attack.out")
        let answered = Int(attack.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        #expect(answered > 100, "the attack was not answered: \(attack)")
        let calm = Self.passThroughLatency(
            sent: Self.frames(try Self.claimFile(run, "sent-claim-drag.evemu")),
            clone: Self.frames(try Self.claimFile(run, "read-claim-drag.evemu")), keepsTimes: keeps)
        let load = Self.passThroughLatency(sent: sent, clone: clone, keepsTimes: keeps)
        func describe(_ v: [Int64]) -> String {
            "p50 \(Self.quantile(v, 0.5)) µs, p99 \(Self.quantile(v, 0.99)) µs, worst \(v.max() ?? 0) µs"
        }
        print(
            "kernel harness: claimed drag, from the player's write to the clone: calm \(describe(calm)); under 16 connections of costly requests (\(answered) answered) \(describe(load)); \(sent.count) of \(sent.count) frames reached the clone"
        )
    }

    /// The fingers down just before a frame of `sent` first has three, and
    /// that frame's index.
    static func beforeThirdFinger(_ sent: [ReadFrame]) -> (fingers: Int, frame: Int)? {
        var slot = 0
        var active: Set<Int> = []
        for (i, f) in sent.enumerated() {
            let before = active.count
            for e in f.events {
                let p = e.split(separator: " ")
                guard p.count == 3, p[0] == "0003", let v = Int(p[2]) else { continue }
                if p[1] == "002f" { slot = v }
                if p[1] == "0039" {
                    if v >= 0 { active.insert(slot) } else { active.remove(slot) }
                }
            }
            if active.count >= 3 { return (before, i) }
        }
        return nil
    }

    @Test(
        "a three-finger swipe a binding claims: the touches that landed before the third are cancelled on the clone and nothing after reaches it; the command runs once. A bound left-edge swipe never reaches the clone"
    )
    func claimSwipe() throws {
        let run = try Self.run()
        let sent = Self.frames(try Self.claimFile(run, "sent-claim-swipe.evemu"))
        let third = try #require(Self.beforeThirdFinger(sent), "the recording never has three fingers down")
        #expect(third.fingers > 0, "the three fingers landed together: nothing to cancel")
        let libinput = Self.touches(try Self.claimFile(run, "libinput-claim-swipe.out"))
        #expect(
            libinput == (down: third.fingers, up: 0, cancel: third.fingers),
            "\(libinput)\n\(run.files["claim-libinput-claim-swipe.out"] ?? "")")
        // The frames before the third finger's, then the cancel's two.
        let clone = Self.frames(try Self.claimFile(run, "read-claim-swipe.evemu"))
        #expect(clone.count == third.frame + 2, "\(clone.count) frames reached the clone, \(third.frame) before the third finger")
        #expect(clone.dropLast(2).map(\.events) == sent.prefix(third.frame).map(\.events))

        let ran = (try Self.claimFile(run, "ran.out")).split(separator: "\n")
        #expect(ran.filter { $0 == "swipe" }.count == 1 && ran.filter { $0 == "edge" }.count == 1, "\(ran)")
        #expect(Self.frames(try Self.claimFile(run, "read-claim-edge.evemu")).isEmpty)
        #expect(Self.touches(try Self.claimFile(run, "libinput-claim-edge.out")).down == 0)
        #expect(
            (run.files["claim-act.log"] ?? "").contains("claiming 3 fingers, left edge"), "\(run.files["claim-act.log"] ?? "")")
    }

    @Test(
        "claims follow the touchscreen's output: a three-finger swipe bound for another output (when.output) reaches the clone whole; bound for the touchscreen's own, it is taken"
    )
    func claimFollowsOutput() throws {
        let run = try Self.run()
        let elsewhereAct = run.files["claim-act-elsewhere.log"] ?? ""
        let sent = Self.frames(try Self.claimFile(run, "sent-claim-elsewhere.evemu"))
        let clone = Self.frames(try Self.claimFile(run, "read-claim-elsewhere.evemu"))
        #expect(
            !sent.isEmpty && clone.map(\.events) == sent.map(\.events),
            "\(sent.count) written, \(clone.count) reached the clone\n\(elsewhereAct)")
        let whole = Self.touches(try Self.claimFile(run, "libinput-claim-elsewhere.out"))
        #expect(whole.down >= 3 && whole.up == whole.down && whole.cancel == 0, "\(whole)")

        let hereAct = run.files["claim-act-here.log"] ?? ""
        let takenSent = Self.frames(try Self.claimFile(run, "sent-claim-here.evemu"))
        let third = try #require(Self.beforeThirdFinger(takenSent), "the recording never has three fingers down")
        let taken = Self.touches(try Self.claimFile(run, "libinput-claim-here.out"))
        #expect(taken == (down: third.fingers, up: 0, cancel: third.fingers), "\(taken)\n\(hereAct)")
        #expect(hereAct.contains("claiming 3 fingers on /dev/input/"), "\(hereAct)")
        #expect(!elsewhereAct.contains("claiming 3 fingers"), "\(elsewhereAct)")
    }

    @Test(
        "claims follow the focused app: with an app of leave-to-apps in front (act's focus from a stand-in for i3's IPC) a bound three-finger swipe reaches the clone whole and runs nothing; with another app in front it is taken"
    )
    func claimFollowsFocus() throws {
        let run = try Self.run()
        let act = run.files["claim-act-context.log"] ?? ""
        let sent = Self.frames(try Self.claimFile(run, "sent-claim-leftto.evemu"))
        let clone = Self.frames(try Self.claimFile(run, "read-claim-leftto.evemu"))
        #expect(
            !sent.isEmpty && clone.map(\.events) == sent.map(\.events),
            "\(sent.count) written, \(clone.count) reached the clone\n\(act)")
        let left = Self.touches(try Self.claimFile(run, "libinput-claim-leftto.out"))
        #expect(left.down >= 3 && left.up == left.down && left.cancel == 0, "\(left)")

        let takenSent = Self.frames(try Self.claimFile(run, "sent-claim-taken.evemu"))
        let third = try #require(Self.beforeThirdFinger(takenSent), "the recording never has three fingers down")
        let taken = Self.touches(try Self.claimFile(run, "libinput-claim-taken.out"))
        #expect(taken == (down: third.fingers, up: 0, cancel: third.fingers), "\(taken)\n\(act)")
        #expect(Self.frames(try Self.claimFile(run, "read-claim-taken.evemu")).count == third.frame + 2)

        let ran = (try Self.claimFile(run, "ran-context.out")).split(separator: "\n")
        #expect(ran == ["swipe"], "\(ran)")
        #expect(
            act.contains("gestured.test.maps has the focus: its touches are left to it (leave-to-apps); claiming nothing"),
            "\(act)")
        #expect(act.contains("claiming 3 fingers, left edge on claimed touchscreens now"), "\(act)")
    }

    @Test(
        "a touch in a claimed edge band is held back: a tap until it lifts, a finger resting there until the hold-back bound, then it reaches the clone from where it landed"
    )
    func claimEdgeHold() throws {
        let run = try Self.run()
        let edgeHold = Int64(GestureThresholds().claimEdgeHold * 1000)
        let tapSent = Self.frames(try Self.claimFile(run, "sent-claim-edgetap.evemu"))
        let tap = Self.frames(try Self.claimFile(run, "read-claim-edgetap.evemu"))
        let (tapLanded, tapLifted) = (try #require(tapSent.first).time, try #require(tapSent.last).time)
        try #require(tapLifted - tapLanded < edgeHold, "the tap was played longer than the hold-back bound")
        let tapRead = try #require(tap.first?.read)
        #expect(tapRead >= tapLifted, "the tap's landing reached the clone \(tapLifted - tapRead) µs before it lifted")

        let restSent = Self.frames(try Self.claimFile(run, "sent-claim-edgerest.evemu"))
        let rest = Self.frames(try Self.claimFile(run, "read-claim-edgerest.evemu"))
        let (restLanded, restLifted) = (try #require(restSent.first).time, try #require(restSent.last).time)
        let restRead = try #require(rest.first?.read)
        #expect(restRead >= restLanded + edgeHold, "released \(restRead - restLanded) µs after it landed")
        #expect(restRead < restLifted, "a resting finger waited for its lift")
        print(
            "kernel harness: an edge tap reached the clone \((tapRead - tapLanded) / 1000) ms after it landed, a resting finger \((restRead - restLanded) / 1000) ms (hold-back bound \(edgeHold / 1000) ms)"
        )
    }

    @Test(
        "a claim that ends mid-touch (the device removed, a reload turning claim off, SIGTERM, kill -9): the clone goes, the device can be grabbed again, no touch is left down on the clone or the device"
    )
    func claimEndings() throws {
        let run = try Self.run()
        let serve = run.files["claim-serve.log"] ?? ""
        for tag in ["removed", "reload", "term", "kill"] {
            let clone = "#claim-\(tag) (gestured)"
            let after = try Self.claimFile(run, "names-after-\(tag).out")
            #expect(!after.contains(clone), "\(tag): the clone is still there:\n\(after)")
            let libinputClone = Self.touches(try Self.claimFile(run, "libinput-claim-\(tag).out"))
            #expect(libinputClone.down > 0, "\(tag): the clone saw no touch before the claim ended")
            #expect(libinputClone.down == libinputClone.up + libinputClone.cancel, "\(tag): the clone kept \(libinputClone)")
            guard tag != "removed" else { continue }
            let grab = try Self.claimFile(run, "grab-after-\(tag).out")
            let player = run.files["claim-play-claim-\(tag).out"] ?? ""
            #expect(grab.hasPrefix("grabbed "), "\(tag): \(grab)\nthe player: \(player)\n\(run.files["guest.log"] ?? "")")
            let sourceOutput = try Self.claimFile(run, "libinput-source-\(tag).out")
            let libinputDevice = Self.touches(sourceOutput)
            #expect(libinputDevice.down == libinputDevice.up + libinputDevice.cancel, "\(tag): the device kept \(libinputDevice)")
            if tag == "reload" {
                // Read from before the claim, as the compositor reads it: the
                // pinch after the reload, whole, two fingers down and up.
                #expect(libinputDevice.down == 2 && libinputDevice.up == 2, "\(libinputDevice)\n\(sourceOutput)")
                #expect(!sourceOutput.contains("double tracking ID") && !sourceOutput.contains("kernel bug"), "\(sourceOutput)")
            }
            let during = try Self.claimFile(run, "names-during-\(tag).out")
            #expect(during.contains(clone) == (tag == "reload"), "\(tag): \(during)")
        }
        #expect(serve.contains("#claim-removed: gone"), "\(serve)")
        let devices = try Self.claimFile(run, "devices.out")
        #expect(devices.contains("#claim-reload ") && devices.hasSuffix("claimed\n"), "\(devices)")
        // A reload lets go only once the fingers are up.
        #expect((try Self.claimFile(run, "grab-during-reload.out")).hasPrefix("cannot grab"))
        let reload = serve.split(separator: "\n").filter { $0.contains("#claim-reload") }
        let noLonger = reload.firstIndex { $0.contains("no longer claimed") }
        let letGo = reload.firstIndex { $0.contains("let go; the compositor reads it again") }
        #expect(noLonger != nil && letGo != nil && noLonger! < letGo!, "\(reload)")
        // Let go, it is read whole: the same pinch again is a pinch of two fingers.
        let events = (run.files["claim-events.jsonl"] ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let pinches = events.filter {
            ($0["device"] as? String ?? "").hasSuffix("#claim-reload") && $0["gesture"] as? String == "pinch"
        }
        #expect(pinches.filter { $0["phase"] as? String == "ended" }.count == 2, "\(pinches.map { $0["phase"] ?? "" })")
        #expect(pinches.allSatisfy { $0["fingers"] as? Int == 2 }, "\(pinches.map { $0["fingers"] ?? "" })")
        #expect(!serve.contains("double tracking ID"), "\(serve)")
    }

    @Test(
        "a touchscreen claimed and let go while a reader has it open all along (scripts/kernel-guest-stale.sh): the reader reads the two-finger touch after the claim whole, as it read it before"
    )
    func claimGivesBackState() throws {
        let run = try Self.run()
        let serve = try #require(run.files["stale-serve.log"], "the guest wrote no stale-serve.log")
        let read = try #require(run.files["stale-libinput.out"], "the guest wrote no stale-libinput.out")
        #expect(serve.contains("#stale: grabbed") && serve.contains("#stale: let go"), "\(serve)")
        // The two fingers before the claim; the tap the daemon alone saw
        // while it held the device; once let go, the two fingers and the
        // tap again: five downs and five ups the reader saw, none lost.
        #expect(Self.touches(read).down == 5 && Self.touches(read).up == 5, "\(read)")
        #expect(!read.contains("double tracking ID") && !read.contains("BUG"), "\(read)")
        #expect(!serve.contains("cannot give the compositor back"), "\(serve)")
    }

    @Test("a finger resting on a touchscreen when a daemon claiming it starts: no grab until it lifts")
    func claimRestingFinger() throws {
        let run = try Self.run()
        let log = (try Self.claimFile(run, "rest.log")).split(separator: "\n")
        let claimed = log.firstIndex { $0.contains("#claim-rest: claimed") }
        let resumed = log.firstIndex { $0 == "--- resumed" }
        let grabbed = log.firstIndex { $0.contains("#claim-rest: grabbed") }
        #expect(claimed != nil && resumed != nil && grabbed != nil, "\(log)")
        if let claimed, let resumed, let grabbed { #expect(claimed < resumed && resumed < grabbed, "\(log)") }
        #expect(log.contains("rest daemon exited 0"), "\(log)")
        // A plain reader of the device got the touch to its end.
        let read = Self.frames(try Self.claimFile(run, "read-source-rest.evemu"))
        #expect(read.last?.events.contains("0003 0039 -1") == true, "\(read.suffix(2))")
    }
}
