import GestureCore
import SystemPackage
import TraceSynth

#if canImport(Glibc)
    import Glibc
#endif

// Writes Recordings/: one evemu trace per catalog scenario, on the four
// synthetic panels in turn, each with NAME.expect beside it.
// Usage: swift run synth-recordings [DIR]   (default: Recordings)

let dir = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Recordings"
for (name, text) in BundledRecordings.files() {
    let path = dir + "/" + name
    guard let f = fopen(path, "w") else {
        print("synth-recordings: cannot write \(path): \(Errno(rawValue: errno))")
        exit(1)
    }
    fputs(text, f)
    fclose(f)
}
print("wrote \(BundledRecordings.files().count) files to \(dir)")
