import CFuzz
import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

// An evemu trace, read, assembled into frames and replayed through the
// pipeline: any bytes give frames and events or a `TraceError`, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let trace = try? EvemuReader.parse(text, file: "fuzz.evemu"),
        let geometry = TouchAssembler.geometry(for: trace.device, size: nil, source: .commandLine)
    else { return 0 }
    _ = try? TraceReplay(geometry: geometry).events(trace)
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
