import Foundation
import Harness
import Testing

/// The Debian package's version and changelog come from one place
/// (docs/packaging.md): `gestured --version`, and CHANGELOG.md's sections.
@Suite("The Debian package's version and changelog")
struct PackagingTests {
    static let python = Requirement.tool("/usr/bin/python3", package: "python3")
    static let parse = Requirement.tool("/usr/bin/dpkg-parsechangelog", package: "dpkg-dev")
    static let script = BuildProducts.packageRoot + "/scripts/debian-changelog.py"

    static func changelog(from markdown: String) throws -> (status: Int32, out: String, err: String) {
        let dir = NSTemporaryDirectory() + "gestured-changelog-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try markdown.write(toFile: dir + "/CHANGELOG.md", atomically: true, encoding: .utf8)
        return try Child.run(
            ["/usr/bin/python3", script, dir + "/CHANGELOG.md", BuildProducts.packageRoot + "/debian/control"], timeout: 20)
    }

    @Test(
        "CHANGELOG.md's newest version is what gestured --version prints, and the debian/changelog written from it says so to dpkg",
        .requires(python, parse))
    func oneVersion() throws {
        let version = try runGestured(["--version"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let markdown = try String(contentsOfFile: BuildProducts.packageRoot + "/CHANGELOG.md", encoding: .utf8)
        let written = try Self.changelog(from: markdown)
        #expect(written.status == 0, "\(written.err)")
        let dir = NSTemporaryDirectory() + "gestured-parse-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try written.out.write(toFile: dir + "/changelog", atomically: true, encoding: .utf8)
        let parsed = try Child.run(["/usr/bin/dpkg-parsechangelog", "-l", dir + "/changelog", "-S", "Version"], timeout: 20)
        #expect(parsed.status == 0, "\(parsed.err)")
        #expect(parsed.out.trimmingCharacters(in: .whitespacesAndNewlines) == version, "\(written.out.prefix(400))")
        // dpkg reads an entry for every section; the items fit 80 columns.
        let all = try Child.run(
            ["/usr/bin/dpkg-parsechangelog", "-l", dir + "/changelog", "--format", "rfc822", "--all"], timeout: 20)
        let entries = all.out.split(separator: "\n").filter { $0.hasPrefix("Version: ") }.map { $0.dropFirst(9) }
        let sections = markdown.split(separator: "\n").filter { $0.hasPrefix("## ") }.map {
            $0.dropFirst(3).split(separator: " ")[0]
        }
        #expect(entries.count == sections.count && zip(entries, sections).allSatisfy { $0 == $1 }, "\(all.out)")
        // Each entry is strictly newer than the one below it (lintian's
        // latest-changelog-entry-without-new-date), releases on one day too.
        let stamps = all.out.split(separator: "\n").filter { $0.hasPrefix("Timestamp: ") }.compactMap {
            Int($0.dropFirst(11))
        }
        #expect(stamps.count == sections.count && zip(stamps, stamps.dropFirst()).allSatisfy { $0 > $1 }, "\(stamps)")
        let items = written.out.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(!items.isEmpty && items.allSatisfy { $0.count <= 80 }, "\(items.filter { $0.count > 80 })")
    }

    @Test(
        "a section heading without a version and date, or versions or dates out of order, stop the changelog with a line saying which",
        .requires(python))
    func badHeadings() throws {
        let undated = try Self.changelog(from: "# Changelog\n\n## Unreleased\n\n- a change\n")
        #expect(undated.status == 1)
        #expect(undated.err.contains("CHANGELOG.md:3: '## Unreleased' is not '## VERSION (YYYY-MM-DD)'"), "\(undated.err)")
        let disordered = try Self.changelog(from: "## 0.1.0 (2026-01-01)\n\n- old\n\n## 0.2.0 (2026-02-01)\n\n- new\n")
        #expect(disordered.status == 1)
        #expect(disordered.err.contains("not newest first"), "\(disordered.err)")
        let backdated = try Self.changelog(from: "## 0.2.0 (2026-01-01)\n\n- new\n\n## 0.1.0 (2026-02-01)\n\n- old\n")
        #expect(backdated.status == 1)
        #expect(backdated.err.contains("dates are not newest first"), "\(backdated.err)")
    }
}
