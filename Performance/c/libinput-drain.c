/*
 * The floor of scripts/daemon-cost.sh: a program that opens touchscreens
 * through libinput's path backend and does nothing with their events but
 * read and free them. What a gesture daemon costs per frame is its CPU time
 * minus this program's on the same device and trace.
 *
 * Usage: libinput-drain DEVNODE...
 * On SIGTERM or SIGINT it prints "frames N" (touch frames seen) and exits 0.
 *
 * DRAIN_TOUCH_PAGES=N (a calibration, scripts/daemon-cost.sh's drain+N):
 * after every wake-up it also reads one cache line in each of N pages of
 * its own, to measure what a page touched per wake-up costs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libinput.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <unistd.h>

static int open_restricted(const char *path, int flags, void *user) {
    (void)user;
    int fd = open(path, flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

static void close_restricted(int fd, void *user) {
    (void)user;
    close(fd);
}

static const struct libinput_interface interface = {open_restricted, close_restricted};

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: libinput-drain DEVNODE...\n");
        return 2;
    }
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    struct libinput *li = libinput_path_create_context(&interface, NULL);
    if (!li || sfd < 0) {
        fprintf(stderr, "libinput-drain: cannot create a libinput context or a signalfd\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (!libinput_path_add_device(li, argv[i])) {
            fprintf(stderr, "libinput-drain: cannot open %s\n", argv[i]);
            return 1;
        }
    }
    unsigned long frames = 0;
    const char *touch = getenv("DRAIN_TOUCH_PAGES");
    long pages = touch ? strtol(touch, NULL, 10) : 0;
    volatile unsigned char *region = NULL;
    if (pages > 0) {
        region = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (region == MAP_FAILED) {
            fprintf(stderr, "libinput-drain: cannot map %ld pages\n", pages);
            return 1;
        }
        for (long p = 0; p < pages; p++) region[p * 4096] = 1;
    }
    struct pollfd fds[2] = {{libinput_get_fd(li), POLLIN, 0}, {sfd, POLLIN, 0}};
    for (;;) {
        if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
        if (fds[1].revents) break;
        /* Each page at another line, so the lines do not share a cache set. */
        for (long p = 0; p < pages; p++) (void)region[p * 4096 + (p * 64 * 7) % 4096];
        libinput_dispatch(li);
        struct libinput_event *e;
        while ((e = libinput_get_event(li))) {
            if (libinput_event_get_type(e) == LIBINPUT_EVENT_TOUCH_FRAME) frames++;
            libinput_event_destroy(e);
        }
    }
    printf("frames %lu\n", frames);
    libinput_unref(li);
    return 0;
}
