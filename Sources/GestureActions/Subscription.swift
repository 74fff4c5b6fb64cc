import GestureCore
import GestureProtocol

/// What act subscribes to, so that the daemon sends only what is bound.
package enum Subscription {
    /// The subscription of `bindings`: the bound gestures; their fingers,
    /// and edges, when every binding names them; the directions of swipes
    /// and flicks when every binding of those names them (the daemon
    /// filters directions on those only); every phase but `changed` when no
    /// binding acts on a change (`on-changed`, `phase = "changed"`, `pipe`,
    /// a hold it waits on), and then the daemon does not make them at all;
    /// whether it types keys and clicks; its tracks; the times its holds
    /// wait for (`hold_ms`); the shapes its stroke bindings name; and
    /// `claims` (by default what every binding claims).
    package static func line(for bindings: [Binding], claims: ClaimPlan? = nil, shapes: [ShapeDefinition] = []) -> String {
        var r = SubscribeRequest()
        r.gestures = bindings.map(\.gesture.rawValue)
        if !bindings.isEmpty, bindings.allSatisfy({ $0.fingers != nil }) { r.fingers = bindings.flatMap { $0.fingers ?? [] } }
        if !bindings.isEmpty, bindings.allSatisfy({ $0.edges != nil }) {
            r.edges = bindings.flatMap { $0.edges ?? [] }.map(\.rawValue)
        }
        let strokes = bindings.filter { $0.gesture == .swipe || $0.gesture == .flick }
        if !strokes.isEmpty, strokes.allSatisfy({ $0.directions != nil }) {
            r.directions = strokes.flatMap { $0.directions ?? [] }.map(\.rawValue)
        }
        if !bindings.contains(where: {
            $0.onChanged != nil || $0.phase == .changed || $0.pipe != nil || $0.waitsFor != nil
        }) {
            r.phases = ["began", "recognized", "ended", "cancelled"]
        }
        r.keys = bindings.contains { $0.keys != nil }
        r.pointer = bindings.contains { $0.pointer != nil }
        r.claims = claims?.everywhere ?? ClaimPlan.claims(of: bindings)
        r.deviceClaims = claims?.on ?? []
        var tracks: [TrackRule] = []
        for b in bindings {
            guard let t = b.track else { continue }
            let entry = TrackRule(t, fingers: b.fingers)
            if !tracks.contains(entry) { tracks.append(entry) }
        }
        r.tracks = Array(tracks.prefix(16))
        // The daemon says when a hold has lasted each binding's `hold-ms`
        // (`held_ms`), on the hold's events and on a stroke drawn after it.
        r.holdMarks = Array(Set(bindings.compactMap(\.holdMark)).sorted().prefix(16))
        // The shapes its stroke bindings name, for the daemon to match strokes with.
        let named = Set(bindings.compactMap(\.shape))
        r.shapes = shapes.filter { named.contains($0.name) }.map(\.request)
        return r.line + "\n"
    }

    /// What `--context` subscribes to: no gesture, no claim; the daemon's
    /// `context` is what it reads.
    static let watchLine = #"{"type":"subscribe","gestures":[]}"# + "\n"
}
