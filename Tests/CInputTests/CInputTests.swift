import CInput
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// libinput's callbacks for opening devices; the daemon's version refuses all
/// but touchscreens. Kept for the context's whole life, as libinput requires.
nonisolated(unsafe) private let interface: UnsafeMutablePointer<libinput_interface> = {
    let p = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
    p.initialize(
        to: libinput_interface(
            open_restricted: { path, flags, _ in
                let fd = open(path!, flags)
                return fd < 0 ? -errno : fd
            },
            close_restricted: { fd, _ in close(fd) }))
    return p
}()

@Suite("CInput links libinput")
struct CInputTests {
    @Test("a path context is created, refuses a missing device, and is released")
    func pathContext() throws {
        let li = try #require(libinput_path_create_context(interface, nil))
        #expect(libinput_get_fd(li) >= 0)
        #expect(libinput_path_add_device(li, "/nonexistent/event99") == nil)
        #expect(libinput_unref(li) == nil)
    }
}
