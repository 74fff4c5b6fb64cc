/* The connection and its registry: each global goes to the file of its protocol. */
#include "session.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static void registry_global(void *data, struct wl_registry *r, uint32_t global, const char *interface,
                            uint32_t version) {
    (void)r;
    struct cwl_session *s = data;
    if (cwl_output_global(s, global, interface, version)) return;
    if (cwl_toplevels_global(s, global, interface, version)) return;
    cwl_pointer_global(s, global, interface, version);
}

static void registry_global_remove(void *data, struct wl_registry *r, uint32_t global) {
    (void)r;
    struct cwl_session *s = data;
    if (cwl_pointer_global_remove(s, global)) return;
    cwl_output_global_remove(s, global);
}

static const struct wl_registry_listener registry_listener = {
    .global = registry_global,
    .global_remove = registry_global_remove,
};

struct cwl_session *cwl_connect_fd(int fd) {
    struct wl_display *display = wl_display_connect_to_fd(fd);
    if (!display) {
        int e = errno;
        close(fd);
        errno = e ? e : EPROTO;
        return NULL;
    }
    struct cwl_session *s = calloc(1, sizeof *s);
    if (!s) {
        wl_display_disconnect(display);
        errno = ENOMEM;
        return NULL;
    }
    s->display = display;
    s->registry = wl_display_get_registry(display);
    wl_registry_add_listener(s->registry, &registry_listener, s);
    /* The globals; the outputs' first events and the windows open now;
     * those windows' first state. */
    for (int i = 0; i < 3; i++) {
        if (wl_display_roundtrip(display) < 0) {
            int e = errno;
            cwl_disconnect(s);
            errno = e ? e : EPROTO;
            return NULL;
        }
    }
    s->changes = CWL_OUTPUTS | CWL_FOCUS;
    return s;
}

void cwl_disconnect(struct cwl_session *s) {
    if (!s) return;
    cwl_toplevels_release(s);
    cwl_pointer_release(s);
    cwl_outputs_release(s);
    if (s->registry) wl_registry_destroy(s->registry);
    wl_display_disconnect(s->display);
    free(s);
}

int cwl_fd(struct cwl_session *s) { return wl_display_get_fd(s->display); }

int cwl_before_wait(struct cwl_session *s) {
    if (wl_display_dispatch_pending(s->display) < 0) return -1;
    if (wl_display_flush(s->display) < 0 && errno != EAGAIN) return -1;
    return 0;
}

int cwl_read(struct cwl_session *s) {
    /* Events already queued are dispatched first; then one read, which
     * takes what the socket holds up to libwayland's buffer and never waits. */
    if (wl_display_prepare_read(s->display) != 0) return wl_display_dispatch_pending(s->display) < 0 ? -1 : 0;
    if (wl_display_read_events(s->display) < 0) return -1;
    return wl_display_dispatch_pending(s->display) < 0 ? -1 : 0;
}

int cwl_take_changes(struct cwl_session *s) {
    int c = s->changes;
    s->changes = 0;
    return c;
}
