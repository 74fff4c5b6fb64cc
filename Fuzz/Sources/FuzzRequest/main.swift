import CFuzz
@_spi(Fuzzing) import GestureDaemon

#if canImport(Glibc)
    import Glibc
#endif

// One line a client sends: any bytes give a request or an error reply, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    _ = RequestParser.accepts(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
