import Foundation
import GestureCore

/// The repository's root, found from this file's path (benchmarks run from
/// wherever the plugin starts them).
let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(4)  // Benchmarks/Benchmarks/Gestured/Support.swift
    return parts.joined(separator: "/")
}()

/// A bundled recording's text.
func recordingText(_ name: String) -> String {
    let path = repositoryRoot + "/Recordings/" + name + ".evemu"
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        fatalError("cannot read \(path): run the benchmarks from a gestured checkout")
    }
    return text
}

/// A recording read into frames, with the panel it was made on.
struct LoadedRecording {
    var device: DeviceDescription
    var geometry: PanelGeometry
    var frames: [TouchFrame]
    /// From the first frame to the last.
    var duration: Int64
}

func loadRecording(_ name: String) -> LoadedRecording {
    do {
        let trace = try EvemuReader.parse(recordingText(name), file: name)
        let geometry = TouchAssembler.geometry(for: trace.device, size: nil, source: .configuration)!
        var assembler = TouchAssembler(description: trace.device, geometry: geometry, device: DeviceID(1), file: name)
        var frames: [TouchFrame] = []
        for e in trace.events {
            if let f = try assembler.feed(e) { frames.append(f) }
        }
        let duration = frames.last!.time.microseconds - frames.first!.time.microseconds
        return LoadedRecording(device: trace.device, geometry: geometry, frames: frames, duration: duration)
    } catch {
        fatalError("\(name): \(error)")
    }
}

/// Counts events and keeps the last one's id, from a list whose storage is
/// reused: nothing allocates once it has grown.
struct CountingSink {
    var count = 0
    var lastID: UInt64 = 0
    var events = GestureEvents()
    mutating func take() {
        count += events.count
        if let last = events.indices.last { lastID = events[last].id }
        events.removeAll()
    }
}

/// Plays `frames` into one long-lived pipeline, over and over, each round
/// shifted in time past the last, so that a benchmark measures the steady state.
final class LoopedPlayer {
    private var pipeline: GesturePipeline
    private let frames: [TouchFrame]
    private let period: Int64
    private var position = 0
    private var offset: Int64 = 0
    var sink = CountingSink()

    init(frames: [TouchFrame], duration: Int64, geometry: PanelGeometry, wanted: GestureKindSet = .standard) {
        self.frames = frames
        // A gap after each round longer than every timer (hold, double tap).
        period = duration + 2_000_000
        pipeline = GesturePipeline(wanted: wanted)
        pipeline.addDevice(DeviceID(1), geometry: geometry)
    }

    /// Processes the next `count` frames.
    func play(_ count: Int) {
        for _ in 0..<count {
            var f = frames[position]
            f.time = Timestamp(microseconds: f.time.microseconds + offset)
            pipeline.process(&f, into: &sink.events)
            sink.take()
            position += 1
            if position == frames.count {
                position = 0
                offset += period
            }
        }
    }
}

/// `fingers` fingers landing on a circle, moving together for 998 frames
/// (10 ms apart, 0.4 mm each, with a little jitter), then lifting: 1000
/// frames, a multi-finger drag.
func movingFingers(_ fingers: Int) -> (frames: [TouchFrame], duration: Int64) {
    var frames: [TouchFrame] = []
    let device = DeviceID(1)
    func position(_ finger: Int, _ step: Int) -> (Double, Double) {
        let angle = Double(finger) / Double(fingers) * 2 * .pi
        let jitter = Double((step * 7 + finger * 13) % 5) * 0.02
        return (60 + 18 * cos(angle) + 0.4 * Double(step) + jitter, 80 + 18 * sin(angle) + jitter)
    }
    for step in 0..<1000 {
        var f = TouchFrame(device: device, time: Timestamp(microseconds: Int64(step) * 10_000))
        let phase: ContactPhase = step == 0 ? .down : step == 999 ? .up : .move
        for finger in 0..<fingers {
            let (x, y) = position(finger, step)
            f.append(Contact(slot: finger, phase: phase, x: x, y: y))
        }
        frames.append(f)
    }
    return (frames, 999 * 10_000)
}

/// The panel `movingFingers` is drawn on: 300 x 200 mm.
let syntheticPanel = PanelGeometry(minX: 0, maxX: 30000, minY: 0, maxY: 20000, width: 300, height: 200, source: .configuration)

/// A long evemu trace: the bundled tablet recordings, one after another, `repeats` times.
func longEvemuTrace(repeats: Int) -> (text: String, frames: Int) {
    let names = [
        "tap-2f.tablet", "double-tap-2f.tablet", "hold-1f.tablet", "slow-drag-right.tablet", "flick-right.tablet",
        "pinch-close-3f.tablet", "swipe-right-1f.tablet", "curved-stroke.tablet",
    ]
    let texts = names.map(recordingText)
    var out = texts[0].split(separator: "\n").filter { !$0.hasPrefix("E:") }.joined(separator: "\n") + "\n"
    var offset = 0
    for _ in 0..<repeats {
        for t in texts {
            for line in t.split(separator: "\n") where line.hasPrefix("E: ") {
                let f = line.split(separator: " ")
                let time = f[1].split(separator: ".")
                out += "E: \(Int(time[0])! + offset).\(time[1]) \(f[2]) \(f[3]) \(f[4])\n"
            }
            offset += 4
        }
    }
    return (out, countFrames(out))
}

func countFrames(_ evemu: String) -> Int {
    guard let trace = try? EvemuReader.parse(evemu, file: "long") else { return 0 }
    let geometry = TouchAssembler.geometry(for: trace.device, size: nil, source: .configuration)!
    var assembler = TouchAssembler(description: trace.device, geometry: geometry, device: DeviceID(1), file: "long")
    var n = 0
    for e in trace.events where (try? assembler.feed(e)) != nil { n += 1 }
    return n
}

/// The same events as a `libinput record` file (YAML), as libinput 1.22 writes it.
func libinputRecordText(fromEvemu evemu: String) -> String {
    let trace = try! EvemuReader.parse(evemu, file: "long")
    let d = trace.device
    var s = "# libinput record\nversion: 1\nndevices: 1\nlibinput:\n  version: \"1.22.1\"\ndevices:\n"
    s += "- node: /dev/input/event5\n  evdev:\n    name: \"\(d.name)\"\n"
    s += "    id: [\(d.bus), \(d.vendor), \(d.product), \(d.version)]\n    codes:\n"
    for (type, codes) in d.codes.sorted(by: { $0.key < $1.key }) {
        s += "      \(type): [\(codes.sorted().map(String.init).joined(separator: ", "))]\n"
    }
    s += "    absinfo:\n"
    for (code, a) in d.absinfo.sorted(by: { $0.key < $1.key }) {
        s += "      \(code): [\(a.minimum), \(a.maximum), \(a.fuzz), \(a.flat), \(a.resolution)]\n"
    }
    s += "    properties: [\(d.properties.sorted().map(String.init).joined(separator: ", "))]\n  events:\n"
    var open = false
    for e in trace.events {
        if !open {
            s += "  - evdev:\n"
            open = true
        }
        let sec = e.time.microseconds / 1_000_000
        let usec = e.time.microseconds % 1_000_000
        s += "    - [\(sec), \(usec), \(e.type), \(e.code), \(e.value)]\n"
        if e.type == 0 && e.code == 0 { open = false }
    }
    return s
}

/// The device of `samplePinch`.
let sampleDeviceName = "Wacom ISDv4 E6 Finger"

/// A typical event: a two-finger pinch's `changed`.
let samplePinch: GestureEvent = {
    var e = GestureEvent(
        gesture: .pinch, phase: .changed, id: 4711, time: Timestamp(microseconds: 1_234_567_890), device: DeviceID(1),
        fingers: 2, x: 141.27, y: 77.5, nx: 0.5125, ny: 0.4967, edge: nil)
    e.scale = 1.3721
    e.rotation = -0.0412
    return e
}()

/// A recording's frames through a `Claimer`, as a claimed touchscreen's
/// frames go, over and over (nothing claimed: every frame passes on).
final class ClaimLoop {
    private var claimer: Claimer
    private let events: [[RawEvent]]
    private let touches: [TouchFrame]
    private var next = 0
    private var round: Int64 = 0
    private let duration: Int64
    /// Frames given to the clone so far.
    private(set) var written = 0

    var frameCount: Int { touches.count }

    init(recording name: String) {
        do {
            let trace = try EvemuReader.parse(recordingText(name), file: name)
            let geometry = TouchAssembler.geometry(for: trace.device, size: nil, source: .configuration)!
            var assembler = TouchAssembler(description: trace.device, geometry: geometry, device: DeviceID(1), file: name)
            var events: [[RawEvent]] = []
            var touches: [TouchFrame] = []
            var pending: [RawEvent] = []
            var frame: TouchFrame?
            for e in trace.events {
                if e.type != Evdev.EV_SYN { pending.append(RawEvent(e.type, e.code, e.value)) }
                if let f = try assembler.feed(e) { frame = f }
                guard e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT else { continue }
                events.append(pending)
                touches.append(frame ?? TouchFrame(device: DeviceID(1), time: e.time))
                pending = []
                frame = nil
            }
            self.events = events
            self.touches = touches
            duration = touches.last!.time.microseconds - touches.first!.time.microseconds + 1_000_000
            let state = DeviceState(description: trace.device)
            claimer = Claimer(
                width: geometry.screenWidth, height: geometry.screenHeight, thresholds: .defaults, device: state,
                clone: state)
            claimer.claims = ClaimSet(fingers: [3, 4], edges: [.left])
        } catch {
            fatalError("\(name): \(error)")
        }
    }

    func play(_ count: Int) {
        for _ in 0..<count {
            let t = Timestamp(microseconds: touches[next].time.microseconds + round * duration)
            claimer.process(events[next], at: t, touches: touches[next])
            written += claimer.output.count
            next += 1
            if next == touches.count {
                next = 0
                round += 1
            }
        }
    }
}
