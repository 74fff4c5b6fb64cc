import Foundation
import Harness
import Testing

/// The README's first steps as a normal user with sudo: Swift is looked for
/// as the user, before sudo, whose secure_path would hide one installed in
/// /opt or the home directory; `sudo make install` only copies what `make`
/// built and needs no Swift. `sudo`, `dpkg-query` and `apt-get` are
/// stand-ins in the scratch directory: nothing is installed on this machine.
@Suite("Setting up as a normal user")
struct SetupTests {
    /// sudo's secure_path on Debian, without the Swift toolchain.
    static let securePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    let scratch: String

    init() throws {
        scratch = NSTemporaryDirectory() + "gestured-setup-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: scratch + "/sbin", withIntermediateDirectories: true)
        // sudo: resets PATH to secure_path (plus the apt-get stand-in) and the
        // environment, as Debian's sudo does, and notes that it was called.
        try write(
            "sudo",
            """
            #!/bin/sh
            echo "$*" >> "\(scratch)/sudo.log"
            exec env -i PATH="\(scratch)/sbin:\(Self.securePath)" "$@"
            """)
        try write("sbin/apt-get", "#!/bin/sh\necho \"$*\" >> \"\(scratch)/apt-get.log\"\n")
        // python3: `-m venv DIR` makes DIR/bin/pip, which notes what it installs.
        try write(
            "python3",
            """
            #!/bin/sh
            echo "$*" >> "\(scratch)/python.log"
            mkdir -p "$3/bin"
            printf '#!/bin/sh\\necho "$*" >> "\(scratch)/pip.log"\\n' > "$3/bin/pip"
            chmod 755 "$3/bin/pip"
            """)
    }

    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: scratch + "/" + name, atomically: true, encoding: .utf8)
        chmod(scratch + "/" + name, 0o755)
    }

    func make(_ arguments: [String], path: String) throws -> (status: Int32, out: String, err: String) {
        let r = try Child.run(
            ["/usr/bin/env", "-i", "PATH=\(path)", "HOME=\(scratch)", "/usr/bin/make", "-s", "-C", BuildProducts.packageRoot]
                + arguments, timeout: 60)
        return (r.status, r.out, r.err)
    }

    func log(_ name: String) -> String { (try? String(contentsOfFile: scratch + "/" + name, encoding: .utf8)) ?? "" }

    /// The directory of the swift this test run was built with.
    static var swiftDirectory: String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init).first {
            FileManager.default.isExecutableFile(atPath: $0 + "/swift")
        }
    }

    /// dpkg-query as on a machine where only pkg-config is installed.
    func noPackagesInstalled() throws {
        try write(
            "sbin/dpkg-query",
            """
            #!/bin/sh
            for last; do :; done
            [ "$last" = pkg-config ] && { printf 'install ok installed'; exit 0; }
            exit 1
            """)
    }

    @Test(
        "make setup finds the user's Swift and installs only the missing build packages, under a sudo-like PATH without it"
    )
    func setupWithSwift() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try noPackagesInstalled()
        let swift = try #require(Self.swiftDirectory)
        let r = try make(
            ["setup", "SUDO=\(scratch)/sudo", "PYTHON=\(scratch)/python3", "TOOLS=\(scratch)/tools"],
            path: "\(scratch)/sbin:\(swift):\(Self.securePath)")
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("setup: Swift 6."), "\(r.out)")
        #expect(log("sudo.log").contains("scripts/setup.sh"), "\(log("sudo.log"))")
        let apt = log("apt-get.log")
        #expect(
            apt.contains("update") && apt.contains("install -y --no-install-recommends") && apt.contains("libinput-dev"), "\(apt)"
        )
        // What is installed already is left alone; the test lab is not pulled in.
        #expect(!apt.contains(" pkg-config") && !apt.contains("qemu") && !apt.contains("sway"), "\(apt)")
        #expect(log("python.log").isEmpty, "\(log("python.log"))")
    }

    @Test(
        "make setup-check installs the packages of the build and of the quick tests, none of the virtual machine's or the package's, and no PyPI tool"
    )
    func setupCheck() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try noPackagesInstalled()
        let r = try make(
            ["setup-check", "SUDO=\(scratch)/sudo", "PYTHON=\(scratch)/python3", "TOOLS=\(scratch)/tools"],
            path: "\(scratch)/sbin:\(Self.securePath)")
        #expect(r.status == 0, "\(r.out)\(r.err)")
        let apt = log("apt-get.log")
        #expect(apt.contains("libinput-dev") && apt.contains("sway") && apt.contains("umockdev"), "\(apt)")
        for lab in ["qemu-system-x86", "linux-image-amd64", "lintian", "debhelper", "libinput-tools", "python3-venv"] {
            #expect(!apt.contains(lab), "\(lab): \(apt)")
        }
        #expect(log("python.log").isEmpty && log("pip.log").isEmpty, "\(log("python.log"))\(log("pip.log"))")
    }

    @Test("make setup-tests installs the build and test packages through sudo, then the PyPI tools as the user")
    func setupTests() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try noPackagesInstalled()
        // The Debian 13 root is one of the scratch folder's, complete, so
        // that the checkout's own is neither read nor made (debootstrap, real
        // sudo, minutes).
        let root = scratch + "/debian13"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "".write(toFile: root + "/.gestured-root-complete", atomically: true, encoding: .utf8)
        // A complete root holds every compositor the script installs; one
        // without labwc or sway would get it added, through the real chroot.
        try FileManager.default.createDirectory(atPath: root + "/usr/bin", withIntermediateDirectories: true)
        for compositor in ["labwc", "sway"] {
            #expect(
                FileManager.default.createFile(
                    atPath: root + "/usr/bin/" + compositor, contents: Data("#!/bin/sh\n".utf8),
                    attributes: [.posixPermissions: 0o755]))
        }
        let r = try make(
            [
                "setup-tests", "SUDO=\(scratch)/sudo", "PYTHON=\(scratch)/python3", "TOOLS=\(scratch)/tools",
                "DESKTOP_ROOT=\(root)",
            ],
            path: "\(scratch)/sbin:\(Self.securePath)")
        #expect(r.status == 0, "\(r.out)\(r.err)")
        let apt = log("apt-get.log")
        #expect(apt.contains("libinput-dev") && apt.contains("qemu-system-x86") && apt.contains("libinput-tools"), "\(apt)")
        // The virtual environment is the user's, in the folder asked for, never made through sudo.
        #expect(log("python.log") == "-m venv \(scratch)/tools\n", "\(log("python.log"))")
        #expect(
            log("pip.log").contains("install") && log("pip.log").contains("-r scripts/python-requirements.txt"),
            "\(log("pip.log"))")
        #expect(!log("sudo.log").contains("setup-tools"), "\(log("sudo.log"))")
        #expect(r.out.contains("setup: virtme-ng==1.42 in \(scratch)/tools"), "\(r.out)")
        #expect(r.out.contains("debian13-root: \(root) is complete"), "\(r.out)")
    }

    @Test("make setup with every package installed never calls sudo")
    func setupNothingMissing() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try write("sbin/dpkg-query", "#!/bin/sh\nprintf 'install ok installed'\n")
        let swift = try #require(Self.swiftDirectory)
        let r = try make(["setup", "SUDO=\(scratch)/sudo"], path: "\(scratch)/sbin:\(swift):\(Self.securePath)")
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("every package the build needs is installed"), "\(r.out)")
        #expect(log("sudo.log").isEmpty, "\(log("sudo.log"))")
    }

    @Test("make setup without Swift on the user's PATH says so, with where to get it, and never calls sudo")
    func setupWithoutSwift() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let r = try make(["setup", "SUDO=\(scratch)/sudo"], path: Self.securePath)
        #expect(r.status != 0)
        #expect(r.err.contains("'swift' is not on your PATH") && r.err.contains("swift.org"), "\(r.err)")
        #expect(log("sudo.log").isEmpty)
    }

    @Test("sudo make install copies what make built, with no Swift on PATH; with nothing built it says to run make first")
    func installOnlyCopies() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let man = scratch + "/man"
        try FileManager.default.createDirectory(atPath: man, withIntermediateDirectories: true)
        try ".TH GESTURED 1\n".write(toFile: man + "/gestured.1", atomically: true, encoding: .utf8)
        let dest = scratch + "/dest"
        let installed = try make(
            ["install", "DESTDIR=\(dest)", "GESTURED_BIN=\(BuildProducts.gestured)", "MANPAGES=\(man)"], path: Self.securePath)
        #expect(installed.status == 0, "\(installed.err)")
        #expect(FileManager.default.isExecutableFile(atPath: dest + "/usr/local/bin/gestured"))
        #expect(FileManager.default.fileExists(atPath: dest + "/usr/local/share/man/man1/gestured.1"))
        let missing = try make(
            ["install", "DESTDIR=\(dest)", "GESTURED_BIN=\(scratch)/none/gestured", "MANPAGES=\(man)"], path: Self.securePath)
        #expect(missing.status != 0)
        #expect(missing.err.contains("run 'make' as yourself first"), "\(missing.err)")
    }
}
