/*
 * The focused window through wlr-foreign-toplevel-management
 * (zwlr_foreign_toplevel_manager_v1, versions 1 to 3), which wlroots
 * compositors offer (sway, phoc, labwc, Wayfire, river, Hyprland) and niri
 * too. Its two interfaces are written out here as wayland-scanner writes
 * them from the protocol's XML, so that the build needs neither the XML
 * nor the scanner: the protocol is stable, and these tables are all of it
 * a client uses.
 */
#include "CWayland.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>

extern const struct wl_interface cwl_toplevel_handle_interface;

static const struct wl_interface *toplevel_types[] = {
    NULL,
    NULL,
    NULL,
    NULL,
    &cwl_toplevel_handle_interface, /* 4: manager.toplevel */
    &wl_seat_interface,             /* 5: handle.activate */
    &wl_surface_interface,          /* 6: handle.set_rectangle, then four ints */
    NULL,
    NULL,
    NULL,
    NULL,
    &wl_output_interface,           /* 11: handle.set_fullscreen */
    &wl_output_interface,           /* 12: handle.output_enter */
    &wl_output_interface,           /* 13: handle.output_leave */
    &cwl_toplevel_handle_interface, /* 14: handle.parent */
};

static const struct wl_message manager_requests[] = {
    {"stop", "", toplevel_types + 0},
};

static const struct wl_message manager_events[] = {
    {"toplevel", "n", toplevel_types + 4},
    {"finished", "", toplevel_types + 0},
};

const struct wl_interface cwl_toplevel_manager_interface = {
    "zwlr_foreign_toplevel_manager_v1", 3, 1, manager_requests, 2, manager_events,
};

static const struct wl_message handle_requests[] = {
    {"set_maximized", "", toplevel_types + 0},
    {"unset_maximized", "", toplevel_types + 0},
    {"set_minimized", "", toplevel_types + 0},
    {"unset_minimized", "", toplevel_types + 0},
    {"activate", "o", toplevel_types + 5},
    {"close", "", toplevel_types + 0},
    {"set_rectangle", "oiiii", toplevel_types + 6},
    {"destroy", "", toplevel_types + 0},
    {"set_fullscreen", "2?o", toplevel_types + 11},
    {"unset_fullscreen", "2", toplevel_types + 0},
};

static const struct wl_message handle_events[] = {
    {"title", "s", toplevel_types + 0},
    {"app_id", "s", toplevel_types + 0},
    {"output_enter", "o", toplevel_types + 12},
    {"output_leave", "o", toplevel_types + 13},
    {"state", "a", toplevel_types + 0},
    {"done", "", toplevel_types + 0},
    {"closed", "", toplevel_types + 0},
    {"parent", "3?o", toplevel_types + 14},
};

const struct wl_interface cwl_toplevel_handle_interface = {
    "zwlr_foreign_toplevel_handle_v1", 3, 10, handle_requests, 8, handle_events,
};

enum { STATE_ACTIVATED = 2, STATE_FULLSCREEN = 3 };
enum { HANDLE_DESTROY = 7, MANAGER_STOP = 0 };

/* More windows than anyone opens at once: those beyond are not followed. */
#define CWL_MAX_TOPLEVELS 512
#define CWL_TEXT 256

struct cwl_toplevel {
    struct wl_proxy *proxy;
    struct cwl_focus *owner;
    /* In force since the last done, and pending until the next. */
    char app[CWL_TEXT], title[CWL_TEXT];
    int activated, fullscreen;
    char pending_app[CWL_TEXT], pending_title[CWL_TEXT];
    int pending_activated, pending_fullscreen;
};

struct cwl_focus {
    struct wl_display *display;
    struct wl_registry *registry;
    struct wl_proxy *manager;
    struct cwl_toplevel *toplevels[CWL_MAX_TOPLEVELS];
    int count;
    /* The toplevel last reported activated (NULL: none). */
    struct cwl_toplevel *focused;
    int changed;
    int finished;
};

static void copy(char *to, const char *from) {
    if (!from) from = "";
    strncpy(to, from, CWL_TEXT - 1);
    to[CWL_TEXT - 1] = 0;
}

static void handle_title(void *data, struct wl_proxy *h, const char *title) {
    (void)h;
    copy(((struct cwl_toplevel *)data)->pending_title, title);
}

static void handle_app_id(void *data, struct wl_proxy *h, const char *app) {
    (void)h;
    copy(((struct cwl_toplevel *)data)->pending_app, app);
}

static void handle_output(void *data, struct wl_proxy *h, struct wl_proxy *output) {
    (void)data, (void)h, (void)output;
}

static void handle_state(void *data, struct wl_proxy *h, struct wl_array *states) {
    (void)h;
    struct cwl_toplevel *t = data;
    t->pending_activated = 0;
    t->pending_fullscreen = 0;
    uint32_t *s;
    wl_array_for_each(s, states) {
        if (*s == STATE_ACTIVATED) t->pending_activated = 1;
        if (*s == STATE_FULLSCREEN) t->pending_fullscreen = 1;
    }
}

static void handle_done(void *data, struct wl_proxy *h) {
    (void)h;
    struct cwl_toplevel *t = data;
    struct cwl_focus *f = t->owner;
    int was_focused = f->focused == t;
    int shown_changed = strcmp(t->app, t->pending_app) != 0 || strcmp(t->title, t->pending_title) != 0 ||
                        t->fullscreen != t->pending_fullscreen;
    memcpy(t->app, t->pending_app, CWL_TEXT);
    memcpy(t->title, t->pending_title, CWL_TEXT);
    t->fullscreen = t->pending_fullscreen;
    t->activated = t->pending_activated;
    if (t->activated && !was_focused) {
        f->focused = t;
        f->changed = 1;
    } else if (!t->activated && was_focused) {
        f->focused = NULL;
        f->changed = 1;
    } else if (was_focused && shown_changed) {
        f->changed = 1;
    }
}

static void forget(struct cwl_focus *f, struct cwl_toplevel *t) {
    if (f->focused == t) {
        f->focused = NULL;
        f->changed = 1;
    }
    for (int i = 0; i < f->count; i++) {
        if (f->toplevels[i] != t) continue;
        f->toplevels[i] = f->toplevels[--f->count];
        break;
    }
    wl_proxy_marshal(t->proxy, HANDLE_DESTROY);
    wl_proxy_destroy(t->proxy);
    free(t);
}

static void handle_closed(void *data, struct wl_proxy *h) {
    (void)h;
    struct cwl_toplevel *t = data;
    forget(t->owner, t);
}

static void handle_parent(void *data, struct wl_proxy *h, struct wl_proxy *parent) {
    (void)data, (void)h, (void)parent;
}

static const struct {
    void (*title)(void *, struct wl_proxy *, const char *);
    void (*app_id)(void *, struct wl_proxy *, const char *);
    void (*output_enter)(void *, struct wl_proxy *, struct wl_proxy *);
    void (*output_leave)(void *, struct wl_proxy *, struct wl_proxy *);
    void (*state)(void *, struct wl_proxy *, struct wl_array *);
    void (*done)(void *, struct wl_proxy *);
    void (*closed)(void *, struct wl_proxy *);
    void (*parent)(void *, struct wl_proxy *, struct wl_proxy *);
} handle_listener = {
    handle_title, handle_app_id, handle_output, handle_output, handle_state, handle_done, handle_closed, handle_parent,
};

static void manager_toplevel(void *data, struct wl_proxy *m, struct wl_proxy *handle) {
    (void)m;
    struct cwl_focus *f = data;
    struct cwl_toplevel *t = f->count < CWL_MAX_TOPLEVELS ? calloc(1, sizeof *t) : NULL;
    if (!t) {
        wl_proxy_marshal(handle, HANDLE_DESTROY);
        wl_proxy_destroy(handle);
        return;
    }
    t->proxy = handle;
    t->owner = f;
    f->toplevels[f->count++] = t;
    wl_proxy_add_listener(handle, (void (**)(void))&handle_listener, t);
}

static void manager_finished(void *data, struct wl_proxy *m) {
    (void)m;
    struct cwl_focus *f = data;
    f->finished = 1;
    f->changed = 1;
}

static const struct {
    void (*toplevel)(void *, struct wl_proxy *, struct wl_proxy *);
    void (*finished)(void *, struct wl_proxy *);
} manager_listener = {manager_toplevel, manager_finished};

static void registry_global(void *data, struct wl_registry *r, uint32_t global, const char *interface,
                            uint32_t version) {
    struct cwl_focus *f = data;
    if (f->manager || strcmp(interface, cwl_toplevel_manager_interface.name) != 0) return;
    f->manager = wl_registry_bind(r, global, &cwl_toplevel_manager_interface, version < 3 ? version : 3);
    if (f->manager) wl_proxy_add_listener(f->manager, (void (**)(void))&manager_listener, f);
}

static void registry_global_remove(void *data, struct wl_registry *r, uint32_t global) {
    (void)data, (void)r, (void)global;
}

static const struct wl_registry_listener registry_listener = {
    .global = registry_global,
    .global_remove = registry_global_remove,
};

struct cwl_focus *cwl_focus_connect(void) {
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) return NULL;
    struct cwl_focus *f = calloc(1, sizeof *f);
    if (!f) {
        wl_display_disconnect(display);
        errno = ENOMEM;
        return NULL;
    }
    f->display = display;
    f->registry = wl_display_get_registry(display);
    wl_registry_add_listener(f->registry, &registry_listener, f);
    /* The globals, then the windows open now and their first state. */
    if (wl_display_roundtrip(display) < 0 || wl_display_roundtrip(display) < 0) {
        int e = errno;
        cwl_focus_disconnect(f);
        errno = e ? e : EPROTO;
        return NULL;
    }
    f->changed = 1;
    return f;
}

void cwl_focus_disconnect(struct cwl_focus *f) {
    if (!f) return;
    while (f->count > 0) forget(f, f->toplevels[f->count - 1]);
    if (f->manager) {
        if (!f->finished) wl_proxy_marshal(f->manager, MANAGER_STOP);
        wl_proxy_destroy(f->manager);
    }
    if (f->registry) wl_registry_destroy(f->registry);
    wl_display_disconnect(f->display);
    free(f);
}

int cwl_focus_supported(struct cwl_focus *f) { return f->manager != NULL && !f->finished; }

int cwl_focus_fd(struct cwl_focus *f) { return wl_display_get_fd(f->display); }

int cwl_focus_before_wait(struct cwl_focus *f) {
    if (wl_display_dispatch_pending(f->display) < 0) return -1;
    if (wl_display_flush(f->display) < 0 && errno != EAGAIN) return -1;
    return 0;
}

int cwl_focus_read(struct cwl_focus *f) { return wl_display_dispatch(f->display) < 0 ? -1 : 0; }

int cwl_focus_take_changed(struct cwl_focus *f) {
    int c = f->changed;
    f->changed = 0;
    return c;
}

int cwl_focus_has_window(struct cwl_focus *f) { return f->focused != NULL; }

const char *cwl_focus_app(struct cwl_focus *f) { return f->focused ? f->focused->app : ""; }

const char *cwl_focus_title(struct cwl_focus *f) { return f->focused ? f->focused->title : ""; }

int cwl_focus_fullscreen(struct cwl_focus *f) { return f->focused ? f->focused->fullscreen : 0; }
