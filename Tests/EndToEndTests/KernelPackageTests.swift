import Foundation
import Harness
import Testing

/// The Debian package in the virtual machine (scripts/kernel-guest-deb.sh,
/// docs/packaging.md): installed last, then a touchscreen plugged in.
extension KernelTests {
    /// `make test` builds the package before the kernel tests and names it.
    static let debianPackage = Requirement(
        met: ProcessInfo.processInfo.environment["GESTURED_DEB"] != nil,
        missing:
            "needs the Debian package: `make deb`, then `GESTURED_DEB=.build/deb/gestured_VERSION_ARCH.deb make test-kernel` (make test does both)"
    )

    @Test(
        "the Debian package installed by dpkg: its udev rules let user gestured read a touchscreen plugged in before and one plugged in after, and the packaged daemon running as gestured publishes the tap of each",
        .requires(debianPackage))
    func debianPackage() throws {
        let run = try Self.run()
        let out = run.files["deb.out"] ?? ""
        #expect(out.contains("dpkg exited 0"), "\(out)")
        #expect(out.contains("gestured:/usr/sbin/nologin"), "\(out)")
        for rules in [
            "70-gestured.rules", "74-gestured.rules", "75-gestured-uinput.rules", "76-gestured-touchpad.rules",
            "81-gestured-clone.rules", "50-gestured-touchpad.quirks",
        ] {
            #expect(out.contains(rules), "\(rules) not installed:\n\(out)")
        }
        #expect(out.contains("plugged in before the install: /dev/input/event"), "\(out)")
        #expect(out.contains("plugged in after the install: /dev/input/event"), "\(out)")
        // The postinst's trigger reaches a device already there.
        #expect(out.contains("before the install: no ACL for gestured"), "\(out)")
        #expect(out.contains("before the install, after it: user:gestured:rw-"), "\(out)")
        #expect(out.contains("after the install: user:gestured:rw-"), "\(out)")
        #expect(out.contains("serve as gestured exited 0"), "\(out)")
        let events = (run.files["deb-events.jsonl"] ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        for suffix in ["#before", "#after"] {
            let taps = events.filter {
                $0["type"] as? String == "gesture" && $0["gesture"] as? String == "tap"
                    && ($0["device"] as? String)?.hasSuffix(suffix) == true
            }
            #expect(taps.count == 1, "\(suffix): \(run.files["deb-events.jsonl"] ?? "")\n\(out)")
        }
    }
}
