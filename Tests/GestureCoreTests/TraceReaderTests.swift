import Foundation
import GestureCore
import Testing
import TraceSynth

@Suite("Trace readers and the evdev assembler")
struct TraceReaderTests {
    static let header = EvemuWriter.description(SynthPanel.tablet.description)

    func frames(_ text: String, file: String = "t.evemu") throws -> (frames: [TouchFrame], warnings: [TraceWarning]) {
        let trace = try EvemuReader.parse(text, file: file)
        let g = TouchAssembler.geometry(for: trace.device, size: nil, source: .commandLine)!
        var a = TouchAssembler(description: trace.device, geometry: g, device: DeviceID(1), file: file)
        var out: [TouchFrame] = []
        for e in trace.events { if let f = try a.feed(e) { out.append(f) } }
        return (out, a.warnings)
    }

    @Test("a file written by the evemu writer reads back the same")
    func roundTrip() throws {
        let panel = SynthPanel.laptop
        var rng = SeededRandom(seed: 7)
        let scenario = Catalog.scenarios(width: panel.width, height: panel.height, rng: &rng)[0]
        let events = Renderer(panel: panel).render(scenario, seed: 3)
        let text = EvemuWriter.trace(panel.description, events: events)
        let trace = try EvemuReader.parse(text, file: "round.evemu")
        #expect(trace.device == panel.description)
        #expect(
            trace.events.map { [$0.time.microseconds, Int64($0.type), Int64($0.code), Int64($0.value)] }
                == events.map { [$0.time.microseconds, Int64($0.type), Int64($0.code), Int64($0.value)] })
    }

    @Test("evemu 2's trailing comments and CRLF line ends are accepted")
    func commentsAndCRLF() throws {
        let text =
            (Self.header
            + "E: 1.000010\t0003 0039 5\t# EV_ABS / ABS_MT_TRACKING_ID 5\nE: 1.000010 0003 0035 100\nE: 1.000010 0000 0000 0\n")
            .replacingOccurrences(of: "\n", with: "\r\n")
        let r = try frames(text)
        #expect(r.frames.count == 1)
        #expect(r.frames[0][0].phase == .down)
    }

    @Test(
        "bad input names the file and line",
        arguments: [
            ("E: 1.0 0003\n", "bad event"),
            ("E: abc 0003 0035 1\n", "bad event time"),
            ("E: 1.5 0003 zz 1\n", "bad event code"),
            ("E: 1.5 0003 0035 99999999999\n", "bad event value"),
            ("E: 1.5 0003 0035 1 junk\n", "unexpected text"),
            ("Q: what\n", "unknown evemu line type"),
            ("hello world\n", "not an evemu line"),
            ("E: 1.000000 0003 002f 40\nE: 1.000000 0000 0000 0\n", "outside the device's slots"),
            // A 27 KB line of key bits: more codes than a UInt16 holds, and no trap.
            ("B: 01" + String(repeating: " ff", count: 9000) + "\n", "more than 96 bytes of codes"),
            ("P:" + String(repeating: " 00", count: 100) + "\n", "more than 96 bytes of properties"),
        ])
    func errors(body: String, message: String) throws {
        let text = Self.header + body
        let line = Self.header.split(separator: "\n", omittingEmptySubsequences: false).count
        do {
            _ = try frames(text, file: "bad.evemu")
            Issue.record("no error for \(body)")
        } catch let e as TraceError {
            #expect(e.file == "bad.evemu")
            #expect(e.line == line)
            #expect(e.message.contains(message), "\(e)")
            #expect(e.description.hasPrefix("bad.evemu:\(line): "))
        }
    }

    @Test("an events-only file without a description says how to give one")
    func eventsOnly() {
        #expect {
            try EvemuReader.parse("E: 1.0 0003 0035 1\n", file: "x.events")
        } throws: { e in
            (e as? TraceError)?.message.contains("--desc") == true
        }
    }

    @Test("time going backwards and SYN_DROPPED are warnings with a recovery")
    func recoverable() throws {
        let body = """
            E: 2.000000 0003 0039 1
            E: 2.000000 0003 0035 100
            E: 2.000000 0000 0000 0
            E: 1.000000 0003 0035 200
            E: 1.000000 0000 0000 0
            E: 2.100000 0000 0003 0
            E: 2.100000 0003 0035 300
            E: 2.100000 0000 0000 0
            E: 2.200000 0003 0039 -1
            E: 2.200000 0000 0000 0

            """
        let r = try frames(Self.header + body)
        #expect(r.warnings.count == 2)
        #expect(r.warnings[0].message.contains("backwards"))
        #expect(r.warnings[1].message.contains("SYN_DROPPED"))
        #expect(r.frames.map(\.time.microseconds) == [2_000_000, 2_000_000, 2_200_000])
        #expect(r.frames.last?[0].phase == .up)
    }

    @Test("protocol A contacts are matched frame to frame and lifted when they vanish")
    func protocolA() throws {
        let header = "N: Old Panel\nI: 0003 1b96 0001 0000\nA: 35 0 1000 0 0 0\nA: 36 0 1000 0 0 0\n"
        let body = """
            E: 1.000000 0003 0035 100
            E: 1.000000 0003 0036 100
            E: 1.000000 0000 0002 0
            E: 1.000000 0003 0035 900
            E: 1.000000 0003 0036 900
            E: 1.000000 0000 0002 0
            E: 1.000000 0000 0000 0
            E: 1.010000 0003 0035 905
            E: 1.010000 0003 0036 900
            E: 1.010000 0000 0002 0
            E: 1.010000 0003 0035 110
            E: 1.010000 0003 0036 100
            E: 1.010000 0000 0002 0
            E: 1.010000 0000 0000 0
            E: 1.020000 0003 0035 111
            E: 1.020000 0003 0036 100
            E: 1.020000 0000 0002 0
            E: 1.020000 0000 0000 0
            E: 1.030000 0000 0002 0
            E: 1.030000 0000 0000 0

            """
        let r = try frames(header + body)
        #expect(r.frames.count == 4)
        #expect(r.frames[0].contacts.map(\.phase) == [.down, .down])
        // The second frame lists the contacts in the other order: each keeps its slot.
        let moves = r.frames[1].contacts
        #expect(moves.count == 2 && moves.allSatisfy { $0.phase == .move })
        let s0 = r.frames[0].contacts.first { $0.x < 50 }!.slot
        #expect(moves.first { $0.x < 50 }!.slot == s0)
        #expect(r.frames[2].contacts.map(\.phase) == [.up, .move])
        #expect(r.frames[3].contacts.map(\.phase) == [.up])
    }

    @Test("protocol A: when the first finger lifts, the one that stays keeps its slot and does not move")
    func protocolAFirstLifts() throws {
        // As in the N-Trig two-finger recording: a finger rests, a second lands
        // far away, the first lifts; the second is then reported alone, first.
        // Matched slot by slot, the first finger's slot took the only contact
        // left and the resting finger jumped across the panel.
        let header = "N: Old Panel\nI: 0003 1b96 0001 0000\nA: 35 0 1000 0 0 0\nA: 36 0 1000 0 0 0\n"
        let body = """
            E: 1.000000 0003 0035 100
            E: 1.000000 0003 0036 600
            E: 1.000000 0000 0002 0
            E: 1.000000 0000 0000 0
            E: 1.010000 0003 0035 101
            E: 1.010000 0003 0036 600
            E: 1.010000 0000 0002 0
            E: 1.010000 0003 0035 900
            E: 1.010000 0003 0036 200
            E: 1.010000 0000 0002 0
            E: 1.010000 0000 0000 0
            E: 1.020000 0003 0035 900
            E: 1.020000 0003 0036 200
            E: 1.020000 0000 0002 0
            E: 1.020000 0000 0000 0

            """
        let r = try frames(header + body)
        #expect(r.frames.count == 3)
        let first = r.frames[0][0].slot
        let second = try #require(r.frames[1].contacts.first { $0.phase == .down }).slot
        #expect(r.frames[2].contacts.map(\.phase) == [.up])
        #expect(r.frames[2][0].slot == first)
        #expect(second != first)
    }

    @Test("protocol B: a new tracking id on a slot that is down ends its contact and begins another")
    func trackingIDReplaced() throws {
        // Allowed by the kernel's protocol: no -1 between the two contacts.
        let body = """
            E: 1.000000 0003 0039 7
            E: 1.000000 0003 0035 100
            E: 1.000000 0003 0036 100
            E: 1.000000 0000 0000 0
            E: 1.010000 0003 0039 8
            E: 1.010000 0003 0035 3000
            E: 1.010000 0003 0036 2000
            E: 1.010000 0000 0000 0
            E: 1.020000 0003 0039 -1
            E: 1.020000 0000 0000 0

            """
        let r = try frames(Self.header + body)
        #expect(r.frames.map { $0.contacts.map(\.phase) } == [[.down], [.up, .down], [.up]])
        // The lift is where the first contact was, the landing where the second is.
        #expect(r.frames[1][0].x < 10 && r.frames[1][1].x > 100)
    }

    @Test("single-touch panels report ABS_X/Y with BTN_TOUCH")
    func singleTouch() throws {
        let header = "N: Resistive\nI: 0003 0eef 0001 0000\nA: 00 0 4095 0 0 0\nA: 01 0 4095 0 0 0\n"
        let body =
            "E: 1.0 0003 0000 10\nE: 1.0 0003 0001 10\nE: 1.0 0001 014a 1\nE: 1.0 0000 0000 0\n"
            + "E: 1.01 0003 0000 20\nE: 1.01 0000 0000 0\nE: 1.02 0001 014a 0\nE: 1.02 0000 0000 0\n"
        let r = try frames(header + body)
        #expect(r.frames.map { $0[0].phase } == [.down, .move, .up])
    }

    @Test("a palm (MT_TOOL_PALM) cancels its touch")
    func palm() throws {
        let body =
            "E: 1.0 0003 0039 1\nE: 1.0 0003 0035 100\nE: 1.0 0000 0000 0\nE: 1.01 0003 0037 2\nE: 1.01 0000 0000 0\n"
            + "E: 1.02 0003 0035 150\nE: 1.02 0000 0000 0\nE: 1.03 0003 0039 -1\nE: 1.03 0000 0000 0\n"
        let r = try frames(Self.header + body)
        #expect(r.frames.map { $0[0].phase } == [.down, .cancel])
    }

    @Test("libinput record YAML reads to the same gestures as evemu")
    func libinputRecord() throws {
        let yaml = """
            # libinput record
            version: 1
            ndevices: 1
            libinput:
              version: "1.22.1"
            devices:
            - node: /dev/input/event5
              evdev:
                # Name: Test Touchscreen
                name: "Test Touchscreen"
                id: [24, 7531, 32343, 1]
                codes:
                  0: [0, 1, 2, 3] # EV_SYN
                  1: [330] # EV_KEY
                  3: [0, 1, 47, 53, 54, 57] # EV_ABS
                absinfo:
                  0: [0, 2000, 0, 0, 10]
                  1: [0, 1000, 0, 0, 10]
                  47: [0, 9, 0, 0, 0]
                  53: [0, 2000, 0, 0, 10]
                  54: [0, 1000, 0, 0, 10]
                  57: [0, 65535, 0, 0, 0]
                properties: [1]
              events:
              # Current time is 10:00:00
              - evdev:
                - [  0,      0,   3,  57,     1] # EV_ABS / ABS_MT_TRACKING_ID 1
                - [  0,      0,   3,  53,  1000] # EV_ABS / ABS_MT_POSITION_X 1000
                - [  0,      0,   3,  54,   500] # EV_ABS / ABS_MT_POSITION_Y 500
                - [  0,      0,   1, 330,     1] # EV_KEY / BTN_TOUCH 1
                - [  0,      0,   0,   0,     0] # ------------ SYN_REPORT (0) ---------- +0ms
              - evdev:
                - [  0,  80000,   3,  57,    -1] # EV_ABS / ABS_MT_TRACKING_ID -1
                - [  0,  80000,   1, 330,     0] # EV_KEY / BTN_TOUCH 0
                - [  0,  80000,   0,   0,     0] # ------------ SYN_REPORT (0) ---------- +80ms

            """
        #expect(LibinputRecordReader.looksLikeRecording(yaml))
        let traces = try LibinputRecordReader.parse(yaml, file: "r.yml")
        #expect(traces.count == 1)
        let t = traces[0]
        #expect(t.device.name == "Test Touchscreen")
        #expect(t.device.vendorProduct == "1d6b:7e57")
        #expect(t.device.isDirect && t.device.slotCount == 10)
        #expect(t.events.count == 8)
        #expect(t.events[5].time.microseconds == 80_000 && t.events[5].value == -1)
        let g = TouchAssembler.geometry(for: t.device, size: nil, source: .commandLine)!
        #expect(g.width == 200 && g.source == .resolution)
        let (events, _) = try TraceReplay(geometry: g).events(t)
        #expect(events.compactMap(\.summary) == ["tap fingers=1"])
        // The middle of the panel, within a unit (0.1 mm).
        #expect(abs(events[0].x - 100) < 0.1 && abs(events[0].y - 50) < 0.1, "\(events[0].x), \(events[0].y)")
    }

    @Test("broken YAML names the line")
    func brokenYAML() {
        let yaml = "version: 1\ndevices:\n- evdev:\n    name: [unclosed\n"
        #expect {
            try LibinputRecordReader.parse(yaml, file: "bad.yml")
        } throws: { e in
            guard let e = e as? TraceError else { return false }
            return e.line > 0 && e.message.contains("YAML")
        }
    }

    @Test("YAML anchors and aliases are refused, and deep nesting, before libyaml takes minutes")
    func yamlAbuse() {
        let alias = "version: 1\ndevices:\n- evdev: &a\n    name: x\n- evdev: *a\n"
        #expect {
            try LibinputRecordReader.parse(alias, file: "alias.yml")
        } throws: { e in
            (e as? TraceError)?.message.contains("aliases are not supported") == true && (e as? TraceError)?.line == 3
        }
        // libyaml's scanner is quadratic in flow depth: refused before it, naming the line.
        let deep = "version: 1\ndevices: " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect {
            try LibinputRecordReader.parse(deep, file: "deep.yml")
        } throws: { e in
            (e as? TraceError)?.message.contains("nested more than 64 deep") == true && (e as? TraceError)?.line == 2
        }
    }

    @Test("geometry: resolution, fallback and rotation")
    func geometry() {
        let fallback = PanelGeometry.fallback(minX: 0, maxX: 1600, minY: 0, maxY: 1200)
        #expect(abs((fallback.width * fallback.width + fallback.height * fallback.height).squareRoot() - 317.5) < 1e-9)
        #expect(fallback.source == .fallback)
        var g = PanelGeometry(minX: 0, maxX: 1000, minY: 0, maxY: 500, width: 200, height: 100, source: .configuration)
        // 1,001 values along x, each 200/1001 mm, as libinput scales: the
        // last begins 200/1001 mm before the side.
        let last = 1000.0 / 1001.0 * 200
        #expect(g.millimetres(rawX: 1000, rawY: 0) == (last, 0))
        #expect(g.millimetres(rawX: 0, rawY: 0) == (0, 0))
        g.rotation = 90
        // The panel's top-right corner is the bottom-right corner of a screen turned clockwise.
        #expect(g.millimetres(rawX: 1000, rawY: 0) == (100, last))
        #expect(g.screenWidth == 100 && g.screenHeight == 200)
    }

    @Test("mangled recordings give an error naming a line, or a clean replay; never a crash")
    func mangled() throws {
        var rng = SeededRandom(seed: 99)
        let names = Fixtures.recordingNames()
        let replacements = ["-1", "0", "2147483647", "-2147483648", "99999999999", "ffff", "2f", "39", "x", ""]
        var errors = 0
        for _ in 0..<300 {
            let name = names.randomElement(using: &rng)!
            var lines = try Fixtures.read(Fixtures.recordings + "/" + name + ".evemu").split(
                separator: "\n", omittingEmptySubsequences: false
            )
            .map(String.init)
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let i = Int.random(in: 0..<lines.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: lines[i] = String(lines[i].prefix(Int.random(in: 0...lines[i].count, using: &rng)))
                case 1: lines.remove(at: i)
                case 2: lines.insert(lines[Int.random(in: 0..<lines.count, using: &rng)], at: i)
                default:
                    var fields = lines[i].split(separator: " ").map(String.init)
                    if fields.count > 1 {
                        fields[Int.random(in: 1..<fields.count, using: &rng)] = replacements.randomElement(using: &rng)!
                    }
                    lines[i] = fields.joined(separator: " ")
                }
                if lines.isEmpty { lines = [""] }
            }
            do {
                let r = try Fixtures.replay(lines.joined(separator: "\n"), file: name, size: (100, 60))
                #expect(r.outcome.anomalies.isEmpty, "\(name): \(r.outcome.anomalies)")
                let times = r.events.map(\.time)
                #expect(times == times.sorted())
            } catch let e as TraceError {
                errors += 1
                #expect(e.file == name && !e.message.isEmpty)
            }
        }
        #expect(errors > 0)
    }
}
