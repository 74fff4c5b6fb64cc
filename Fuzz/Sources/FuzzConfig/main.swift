import CFuzz
import GestureConfiguration

#if canImport(Glibc)
    import Glibc
#endif

// A configuration file: any bytes give a configuration or a
// `ConfigurationError` naming lines, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    // The bytes as a file holds them: the reader checks they are UTF-8.
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var configuration = Configuration()
    try? ConfigurationReader.read(bytes: bytes, file: "fuzz.toml", into: &configuration)
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
