import CEvdev
import GestureCore

/// A click of the daemon's pointer (protocol 1.8, `pointer`): which button,
/// where, as fractions 0...1 of the picture of the output the pointer is
/// mapped to (a gesture's own `x` and `y`).
package struct PointerClick: Sendable, Equatable {
    package enum Button: String, Sendable, CaseIterable {
        case left, right, middle

        /// The kernel's code of the button.
        package var code: UInt32 {
            switch self {
            case .left: UInt32(BTN_LEFT)
            case .right: UInt32(BTN_RIGHT)
            case .middle: UInt32(BTN_MIDDLE)
            }
        }
    }

    package var button: Button
    package var x: Double
    package var y: Double

    /// The click, if `x` and `y` are numbers within 0...1.
    package init?(_ button: Button, x: Double, y: Double) {
        guard x.isFinite, y.isFinite, (0...1).contains(x), (0...1).contains(y) else { return nil }
        self.button = button
        self.x = x
        self.y = y
    }

    /// Its fields as JSON, without braces: `"button":"right","x":0.25,"y":0.5`.
    package var jsonFields: String {
        var s = #""button":"\#(button.rawValue)","x":"#
        GestureEvent.appendJSONNumber(x, scale: 10_000, to: &s)
        s += #","y":"#
        GestureEvent.appendJSONNumber(y, scale: 10_000, to: &s)
        return s
    }

    /// The request's line, without its newline.
    package var request: String { #"{"type":"pointer","# + jsonFields + "}" }
}
