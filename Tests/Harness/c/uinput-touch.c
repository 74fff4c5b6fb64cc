/* uinput-touch: real evdev devices for the kernel tests (scripts/kernel-test.sh).
 *
 *   uinput-touch play FILE.evemu [--no-resolution] [--stop-after N] [--settle MS] [--suffix S] [--wait-for PATH] [--burst]
 *                                [--echo OUT.evemu] [--sent OUT.evemu] [--pause-after N PATH] [--keep-until PATH]
 *                                [--again PATH] [--drained SOCKET]
 *       Creates a device through uinput (libevdev) from the evemu file's
 *       description, prints "node /dev/input/eventN", waits MS (1500) for udev
 *       and its readers, writes the file's events with their recorded timing,
 *       waits a second and destroys the device. --stop-after N destroys it
 *       after N events instead (a device that vanishes mid-gesture);
 *       --no-resolution creates it with every axis's resolution 0; --suffix
 *       appends S to the device's name (several plays at once stay apart);
 *       --wait-for waits, after the settle time, until PATH exists (the
 *       caller makes it once the daemon has announced the device); --burst
 *       writes every frame at once, without the recorded timing (more than a
 *       reader's evdev buffer holds: a reader that is not reading gets
 *       SYN_DROPPED); --echo reads the device back as any reader does and
 *       writes what the kernel delivered, with the kernel's timestamps, to
 *       OUT.evemu (the description, then E: lines): under software emulation
 *       the player can fall behind its schedule, and what a reader saw is
 *       then not the recording's timing. --sent gives each frame the
 *       monotonic time it is written at, as its own timestamp (uinput
 *       keeps it), and writes the frames so to OUT.evemu: what a reader
 *       of the device, or of a clone of it, is to receive.
 *       --pause-after stops before the frame holding the Nth event (fingers
 *       down, the device still there), prints "paused", and goes on, with
 *       the rest of the timing, once PATH exists. --keep-until keeps the
 *       device, once played, until PATH exists (at most ten minutes) instead of
 *       a second: for a caller that still looks at it. --again PATH, once
 *       played, waits until PATH exists and plays the events once more on
 *       the same device (the next touch of a device whose claim ended),
 *       slot 0 selected first as the recording assumes. --drained SOCKET,
 *       once played, destroys the device only once the gestured daemon
 *       listening on SOCKET has read all of it and a second has passed
 *       since, a turn of its loop after that (so its timers have fired),
 *       instead of a second after the last frame: a device destroyed
 *       before a reader read its last frames takes them from that reader,
 *       and one destroyed before a tap's double-tap window ends drops the
 *       tap.
 *   uinput-touch record NAME SECONDS OUT.evemu
 *       Waits up to SECONDS for an input device named NAME, then writes
 *       what it delivers (on CLOCK_MONOTONIC: E: lines with absolute times,
 *       each frame followed by "# read +N us", how long after its time it
 *       was read) to OUT.evemu until it goes away or SECONDS have passed.
 *   uinput-touch grab PATH
 *       Tries EVIOCGRAB on PATH and says "grabbed" or why not.
 *   uinput-touch relay NAME SECONDS
 *       The least a pass-through can do, to measure gestured's against:
 *       waits up to SECONDS for a device named NAME, makes a copy of it
 *       named "NAME (relay)", grabs it and writes every frame it reads to
 *       the copy, one write per frame, until it goes away.
 *   uinput-touch keyboard SECONDS
 *       A keyboard that exists for SECONDS (a device gestured must not open).
 *   uinput-touch watch NAME SECONDS
 *       Waits up to SECONDS for an input device named NAME, then prints its
 *       key events ("KEY_LEFTALT 1") until SECONDS have passed since it
 *       appeared: what `gestured act` typed.
 *
 * Only the evemu lines N:, I:, P:, B:, A: and E: are read. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct event { long long usec; unsigned type, code; int value; };

static void die(const char *what) {
    fprintf(stderr, "uinput-touch: %s\n", what);
    exit(1);
}

static long long now_usec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Waits until PATH exists: at most ten minutes, longer than any step of
 * the kernel tests takes a caller under software emulation. */
static void wait_for_path(const char *path, const char *what) {
    for (int k = 0; access(path, F_OK) != 0; k++) {
        if (k > 60000) die(what);
        usleep(10000);
    }
}

/* Returns once the daemon listening on SOCKET has read everything the
 * devices delivered before the call: two pings answered one after the
 * other. Each turn of the daemon's loop reads its devices before its
 * clients, so the turn that answers the second ping began after the first
 * pong and read every device that had something to read by then. Says on
 * stderr, and returns, when the daemon does not answer within two minutes. */
static void wait_drained(const char *path) {
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct timeval limit = { .tv_sec = 120 };
    if (fd < 0 || strlen(path) >= sizeof addr.sun_path) {
        fprintf(stderr, "uinput-touch: --drained: no socket for %s\n", path);
        if (fd >= 0) close(fd);
        return;
    }
    strcpy(addr.sun_path, path);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        fprintf(stderr, "uinput-touch: --drained: cannot connect to %s: %s\n", path, strerror(errno));
        close(fd);
        return;
    }
    FILE *in = fdopen(dup(fd), "r");
    char line[4096];
    for (int pongs = 0; in && pongs < 2; pongs++) {
        static const char ping[] = "{\"type\":\"ping\"}\n";
        if (write(fd, ping, sizeof ping - 1) != (ssize_t)(sizeof ping - 1)) break;
        int answered = 0;
        while (!answered && fgets(line, sizeof line, in)) answered = !strcmp(line, "{\"type\":\"pong\"}\n");
        if (!answered) {
            fprintf(stderr, "uinput-touch: --drained: %s gave no pong\n", path);
            break;
        }
    }
    if (in) fclose(in);
    close(fd);
}

static void sleep_until(long long usec) {
    struct timespec ts = { .tv_sec = usec / 1000000, .tv_nsec = (usec % 1000000) * 1000 };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
}

static struct libevdev_uinput *create(struct libevdev *dev) {
    struct libevdev_uinput *ui = NULL;
    int r = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED, &ui);
    if (r != 0) {
        fprintf(stderr, "uinput-touch: cannot create a uinput device: %s\n", strerror(-r));
        exit(1);
    }
    printf("node %s\n", libevdev_uinput_get_devnode(ui));
    fflush(stdout);
    return ui;
}

/* Appends what the kernel has delivered to `fd` (non-blocking) to `out` as evemu E: lines. */
static void echo_events(int fd, FILE *out) {
    struct input_event ev[64];
    ssize_t r;
    while ((r = read(fd, ev, sizeof ev)) > 0) {
        for (size_t i = 0; i < (size_t)r / sizeof *ev; i++)
            fprintf(out, "E: %lld.%06lld %04x %04x %d\n", (long long)ev[i].input_event_sec,
                    (long long)ev[i].input_event_usec, ev[i].type, ev[i].code, ev[i].value);
    }
}

static int play(const char *path, int no_resolution, long stop_after, long settle_ms, const char *suffix,
                const char *wait_for, int burst, const char *echo, const char *sent, long pause_after,
                const char *pause_path, const char *keep_until, const char *again_path, const char *drained) {
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open the trace");
    /* The description as created (the name with its suffix), for --echo. */
    char *header = NULL;
    size_t header_size = 0;
    FILE *desc = open_memstream(&header, &header_size);
    if (!desc) die("out of memory");
    struct libevdev *dev = libevdev_new();
    struct event *events = NULL;
    size_t count = 0, capacity = 0;
    unsigned bits_type = 0x100, bits_offset = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "N: ", 3)) {
            line[strcspn(line, "\n")] = 0;
            char name[4200];
            snprintf(name, sizeof name, "%s%s", line + 3, suffix);
            libevdev_set_name(dev, name);
            fprintf(desc, "N: %s\n", name);
            continue;
        }
        if (!strncmp(line, "I: ", 3) || !strncmp(line, "P: ", 3) || !strncmp(line, "B: ", 3)) {
            fputs(line, desc);
            if (line[strlen(line) - 1] != '\n') fputc('\n', desc);
        }
        if (!strncmp(line, "I: ", 3)) {
            unsigned bus, vendor, product, version;
            if (sscanf(line + 3, "%x %x %x %x", &bus, &vendor, &product, &version) == 4) {
                libevdev_set_id_bustype(dev, (int)bus);
                libevdev_set_id_vendor(dev, (int)vendor);
                libevdev_set_id_product(dev, (int)product);
                libevdev_set_id_version(dev, (int)version);
            }
        } else if (!strncmp(line, "P: ", 3)) {
            static unsigned prop_offset = 0;
            char *p = line + 3;
            unsigned byte;
            int n;
            while (sscanf(p, "%x%n", &byte, &n) == 1) {
                for (int b = 0; b < 8; b++)
                    if (byte & (1u << b)) libevdev_enable_property(dev, prop_offset * 8 + (unsigned)b);
                prop_offset++;
                p += n;
            }
        } else if (!strncmp(line, "B: ", 3)) {
            char *p = line + 3;
            unsigned type, byte;
            int n;
            if (sscanf(p, "%x%n", &type, &n) != 1) continue;
            p += n;
            if (type != bits_type) {
                bits_type = type;
                bits_offset = 0;
            }
            while (sscanf(p, "%x%n", &byte, &n) == 1) {
                for (int b = 0; b < 8; b++) {
                    if (!(byte & (1u << b))) continue;
                    unsigned code = bits_offset * 8 + (unsigned)b;
                    if (type == 0) {
                        if (code != EV_SYN) libevdev_enable_event_type(dev, code);
                    } else if (type != EV_ABS) { /* axes come with their A: line */
                        libevdev_enable_event_code(dev, type, code, NULL);
                    }
                }
                bits_offset++;
                p += n;
            }
        } else if (!strncmp(line, "A: ", 3)) {
            unsigned code;
            int min, max, fuzz, flat, resolution = 0;
            if (sscanf(line + 3, "%x %d %d %d %d %d", &code, &min, &max, &fuzz, &flat, &resolution) >= 5) {
                struct input_absinfo abs = { .minimum = min, .maximum = max, .fuzz = fuzz, .flat = flat,
                                             .resolution = no_resolution ? 0 : resolution };
                fprintf(desc, "A: %02x %d %d %d %d %d\n", code, min, max, fuzz, flat, abs.resolution);
                libevdev_enable_event_code(dev, EV_ABS, code, &abs);
            }
        } else if (!strncmp(line, "E: ", 3)) {
            long long sec, usec;
            unsigned type, code;
            int value;
            if (sscanf(line + 3, "%lld.%lld %x %x %d", &sec, &usec, &type, &code, &value) != 5) continue;
            if (count == capacity) {
                capacity = capacity ? capacity * 2 : 1024;
                events = realloc(events, capacity * sizeof *events);
                if (!events) die("out of memory");
            }
            events[count++] = (struct event){ sec * 1000000 + usec, type, code, value };
        }
    }
    fclose(f);
    fclose(desc);
    if (count == 0) die("the trace has no events");
    struct libevdev_uinput *ui = create(dev);
    FILE *echo_out = NULL;
    int echo_fd = -1;
    if (echo) {
        echo_out = fopen(echo, "w");
        echo_fd = open(libevdev_uinput_get_devnode(ui), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (!echo_out || echo_fd < 0) die("--echo: cannot write the file or read the device back");
        fprintf(echo_out, "# EVEMU 1.3\n# What the kernel delivered when uinput-touch played %s\n%s", path, header);
    }
    free(header);
    FILE *sent_out = NULL;
    if (sent && !(sent_out = fopen(sent, "w"))) die("--sent: cannot write the file");
    usleep((useconds_t)settle_ms * 1000);
    if (wait_for) {
        wait_for_path(wait_for, "--wait-for: PATH never appeared");
    }
    /* Each frame (the events up to a SYN_REPORT) goes in one write(2), as a
     * kernel driver reports it at once: under software emulation one write
     * per event made a four-finger frame late enough to change gestures. */
    long long start = now_usec(), t0 = events[0].usec, worst = 0;
    int fd = libevdev_uinput_get_fd(ui);
    struct input_event frame[256];
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        if (stop_after >= 0 && (long)i >= stop_after) break;
        if (pause_path && n == 0 && (long)i >= pause_after) {
            long long paused = now_usec();
            printf("paused\n");
            fflush(stdout);
            wait_for_path(pause_path, "--pause-after: PATH never appeared");
            start += now_usec() - paused;
            pause_path = NULL;
        }
        frame[n++] = (struct input_event){ .type = (unsigned short)events[i].type, .code = (unsigned short)events[i].code,
                                           .value = events[i].value };
        int end = events[i].type == EV_SYN && events[i].code == SYN_REPORT;
        if (!end && n < sizeof frame / sizeof *frame) continue;
        long long due = burst ? now_usec() : start + (events[i].usec - t0);
        sleep_until(due);
        long long late = now_usec() - due;
        if (late > worst) worst = late;
        if (sent_out) {
            long long t = now_usec();
            for (size_t k = 0; k < n; k++) {
                frame[k].input_event_sec = t / 1000000;
                frame[k].input_event_usec = t % 1000000;
                fprintf(sent_out, "E: %lld.%06lld %04x %04x %d\n", t / 1000000, t % 1000000, frame[k].type, frame[k].code,
                        frame[k].value);
            }
        }
        if (write(fd, frame, n * sizeof *frame) != (ssize_t)(n * sizeof *frame)) die("write to uinput failed");
        n = 0;
        /* uinput hands a write to evdev's readers before it returns. */
        if (echo_out) echo_events(echo_fd, echo_out);
    }
    if (n > 0 && write(fd, frame, n * sizeof *frame) < 0) die("write to uinput failed");
    if (echo_out) {
        echo_events(echo_fd, echo_out);
        close(echo_fd);
        if (fclose(echo_out) != 0) die("--echo: cannot write the file");
    }
    if (sent_out && fclose(sent_out) != 0) die("--sent: cannot write the file");
    printf("late %lld us at worst\n", worst);
    fflush(stdout); /* a caller waits for this line while the device still exists */
    if (again_path) {
        wait_for_path(again_path, "--again: PATH never appeared");
        start = now_usec();
        /* The device's slot is wherever the first play left it; a recording
         * starts in slot 0 without saying so, as the kernel starts there. */
        frame[0] = (struct input_event){ .type = EV_ABS, .code = ABS_MT_SLOT, .value = 0 };
        n = 1;
        for (size_t i = 0; i < count; i++) {
            frame[n++] = (struct input_event){ .type = (unsigned short)events[i].type,
                                               .code = (unsigned short)events[i].code, .value = events[i].value };
            if (!(events[i].type == EV_SYN && events[i].code == SYN_REPORT) && n < sizeof frame / sizeof *frame) continue;
            sleep_until(start + (events[i].usec - t0));
            if (write(fd, frame, n * sizeof *frame) != (ssize_t)(n * sizeof *frame)) die("write to uinput failed");
            n = 0;
        }
        printf("again done\n");
        fflush(stdout);
    }
    if (drained) {
        /* Read to its end by the daemon; a second for what it decides on a
         * timer (a tap waits out the double-tap window, and a device gone
         * drops it); then a turn of its loop after that second. */
        wait_drained(drained);
        usleep(1000000);
        wait_drained(drained);
    } else if (keep_until) {
        wait_for_path(keep_until, "--keep-until: PATH never appeared");
    } else if (stop_after < 0) {
        usleep(1000000);
    }
    libevdev_uinput_destroy(ui);
    libevdev_free(dev);
    free(events);
    printf("done\n");
    return 0;
}

static int keyboard(long seconds) {
    struct libevdev *dev = libevdev_new();
    libevdev_set_name(dev, "uinput-touch keyboard");
    libevdev_set_id_bustype(dev, 0x03);
    libevdev_enable_event_type(dev, EV_KEY);
    for (unsigned k = KEY_ESC; k <= KEY_SLASH; k++) libevdev_enable_event_code(dev, EV_KEY, k, NULL);
    struct libevdev_uinput *ui = create(dev);
    sleep((unsigned)seconds);
    libevdev_uinput_destroy(ui);
    libevdev_free(dev);
    return 0;
}

/* The node of the input device named `name`, or -1. */
static int open_named(const char *name, struct libevdev **out) {
    DIR *dir = opendir("/dev/input");
    if (!dir) return -1;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (strncmp(e->d_name, "event", 5) != 0) continue;
        char path[300];
        snprintf(path, sizeof path, "/dev/input/%s", e->d_name);
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        struct libevdev *dev = NULL;
        if (libevdev_new_from_fd(fd, &dev) == 0 && !strcmp(libevdev_get_name(dev), name)) {
            closedir(dir);
            *out = dev;
            return fd;
        }
        if (dev) libevdev_free(dev);
        close(fd);
    }
    closedir(dir);
    return -1;
}

/* Waits up to SECONDS, looking every POLL_US, for a device named NAME;
 * returns its descriptor (and *dev), or dies saying none appeared. */
static int await_named(const char *name, long seconds, useconds_t poll_us, struct libevdev **dev) {
    int fd;
    long long give_up = now_usec() + seconds * 1000000LL;
    while ((fd = open_named(name, dev)) < 0) {
        if (now_usec() > give_up) die("no device with that name appeared");
        usleep(poll_us);
    }
    return fd;
}

static int record(const char *name, long seconds, const char *out_path) {
    struct libevdev *dev = NULL;
    int fd = await_named(name, seconds, 5000, &dev);
    int clock = CLOCK_MONOTONIC;
    if (ioctl(fd, EVIOCSCLOCKID, &clock) != 0) die("EVIOCSCLOCKID failed");
    FILE *out = fopen(out_path, "w");
    if (!out) die("cannot write the file");
    printf("recording %s\n", name);
    fflush(stdout);
    long long end = now_usec() + seconds * 1000000LL;
    while (now_usec() < end) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        poll(&p, 1, 50);
        if (p.revents & (POLLHUP | POLLERR)) break;
        struct input_event ev[64];
        ssize_t r = read(fd, ev, sizeof ev);
        if (r < 0 && errno == ENODEV) break;
        long long now = now_usec();
        for (ssize_t i = 0; i < r / (ssize_t)sizeof *ev; i++) {
            fprintf(out, "E: %lld.%06lld %04x %04x %d\n", (long long)ev[i].input_event_sec, (long long)ev[i].input_event_usec,
                    ev[i].type, ev[i].code, ev[i].value);
            if (ev[i].type == EV_SYN && ev[i].code == SYN_REPORT)
                fprintf(out, "# read +%lld us\n",
                        now - ((long long)ev[i].input_event_sec * 1000000 + (long long)ev[i].input_event_usec));
        }
        fflush(out);
    }
    fclose(out);
    libevdev_free(dev);
    close(fd);
    return 0;
}

static int grab(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        printf("cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (ioctl(fd, EVIOCGRAB, 1) != 0) {
        printf("cannot grab %s: %s\n", path, strerror(errno));
        return 1;
    }
    printf("grabbed %s\n", path);
    ioctl(fd, EVIOCGRAB, 0);
    close(fd);
    return 0;
}

static int relay(const char *name, long seconds) {
    struct libevdev *dev = NULL;
    int fd = await_named(name, seconds, 5000, &dev);
    int clock = CLOCK_MONOTONIC;
    if (ioctl(fd, EVIOCSCLOCKID, &clock) != 0) die("EVIOCSCLOCKID failed");
    char copy[512];
    snprintf(copy, sizeof copy, "%s (relay)", name);
    libevdev_set_name(dev, copy);
    struct libevdev_uinput *ui = create(dev);
    if (ioctl(fd, EVIOCGRAB, 1) != 0) die("EVIOCGRAB failed");
    int out = libevdev_uinput_get_fd(ui);
    struct input_event ev[256];
    size_t n = 0;
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        poll(&p, 1, -1);
        ssize_t r = read(fd, ev + n, sizeof ev - n * sizeof *ev);
        if (r <= 0) break;
        size_t got = n + (size_t)r / sizeof *ev, start = 0;
        for (size_t i = n; i < got; i++) {
            if (ev[i].type != EV_SYN || ev[i].code != SYN_REPORT) continue;
            if (write(out, ev + start, (i + 1 - start) * sizeof *ev) < 0) die("write to uinput failed");
            start = i + 1;
        }
        memmove(ev, ev + start, (got - start) * sizeof *ev);
        n = got - start;
        if (n == sizeof ev / sizeof *ev) n = 0;
    }
    libevdev_uinput_destroy(ui);
    libevdev_free(dev);
    close(fd);
    return 0;
}

static int watch(const char *name, long seconds) {
    struct libevdev *dev = NULL;
    int fd = await_named(name, seconds, 20000, &dev);
    printf("found %s\n", name);
    fflush(stdout);
    long long end = now_usec() + seconds * 1000000LL;
    while (now_usec() < end) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        poll(&p, 1, 100);
        struct input_event ev;
        int rc;
        while ((rc = libevdev_next_event(dev, LIBEVDEV_READ_FLAG_NORMAL, &ev)) == LIBEVDEV_READ_STATUS_SUCCESS) {
            if (ev.type == EV_KEY) {
                printf("%s %d\n", libevdev_event_code_get_name(EV_KEY, ev.code), ev.value);
                fflush(stdout);
            }
        }
    }
    libevdev_free(dev);
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "play")) {
        int no_resolution = 0;
        long stop_after = -1, settle = 1500;
        const char *suffix = "";
        const char *wait_for = NULL, *echo = NULL, *sent = NULL, *pause_path = NULL, *keep_until = NULL, *again_path = NULL;
        const char *drained = NULL;
        long pause_after = -1;
        int burst = 0;
        for (int i = 3; i < argc; i++) {
            if (!strcmp(argv[i], "--no-resolution")) no_resolution = 1;
            else if (!strcmp(argv[i], "--stop-after") && i + 1 < argc) stop_after = atol(argv[++i]);
            else if (!strcmp(argv[i], "--settle") && i + 1 < argc) settle = atol(argv[++i]);
            else if (!strcmp(argv[i], "--suffix") && i + 1 < argc) suffix = argv[++i];
            else if (!strcmp(argv[i], "--wait-for") && i + 1 < argc) wait_for = argv[++i];
            else if (!strcmp(argv[i], "--burst")) burst = 1;
            else if (!strcmp(argv[i], "--echo") && i + 1 < argc) echo = argv[++i];
            else if (!strcmp(argv[i], "--sent") && i + 1 < argc) sent = argv[++i];
            else if (!strcmp(argv[i], "--pause-after") && i + 2 < argc) {
                pause_after = atol(argv[++i]);
                pause_path = argv[++i];
            }
            else if (!strcmp(argv[i], "--keep-until") && i + 1 < argc) keep_until = argv[++i];
            else if (!strcmp(argv[i], "--again") && i + 1 < argc) again_path = argv[++i];
            else if (!strcmp(argv[i], "--drained") && i + 1 < argc) drained = argv[++i];
            else die("unknown option; usage: uinput-touch play FILE [--no-resolution] [--stop-after N] [--settle MS] [--suffix S] [--wait-for PATH] [--burst] [--echo OUT] [--sent OUT] [--pause-after N PATH] [--keep-until PATH] [--again PATH] [--drained SOCKET]");
        }
        return play(argv[2], no_resolution, stop_after, settle, suffix, wait_for, burst, echo, sent, pause_after,
                    pause_path, keep_until, again_path, drained);
    }
    if (argc == 3 && !strcmp(argv[1], "keyboard")) return keyboard(atol(argv[2]));
    if (argc == 4 && !strcmp(argv[1], "watch")) return watch(argv[2], atol(argv[3]));
    if (argc == 5 && !strcmp(argv[1], "record")) return record(argv[2], atol(argv[3]), argv[4]);
    if (argc == 3 && !strcmp(argv[1], "grab")) return grab(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "relay")) return relay(argv[2], atol(argv[3]));
    die("usage: uinput-touch play FILE [--no-resolution] [--stop-after N] [--settle MS] [--burst] | keyboard SECONDS");
    return 1;
}
