import CFuzz
import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

// A `libinput record` file, read and replayed: any bytes give events or a
// `TraceError`, never a crash or a hang.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let traces = try? LibinputRecordReader.parse(text, file: "fuzz.yml") else { return 0 }
    for trace in traces {
        guard let geometry = TouchAssembler.geometry(for: trace.device, size: nil, source: .commandLine) else { continue }
        _ = try? TraceReplay(geometry: geometry).events(trace)
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
