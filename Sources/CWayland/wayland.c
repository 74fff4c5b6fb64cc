#include "CWayland.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>

/* More outputs than any machine has; those beyond are not followed. */
#define CWL_MAX_OUTPUTS 16

struct cwl_display;

/*
 * wlr-virtual-pointer-unstable-v1 (zwlr_virtual_pointer_manager_v1,
 * versions 1 and 2), which wlroots compositors offer: a pointer of the
 * client's own, whose absolute motion lands on the output it was made
 * for. Its two interfaces are written out here as wayland-scanner writes
 * them from the protocol's XML (the build needs neither): the protocol is
 * stable, and a client uses no event of it.
 */
extern const struct wl_interface cwl_virtual_pointer_interface;

static const struct wl_interface *pointer_types[] = {
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    &wl_seat_interface,              /* 5: manager.create_virtual_pointer */
    &cwl_virtual_pointer_interface,
    &wl_seat_interface,              /* 7: manager.create_virtual_pointer_with_output */
    &wl_output_interface,
    &cwl_virtual_pointer_interface,
};

static const struct wl_message pointer_manager_requests[] = {
    {"create_virtual_pointer", "?on", pointer_types + 5},
    {"destroy", "", pointer_types + 0},
    {"create_virtual_pointer_with_output", "2?o?on", pointer_types + 7},
};

const struct wl_interface cwl_virtual_pointer_manager_interface = {
    "zwlr_virtual_pointer_manager_v1", 2, 3, pointer_manager_requests, 0, NULL,
};

static const struct wl_message virtual_pointer_requests[] = {
    {"motion", "uff", pointer_types + 0},
    {"motion_absolute", "uuuuu", pointer_types + 0},
    {"button", "uuu", pointer_types + 0},
    {"axis", "uuf", pointer_types + 0},
    {"frame", "", pointer_types + 0},
    {"axis_source", "u", pointer_types + 0},
    {"axis_stop", "uu", pointer_types + 0},
    {"axis_discrete", "uufi", pointer_types + 0},
    {"destroy", "", pointer_types + 0},
};

const struct wl_interface cwl_virtual_pointer_interface = {
    "zwlr_virtual_pointer_v1", 2, 9, virtual_pointer_requests, 0, NULL,
};

enum { VP_MOTION_ABSOLUTE = 1, VP_BUTTON = 2, VP_FRAME = 4, VP_DESTROY = 8 };
enum { VPM_CREATE = 0, VPM_DESTROY = 1, VPM_CREATE_WITH_OUTPUT = 2 };

struct cwl_output {
    struct cwl_display *owner;
    struct wl_output *proxy;
    uint32_t global;
    uint32_t version;
    char name[64];
    int32_t transform;
    /* Sent in geometry, in force at done (version 2 and later). */
    int32_t pending_transform;
    /* This output's virtual pointer, made at its first click. */
    struct wl_proxy *pointer;
};

struct cwl_display {
    struct wl_display *display;
    struct wl_registry *registry;
    struct cwl_output outputs[CWL_MAX_OUTPUTS];
    int count;
    int changed;
    struct wl_proxy *pointer_manager;
    uint32_t pointer_manager_global;
};

static void output_geometry(void *data, struct wl_output *o, int32_t x, int32_t y, int32_t pw, int32_t ph,
                            int32_t subpixel, const char *make, const char *model, int32_t transform) {
    (void)o, (void)x, (void)y, (void)pw, (void)ph, (void)subpixel, (void)make, (void)model;
    struct cwl_output *out = data;
    out->pending_transform = transform;
    if (out->version < 2) out->transform = transform;
}

static void output_mode(void *data, struct wl_output *o, uint32_t flags, int32_t w, int32_t h, int32_t refresh) {
    (void)data, (void)o, (void)flags, (void)w, (void)h, (void)refresh;
}

static void output_done(void *data, struct wl_output *o) {
    (void)o;
    struct cwl_output *out = data;
    if (out->transform != out->pending_transform) {
        out->transform = out->pending_transform;
        out->owner->changed = 1;
    }
}

static void output_scale(void *data, struct wl_output *o, int32_t factor) { (void)data, (void)o, (void)factor; }

static void output_name(void *data, struct wl_output *o, const char *name) {
    (void)o;
    struct cwl_output *out = data;
    if (!name) return;
    strncpy(out->name, name, sizeof out->name - 1);
    out->name[sizeof out->name - 1] = 0;
    out->owner->changed = 1;
}

static void output_description(void *data, struct wl_output *o, const char *d) { (void)data, (void)o, (void)d; }

static const struct wl_output_listener output_listener = {
    .geometry = output_geometry,
    .mode = output_mode,
    .done = output_done,
    .scale = output_scale,
    .name = output_name,
    .description = output_description,
};

static void registry_global(void *data, struct wl_registry *r, uint32_t global, const char *interface,
                            uint32_t version) {
    struct cwl_display *d = data;
    if (strcmp(interface, cwl_virtual_pointer_manager_interface.name) == 0 && !d->pointer_manager) {
        d->pointer_manager = wl_registry_bind(r, global, &cwl_virtual_pointer_manager_interface, version < 2 ? version : 2);
        d->pointer_manager_global = global;
        return;
    }
    if (strcmp(interface, wl_output_interface.name) != 0 || d->count >= CWL_MAX_OUTPUTS) return;
    struct cwl_output *out = &d->outputs[d->count];
    memset(out, 0, sizeof *out);
    out->owner = d;
    out->global = global;
    out->version = version < 4 ? version : 4;
    out->proxy = wl_registry_bind(r, global, &wl_output_interface, out->version);
    if (!out->proxy) return;
    wl_output_add_listener(out->proxy, &output_listener, out);
    d->count++;
    d->changed = 1;
}

static void registry_global_remove(void *data, struct wl_registry *r, uint32_t global) {
    (void)r;
    struct cwl_display *d = data;
    if (d->pointer_manager && global == d->pointer_manager_global) {
        for (int i = 0; i < d->count; i++) {
            if (d->outputs[i].pointer) wl_proxy_marshal_flags(d->outputs[i].pointer, VP_DESTROY, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
            d->outputs[i].pointer = NULL;
        }
        wl_proxy_destroy(d->pointer_manager);
        d->pointer_manager = NULL;
        return;
    }
    for (int i = 0; i < d->count; i++) {
        if (d->outputs[i].global != global) continue;
        struct cwl_output *out = &d->outputs[i];
        if (out->pointer) wl_proxy_marshal_flags(out->pointer, VP_DESTROY, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
        if (out->version >= 3) wl_output_release(out->proxy); else wl_output_destroy(out->proxy);
        /* The last output moves into the gap; its listener data moves with it. */
        d->count--;
        if (i != d->count) {
            d->outputs[i] = d->outputs[d->count];
            wl_proxy_set_user_data((struct wl_proxy *)d->outputs[i].proxy, &d->outputs[i]);
        }
        d->changed = 1;
        return;
    }
}

static const struct wl_registry_listener registry_listener = {
    .global = registry_global,
    .global_remove = registry_global_remove,
};

struct cwl_display *cwl_connect(void) {
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) return NULL;
    struct cwl_display *d = calloc(1, sizeof *d);
    if (!d) {
        wl_display_disconnect(display);
        errno = ENOMEM;
        return NULL;
    }
    d->display = display;
    d->registry = wl_display_get_registry(display);
    wl_registry_add_listener(d->registry, &registry_listener, d);
    /* The globals, then each output's first events. */
    if (wl_display_roundtrip(display) < 0 || wl_display_roundtrip(display) < 0) {
        int e = errno;
        cwl_disconnect(d);
        errno = e ? e : EPROTO;
        return NULL;
    }
    return d;
}

void cwl_disconnect(struct cwl_display *d) {
    if (!d) return;
    for (int i = 0; i < d->count; i++) {
        if (d->outputs[i].pointer) wl_proxy_marshal_flags(d->outputs[i].pointer, VP_DESTROY, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
        wl_proxy_destroy((struct wl_proxy *)d->outputs[i].proxy);
    }
    if (d->pointer_manager) wl_proxy_destroy(d->pointer_manager);
    if (d->registry) wl_registry_destroy(d->registry);
    wl_display_disconnect(d->display);
    free(d);
}

int cwl_fd(struct cwl_display *d) { return wl_display_get_fd(d->display); }

int cwl_before_wait(struct cwl_display *d) {
    if (wl_display_dispatch_pending(d->display) < 0) return -1;
    if (wl_display_flush(d->display) < 0 && errno != EAGAIN) return -1;
    return 0;
}

int cwl_read(struct cwl_display *d) { return wl_display_dispatch(d->display) < 0 ? -1 : 0; }

int cwl_take_changed(struct cwl_display *d) {
    int c = d->changed;
    d->changed = 0;
    return c;
}

int cwl_output_count(struct cwl_display *d) { return d->count; }

const char *cwl_output_name(struct cwl_display *d, int i) { return i >= 0 && i < d->count ? d->outputs[i].name : ""; }

int cwl_output_transform(struct cwl_display *d, int i) {
    return i >= 0 && i < d->count ? d->outputs[i].transform : 0;
}

int cwl_pointer_supported(struct cwl_display *d) { return d->pointer_manager != NULL; }

/* The extent absolute positions are given in. */
#define CWL_EXTENT 65535u

int cwl_click(struct cwl_display *d, int i, unsigned button, double x, double y) {
    if (!d->pointer_manager || i < 0 || i >= d->count || !(x >= 0 && x <= 1 && y >= 0 && y <= 1)) return -1;
    struct cwl_output *out = &d->outputs[i];
    uint32_t version = wl_proxy_get_version(d->pointer_manager);
    if (!out->pointer) {
        /* Version 1 has no output: its absolute motion spans every output. */
        out->pointer = version >= 2
            ? wl_proxy_marshal_flags(d->pointer_manager, VPM_CREATE_WITH_OUTPUT, &cwl_virtual_pointer_interface,
                                     version, 0, NULL, out->proxy, NULL)
            : wl_proxy_marshal_flags(d->pointer_manager, VPM_CREATE, &cwl_virtual_pointer_interface, version, 0,
                                     NULL, NULL);
        if (!out->pointer) return -1;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint32_t ms = (uint32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    uint32_t px = (uint32_t)(x * CWL_EXTENT + 0.5), py = (uint32_t)(y * CWL_EXTENT + 0.5);
    wl_proxy_marshal_flags(out->pointer, VP_MOTION_ABSOLUTE, NULL, version, 0, ms, px, py, CWL_EXTENT, CWL_EXTENT);
    wl_proxy_marshal_flags(out->pointer, VP_FRAME, NULL, version, 0);
    wl_proxy_marshal_flags(out->pointer, VP_BUTTON, NULL, version, 0, ms, (uint32_t)button, 1u);
    wl_proxy_marshal_flags(out->pointer, VP_FRAME, NULL, version, 0);
    wl_proxy_marshal_flags(out->pointer, VP_BUTTON, NULL, version, 0, ms, (uint32_t)button, 0u);
    wl_proxy_marshal_flags(out->pointer, VP_FRAME, NULL, version, 0);
    if (wl_display_flush(d->display) < 0 && errno != EAGAIN) return -1;
    return 0;
}
