import Foundation
import Harness
import Testing

/// The harness's own guarantees about the processes tests start: they end,
/// they leave nothing behind, and they inherit nothing of the test process.
@Suite("Test harness: child processes")
struct HarnessTests {
    @Test("a background job keeping the output open does not hold up finish, and is killed with the group")
    func backgroundJob() throws {
        let child = try Child(["/bin/sh", "-c", "sleep 1000 & echo $!; exit 3"])
        // Waiting for the job's end of the output would run into this limit and throw.
        let r = try child.finish(timeout: 30)
        #expect(r.status == 3)
        let job = try #require(Int32(r.out.trimmingCharacters(in: .whitespacesAndNewlines)), "\(r.out)")
        // Killed: gone, or a zombie until its new parent reaps it.
        var state = "?"
        for _ in 0..<100 {
            let stat = (try? String(contentsOfFile: "/proc/\(job)/stat", encoding: .utf8)) ?? ""
            state = stat.split(separator: ")").last.map { String($0.dropFirst().prefix(1)) } ?? "gone"
            if state == "gone" || state == "Z" { break }
            usleep(20_000)
        }
        #expect(state == "gone" || state == "Z", "the background sleep \(job) is still \(state)")
    }

    @Test("a child that outlives its limit is killed, and the error names it")
    func limit() throws {
        let child = try Child(["/bin/sleep", "1000"])
        #expect {
            try child.wait(timeout: 0.3)
        } throws: { error in
            "\(error)".contains("`/bin/sleep 1000` did not exit within")
        }
        #expect(child.status == 128 + SIGKILL)
    }

    @Test("a child inherits descriptors 0, 1 and 2 and nothing else of the test process")
    func descriptors() throws {
        // A pipe made without close-on-exec, as any library might.
        var stray: [Int32] = [-1, -1]
        #expect(pipe(&stray) == 0)
        defer { stray.forEach { close($0) } }
        let r = try Child.run(["/bin/sh", "-c", "ls /proc/$$/fd"])
        let open = Set(r.out.split(separator: "\n").compactMap { Int32($0) })
        #expect(open.isSuperset(of: [0, 1, 2]) && open.isDisjoint(with: stray), "open in the child: \(open.sorted())")
    }
}
