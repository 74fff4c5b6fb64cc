import CLinux
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon gives back start-up's pages, its own and its libraries', once it is ready
/// (`clinux_release_executable_pages`, docs/performance.md, "Memory").
@Suite("Pages given back")
struct PagesTests {
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Whether each page from `start` is mapped, and whether it is the file's, from /proc/self/pagemap.
    static func pages(_ start: UnsafeRawPointer, count: Int) -> [(present: Bool, file: Bool)] {
        let fd = open("/proc/self/pagemap", O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        var entries = [UInt64](repeating: 0, count: count)
        let offset = off_t(UInt(bitPattern: start) / UInt(pageSize) * 8)
        let got = entries.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
        #expect(got == count * 8)
        return entries.map { ($0 & (1 << 63) != 0, $0 & (1 << 61) != 0) }
    }

    @Test("a private file mapping's pages are unmapped and read again from the file; a page the process wrote is kept")
    func filePages() throws {
        let template = (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/gestured-pages-XXXXXX"
        var path = Array(template.utf8CString)
        let dir = try #require(mkdtemp(&path).map { String(cString: $0) })
        defer { rmdir(dir) }
        let file = dir + "/data"
        defer { unlink(file) }
        let count = 16
        let fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        for i in 0..<count {
            let page = [UInt8](repeating: UInt8(i), count: Self.pageSize)
            #expect(page.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == Self.pageSize)
        }
        let length = count * Self.pageSize
        let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)
        try #require(mapped != MAP_FAILED)
        let base = try #require(mapped)
        defer { munmap(base, length) }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var sum = 0
        for i in 0..<count { sum += Int(bytes[i * Self.pageSize]) }
        #expect(sum == (0..<count).reduce(0, +))
        // A write makes page 5 the process's own copy, as a debugger's breakpoint does to code.
        bytes[5 * Self.pageSize] = 0xAB
        let before = Self.pages(base, count: count)
        #expect(before.allSatisfy { $0.present })
        #expect(!before[5].file && before[4].file)

        let released = clinux_release_file_pages(base, length)

        #expect(released == (count - 1) * Self.pageSize)
        let after = Self.pages(base, count: count)
        for i in 0..<count where i != 5 {
            #expect(!after[i].present, "page \(i) still mapped")
        }
        #expect(after[5].present && !after[5].file)
        // Read again: the file's bytes, and the written page as written.
        #expect(bytes[5 * Self.pageSize] == 0xAB)
        for i in 0..<count where i != 5 {
            #expect(bytes[i * Self.pageSize + 1] == UInt8(i))
        }
    }

    @Test("the executable's and the libraries' code and read-only data are given back and run again")
    func executablePages() throws {
        // A libm function nothing else here runs (Bessel's j0): run, so its code is resident.
        let j0Address = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "j0"))
        let j0 = unsafeBitCast(j0Address, to: (@convention(c) (Double) -> Double).self)
        let before = j0(1)
        #expect(Self.pages(j0Address, count: 1)[0].present)
        // Tests in other suites run libm's code at the same time, and the kernel maps a faulting page's
        // cached neighbours with it, so j0's page can come back between the release and the look.
        // A page that is never given back is mapped after every try.
        var tries = 0
        var given = false
        while !given && tries < 20 {
            #expect(clinux_release_executable_pages() > 0)
            given = !Self.pages(j0Address, count: 1)[0].present
            tries += 1
        }
        #expect(given, "libm's page of j0 still mapped after \(tries) releases")
        // Code that ran before runs again from the page cache.
        #expect(j0(1) == before)
        #expect([3, 1, 2].sorted() == [1, 2, 3])
    }
}
