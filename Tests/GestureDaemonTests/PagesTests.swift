import CLinux
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon gives back start-up's pages, its own and its libraries', once it is ready
/// (`clinux_release_executable_pages`, docs/cost.md, "Memory").
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
        // A library no other code of this process loads (libbz2: dpkg needs it, so every Debian has
        // it), its decompressor set up and ended so that its code is resident. Only this test runs
        // that code: nothing maps the page back between the release and the look, as other suites
        // running libm's code meanwhile would (the kernel maps a faulting page's cached neighbours
        // with it). The functions lie in the middle of its code: a segment's last page, which it
        // may share with the next, is kept.
        let library = try #require(dlopen("libbz2.so.1.0", RTLD_NOW), "libbz2.so.1.0 (Debian's libbz2-1.0)")
        defer { dlclose(library) }
        typealias Call = @convention(c) (UnsafeMutableRawPointer) -> Int32
        typealias Start = @convention(c) (UnsafeMutableRawPointer, Int32, Int32) -> Int32
        let startAddress = try #require(dlsym(library, "BZ2_bzDecompressInit"))
        let start = unsafeBitCast(startAddress, to: Start.self)
        let end = unsafeBitCast(try #require(dlsym(library, "BZ2_bzDecompressEnd")), to: Call.self)
        // A bz_stream, zeroed: its allocator is malloc's (80 bytes on 64-bit Linux).
        let stream = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 16)
        defer { stream.deallocate() }
        func run() -> [Int32] {
            stream.initializeMemory(as: UInt8.self, repeating: 0, count: 128)
            return [start(stream, 0, 0), end(stream)]
        }
        #expect(run() == [0, 0])  // BZ_OK
        #expect(Self.pages(startAddress, count: 1)[0].present)
        #expect(clinux_release_executable_pages() > 0)
        #expect(!Self.pages(startAddress, count: 1)[0].present, "libbz2's page of BZ2_bzDecompressInit still mapped")
        // Code that ran before runs again from the page cache.
        #expect(run() == [0, 0])
        #expect([3, 1, 2].sorted() == [1, 2, 3])
    }
}
