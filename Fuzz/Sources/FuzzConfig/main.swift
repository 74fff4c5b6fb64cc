import CFuzz
import GestureCore

#if canImport(Glibc)
    import Glibc
#endif

// A configuration file: any bytes give a configuration or a
// `ConfigurationError` naming lines, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var configuration = Configuration()
    try? ConfigurationReader.read(text, file: "fuzz.toml", into: &configuration)
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
