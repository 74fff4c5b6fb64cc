import GestureCore
import ToolSupport

/// What the daemon cannot make for its clients (its keyboard, its
/// pointer, the virtual touchpad: all through /dev/uinput), said where a
/// client can act on it (protocol 1.13): `hello` names each that failed,
/// or, never tried yet, each the start check found /dev/uinput closed
/// for; `subscribed` names those of them the subscription asks for; a
/// client whose claim asks for the touchpad gets `no-touchpad` when the
/// touchpad cannot be made. A claim is never taken for an output that
/// cannot deliver it: the touchpad's counts go to the apps whole
/// (`ClaimSet.withoutTouchpad`, on the pass-through's side).
extension Server {
    /// Every output the daemon cannot make now, as far as it knows.
    var unavailable: [ServerMessage.Unavailable] {
        let (keyboard, pointer) = input.problems(untried: uinputProblem)
        let touchpad = touchpadTried ? touchpadProblem : uinputProblem
        return [(.keyboard, keyboard), (.pointer, pointer), (.touchpad, touchpad)].compactMap { output, why in
            why.map { ServerMessage.Unavailable(output: output, why: $0) }
        }
    }

    /// What of `unavailable` the subscription `sub` asks for.
    func unavailable(for sub: Subscription) -> [ServerMessage.Unavailable] {
        unavailable.filter {
            switch $0.output {
            case .keyboard: sub.keys
            case .pointer: sub.pointer
            case .touchpad: sub.asksTouchpad
            }
        }
    }

    /// The pass-through made the virtual touchpad (`why` nil) or could not:
    /// each subscriber whose claim asks for it is told, once per failure.
    mutating func touchpadChanged(_ why: String?, now: Timestamp) -> News {
        touchpadTried = true
        touchpadProblem = why
        guard let why else { return News() }
        let message = ServerMessage.error(
            code: "no-touchpad",
            message: "\(why); the sequences your claim sends to the touchpad are not claimed, and reach the apps whole",
            fatal: false)
        var news = News()
        for i in clients.indices
        where clients[i].fd >= 0 && clients[i].state == .subscribed && clients[i].subscription.asksTouchpad {
            news.merge(send(message, to: i, now: now))
        }
        return news
    }
}
