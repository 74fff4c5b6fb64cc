/*
 * LD_PRELOAD'ed before umockdev's library in the end-to-end tests.
 *
 * umockdev (0.17) emulates an evdev node with a pseudo-terminal and does not
 * wrap fstat(); libinput compares fstat(fd).st_rdev with the udev device
 * number and rejects the device. For a pts opened inside a testbed
 * ($UMOCKDEV_DIR set), this puts back the emulated major:minor that umockdev
 * keeps as a link under $UMOCKDEV_DIR/dev/.ptymap/ (the pts path with '/'
 * turned into '_').
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void fix(int fd, struct stat *st) {
    const char *dir = getenv("UMOCKDEV_DIR");
    if (!dir || !S_ISCHR(st->st_mode) || major(st->st_rdev) != 136) return;
    char link[64], path[PATH_MAX], map[PATH_MAX], target[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return;
    path[n] = '\0';
    for (char *p = path; *p; p++)
        if (*p == '/') *p = '_';
    snprintf(map, sizeof map, "%s/dev/.ptymap/%s", dir, path);
    n = readlink(map, target, sizeof target - 1);
    if (n <= 0) return;
    target[n] = '\0';
    unsigned maj, min;
    if (sscanf(target, "%u:%u", &maj, &min) == 2) st->st_rdev = makedev(maj, min);
}

int fstat(int fd, struct stat *st) {
    static int (*real)(int, struct stat *);
    if (!real) real = dlsym(RTLD_NEXT, "fstat");
    int r = real(fd, st);
    if (r == 0) fix(fd, st);
    return r;
}

int fstat64(int fd, struct stat64 *st) {
    static int (*real)(int, struct stat64 *);
    if (!real) real = dlsym(RTLD_NEXT, "fstat64");
    int r = real(fd, st);
    if (r == 0) fix(fd, (struct stat *)st);
    return r;
}
