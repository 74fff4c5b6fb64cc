#include "CLinux.h"

#include <errno.h>
#include <libinput.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <sys/ioctl.h>
#include <link.h>
#include <sys/mman.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <grp.h>
#include <unistd.h>
#include <unistd.h>

int clinux_block_signals(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
    return sigprocmask(SIG_BLOCK, &set, NULL);
}

int clinux_signalfd(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int clinux_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    for (;;) {
        ssize_t n = read(fd, &info, sizeof info);
        if (n == (ssize_t)sizeof info) return (int)info.ssi_signo;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        return -1;
    }
}

int clinux_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) return -1;
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

int clinux_peer_groups(int fd, gid_t *groups, int max, int *needed) {
    socklen_t len = (socklen_t)(sizeof(gid_t) * (size_t)max);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
        if (errno == ERANGE) *needed = (int)(len / sizeof(gid_t));
        return -1;
    }
    return (int)(len / sizeof(gid_t));
}

int clinux_accept(int fd) {
    for (;;) {
        int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c < 0 && errno == EINTR) continue;
        return c;
    }
}

int clinux_unix_socket(int type, int nonblocking) {
    return socket(AF_UNIX, type | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
}

int clinux_set_timer_slack_ns(unsigned long ns) { return prctl(PR_SET_TIMERSLACK, ns, 0, 0, 0); }

int clinux_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

int clinux_poll_usec(struct pollfd *fds, unsigned long count, int64_t timeout_usec) {
    if (timeout_usec < 0) return ppoll(fds, (nfds_t)count, NULL, NULL);
    struct timespec ts = {.tv_sec = (time_t)(timeout_usec / 1000000), .tv_nsec = (long)(timeout_usec % 1000000) * 1000};
    return ppoll(fds, (nfds_t)count, &ts, NULL);
}

_Static_assert(CLINUX_EPOLLIN == EPOLLIN && CLINUX_EPOLLOUT == EPOLLOUT && CLINUX_EPOLLERR == EPOLLERR && CLINUX_EPOLLHUP == EPOLLHUP,
               "epoll's event bits");
_Static_assert(CLINUX_EPOLL_CTL_ADD == EPOLL_CTL_ADD && CLINUX_EPOLL_CTL_DEL == EPOLL_CTL_DEL && CLINUX_EPOLL_CTL_MOD == EPOLL_CTL_MOD,
               "epoll's operations");

int clinux_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int clinux_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event e = {.events = events, .data.u64 = token};
    return epoll_ctl(epfd, op, fd, &e);
}

int clinux_epoll_wait_usec(int epfd, uint64_t *tokens, uint32_t *events, int max, int64_t timeout_usec) {
    struct epoll_event ready[64];
    if (max > 64) max = 64;
    int n;
    static int no_pwait2;
    if (timeout_usec >= 0 && !no_pwait2) {
        struct timespec ts = {.tv_sec = (time_t)(timeout_usec / 1000000), .tv_nsec = (long)(timeout_usec % 1000000) * 1000};
        n = epoll_pwait2(epfd, ready, max, &ts, NULL);
        /* Kernels before 5.11 lack it; a seccomp filter older than the call
         * refuses it with its error number (EPERM in gestured.service). */
        if (n < 0 && (errno == ENOSYS || errno == EPERM)) no_pwait2 = 1;
    }
    if (timeout_usec < 0 || no_pwait2) {
        /* Milliseconds, rounded up: a timer is never woken for early. */
        int64_t ms64 = timeout_usec < 0 ? -1 : (timeout_usec + 999) / 1000;
        int ms = ms64 > INT_MAX ? INT_MAX : (int)ms64;
        n = epoll_wait(epfd, ready, max, ms);
    }
    for (int i = 0; i < n; i++) {
        tokens[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return n;
}

static clinux_log_callback log_callback;

static void log_trampoline(struct libinput *li, enum libinput_log_priority priority, const char *format, va_list args) {
    char message[1024];
    vsnprintf(message, sizeof message, format, args);
    size_t n = strlen(message);
    while (n > 0 && message[n - 1] == '\n') message[--n] = '\0';
    if (log_callback) log_callback(libinput_get_user_data(li), (int)priority, message);
}

void clinux_libinput_set_log(struct libinput *li, clinux_log_callback callback, int priority) {
    log_callback = callback;
    libinput_log_set_handler(li, log_trampoline);
    libinput_log_set_priority(li, (enum libinput_log_priority)priority);
}

int clinux_drop_capabilities(uid_t uid, gid_t gid) {
    for (int cap = 0; cap <= 63; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL) return -1;
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) return -1;
    if (uid != (uid_t)-1) {
        if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0) return -1;
    }
    struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &header, data) < 0) return -1;
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

int clinux_close_inherited(int keep_below) {
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int own = dirfd(d), closed = 0;
    int fds[1024];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 1024) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd >= keep_below && fd != own) fds[n++] = fd;
    }
    closedir(d);
    for (int i = 0; i < n; i++) {
        if (close(fds[i]) == 0) closed++;
    }
    return closed;
}

/* /proc/self/pagemap: one 64-bit entry per page; bit 63 present, bit 61
 * the page is the file's (or shared anonymous memory). */
#define PAGEMAP_PRESENT (1ULL << 63)
#define PAGEMAP_FILE (1ULL << 61)

/* Opened once and kept: a process that gives up root can no longer open
 * its own /proc files (it is not dumpable), but a descriptor opened before
 * still reads. */
static int pagemap_fd = -1;

int clinux_open_pagemap(void) {
    if (pagemap_fd < 0) pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    return pagemap_fd < 0 ? -1 : 0;
}

static long release_file_pages(int fd, void *start, size_t length) {
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t first = ((uintptr_t)start + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)start + length) & ~(page - 1);
    if (end <= first) return 0;
    long released = 0;
    uint64_t entries[512];
    uintptr_t run = first; /* start of the run of file pages not yet given back */
    long resident = 0;     /* resident pages in that run */
    for (uintptr_t at = first; at < end;) {
        size_t n = (end - at) / page;
        if (n > 512) n = 512;
        ssize_t got = pread(fd, entries, n * sizeof entries[0], (off_t)(at / page * sizeof entries[0]));
        if (got <= 0 || got % (ssize_t)sizeof entries[0] != 0) {
            if (got == 0) errno = EIO;
            return -1;
        }
        n = (size_t)got / sizeof entries[0];
        for (size_t i = 0; i < n; i++, at += page) {
            uint64_t entry = entries[i];
            if ((entry & PAGEMAP_PRESENT) && !(entry & PAGEMAP_FILE)) {
                /* Written by the process: give back the run before it, keep it. */
                if (at > run && madvise((void *)run, at - run, MADV_DONTNEED) == 0) released += resident;
                run = at + page;
                resident = 0;
            } else if (entry & PAGEMAP_PRESENT) {
                resident++;
            }
        }
    }
    if (end > run && madvise((void *)run, end - run, MADV_DONTNEED) == 0) released += resident;
    return released * (long)page;
}

/* The kept descriptor, or one opened for this call only: a descriptor
 * opened before the process closes what it inherited would be closed
 * under it (and its number reused). */
static int pagemap_for_call(void) {
    return pagemap_fd >= 0 ? pagemap_fd : open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
}

static void pagemap_done(int fd) {
    if (fd != pagemap_fd) {
        int saved = errno;
        close(fd);
        errno = saved;
    }
}

long clinux_release_file_pages(void *start, size_t length) {
    int fd = pagemap_for_call();
    if (fd < 0) return -1;
    long n = release_file_pages(fd, start, length);
    pagemap_done(fd);
    return n;
}

struct release_state {
    int fd;
    long released;
    int error;
};

static int release_executable(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct release_state *state = data;
    /* The executable and every shared library, but the kernel's vDSO,
     * which no file backs. Relocated data, RELRO included, lies in
     * writable segments, which are left alone; a page the loader relocated
     * elsewhere (text relocations) is the process's own copy, which
     * clinux_release_file_pages keeps. */
    if (info->dlpi_name && strncmp(info->dlpi_name, "linux-vdso", 10) == 0) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *h = &info->dlpi_phdr[i];
        if (h->p_type != PT_LOAD || (h->p_flags & PF_W) || h->p_filesz == 0) continue;
        uintptr_t lo = h->p_vaddr, hi = h->p_vaddr + h->p_filesz;
        long n = release_file_pages(state->fd, (void *)(info->dlpi_addr + lo), hi - lo);
        if (n < 0) {
            state->error = errno;
            return 1;
        }
        state->released += n;
    }
    return 0;
}

long clinux_release_executable_pages(void) {
    struct release_state state = {pagemap_for_call(), 0, 0};
    if (state.fd < 0) return -1;
    dl_iterate_phdr(release_executable, &state);
    pagemap_done(state.fd);
    if (state.error) {
        errno = state.error;
        return -1;
    }
    return state.released;
}

int clinux_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int clinux_eventfd_signal(int fd) {
    uint64_t one = 1;
    for (;;) {
        if (write(fd, &one, sizeof one) == (ssize_t)sizeof one) return 0;
        if (errno == EINTR) continue;
        // The count is at its largest: the reader is woken anyway.
        return errno == EAGAIN ? 0 : -1;
    }
}

uint64_t clinux_eventfd_drain(int fd) {
    uint64_t n = 0;
    for (;;) {
        if (read(fd, &n, sizeof n) == (ssize_t)sizeof n) return n;
        if (errno == EINTR) continue;
        return 0;
    }
}

int clinux_uinput_open(const char *phys) {
    int fd = open("/dev/uinput", O_RDWR | O_CLOEXEC);
    if (fd < 0) return -1;
    if (phys && ioctl(fd, UI_SET_PHYS, phys) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}
