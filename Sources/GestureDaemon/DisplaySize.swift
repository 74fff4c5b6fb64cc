import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The connected display's physical size, from its EDID under `/sys/class/drm`:
/// the panel-size source after the configuration and the device's resolution.
package enum DisplaySize {
    /// Width and height in mm from an EDID block: the first detailed timing
    /// descriptor's image size, else the basic block's size in cm. Nil for
    /// anything that is not an EDID or carries no size.
    package static func parse(edid: [UInt8]) -> (width: Double, height: Double)? {
        guard edid.count >= 128, edid[0..<8] == [0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00] else { return nil }
        // Detailed timing descriptor 1 (bytes 54...71) when its pixel clock is set.
        if edid[54] != 0 || edid[55] != 0 {
            let w = Int(edid[66]) | (Int(edid[68] & 0xF0) << 4)
            let h = Int(edid[67]) | (Int(edid[68] & 0x0F) << 8)
            if w > 0 && h > 0 { return (Double(w), Double(h)) }
        }
        if edid[21] > 0 && edid[22] > 0 { return (Double(edid[21]) * 10, Double(edid[22]) * 10) }
        return nil
    }

    /// The display a touchscreen most likely covers: the one internal panel
    /// (eDP, LVDS, DSI) that is connected, else the only connected display.
    /// Returns its size and connector name, or why none was chosen.
    package static func find(
        root: String = "/sys/class/drm"
    ) -> Result<(width: Double, height: Double, connector: String), Failure> {
        var found: [(name: String, internal: Bool, size: (width: Double, height: Double))] = []
        for name in listDirectory(root, suffix: "").sorted() where name.hasPrefix("card") && name.contains("-") {
            let dir = root + "/" + name
            guard (try? readTextFile(dir + "/status"))?.hasPrefix("connected") == true,
                let edid = readBytes(dir + "/edid"), let size = parse(edid: edid)
            else { continue }
            let connector = name.split(separator: "-", maxSplits: 1).last.map(String.init) ?? name
            let isInternal = ["eDP", "LVDS", "DSI"].contains { connector.hasPrefix($0) }
            found.append((connector, isInternal, size))
        }
        let builtIn = found.filter(\.internal)
        if builtIn.count == 1 { return .success((builtIn[0].size.width, builtIn[0].size.height, builtIn[0].name)) }
        if found.count == 1 { return .success((found[0].size.width, found[0].size.height, found[0].name)) }
        return .failure(Failure(displays: found.map(\.name)))
    }

    package struct Failure: Error, CustomStringConvertible {
        package var displays: [String]
        package var description: String {
            displays.isEmpty
                ? "no connected display reports its size (EDID)"
                : "several displays are connected (\(displays.joined(separator: ", "))); which one has the touchscreen is unknown"
        }
    }

    private static func readBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return n > 0 ? Array(bytes[0..<n]) : nil
    }
}
