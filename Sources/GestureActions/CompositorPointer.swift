import CWayland
import GestureProtocol

/// act's own pointer on wlroots compositors (wlr-virtual-pointer, through
/// the `WaylandSession`): one per output, so that a click at a gesture's
/// place lands on the output its touchscreen shows on, whatever else the
/// layout holds. Where the compositor offers none, or the output cannot be
/// told, the daemon's pointer clicks instead (protocol 1.8).
///
/// The pointers are made as soon as a binding may click and the
/// compositor is there (`prepare`), not at the first click: a compositor
/// gives its seat a pointer, and its clients their `wl_pointer`, only
/// once a pointer device exists, and a press sent with the device's
/// making reaches no client on a seat that had no pointer before.
struct CompositorPointer {
    /// Which pointer clicks, said once: the compositor's virtual one or the daemon's.
    private var saidWhich: Bool?

    /// Makes the pointers of the session's outputs that have none, if a
    /// binding may click (an output that comes later gets its own then).
    func prepare(_ session: WaylandSession, wanted: Bool) {
        guard wanted, let s = session.session, cwl_pointer_supported(s) != 0 else { return }
        _ = cwl_pointer_prepare(s)
    }

    /// Whether the compositor offers act a pointer of its own to click with.
    func available(_ session: WaylandSession) -> Bool {
        guard let s = session.session else { return false }
        return cwl_pointer_supported(s) != 0
    }

    /// Clicks on output `output` of the session; false where it cannot, and
    /// the daemon must. Which one clicks is said the first time.
    mutating func click(
        _ c: PointerClick, onOutput output: Int?, _ session: WaylandSession, log: (String) -> Void
    )
        -> Bool
    {
        var clicked = false
        if let s = session.session, cwl_pointer_supported(s) != 0, let output {
            clicked = cwl_click(s, Int32(output), c.button.code, c.x, c.y) == 0
        }
        if saidWhich != clicked {
            saidWhich = clicked
            log(
                clicked
                    ? "clicking with the compositor's virtual pointer (wlr-virtual-pointer) on the touchscreen's output"
                    : "clicking with the daemon's pointer (the compositor offers no wlr-virtual-pointer, or the touchscreen's output is not known)"
            )
        }
        return clicked
    }
}
