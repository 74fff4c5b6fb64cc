import Testing

@testable import GestureCore

@Suite("Touch frames")
struct TouchFrameTests {
    @Test("a frame taken from another has its device, time and contacts, and leaves it empty for its device's next")
    func take() {
        var built = TouchFrame(
            device: DeviceID(3), time: Timestamp(microseconds: 1_500),
            contacts: [
                Contact(slot: 0, phase: .down, x: 10, y: 20, size: 4.5),
                Contact(slot: 5, phase: .move, x: 30.25, y: 40),
            ])
        // A frame that held more contacts before: only the two taken count.
        var target = TouchFrame(
            device: DeviceID(1), time: .zero,
            contacts: (0..<16).map { Contact(slot: $0, phase: .up, x: Double($0), y: 0) })
        target.take(from: &built)
        #expect(target.device == DeviceID(3) && target.time == Timestamp(microseconds: 1_500))
        #expect(
            target.contacts == [
                Contact(slot: 0, phase: .down, x: 10, y: 20, size: 4.5),
                Contact(slot: 5, phase: .move, x: 30.25, y: 40),
            ])
        #expect(built.isEmpty && built.device == DeviceID(3))
        // The emptied frame fills again from its first contact.
        built.append(Contact(slot: 2, phase: .up, x: 1, y: 2))
        #expect(built.contacts == [Contact(slot: 2, phase: .up, x: 1, y: 2)])
    }
}
