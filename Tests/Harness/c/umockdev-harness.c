/*
 * gestured's end-to-end harness: emulated touchscreens for the real libinput.
 *
 * Builds a umockdev testbed (sysfs, udev, evdev ioctls), runs a program in it
 * with umockdev's preload library (and fstat-fix.so before it), and replays
 * evemu traces into the emulated device nodes, one kernel-like frame per
 * write, on CLOCK_MONOTONIC. Run it in a private mount namespace with a tmpfs
 * on /run/udev (it writes udev database entries there).
 *
 * Driven by one command per line on stdin; each gets one reply line on stdout:
 *   add UMOCKDEV IOCTL DEVNODE MINOR KIND [uevent]  -> ok SYSPATH
 *       (KIND: touchscreen, keyboard or switch, for udev's database entry)
 *   start LOGFILE PROGRAM [ARG...]             -> started PID
 *       (a program started while another runs sets it aside: `stop`
 *        stops the latest, and the one before becomes the latest again)
 *   waitopen DEVNODE TIMEOUT_MS                -> open
 *   replay DEVNODE[,DEVNODE...] EVEMU [UNTIL_MS] -> done FRAMES
 *       (each frame written to every device named, one after another)
 *   remove SYSPATH                             -> ok (a "remove" uevent, then gone)
 *   wait TIMEOUT_MS                            -> exited STATUS
 *       (the started program ending by itself)
 *   stop                                       -> exited STATUS
 *   quit
 * Failures reply "error MESSAGE".
 *
 * Usage: umockdev-harness PRELOAD_FIX_LIBRARY
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <linux/input.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <umockdev.h>
#include <unistd.h>

static UMockdevTestbed *testbed;
static pid_t child = -1;
/* Programs started before `child` and still running, the latest last. */
static pid_t earlier[16];
static int earlier_count = 0;
static const char *fix_library;

static void reply(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
}

static unsigned long long now_usec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000ull;
}

static void sleep_until(unsigned long long usec) {
    struct timespec ts = {.tv_sec = (time_t)(usec / 1000000ull), .tv_nsec = (long)(usec % 1000000ull) * 1000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

static void cmd_add(char **argv, int argc) {
    if (argc < 6) return reply("error usage: add UMOCKDEV IOCTL DEVNODE MINOR KIND [uevent]");
    const char *kind = strcmp(argv[5], "keyboard") == 0 ? "E:ID_INPUT_KEY=1\nE:ID_INPUT_KEYBOARD=1\n"
                       : strcmp(argv[5], "switch") == 0 ? "E:ID_INPUT_SWITCH=1\n"
                                                        : "E:ID_INPUT_TOUCHSCREEN=1\n";
    GError *error = NULL;
    if (!umockdev_testbed_add_from_file(testbed, argv[1], &error)) {
        reply("error %s: %s", argv[1], error->message);
        g_error_free(error);
        return;
    }
    if (!umockdev_testbed_load_ioctl(testbed, argv[3], argv[2], &error)) {
        reply("error %s: %s", argv[2], error->message);
        g_error_free(error);
        return;
    }
    /* udev's database entry: libinput ignores devices udev has not initialized. */
    mkdir("/run/udev/data", 0755);
    char path[256];
    snprintf(path, sizeof path, "/run/udev/data/c13:%s", argv[4]);
    FILE *f = fopen(path, "w");
    if (!f) return reply("error cannot write %s: %s", path, strerror(errno));
    fprintf(f, "I:1000000\nE:ID_INPUT=1\n%sG:seat\nQ:seat\n", kind);
    fclose(f);
    /* Find the event node's sysfs path: the first P: line of the record. */
    char syspath[512] = "";
    f = fopen(argv[1], "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "P: ", 3) == 0) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(syspath, sizeof syspath, "/sys%s", line + 3);
            break;
        }
    }
    if (f) fclose(f);
    int master = umockdev_testbed_get_dev_fd(testbed, argv[3]);
    if (master >= 0) {
        struct termios t;
        if (tcgetattr(master, &t) == 0) {
            cfmakeraw(&t);
            tcsetattr(master, TCSANOW, &t);
        }
    }
    if (argc > 6 && strcmp(argv[6], "uevent") == 0) umockdev_testbed_uevent(testbed, syspath, "add");
    reply("ok %s", syspath);
}

static void cmd_start(char **argv, int argc) {
    if (argc < 3) return reply("error usage: start LOGFILE PROGRAM [ARG...]");
    pid_t pid = fork();
    if (pid < 0) return reply("error fork: %s", strerror(errno));
    if (pid == 0) {
        int log = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (log >= 0) {
            dup2(log, 1);
            dup2(log, 2);
        }
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        char preload[1024];
        snprintf(preload, sizeof preload, "%s:libumockdev-preload.so.0", fix_library);
        setenv("LD_PRELOAD", preload, 1);
        execvp(argv[2], argv + 2);
        fprintf(stderr, "umockdev-harness: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    if (child > 0 && earlier_count < 16) earlier[earlier_count++] = child;
    child = pid;
    reply("started %d", (int)pid);
}

/* The pts path that emulates DEVNODE, from $UMOCKDEV_DIR/dev/.ptymap. */
static int pts_of(const char *devnode, char *out, size_t size) {
    char map[1024];
    snprintf(map, sizeof map, "%s/dev/.ptymap", umockdev_testbed_get_root_dir(testbed));
    /* Each entry is named after a pts path and links to "major:minor"; the
     * device node itself under $UMOCKDEV_DIR/dev links to the pts. */
    char node[1024];
    snprintf(node, sizeof node, "%s%s", umockdev_testbed_get_root_dir(testbed), devnode);
    ssize_t n = readlink(node, out, size - 1);
    if (n > 0) {
        out[n] = '\0';
        return 0;
    }
    (void)map;
    return -1;
}

static void cmd_waitopen(char **argv, int argc) {
    if (argc < 3 || child < 0) return reply("error usage: waitopen DEVNODE TIMEOUT_MS (after start)");
    char pts[512];
    if (pts_of(argv[1], pts, sizeof pts) != 0) return reply("error no pts for %s", argv[1]);
    unsigned long long deadline = now_usec() + strtoull(argv[2], NULL, 10) * 1000ull;
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)child);
    while (now_usec() < deadline) {
        DIR *d = opendir(dir);
        if (!d) return reply("error the program exited");
        struct dirent *e;
        int found = 0;
        while ((e = readdir(d))) {
            char link[600], target[512];
            snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
            ssize_t n = readlink(link, target, sizeof target - 1);
            if (n > 0) {
                target[n] = '\0';
                if (strcmp(target, pts) == 0) found = 1;
            }
        }
        closedir(d);
        if (found) {
            usleep(50000); /* libinput drains what is queued when it opens the device */
            return reply("open");
        }
        usleep(5000);
    }
    reply("error %s was not opened within %s ms", argv[1], argv[2]);
}

static void cmd_replay(char **argv, int argc) {
    if (argc < 3) return reply("error usage: replay DEVNODE[,DEVNODE...] EVEMU [UNTIL_MS]");
    int fds[8], nfds = 0;
    for (char *node = strtok(argv[1], ","); node; node = strtok(NULL, ",")) {
        if (nfds == 8) return reply("error at most 8 devices at once");
        fds[nfds] = umockdev_testbed_get_dev_fd(testbed, node);
        if (fds[nfds] < 0) return reply("error %s is not an emulated device", node);
        nfds++;
    }
    long long until = argc > 3 ? strtoll(argv[3], NULL, 10) * 1000ll : -1;
    FILE *f = fopen(argv[2], "r");
    if (!f) return reply("error %s: %s", argv[2], strerror(errno));
    char line[512];
    struct input_event frame[256];
    int count = 0, frames = 0;
    long long first = -1;
    unsigned long long base = now_usec() + 10000;
    while (fgets(line, sizeof line, f)) {
        unsigned long sec, usec;
        unsigned type, code;
        int value;
        if (sscanf(line, "E: %lu.%lu %x %x %d", &sec, &usec, &type, &code, &value) != 5) continue;
        long long t = (long long)sec * 1000000ll + (long long)usec;
        if (first < 0) first = t;
        if (until >= 0 && t - first > until) break;
        unsigned long long at = base + (unsigned long long)(t - first);
        struct input_event *e = &frame[count++];
        memset(e, 0, sizeof *e);
        e->input_event_sec = (time_t)(at / 1000000ull);
        e->input_event_usec = (suseconds_t)(at % 1000000ull);
        /* A first byte of 0x20 in the seconds is lost on the way (see
         * docs/testing.md): write the same instant as one second less and a
         * million microseconds more. */
        if ((e->input_event_sec & 0xff) == 32) {
            e->input_event_sec -= 1;
            e->input_event_usec += 1000000;
        }
        e->type = (unsigned short)type;
        e->code = (unsigned short)code;
        e->value = value;
        if ((type == EV_SYN && code == SYN_REPORT) || count == 256) {
            sleep_until(at);
            ssize_t want = (ssize_t)(sizeof(struct input_event) * (size_t)count);
            for (int i = 0; i < nfds; i++) {
                if (write(fds[i], frame, (size_t)want) != want) {
                    fclose(f);
                    return reply("error write: %s", strerror(errno));
                }
            }
            frames++;
            count = 0;
        }
    }
    fclose(f);
    reply("done %d", frames);
}

/* Waits up to TIMEOUT_MS for the started program to exit by itself. */
static void cmd_wait(char **argv, int argc) {
    if (argc < 2 || child < 0) return reply("error usage: wait TIMEOUT_MS (after start)");
    unsigned long long deadline = now_usec() + strtoull(argv[1], NULL, 10) * 1000ull;
    int status = 0;
    while (now_usec() < deadline) {
        if (waitpid(child, &status, WNOHANG) == child) {
            child = -1;
            return reply("exited %d", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        }
        usleep(5000);
    }
    reply("error still running after %s ms", argv[1]);
}

/* Sends SIGTERM (or SIGINT with "stop INT", as Ctrl-C would) and waits for the exit. */
static void cmd_stop(char **argv, int argc) {
    if (child < 0) return reply("error nothing started");
    kill(child, argc > 1 && strcmp(argv[1], "INT") == 0 ? SIGINT : SIGTERM);
    int status = 0;
    for (int i = 0; i < 500; i++) {
        pid_t r = waitpid(child, &status, WNOHANG);
        if (r == child) {
            child = earlier_count > 0 ? earlier[--earlier_count] : -1;
            return reply("exited %d", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        }
        usleep(10000);
    }
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    child = earlier_count > 0 ? earlier[--earlier_count] : -1;
    reply("error did not stop within 5 s; killed");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: umockdev-harness PRELOAD_FIX_LIBRARY\n");
        return 2;
    }
    fix_library = argv[1];
    testbed = umockdev_testbed_new();
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        char *args[64];
        int n = 0;
        for (char *tok = strtok(line, " \t\n"); tok && n < 63; tok = strtok(NULL, " \t\n")) args[n++] = tok;
        args[n] = NULL;
        if (n == 0) continue;
        if (strcmp(args[0], "add") == 0) cmd_add(args, n);
        else if (strcmp(args[0], "start") == 0) cmd_start(args, n);
        else if (strcmp(args[0], "waitopen") == 0) cmd_waitopen(args, n);
        else if (strcmp(args[0], "replay") == 0) cmd_replay(args, n);
        else if (strcmp(args[0], "remove") == 0) {
            if (n < 2) reply("error usage: remove SYSPATH");
            else {
                umockdev_testbed_uevent(testbed, args[1], "remove");
                umockdev_testbed_remove_device(testbed, args[1]);
                reply("ok");
            }
        } else if (strcmp(args[0], "stop") == 0) cmd_stop(args, n);
        else if (strcmp(args[0], "wait") == 0) cmd_wait(args, n);
        else if (strcmp(args[0], "quit") == 0) break;
        else reply("error unknown command %s", args[0]);
    }
    while (earlier_count > 0) {
        pid_t p = earlier[--earlier_count];
        kill(p, SIGKILL);
        waitpid(p, NULL, 0);
    }
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    g_object_unref(testbed);
    return 0;
}
