// Linux calls the daemon needs that Swift's Glibc module does not import.
// Glibc's module map is built without _GNU_SOURCE, so `struct ucred`,
// signalfd, accept4 and SOCK_CLOEXEC/SOCK_NONBLOCK on socket() are missing
// there; this target is compiled with _GNU_SOURCE and wraps each one.
#ifndef CLINUX_H
#define CLINUX_H

#include <stdint.h>
#include <sys/types.h>

struct libinput;

/// Blocks `signals` for the process, so that they stay pending until a
/// signalfd reads them (the same set as clinux_signalfd builds).
int clinux_block_signals(const int *signals, int count);

/// Blocks `signals` for the process and returns a non-blocking, close-on-exec
/// signalfd that reads them (Glibc's module has no sys/signalfd.h).
int clinux_signalfd(const int *signals, int count);

/// Reads one pending signal from a signalfd: its number, 0 if none is
/// pending, -1 with errno on error.
int clinux_signalfd_read(int fd);

/// The peer of a Unix socket: SO_PEERCRED's `struct ucred` needs _GNU_SOURCE.
int clinux_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// The peer's supplementary groups (SO_PEERGROUPS, Linux 4.13): how many were
/// written to `groups` (at most `max`), or -1 with errno; with ERANGE,
/// `needed` is how many the peer has.
int clinux_peer_groups(int fd, gid_t *groups, int max, int *needed);

/// accept4() with SOCK_CLOEXEC | SOCK_NONBLOCK (accept4 needs _GNU_SOURCE).
int clinux_accept(int fd);

/// A close-on-exec, optionally non-blocking AF_UNIX socket of `type`
/// (SOCK_STREAM or SOCK_DGRAM); Swift sees the socket type as an enum that
/// does not combine with the flags.
int clinux_unix_socket(int type, int nonblocking);

/// prctl(PR_SET_TIMERSLACK): how late the kernel may fire this thread's
/// timers to batch wake-ups (50 µs by default). prctl is variadic, which Swift
/// cannot call.
int clinux_set_timer_slack_ns(unsigned long ns);
/// prctl(PR_SET_CHILD_SUBREAPER): descendants whose parent exits are
/// reparented to this process instead of to init, so it can reap them.
int clinux_set_child_subreaper(void);

struct pollfd;

/// poll() with a timeout in microseconds (negative: none), through ppoll():
/// poll()'s millisecond timeout made timers up to a millisecond late
/// (ppoll needs _GNU_SOURCE).
int clinux_poll_usec(struct pollfd *fds, unsigned long count, int64_t timeout_usec);

/// epoll's event bits and operations (sys/epoll.h is not in Swift's Glibc
/// module; shims.c checks they are the kernel's).
enum { CLINUX_EPOLLIN = 0x001, CLINUX_EPOLLOUT = 0x004, CLINUX_EPOLLERR = 0x008, CLINUX_EPOLLHUP = 0x010 };
enum { CLINUX_EPOLL_CTL_ADD = 1, CLINUX_EPOLL_CTL_DEL = 2, CLINUX_EPOLL_CTL_MOD = 3 };

/// A close-on-exec epoll set, or -1 with errno.
int clinux_epoll_create(void);

/// Adds (EPOLL_CTL_ADD), changes (EPOLL_CTL_MOD) or removes (EPOLL_CTL_DEL)
/// `fd` in the set, waiting for `events` (EPOLLIN, EPOLLOUT), with `token`
/// given back when it is ready. `struct epoll_event` is packed on x86-64,
/// which Swift does not import. 0, or -1 with errno.
int clinux_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);

/// Waits until a descriptor of the set is ready or `timeout_usec` passes
/// (negative: no limit), through epoll_pwait2 (a timeout in nanoseconds;
/// epoll_wait's, in milliseconds, where the kernel is older than 5.11 or a
/// seccomp filter refuses it), and writes the ready ones' tokens and events,
/// at most `max`. Their count, or -1 with errno.
int clinux_epoll_wait_usec(int epfd, uint64_t *tokens, uint32_t *events, int max, int64_t timeout_usec);

/// A non-blocking, close-on-exec eventfd (sys/eventfd.h is not in Swift's
/// Glibc module): one thread wakes another's wait by writing to it.
int clinux_eventfd(void);
/// Adds one to an eventfd's count: its reader's wait wakes. 0, or -1 with errno.
int clinux_eventfd_signal(int fd);
/// Reads an eventfd's count back to zero: how many signals it had (0: none).
uint64_t clinux_eventfd_drain(int fd);

/// Called with each libinput log message, formatted, without the newline.
typedef void (*clinux_log_callback)(void *user_data, int priority, const char *message);

/// Routes libinput's log (printf-style with a va_list, which Swift cannot
/// format) to `callback`, with libinput's user data as the first argument.
void clinux_libinput_set_log(struct libinput *li, clinux_log_callback callback, int priority);

/// Drops every capability for good: the bounding and ambient sets; then,
/// unless `uid` is -1, the supplementary groups and every gid and uid for
/// `gid` and `uid`; then the permitted, effective and inheritable sets, and
/// sets no_new_privs. Swift has no capset(2), no linux/capability.h, and
/// setresuid(2) needs _GNU_SOURCE. 0, or -1 with errno.
int clinux_drop_capabilities(uid_t uid, gid_t gid);

/// Closes every descriptor from `keep_below` up that the process inherited
/// (read from /proc/self/fd); how many were closed, or -1 with errno.
int clinux_close_inherited(int keep_below);

/// Unmaps the pages of [start, start + length), a private mapping of a
/// file, that are still the file's: madvise(MADV_DONTNEED) over each run
/// of them. A page the process has written (a debugger's breakpoint, a
/// uprobe) is its own anonymous copy and is kept; unmapped pages come
/// back from the page cache when next read. Bytes
/// that were resident and are given back, or -1 with errno (nothing is
/// given back when /proc/self/pagemap cannot be read).
long clinux_release_file_pages(void *start, size_t length);
/// Opens /proc/self/pagemap for the two calls here, once, and keeps it:
/// call it before giving up root (a process that did cannot open it). 0,
/// or -1 with errno. Until then each call opens it and closes it again.
int clinux_open_pagemap(void);

/// clinux_release_file_pages over the segments that are not writable of
/// the executable and of every shared library loaded (their code and
/// read-only data; relocated data is in the writable ones; not the vDSO).
/// Bytes given back, or -1 with errno.
long clinux_release_executable_pages(void);

/// Opens /dev/uinput (close-on-exec) and sets the `phys` of the device
/// about to be made on it (UI_SET_PHYS, which must come before the device
/// is created: libevdev's own creation does not set it). The descriptor,
/// to hand to libevdev_uinput_create_from_device and close after the
/// device is destroyed, or -1 with errno.
int clinux_uinput_open(const char *phys);

#endif
