import Benchmark
import GestureCore
@_spi(Benchmarks) import GestureDaemon

// Thresholds: `make bench` checks every run against the values committed in
// Benchmarks/Thresholds (made by `make bench-update` on the development
// machine). Allocations must not grow at all; times may vary by the
// tolerances below, since machines are shared and noisy.
func configuration(scaling: BenchmarkScalingFactor, seconds: Int = 1) -> Benchmark.Configuration {
    let allocationsExact = BenchmarkThresholds(absolute: [.p90: 0])
    let timeTolerance = BenchmarkThresholds(relative: [.p50: 35, .p90: 50])
    return .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 5,
        scalingFactor: scaling,
        maxDuration: .seconds(seconds),
        maxIterations: 1_000_000,
        thresholds: [
            .mallocCountTotal: allocationsExact, .wallClock: timeTolerance, .throughput: timeTolerance,
        ]
    )
}

let benchmarks: @Sendable () -> Void = {
    // MARK: The pipeline, per frame (scaled: each iteration is 1000 frames)

    for fingers in [1, 2, 5, 10] {
        let stream = movingFingers(fingers)
        let player = LoopedPlayer(frames: stream.frames, duration: stream.duration, geometry: syntheticPanel)
        player.play(3000)  // past the first gesture's start: steady state
        Benchmark("Pipeline.fingers-\(fingers)", configuration: configuration(scaling: .kilo)) { benchmark in
            player.play(benchmark.scaledIterations.count)
            blackHole(player.sink.count)
        }
    }

    // Each gesture's path through the recognizer alone: a bundled recording of
    // it, looped, with only that gesture wanted.
    let perGesture: [(GestureKind, String)] = [
        (.tap, "tap-1f.phone"), (.doubleTap, "double-tap-1f.phone"), (.touchAndHold, "hold-1f.tablet"),
        (.drag, "slow-drag-right.tablet"), (.flick, "flick-right.tablet"), (.swipe, "swipe-right-1f.tablet"),
        (.pinch, "pinch-open-2f.kiosk"), (.rotate, "twist-counterclockwise.phone"),
    ]
    for (kind, name) in perGesture {
        let r = loadRecording(name)
        let player = LoopedPlayer(frames: r.frames, duration: r.duration, geometry: r.geometry, wanted: GestureKindSet(kind))
        player.play(r.frames.count * 3)
        Benchmark("Recognizer.\(kind.rawValue)", configuration: configuration(scaling: .kilo)) { benchmark in
            player.play(benchmark.scaledIterations.count)
            blackHole(player.sink.count)
        }
    }

    // MARK: A claimed touchscreen's frame through the claimer (each iteration is 1000 frames)

    // A one-finger drag passed on to the clone frame by frame, looped: what
    // the pass-through's thread decides for every frame of a claimed
    // touchscreen nobody's claim takes.
    let claimed = ClaimLoop(recording: "slow-drag-right.tablet")
    claimed.play(claimed.frameCount * 3)
    Benchmark("Claim.frame", configuration: configuration(scaling: .kilo)) { benchmark in
        claimed.play(benchmark.scaledIterations.count)
        blackHole(claimed.written)
    }

    // MARK: Trace parsing (each iteration is one whole trace)

    let long = longEvemuTrace(repeats: 5)
    Benchmark("Parse.evemu-\(long.frames)-frames", configuration: configuration(scaling: .one)) { _ in
        blackHole(try! EvemuReader.parse(long.text, file: "long.evemu").events.count)
    }
    let yaml = libinputRecordText(fromEvemu: long.text)
    Benchmark("Parse.libinput-record-\(long.frames)-frames", configuration: configuration(scaling: .one)) { _ in
        blackHole(try! LibinputRecordReader.parse(yaml, file: "long.yml")[0].events.count)
    }

    // MARK: Events out

    Benchmark("JSON.encode-event", configuration: configuration(scaling: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(samplePinch.jsonLine(deviceName: sampleDeviceName)) }
    }

    // One event to every subscriber, as the daemon sends it: filters, one
    // encoding, each outbox, one send(2) per subscriber. Each iteration is one
    // event; the subscribers' sockets are emptied outside the measurement.
    // What starting and stopping the measurement costs by itself, to read the others by.
    Benchmark("FanOut.measurement-only", configuration: configuration(scaling: .one)) { benchmark in
        benchmark.startMeasurement()
        blackHole(0)
        benchmark.stopMeasurement()
    }
    for subscribers in [1, 10, 100] {
        guard let fanOut = FanOutBench(subscribers: subscribers, deviceName: sampleDeviceName) else {
            fatalError("cannot make \(subscribers) socket pairs")
        }
        var began = samplePinch
        began.phase = .began
        fanOut.publish(began)  // admits the pinch, so that its `changed` events go out
        Benchmark("FanOut.subscribers-\(subscribers)", configuration: configuration(scaling: .one)) { benchmark in
            fanOut.drain()
            benchmark.startMeasurement()
            blackHole(fanOut.publish(samplePinch))
            benchmark.stopMeasurement()
        }
    }
}
