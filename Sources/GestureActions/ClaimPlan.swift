package import GestureCore
package import GestureProtocol

/// What act asks the daemon to claim now: what the bindings that can act in
/// the context claim, on every claimed touchscreen (`everywhere`) and,
/// beyond that, on each touchscreen whose output a `when.output` binding
/// names (`on`). Nothing while an app of `leave-to-apps` has the focus.
/// Computed from the bindings and the context whenever either changes; the
/// daemon link sends it when it differs from what it sent.
package struct ClaimPlan: Equatable, Sendable {
    package var everywhere = ClaimSet()
    /// By touchscreen node, what its output's bindings add.
    package var on: [DeviceClaim] = []

    package init(everywhere: ClaimSet = ClaimSet(), on: [DeviceClaim] = []) {
        self.everywhere = everywhere
        self.on = on
    }

    package var isEmpty: Bool { everywhere.isEmpty && on.isEmpty }

    /// "3 fingers on claimed touchscreens; left edge on /dev/input/event5", for the log.
    package var summary: String {
        guard !isEmpty else { return "nothing" }
        let all = everywhere.isEmpty ? [] : ["\(everywhere.summary) on claimed touchscreens"]
        return (all + on.map { "\($0.set.summary) on \($0.devices.joined(separator: ", "))" }).joined(separator: "; ")
    }

    /// What the bindings claim together, whatever the context.
    package static func claims(of bindings: [Binding]) -> ClaimSet {
        bindings.reduce(into: ClaimSet()) { $0.formUnion($1.claims) }
    }

    /// What the bindings that may act now and name no output claim on
    /// every touchscreen: nothing while an app of `leave-to-apps` has the focus.
    package static func claims(
        of bindings: [Binding], in context: Binding.Context, _ settings: ContextSettings
    )
        -> ClaimSet
    {
        if context.leftToApp(settings) { return ClaimSet() }
        return claims(of: bindings.filter { $0.whenOutputs == nil && $0.acts(in: context, settings) })
    }

    /// The plan for the bindings in `context`, on every touchscreen and on
    /// each of `screens` (its node, and the output it shows on). Without
    /// `clicks` (no pointer can click), pointer bindings claim nothing: the
    /// app keeps its long press or tap rather than lose it to a click that
    /// cannot come. `cancelDropped`: the compositor drops touch cancels
    /// (`TouchCancel`), said with every claim.
    package init(
        _ bindings: [Binding], in context: Binding.Context, _ settings: ContextSettings,
        screens: [(node: String, output: String?)], clicks: Bool = true, cancelDropped: Bool = false
    ) {
        let bindings = clicks ? bindings : bindings.filter { $0.pointer == nil }
        everywhere = Self.claims(of: bindings, in: context, settings)
        everywhere.cancelDropped = cancelDropped && !everywhere.isEmpty
        let limited = bindings.filter { $0.whenOutputs != nil && $0.acts(in: context, settings) }
        guard !limited.isEmpty, !context.leftToApp(settings) else { return }
        for s in screens {
            var extra = Self.claims(of: limited.filter { $0.acts(onOutput: s.output) })
            extra.cancelDropped = cancelDropped
            var all = everywhere
            all.formUnion(extra)
            if all != everywhere { on.append(DeviceClaim(extra, devices: [s.node])) }
        }
    }
}
