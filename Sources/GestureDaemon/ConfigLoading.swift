package import GestureCore

/// Where the system configuration lives.
package enum ConfigPaths {
    package static let main = "/etc/gestured/gestured.toml"
    package static let dropInDirectory = "/etc/gestured/gestured.d"
}

/// Reads a configuration file, or the system one with its drop-ins when `path` is nil.
/// A missing system file is not an error (the defaults apply); a missing named file is.
package func loadConfiguration(_ path: String?) throws -> Configuration {
    var config = Configuration()
    if let path {
        try ConfigurationReader.read(readTextFile(path, limit: configurationFileLimit), file: path, into: &config)
        return config
    }
    if fileExists(ConfigPaths.main) {
        try ConfigurationReader.read(
            readTextFile(ConfigPaths.main, limit: configurationFileLimit), file: ConfigPaths.main, into: &config)
    }
    for name in listDirectory(ConfigPaths.dropInDirectory, suffix: ".toml") {
        let file = ConfigPaths.dropInDirectory + "/" + name
        try ConfigurationReader.read(readTextFile(file, limit: configurationFileLimit), file: file, into: &config)
    }
    return config
}
