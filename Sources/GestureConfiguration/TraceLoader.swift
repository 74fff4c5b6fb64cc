package import GestureCore
import ToolSupport

/// A trace ready to replay: its events, the geometry and thresholds for its device.
package struct LoadedTrace {
    package var trace: Trace
    package var geometry: PanelGeometry
    package var thresholds: GestureThresholds
}

/// Finds a trace's format and device description, and resolves its panel size.
package enum TraceLoader {
    package static func load(
        _ path: String, desc: String?, size: (width: Double, height: Double)?, configuration: Configuration
    ) throws
        -> [LoadedTrace]
    {
        let text = try readTextFile(path)
        let traces: [Trace]
        if LibinputRecordReader.looksLikeRecording(text) {
            traces = try LibinputRecordReader.parse(text, file: path)
        } else {
            var device: DeviceDescription?
            if let desc {
                device = try EvemuReader.parseDescription(readTextFile(desc), file: desc)
            } else if !hasHeader(text), let sibling = siblingDescription(of: path) {
                device = try EvemuReader.parseDescription(readTextFile(sibling), file: sibling)
            }
            traces = [try EvemuReader.parse(text, file: path, device: device)]
        }
        return traces.map { trace in
            let name = trace.device.name
            let vp = trace.device.vendorProduct
            var geometry = TouchAssembler.geometry(for: trace.device, size: size, source: .commandLine)!
            configuration.apply(to: &geometry, name: name, vendorProduct: vp)
            return LoadedTrace(
                trace: trace, geometry: geometry, thresholds: configuration.thresholds(forName: name, vendorProduct: vp))
        }
    }

    /// An evemu file with an `N:` line carries its own description.
    package static func hasHeader(_ text: String) -> Bool {
        for line in text.split(separator: "\n", maxSplits: 400) where line.hasPrefix("N:") || line.hasPrefix("A:") { return true }
        return false
    }

    /// For "dir/A.B.events": "dir/A.B.desc", then "dir/A.desc".
    package static func siblingDescription(of path: String) -> String? {
        var base = path
        while let dot = base.lastIndex(of: "."), !base[dot...].contains("/") {
            base = String(base[..<dot])
            let candidate = base + ".desc"
            if candidate != path && fileExists(candidate) { return candidate }
        }
        return nil
    }
}
