import Foundation
import Harness
import Testing

/// act's Wayland glue beyond the core protocol is wayland-scanner's own
/// output from the protocols' XML in the tree (Sources/CWayland/protocols),
/// committed in Sources/CWayland/generated: written again here into a
/// scratch folder, it is the same, byte for byte.
@Suite("act's Wayland protocol code")
struct WaylandProtocolTests {
    static let scanner = Requirement.tool("/usr/bin/wayland-scanner", package: "libwayland-bin")

    @Test(
        "the committed protocol code is what wayland-scanner writes from the protocols' XML (make wayland-protocols writes it)",
        .requires(scanner))
    func generatedIsCurrent() throws {
        let root = BuildProducts.packageRoot
        let scratch = NSTemporaryDirectory() + "gestured-wayland-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let made = try Child.run([root + "/scripts/wayland-protocols.sh", scratch], timeout: 60)
        #expect(made.status == 0, "\(made.err)")
        let committed = root + "/Sources/CWayland/generated"
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch).sorted()
        #expect(names == (try FileManager.default.contentsOfDirectory(atPath: committed)).sorted())
        let xml = try FileManager.default.contentsOfDirectory(atPath: root + "/Sources/CWayland/protocols").filter {
            $0.hasSuffix(".xml")
        }
        #expect(names.count == 2 * xml.count && !xml.isEmpty, "\(names) for \(xml)")
        for name in names {
            let fresh = try Data(contentsOf: URL(fileURLWithPath: scratch + "/" + name))
            let kept = try Data(contentsOf: URL(fileURLWithPath: committed + "/" + name))
            #expect(fresh == kept, "\(name) is not what wayland-scanner writes: run make wayland-protocols")
        }
    }
}
