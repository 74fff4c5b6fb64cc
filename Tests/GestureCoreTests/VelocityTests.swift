import Foundation
import GestureCore
import Testing

/// The release velocity estimator against the velocities Android and Flutter
/// expect of their own estimators on the same samples.
@Suite("Release velocity")
struct VelocityTests {
    /// One of AOSP's recorded motions (frameworks/native libs/input/tests/VelocityTracker_test.cpp):
    /// samples as (nanoseconds, x px, y px), and its `lsq2` expectations in px/s (nil: not given).
    struct AOSPMotion: Sendable, CustomTestStringConvertible {
        var name: String
        var samples: [(Int64, Double, Double)]
        var vx: Double?
        var vy: Double?
        var testDescription: String { name }
    }

    static let aosp: [AOSPMotion] = [
        AOSPMotion(
            name: "three points, linear", samples: [(0, 0, 0), (10_000_000, 5, 0), (20_000_000, 10, 0)], vx: 500, vy: nil),
        AOSPMotion(
            name: "SailfishFlingUpSlow1",
            samples: [
                (235_089_067_457_000, 528.00, 983.00), (235_089_084_684_000, 527.00, 981.00),
                (235_089_093_349_000, 527.00, 977.00), (235_089_095_677_625, 527.00, 975.93),
                (235_089_101_859_000, 527.00, 970.00), (235_089_110_378_000, 528.00, 960.00),
                (235_089_112_497_111, 528.25, 957.51), (235_089_118_760_000, 531.00, 946.00),
                (235_089_126_686_000, 535.00, 931.00), (235_089_129_316_820, 536.33, 926.02),
                (235_089_135_199_000, 540.00, 914.00), (235_089_144_297_000, 546.00, 896.00),
                (235_089_146_136_443, 547.21, 892.36), (235_089_152_923_000, 553.00, 877.00),
                (235_089_160_784_000, 559.00, 851.00), (235_089_162_955_851, 560.66, 843.82),
            ], vx: 951.698181, vy: -3044.966064),
        AOSPMotion(
            name: "SailfishFlingUpFast1",
            samples: [
                (920_922_149_000, 561.00, 1412.00), (920_930_185_000, 559.00, 1377.00), (920_930_262_463, 558.98, 1376.66),
                (920_938_547_000, 559.00, 1371.00), (920_947_096_857, 562.91, 1342.68), (920_947_302_000, 563.00, 1342.00),
                (920_955_502_000, 577.00, 1272.00), (920_963_931_021, 596.87, 1190.54), (920_963_987_000, 597.00, 1190.00),
                (920_972_530_000, 631.00, 1093.00), (920_980_765_511, 671.31, 994.68), (920_980_906_000, 672.00, 993.00),
                (920_989_261_000, 715.00, 903.00),
            ], vx: 5991.866699, vy: -15093.995117),
        AOSPMotion(
            name: "SailfishFlingDownSlow1",
            samples: [
                (235_655_749_552_755, 582.00, 432.49), (235_655_750_638_000, 582.00, 433.00),
                (235_655_758_865_000, 582.00, 440.00), (235_655_766_221_523, 581.16, 448.43),
                (235_655_767_594_000, 581.00, 450.00), (235_655_776_044_000, 580.00, 462.00),
                (235_655_782_890_696, 579.18, 474.35), (235_655_784_360_000, 579.00, 477.00),
                (235_655_792_795_000, 578.00, 496.00), (235_655_799_559_531, 576.27, 515.04),
                (235_655_800_612_000, 576.00, 518.00), (235_655_809_535_000, 574.00, 542.00),
                (235_655_816_988_015, 572.17, 564.86), (235_655_817_685_000, 572.00, 567.00),
                (235_655_825_981_000, 569.00, 595.00), (235_655_833_808_653, 566.26, 620.60),
                (235_655_834_541_000, 566.00, 623.00), (235_655_842_893_000, 563.00, 649.00),
            ], vx: -398.303894, vy: 3969.099854),
        AOSPMotion(
            name: "SailfishFlingDownFast3",
            samples: [
                (507_650_295_000, 628.00, 233.00), (507_658_234_000, 605.00, 269.00), (507_666_784_000, 601.00, 274.00),
                (507_669_660_483, 599.65, 275.68), (507_675_427_000, 582.00, 308.00), (507_683_740_000, 541.00, 404.00),
                (507_686_506_238, 527.36, 435.95), (507_692_220_000, 487.00, 581.00), (507_700_707_000, 454.00, 792.00),
                (507_703_352_649, 443.71, 857.77),
            ], vx: -6388.48877, vy: 28354.796875),
    ]

    static func estimator(_ samples: [(Int64, Double, Double)]) -> (VelocityEstimator, Timestamp) {
        let v = VelocityEstimator()
        for s in samples { v.add(time: Timestamp(microseconds: s.0 / 1000), x: s.1, y: s.2) }
        return (v, Timestamp(microseconds: samples.last!.0 / 1000))
    }

    @Test("matches Android's lsq2 on its own recorded flings, within Android's 20 %", arguments: aosp)
    func android(_ m: AOSPMotion) {
        let (v, now) = Self.estimator(m.samples)
        let got = v.velocity(at: now, window: .milliseconds(100))
        if let vx = m.vx { #expect(abs(got.vx - vx) <= 0.2 * abs(vx), "vx \(got.vx), Android \(vx)") }
        if let vy = m.vy { #expect(abs(got.vy - vy) <= 0.2 * abs(vy), "vy \(got.vy), Android \(vy)") }
    }

    @Test("a straight-line fit would not: accelerating flings read 40-60 % of Android's figure")
    func straightLineLags() {
        // The reason for the quadratic fit, shown on the same data: the slope of a
        // straight line through the last 100 ms of a fling that speeds up.
        for m in Self.aosp where m.samples.count > 3 {
            let end = m.samples.last!.0
            let pts = m.samples.filter { end - $0.0 <= 100_000_000 }
            let ts: [Double] = pts.map { Double($0.0 - end) / 1e9 }
            let ys: [Double] = pts.map(\.2)
            let mt: Double = ts.reduce(0, +) / Double(ts.count)
            let my: Double = ys.reduce(0, +) / Double(ys.count)
            var sty = 0.0
            var stt = 0.0
            for (t, y) in zip(ts, ys) {
                sty += (t - mt) * (y - my)
                stt += (t - mt) * (t - mt)
            }
            let slope = sty / stt
            let (v, now) = Self.estimator(m.samples)
            let quadratic = v.velocity(at: now, window: .milliseconds(100)).vy
            #expect(abs(slope) < abs(quadratic), "\(m.name): straight line \(slope), quadratic \(quadratic)")
        }
    }

    @Test("a finger that decelerates to rest has no velocity backwards; one at rest has none")
    func restAndOvershoot() {
        // A stroke that speeds up and stops (minimum jerk), sampled every 8 ms,
        // lifted 20 ms after it stopped: a parabola through it turns back.
        let v = VelocityEstimator()
        var t = 0.0
        while t <= 120 {
            let f = min(t / 100, 1)
            v.add(time: Timestamp(microseconds: Int64(t * 1000)), x: 0, y: 30 * f * f * f * (10 - 15 * f + 6 * f * f))
            t += 8
        }
        let got = v.velocity(at: Timestamp(microseconds: 120_000), window: .milliseconds(100))
        #expect(got.vy >= 0, "\(got)")
        // No sample within 40 ms before the lift: at rest.
        #expect(v.velocity(at: Timestamp(microseconds: 170_000), window: .milliseconds(100)) == (0, 0))
    }

    @Test(
        "matches Flutter's expected release velocities on its recorded strokes (../shared/traces/real-hands)",
        .enabled(if: Fixtures.sharedTracesPresent || Fixtures.inCI, "../shared/traces is absent: skipped outside CI"))
    func flutter() throws {
        try #require(Fixtures.sharedTracesPresent, "../shared/traces must be beside the checkout in CI")
        let dir = Fixtures.sharedTraces + "/real-hands/traces/flutter"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".evemu") }.sorted()
        #expect(files.count >= 5)
        for file in files {
            let text = try Fixtures.read(dir + "/" + file)
            // "# Flutter's expected release velocity (velocity_tracker_test.dart): 220,1305 lp/s = 239 mm/s; ..."
            let line = try #require(text.split(separator: "\n").first { $0.contains("expected release velocity") })
            let mm = try #require(
                line.split(separator: "=").dropFirst().first?.split(separator: " ").first.flatMap { Double($0) })
            let r = try Fixtures.replay(text, file: file, size: (74.2, 131.9))
            let drag = try #require(r.events.first { $0.gesture == .drag && $0.phase == .ended })
            let speed = ((drag.vx ?? 0) * (drag.vx ?? 0) + (drag.vy ?? 0) * (drag.vy ?? 0)).squareRoot()
            // Within 5 %; a finger that stopped before lifting (Flutter: 7 mm/s,
            // its parabola turned back) is at rest here: within 10 mm/s.
            #expect(abs(speed - mm) <= max(0.05 * mm, 10), "\(file): \(speed) mm/s, Flutter \(mm) mm/s")
        }
    }
}
