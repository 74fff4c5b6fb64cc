package import GestureCore

/// A claim on some touchscreens only (protocol 1.5: a `claim` entry with
/// `devices`): what it claims, and the touchscreens, each a name, a node or
/// a vendor:product id as in a subscription's `devices` (ids match in any
/// case). The client writes it into its `subscribe`; the daemon reads it
/// back into the same value.
package struct DeviceClaim: Equatable, Sendable {
    package var set: ClaimSet
    package var devices: [String]

    package init(_ set: ClaimSet, devices: [String]) {
        self.set = set
        self.devices = devices
    }
}
