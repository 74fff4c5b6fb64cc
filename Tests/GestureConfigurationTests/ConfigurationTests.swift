import Foundation
import GestureConfiguration
import GestureCore
import Harness
import TOML
import Testing
import ToolSupport

@Suite("Configuration")
struct ConfigurationTests {
    @Test("examples/gestured.toml names every threshold with its default")
    func exampleListsEveryThreshold() throws {
        let text = try String(contentsOfFile: BuildProducts.packageRoot + "/examples/gestured.toml", encoding: .utf8)
        for key in GestureThresholds.keys {
            let value = GestureThresholds.defaults[keyPath: key.keyPath]
            let number = value == value.rounded() ? String(Int(value)) : String(value)
            #expect(text.contains("# \(key.name) = \(number) "), "\(key.name) = \(number) is not in the example")
        }
    }

    @Test("global thresholds, and device sections matched by name or vendor:product")
    func valid() throws {
        let text = """
            [thresholds]
            slop = 2.5
            tap.maxDuration = 450
            [thresholds.swipe]
            minDistance = 20

            [[device]]
            match = "Wacom ISDv4 E6 Finger"
            size = "277x156"
            rotation = 90
            [device.thresholds]
            slop = 3

            [[device]]
            match = "056A:00E6"
            flip-x = true
            """
        var c = Configuration()
        try ConfigurationReader.read(text, file: "g.toml", into: &c)
        #expect(c.thresholds.slop == 2.5 && c.thresholds.tapMaxDuration == 450 && c.thresholds.swipeMinDistance == 20)
        let t = c.thresholds(forName: "Wacom ISDv4 E6 Finger", vendorProduct: "056a:00e6")
        #expect(t.slop == 3 && t.tapMaxDuration == 450)
        #expect(c.thresholds(forName: "Other", vendorProduct: "0000:0000").slop == 2.5)
        var g = PanelGeometry.fallback(minX: 0, maxX: 2776, minY: 0, maxY: 1569)
        c.apply(to: &g, name: "Wacom ISDv4 E6 Finger", vendorProduct: "056a:00e6")
        #expect(g.width == 277 && g.height == 156 && g.source == .configuration && g.rotation == 90 && g.flipX)
        // A second file (a drop-in) applies over the first.
        try ConfigurationReader.read("[thresholds]\nslop = 1.5\n", file: "d.toml", into: &c)
        #expect(c.thresholds.slop == 1.5 && c.thresholds.tapMaxDuration == 450 && c.sources == ["g.toml", "d.toml"])
        #expect(!c.followsSensor(name: "Wacom ISDv4 E6 Finger", vendorProduct: "056a:00e6") && !c.anyFollowsSensor)
        // rotation = "auto": the accelerometer, over an upright mounting; a later number wins back.
        try ConfigurationReader.read("[[device]]\nmatch = \"056a:00e6\"\nrotation = \"auto\"\n", file: "e.toml", into: &c)
        #expect(c.followsSensor(name: "Wacom ISDv4 E6 Finger", vendorProduct: "056a:00e6") && c.anyFollowsSensor)
        var h = PanelGeometry.fallback(minX: 0, maxX: 2776, minY: 0, maxY: 1569)
        c.apply(to: &h, name: "Wacom ISDv4 E6 Finger", vendorProduct: "056a:00e6")
        #expect(h.rotation == 0)
        #expect(c.rendered.contains("rotation = \"auto\""))
        try ConfigurationReader.read("[[device]]\nmatch = \"056a:00e6\"\nrotation = 180\n", file: "f.toml", into: &c)
        #expect(!c.followsSensor(name: "Wacom ISDv4 E6 Finger", vendorProduct: "056a:00e6"))
    }

    @Test(
        "errors name the file, the line and the key",
        arguments: [
            (
                "[thresholds]\nslop = 2\ntap.maxDurtion = 300\n", 3,
                "unknown threshold 'tap.maxDurtion'; did you mean 'tap.maxDuration'?"
            ),
            ("[thresholds]\nslop = \"wide\"\n", 2, "must be a number"),
            ("[thresholds]\nslop = -1\n", 2, "slop must be a finite number >= 0"),
            ("[thresholds]\nslop = \n", 2, "not valid TOML"),
            ("[thresolds]\nslop = 2\n", 1, "unknown section or key 'thresolds'; did you mean 'thresholds'?"),
            ("[[device]]\nsize = \"1x1\"\n", 1, "needs match"),
            ("[[device]]\nmatch = \"x\"\nsize = \"big\"\n", 3, "size must be"),
            ("[[device]]\nmatch = \"x\"\nrotation = 45\n", 3, "rotation must be 0, 90, 180 or 270"),
            ("[[device]]\nmatch = \"x\"\nrotation = \"sideways\"\n", 3, "or \"auto\" to follow the accelerometer"),
            ("[[device]]\nmatch = \"x\"\ncolour = 1\n", 3, "unknown key 'colour'"),
            ("[thresholds]\ndoubleTap.minInterval = 400\n", 2, "must not exceed doubleTap.maxInterval"),
            // A value out of range is the cause to report, not the relation it breaks.
            (
                "[thresholds]\ndoubleTap.minInterval = 200\nslop = 1\ndoubleTap.maxInterval = -1\n", 4,
                "doubleTap.maxInterval must be a finite number >= 0"
            ),
            // A relation broken by the second value is reported at its line.
            ("[thresholds]\ndoubleTap.minInterval = 200\ndoubleTap.maxInterval = 100\n", 3, "must not exceed"),
            // A device's thresholds are checked over the file's own.
            (
                "[thresholds]\ndoubleTap.maxInterval = 100\n[[device]]\nmatch = \"x\"\n[device.thresholds]\ndoubleTap.minInterval = 200\n",
                3, "doubleTap.minInterval (200.0) must not exceed doubleTap.maxInterval (100.0)"
            ),
            ("[thresholds]\nvelocity.window = 1e30\n", 2, "velocity.window must be at most 3600000 ms"),
            // Found by fuzzing TOMLKit, whose toml++ aborted the process on them.
            ("[\u{E9}]\n", 1, "a table header must start with a key"),
            ("[thresholds]\n[=]\n", 2, "a table header must start with a key"),
            ("[[ !]]\n", 1, "a table header must start with a key"),
            ("[\u{0C}\u{0C}]\n", 1, "a table header must start with a key"),
            ("[thresholds]\n[\nemdaon]\n", 2, "a table header must start with a key"),
            ("[thresholds]\nsl\u{E9}p = 2\n", 2, "beyond ASCII outside a string"),
            ("# caf\u{E9}\n[thresholds]\nsl\u{FFFD}p = 2\n", 3, "beyond ASCII outside a string"),
            ("[[device]]\nmatch = \"\"\"\nT\u{FC}r\n\"\"\"\n[d\u{E6}mon]\n", 5, "beyond ASCII outside a string"),
        ])
    func errors(text: String, line: Int, message: String) {
        var c = Configuration()
        do {
            try ConfigurationReader.read(text, file: "bad.toml", into: &c)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.file == "bad.toml")
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(message), "\(error)")
            #expect(error.problems.count == 1, "\(error)")
        }
        // A failed read leaves the configuration as it was.
        #expect(c.thresholds == .defaults && c.devices.isEmpty)
    }

    @Test("every problem of a file is reported at once, in line order, and the configuration is left as it was")
    func everyProblem() {
        // Found in this order: the unknown top-level key, thresholds, daemon, devices.
        let text = """
            [daemon]
            log-level = "loud"
            [thresholds]
            slop = "wide"
            tap.maxDuration = -5
            [[device]]
            match = "x"
            rotation = 45
            flip-x = "no"
            [[device]]
            size = "big"
            colour = 2
            """
        var c = Configuration()
        do {
            try ConfigurationReader.read(text, file: "many.toml", into: &c)
            Issue.record("accepted")
        } catch {
            let expected = [
                (2, "log-level must be one of"), (4, "threshold 'slop' must be a number"),
                (5, "tap.maxDuration must be a finite number"), (8, "rotation must be 0, 90"),
                (9, "flip-x must be true or false"), (10, "[[device]] needs match"), (11, "size must be"),
                (12, "unknown key 'colour'"),
            ]
            #expect(error.problems.map(\.line) == expected.map(\.0), "\(error)")
            for (problem, (_, says)) in zip(error.problems, expected) {
                #expect(problem.message.hasPrefix(says), "\(problem)")
            }
            #expect(error.description.split(separator: "\n").allSatisfy { $0.hasPrefix("many.toml:") }, "\(error)")
        }
        #expect(c.thresholds == .defaults && c.devices.isEmpty && c.daemon == Configuration().daemon)
    }

    @Test("the rendered configuration reads back the same")
    func renderRoundTrip() throws {
        var c = Configuration()
        try ConfigurationReader.read(
            "[thresholds]\nslop = 2.25\n[[device]]\nmatch = \"a\"\nsize = \"10x20\"\n", file: "a.toml", into: &c)
        var back = Configuration()
        try ConfigurationReader.read(c.rendered, file: "rendered.toml", into: &back)
        #expect(back.thresholds == c.thresholds)
        #expect(back.devices.count == 1 && back.devices[0].size! == (10, 20))
    }
}

@Suite("Configuration: [daemon]")
struct DaemonConfigurationTests {
    @Test("every [daemon] key is read")
    func valid() throws {
        let text = """
            [daemon]
            socket = "/run/g/g.sock"
            socket-mode = "0666"
            socket-group = "gesture"
            allow-users = ["alice", 1000]
            allow-groups = ["gesture"]
            seat = "seat1"
            log-level = "debug"
            client-buffer-kib = 64
            max-clients = 8
            """
        var c = Configuration()
        try ConfigurationReader.read(text, file: "d.toml", into: &c)
        let d = c.daemon
        #expect(d.socket == "/run/g/g.sock" && d.socketMode == 0o666 && d.socketGroup == "gesture")
        #expect(d.allowUsers == ["alice", "1000"] && d.allowGroups == ["gesture"] && d.seat == "seat1")
        #expect(d.logLevel == "debug" && d.clientBuffer == 64 * 1024 && d.maxClients == 8)
        var octal = Configuration()
        try ConfigurationReader.read("[daemon]\nsocket-mode = 0o640\n", file: "o.toml", into: &octal)
        #expect(octal.daemon.socketMode == 0o640)
        #expect(c.rendered.contains("socket-mode = \"0666\"") && c.rendered.contains("allow-users = [\"alice\", 1000]"))
    }

    @Test(
        "[daemon] errors name the line and the key",
        arguments: [
            ("[daemon]\nsocket = \"relative.sock\"\n", 2, "absolute path"),
            ("[daemon]\nsocket-mode = \"rw\"\n", 2, "socket-mode"),
            ("[daemon]\nsocket-mode = 0o1777\n", 2, "socket-mode"),
            ("[daemon]\nallow-users = \"alice\"\n", 2, "allow-users"),
            ("[daemon]\nallow-groups = [-1]\n", 2, "allow-groups"),
            ("[daemon]\nlog-level = \"loud\"\n", 2, "log-level"),
            ("[daemon]\nclient-buffer-kib = 1\n", 2, "client-buffer-kib"),
            ("[daemon]\nmax-clients = 0\n", 2, "max-clients"),
            ("# x\n[daemon]\nseat = \"\"\n", 3, "seat"),
            ("[daemon]\nsokcet = \"/x\"\n", 2, "unknown key 'sokcet' in [daemon]; did you mean 'socket'?"),
            ("daemon = 3\n", 1, "must be a table"),
        ])
    func errors(text: String, line: Int, says: String) {
        var c = Configuration()
        do {
            try ConfigurationReader.read(text, file: "bad.toml", into: &c)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.line == line && error.message.contains(says), "\(error)")
            #expect(error.description == "bad.toml:\(line): \(error.message)")
        }
    }
}

@Suite("Configuration: text beyond ASCII")
struct ConfigurationUnicodeTests {
    @Test("strings, quoted keys and comments may hold any character; arrays of arrays are not table headers")
    func allowed() throws {
        var c = Configuration()
        let text = """
            # Geräte: ü, é, 触
            [[device]]
            match = "Écran tactile 触摸屏"
            size = '277x156'
            """
        let arrays = try TOMLParser.parse("a = [\n  [1, 2], # [!]\n  [3],\n]\n[b]\n")
        #expect(arrays["a"]?.array?.count == 2 && arrays["b"]?.table != nil)
        try ConfigurationReader.read(text, file: "ok.toml", into: &c)
        #expect(c.devices.first?.match == "Écran tactile 触摸屏")
    }

    @Test("a file saved in Latin-1 is refused with the line of its first byte that is not UTF-8")
    func latin1() {
        var c = Configuration()
        let bytes = Array("[thresholds]\nslop = 2\n[[device]]\nmatch = \"Ecran ".utf8) + [0xE9] + Array("\"\n".utf8)
        do {
            try ConfigurationReader.read(bytes: bytes, file: "latin1.toml", into: &c)
            Issue.record("accepted")
        } catch {
            #expect(error.line == 4 && error.message.contains("not valid UTF-8"), "\(error)")
        }
    }
}
