import GestureConfiguration
import GestureCore
import GestureProtocol
import Logging
import Testing

@testable import GestureDaemon

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Daemon parts")
struct DaemonPartsTests {
    /// A client on one end of a socket pair whose kernel buffer is full,
    /// so that what is queued next stays in its outbox; the other end.
    static func blockedClient() -> (Client, Int32) {
        var fds: [Int32] = [0, 0]
        _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds)
        var c = Client(fd: fds[0], token: Readiness.Token(rawValue: 1), serial: 1, pid: 0, uid: 0, gid: 0, outboxLimit: 1 << 20)
        let filler = String(repeating: "x", count: 1000)
        while true {
            _ = c.enqueue(filler)
            if case .wouldBlock = c.flush() { break }
        }
        return (c, fds[1])
    }

    /// Everything the peer end can read, as lines.
    static func drain(_ c: inout Client, _ peer: Int32) -> [String] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        for _ in 0..<10_000 {
            _ = c.flush()
            let n = chunk.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { bytes += chunk[0..<n] } else if c.pending == 0 { break }
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("a daemon stopping says goodbye after what it had queued; an overflowing client keeps only a line already begun")
    func finalLines() {
        var (stopping, peer) = Self.blockedClient()
        defer {
            close(stopping.fd)
            close(peer)
        }
        for line in ["a", "b", "c"] { _ = stopping.enqueue(line) }
        stopping.enqueueFinal("goodbye", closeBy: .never, dropQueued: false)
        #expect(Self.drain(&stopping, peer).suffix(4) == ["a", "b", "c", "goodbye"])

        var (overflowing, peer2) = Self.blockedClient()
        defer {
            close(overflowing.fd)
            close(peer2)
        }
        for line in ["a", "b", "c"] { _ = overflowing.enqueue(line) }
        overflowing.enqueueFinal("overflow", closeBy: .never)
        let lines = Self.drain(&overflowing, peer2)
        #expect(lines.last == "overflow" && !lines.contains("a"), "\(lines.suffix(3))")
        #expect(lines.dropLast().allSatisfy { $0.count == 1000 }, "only whole lines before it")
    }

    @Test("a client is behind only when its socket takes no more: a burst it can take is not")
    func fallingBehind() {
        var fds: [Int32] = [0, 0]
        _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds)
        defer { close(fds[1]) }
        var burst = Client(
            fd: fds[0], token: Readiness.Token(rawValue: 1), serial: 1, pid: 0, uid: 0, gid: 0, outboxLimit: 16 * 1024)
        defer { close(burst.fd) }
        let line = String(repeating: "x", count: 199)
        for _ in 0..<50 { _ = burst.enqueue(line) }
        #expect(burst.pending == 10_000)
        let burstBehind = burst.fallingBehind()
        #expect(!burstBehind, "the socket takes the burst")
        #expect(burst.pending == 0)

        var (blocked, peer) = Self.blockedClient()
        defer {
            close(blocked.fd)
            close(peer)
        }
        let early = blocked.fallingBehind()
        #expect(!early, "little waits yet")
        while blocked.pending <= blocked.outboxLimit / 2 { _ = blocked.enqueue(line) }
        let behind = blocked.fallingBehind()
        #expect(behind)
        let read = Self.drain(&blocked, peer)
        #expect(read.count > 0)
        let after = blocked.fallingBehind()
        #expect(!after, "caught up once the peer read")
    }

    @Test("client requests: subscribe with every filter, unsubscribe, ping")
    func requests() throws {
        let line =
            #"{"type":"subscribe","gestures":["tap","pinch"],"fingers":[2,1,2],"devices":["056a:00e6"],"phases":["began","ended"],"region":[0,0.25,0.5,1],"future":{"x":1}}"#
        guard case .subscribe(let s) = try ClientRequest.parse(Array(line.utf8)) else {
            Issue.record("not a subscribe")
            return
        }
        #expect(s.gestures == GestureKindSet([.tap, .pinch]))
        #expect(s.fingers == [1, 2] && s.devices == ["056a:00e6"] && s.phases == GesturePhaseSet([.began, .ended]))
        #expect(s.region.map { [$0.x0, $0.y0, $0.x1, $0.y1] } == [0, 0.25, 0.5, 1])
        #expect(s.maxTaps == 1)
        #expect(try ClientRequest.parse(Array(#"{"type":"unsubscribe"}"#.utf8)) == .unsubscribe)
        #expect(try ClientRequest.parse(Array(#"{"type":"ping","id":3}"#.utf8)) == .ping)
        // null means "any".
        guard case .subscribe(let any) = try ClientRequest.parse(Array(#"{"type":"subscribe","fingers":null}"#.utf8)) else {
            Issue.record("not a subscribe")
            return
        }
        #expect(any == Subscription())
        // A claim (protocol 1.3), echoed in `subscribed`.
        let claiming = #"{"type":"subscribe","claim":{"fingers":[4,3],"edges":["left"]}}"#
        guard case .subscribe(let c) = try ClientRequest.parse(Array(claiming.utf8)) else {
            Issue.record("not a subscribe")
            return
        }
        #expect(c.claims == ClaimSet(fingers: [3, 4], edges: [.left]))
        #expect(c.jsonFields.contains(#""claim":{"fingers":[3,4],"edges":["left"]}"#), "\(c.jsonFields)")
        #expect(any.jsonFields.contains(#""claim":null"#))
        // Claims on some touchscreens only (protocol 1.5): a list, each entry with its devices.
        let some =
            #"{"type":"subscribe","claim":[{"fingers":[3]},{"edges":["left"],"devices":["/dev/input/event7","056a:00E6"]},{"fingers":[4],"devices":["Tablet Finger"]}]}"#
        guard case .subscribe(let d) = try ClientRequest.parse(Array(some.utf8)) else {
            Issue.record("not a subscribe")
            return
        }
        #expect(d.claims == ClaimSet(fingers: [3]))
        #expect(d.claims(name: "Other", node: "/dev/input/event5", vendorProduct: "1234:5678") == ClaimSet(fingers: [3]))
        #expect(
            d.claims(name: "Other", node: "/dev/input/event7", vendorProduct: "1234:5678")
                == ClaimSet(fingers: [3], edges: [.left]))
        #expect(
            d.claims(name: "Wacom", node: "/dev/input/event5", vendorProduct: "056a:00e6")
                == ClaimSet(fingers: [3], edges: [.left]), "a vendor:product id matches ignoring case")
        #expect(
            d.claims(name: "Tablet Finger", node: "/dev/input/event9", vendorProduct: "1234:5678")
                == ClaimSet(fingers: [3, 4]))
        #expect(
            d.jsonFields.contains(
                #""claim":[{"fingers":[3],"edges":[]},{"fingers":[],"edges":["left"],"devices":["/dev/input/event7","056a:00E6"]},{"fingers":[4],"edges":[],"devices":["Tablet Finger"]}]"#
            ), "\(d.jsonFields)")
    }

    @Test("a claim entry with touchpad (1.7): its counts are claimed and go to the virtual touchpad; echoed as the counts")
    func touchpadClaims() throws {
        let line = #"{"type":"subscribe","claim":[{"fingers":[3,4],"touchpad":true},{"fingers":[3],"edges":["left"]}]}"#
        guard case .subscribe(let s) = try ClientRequest.parse(Array(line.utf8)) else {
            Issue.record("not a subscribe")
            return
        }
        // 3 is claimed for its own sake too (the second entry), 4 only for the pad.
        #expect(s.claims == ClaimSet(fingers: [3], edges: [.left], touchpad: [3, 4]))
        #expect(s.claims.claims(fingers: 3) && s.claims.toTouchpad(fingers: 4) && !s.claims.toTouchpad(fingers: 2))
        #expect(s.claims.withoutTouchpad == ClaimSet(fingers: [3], edges: [.left]))
        #expect(s.jsonFields.contains(#""claim":{"fingers":[3,4],"edges":["left"],"touchpad":[3,4]}"#), "\(s.jsonFields)")
        #expect(s.claims.summary == "3 fingers (to the touchpad), 4 fingers (to the touchpad), left edge")
    }

    @Test(
        "cancel_dropped (1.13): every claim of the subscription, everywhere and per touchscreen, takes touches as on a compositor that drops touch cancels; echoed; what act writes reads back"
    )
    func cancelDroppedClaims() throws {
        let line =
            #"{"type":"subscribe","claim":[{"fingers":[3]},{"edges":["left"],"devices":["/dev/input/event7"]}],"cancel_dropped":true}"#
        guard case .subscribe(let s) = try ClientRequest.parse(Array(line.utf8)) else {
            Issue.record("not a subscribe")
            return
        }
        #expect(s.claims == ClaimSet(fingers: [3], cancelDropped: true))
        let on7 = s.claims(name: "Tablet", node: "/dev/input/event7", vendorProduct: "1234:5678")
        #expect(on7 == ClaimSet(fingers: [3], edges: [.left], cancelDropped: true))
        #expect(s.jsonFields.contains(#""cancel_dropped":true"#), "\(s.jsonFields)")
        // Without it, or false: cancelled as before.
        for other in [
            #"{"type":"subscribe","claim":{"fingers":[3]}}"#,
            #"{"type":"subscribe","claim":{"fingers":[3]},"cancel_dropped":false}"#,
        ] {
            guard case .subscribe(let plain) = try ClientRequest.parse(Array(other.utf8)) else {
                Issue.record("not a subscribe: \(other)")
                return
            }
            #expect(plain.claims == ClaimSet(fingers: [3]) && !plain.jsonFields.contains("cancel_dropped"))
        }
        // act's request says it with its claims, and only with claims.
        var r = SubscribeRequest()
        r.claims = ClaimSet(fingers: [3], cancelDropped: true)
        #expect(r.line.contains(#""cancel_dropped":true"#), "\(r.line)")
        guard case .subscribe(let back) = try ClientRequest.parse(Array(r.line.utf8)) else {
            Issue.record("not a subscribe: \(r.line)")
            return
        }
        #expect(back.claims == r.claims)
        r.claims = ClaimSet(cancelDropped: true)
        #expect(!r.line.contains("cancel_dropped"), "\(r.line)")
    }

    @Test("hold claims (1.8): one object or a list, the shortest per count, echoed as asked; a pointer request and its answer")
    func holdClaimsAndPointer() throws {
        let line =
            #"{"type":"subscribe","pointer":true,"claim":[{"hold":{"fingers":1,"ms":800}},{"fingers":[3],"hold":[{"fingers":1,"ms":600},{"fingers":2,"ms":900}]}]}"#
        guard case .subscribe(let s) = try ClientRequest.parse(Array(line.utf8)) else {
            Issue.record("not a subscribe")
            return
        }
        #expect(s.claims == ClaimSet(fingers: [3], holds: [1: 600, 2: 900]) && s.pointer)
        #expect(!s.claims.claims(fingers: 1) && !s.claims.claims(fingers: 2))
        #expect(
            s.jsonFields.contains(
                #""pointer":true,"claim":{"fingers":[3],"edges":[],"hold":[{"fingers":1,"ms":600},{"fingers":2,"ms":900}]}"#),
            "\(s.jsonFields)")
        #expect(s.claims.summary == "3 fingers, 1-finger hold of 600 ms, 2-finger hold of 900 ms")
        let one = try ClientRequest.parse(Array(#"{"type":"subscribe","claim":{"hold":{"fingers":1,"ms":800}}}"#.utf8))
        guard case .subscribe(let o) = one else {
            Issue.record("a hold claim is not read as a subscription: \(one)")
            return
        }
        #expect(o.jsonFields.contains(#""claim":{"fingers":[],"edges":[],"hold":{"fingers":1,"ms":800}}"#), "\(o.jsonFields)")
        let click = try ClientRequest.parse(Array(#"{"type":"pointer","button":"right","x":0.25,"y":1}"#.utf8))
        let want = try #require(PointerClick(.right, x: 0.25, y: 1))
        #expect(click == .pointer(want))
        #expect(ServerMessage.clicked(want) == #"{"type":"clicked","button":"right","x":0.25,"y":1.0}"#)
        #expect(want.request == #"{"type":"pointer","button":"right","x":0.25,"y":1.0}"#)
        // JSON has no NaN: such a line is no JSON at all.
        #expect(throws: RequestError.self) {
            _ = try ClientRequest.parse(Array(#"{"type":"pointer","button":"right","x":NaN,"y":0.5}"#.utf8))
        }
        #expect(PointerClick(.left, x: .nan, y: 0) == nil && PointerClick(.left, x: 0, y: -0.01) == nil)
    }

    @Test(
        "bad requests name the field",
        arguments: [
            (#"{"type":"subscribe","fingers":[0]}"#, "fingers are counts"),
            (#"{"type":"subscribe","fingers":[1.5]}"#, "\"fingers\""),
            (#"{"type":"subscribe","region":[0,0,1]}"#, "region"),
            (#"{"type":"subscribe","region":[0,0,1,2]}"#, "region"),
            (#"{"type":"subscribe","devices":"all"}"#, "\"devices\""),
            (#"{"type":"subscribe","gestures":[1]}"#, "\"gestures\""),
            (#"{"type":"subscribe","phases":["over"]}"#, "over"),
            (#"{"type":"subscribe","claim":{"fingers":[1]}}"#, "claim an edge instead"),
            (#"{"type":"subscribe","claim":{"edges":["middle"]}}"#, "middle"),
            (#"{"type":"subscribe","claim":[3]}"#, "\"claim\""),
            (#"{"type":"subscribe","claim":[{"fingers":[3],"devices":[]}]}"#, "devices are 1 to 64"),
            (#"{"type":"subscribe","claim":{"fingers":[3],"devices":"eDP"}}"#, "\"claim\""),
            (#"{"type":"subscribe","claim":{"edges":["left"],"touchpad":true}}"#, "\"touchpad\": true names finger counts"),
            (#"{"type":"subscribe","claim":{"fingers":[3],"edges":["left"],"touchpad":true}}"#, "and no edges"),
            (#"{"type":"subscribe","claim":{"fingers":[6],"touchpad":true}}"#, "from 2 to 5"),
            (#"{"type":"subscribe","claim":{"fingers":[3],"touchpad":"yes"}}"#, "\"claim\""),
            (#"{"type":"subscribe","claim":{"hold":{"fingers":0,"ms":800}}}"#, "\"hold\" is"),
            (#"{"type":"subscribe","claim":{"hold":{"fingers":1,"ms":10001}}}"#, "\"ms\": 0 to 10000"),
            (#"{"type":"subscribe","claim":{"hold":{"fingers":1.5,"ms":800}}}"#, "\"hold\" is"),
            (#"{"type":"subscribe","claim":{"fingers":[3],"touchpad":true,"hold":{"fingers":1,"ms":800}}}"#, "not with"),
            (#"{"type":"subscribe","claim":{"hold":{"fingers":1}}}"#, "\"claim\""),
            (#"{"type":"subscribe","claim":{"fingers":[3]},"cancel_dropped":"yes"}"#, "\"cancel_dropped\""),
            (#"{"type":"pointer","button":"right","x":1.5,"y":0.5}"#, "fractions 0 to 1"),
            (#"{"type":"pointer","button":"right","x":-0.1,"y":0.5}"#, "fractions 0 to 1"),
            (#"{"type":"pointer","button":"right","x":"NaN","y":0.5}"#, "\"button\", \"x\" and \"y\""),
            (#"{"type":"pointer","button":"back","x":0.5,"y":0.5}"#, "unknown button 'back'"),
            (#"{"type":"pointer","x":0.5,"y":0.5}"#, "\"button\""),
            (
                #"{"type":"subscribe","claim":["# + Array(repeating: #"{"fingers":[3]}"#, count: 17).joined(separator: ",")
                    + "]}",
                "at most 16 entries"
            ),
        ])
    func badRequests(line: String, says: String) {
        do {
            _ = try ClientRequest.parse(Array(line.utf8))
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.code == "bad-request" && error.message.contains(says), "\(error.message)")
        }
    }

    @Test("admission: fingers and region at the start, devices by name, node or vendor:product")
    func admission() throws {
        var s = Subscription()
        s.fingers = [2]
        s.region = (0, 0, 0.5, 0.5)
        var e = GestureEvent(
            gesture: .drag, phase: .began, id: 1, time: .zero, device: DeviceID(1), fingers: 2, x: 0,
            y: 0, nx: 0.25, ny: 0.5, edge: nil)
        #expect(s.admits(e))
        e.ny = 0.51
        #expect(!s.admits(e))
        e.ny = 0.2
        e.fingers = 1
        #expect(!s.admits(e))
        let d = DeviceInfo(
            id: DeviceID(1), name: "Panel", node: "/dev/input/event5", vendorProduct: "056a:00e6", width: 1, height: 1,
            sizeSource: .resolution, rotation: 0, slots: 10)
        for filter in ["Panel", "/dev/input/event5", "056A:00E6"] {
            s.devices = [filter]
            #expect(s.accepts(device: d))
        }
        s.devices = ["Other"]
        #expect(!s.accepts(device: d))
    }

    @Test("directions filter swipes and flicks at recognition, edges every gesture at its start (protocol 1.2)")
    func directionsAndEdges() throws {
        guard
            case .subscribe(let s) = try ClientRequest.parse(
                Array(#"{"type":"subscribe","directions":["up","left"],"edges":["left"]}"#.utf8))
        else {
            Issue.record("not a subscribe")
            return
        }
        #expect(s.directions == [.up, .left] && s.edges == [.left])
        #expect(ServerMessage.subscribed(s).contains(#""directions":["up","left"],"edges":["left"]"#))
        var e = GestureEvent(
            gesture: .swipe, phase: .recognized, id: 1, time: .zero, device: DeviceID(1), fingers: 1, x: 0,
            y: 0, nx: 0.01, ny: 0.5, edge: .left)
        e.direction = .up
        #expect(s.admits(e))
        e.direction = .right
        #expect(!s.admits(e), "a swipe the other way")
        e.direction = .up
        e.edge = nil
        #expect(!s.admits(e), "not from the left edge")
        var pinch = GestureEvent(
            gesture: .pinch, phase: .began, id: 2, time: .zero, device: DeviceID(1), fingers: 2, x: 0,
            y: 0, nx: 0.01, ny: 0.5, edge: .left)
        #expect(s.admits(pinch), "a continuous gesture's direction is not known when it begins")
        pinch.phase = .recognized
        pinch.gesture = .tap
        #expect(s.admits(pinch), "a tap has no direction")
        for (line, says) in [
            (#"{"type":"subscribe","directions":["sideways"]}"#, "unknown direction 'sideways'"),
            (#"{"type":"subscribe","edges":["middle"]}"#, "unknown edge 'middle'"),
            (#"{"type":"subscribe","edges":"left"}"#, "\"edges\" must be a list of panel edges"),
        ] {
            do {
                _ = try ClientRequest.parse(Array(line.utf8))
                Issue.record("accepted \(line)")
            } catch {
                #expect(error.code == "bad-request" && error.message.contains(says), "\(error.message)")
            }
        }
    }

    @Test("EDID: the detailed timing descriptor's size in mm, else the basic size in cm; anything else is refused")
    func edid() {
        var block = [UInt8](repeating: 0, count: 128)
        block[0..<8] = [0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]
        block[21] = 31  // cm
        block[22] = 17
        #expect(DisplaySize.parse(edid: block).map { [$0.width, $0.height] } == [310, 170])
        block[54] = 0x1d  // a pixel clock: the descriptor is a timing
        block[66] = 0x35  // 309 mm = 0x135, 174 mm = 0x0ae
        block[67] = 0xae
        block[68] = 0x10
        #expect(DisplaySize.parse(edid: block).map { [$0.width, $0.height] } == [309, 174])
        #expect(DisplaySize.parse(edid: Array(block[0..<100])) == nil)
        var notEDID = block
        notEDID[1] = 0
        #expect(DisplaySize.parse(edid: notEDID) == nil)
    }

    @Test("calibration matrices map like replay's geometry: mirror, then rotate clockwise")
    func calibration() {
        func apply(_ m: [Float], _ u: Float, _ v: Float) -> [Float] { [m[0] * u + m[1] * v + m[2], m[3] * u + m[4] * v + m[5]] }
        for rotation in [0, 90, 180, 270] {
            for (fx, fy) in [(false, false), (true, false), (false, true)] {
                let m = Calibration.matrix(rotation: rotation, flipX: fx, flipY: fy)
                // 1,000 values an axis: raw value r begins at r / 1000 of the side.
                var g = PanelGeometry(minX: 0, maxX: 999, minY: 0, maxY: 999, width: 1, height: 1, source: .configuration)
                g.rotation = rotation
                g.flipX = fx
                g.flipY = fy
                for (u, v) in [(0.1, 0.2), (0.9, 0.3), (0.5, 0.75)] {
                    let want = g.millimetres(rawX: Int32(u * 1000), rawY: Int32(v * 1000))
                    let got = apply(m, Float(u), Float(v))
                    #expect(abs(Double(got[0]) - want.x) < 1e-6 && abs(Double(got[1]) - want.y) < 1e-6, "\(rotation) \(fx) \(fy)")
                }
                if !fx && !fy { #expect(Calibration.rotation(of: m) == rotation) }
            }
        }
    }

    @Test(
        "a client that claimed touches going (closed, or its user leaving the screen) is news of its own: its claims end even for a sequence nothing was taken of; one that claimed nothing is not"
    )
    func claimantLeaving() throws {
        var server = Server(
            access: AccessPolicy(), settings: DaemonSettings(), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        var fds: [Int32] = [0, 0]
        for claims in [ClaimSet(holds: [1: 800]), ClaimSet()] {
            _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
            defer { close(fds[1]) }
            var c = Client(fd: fds[0], token: Readiness.Token(rawValue: 1), serial: 1, pid: 0, uid: 0, gid: 0, outboxLimit: 1024)
            c.state = .subscribed
            c.subscription.claims = claims
            server.clients = [c]
            let news = server.close(0)
            #expect(news.subscriptionsChanged && news.claimantLeft == !claims.isEmpty, "\(claims)")
            server.sweep()
        }
        // Leaving the screen: a stranger's client, once logind says another session is active.
        _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
        defer {
            close(fds[0])
            close(fds[1])
        }
        var stranger = Client(
            fd: fds[0], token: Readiness.Token(rawValue: 2), serial: 2, pid: 0, uid: 4321, gid: 0, outboxLimit: 1024)
        stranger.state = .subscribed
        stranger.subscription.claims = ClaimSet(fingers: [3])
        server.clients = [stranger]
        _ = server.seatChanged(.active(4321, locked: false), now: .zero)
        #expect(server.seatChanged(.active(4322, locked: false), now: .zero).claimantLeft)
    }

    @Test("server messages are single-line JSON")
    func messages() {
        var d = DeviceInfo(
            id: DeviceID(1), name: "A \"quoted\" panel", node: "/dev/input/event5", vendorProduct: "056a:00e6", width: 276.94,
            height: 155.8, sizeSource: .display, rotation: 90, slots: 10)
        let added = ServerMessage.deviceAdded(d, time: Timestamp(microseconds: 42))
        #expect(
            added
                == #"{"type":"device_added","time_us":42,"device":"A \"quoted\" panel","node":"/dev/input/event5","vendor_product":"056a:00e6","width_mm":276.9,"height_mm":155.8,"size_source":"display","rotation":90,"orientation":"normal","orientation_source":"configuration","slots":10,"claimed":false}"#
        )
        (d.output, d.orientation, d.orientationSource, d.width, d.height) = ("eDP-1", .flipped270, .session, 155.8, 276.94)
        #expect(
            ServerMessage.orientation(d, time: Timestamp(microseconds: 43))
                == #"{"type":"orientation","time_us":43,"device":"A \"quoted\" panel","node":"/dev/input/event5","transform":"flipped-270","source":"session","width_mm":155.8,"height_mm":276.9}"#
        )
        #expect(
            ServerMessage.deviceAdded(d, time: Timestamp(microseconds: 44)).contains(
                #""output":"eDP-1","rotation":90,"orientation":"flipped-270","orientation_source":"session""#))
        #expect(!ServerMessage.hello(devices: [d], server: "gestured").contains("\n"))
        #expect(
            ServerMessage.error(code: "overflow", message: "a\nb", fatal: true)
                == #"{"type":"error","code":"overflow","message":"a\nb","fatal":true}"#)
    }
}
