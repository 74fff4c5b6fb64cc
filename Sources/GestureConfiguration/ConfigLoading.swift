import GestureCore
import ToolSupport

/// Where the system configuration lives.
package enum ConfigPaths {
    package static let main = "/etc/gestured/gestured.toml"
    package static let dropInDirectory = "/etc/gestured/gestured.d"
}

/// Reads a configuration file, or the system one with its drop-ins when `path` is nil.
/// A missing system file is not an error (the defaults apply); a missing named file is.
/// A file with problems does not stop the reading of the next: the error
/// thrown names every problem of every file.
package func loadConfiguration(_ path: String?) throws -> Configuration {
    var config = Configuration()
    var files: [String] = []
    if let path {
        files = [path]
    } else {
        if fileExists(ConfigPaths.main) { files.append(ConfigPaths.main) }
        files += listDirectory(ConfigPaths.dropInDirectory, suffix: ".toml").map { ConfigPaths.dropInDirectory + "/" + $0 }
    }
    var errors: [ConfigurationError] = []
    for file in files {
        do {
            try ConfigurationReader.read(bytes: readFileBytes(file, limit: configurationFileLimit), file: file, into: &config)
        } catch let error as ConfigurationError {
            errors.append(error)
        }
    }
    if let error = ConfigurationError(errors) { throw error }
    return config
}
