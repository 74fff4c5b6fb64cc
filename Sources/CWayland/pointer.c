/*
 * wlr-virtual-pointer-unstable-v1 (zwlr_virtual_pointer_manager_v1,
 * versions 1 and 2), which wlroots compositors offer: a pointer of the
 * client's own, whose absolute motion lands on the output it was made for
 * (version 2's create_virtual_pointer_with_output; version 1's spans every
 * output).
 */
#include "session.h"

#include <errno.h>
#include <string.h>
#include <time.h>

int cwl_pointer_global(struct cwl_session *s, uint32_t global, const char *interface, uint32_t version) {
    if (strcmp(interface, zwlr_virtual_pointer_manager_v1_interface.name) != 0) return 0;
    if (s->pointer_manager) return 1;
    uint32_t v = version < 2 ? version : 2;
    s->pointer_manager = wl_registry_bind(s->registry, global, &zwlr_virtual_pointer_manager_v1_interface, v);
    s->pointer_manager_global = global;
    return 1;
}

void cwl_pointer_forget(struct cwl_output *out) {
    if (out->pointer) zwlr_virtual_pointer_v1_destroy(out->pointer);
    out->pointer = NULL;
}

void cwl_pointer_release(struct cwl_session *s) {
    for (int i = 0; i < s->output_count; i++) cwl_pointer_forget(&s->outputs[i]);
    if (s->pointer_manager) zwlr_virtual_pointer_manager_v1_destroy(s->pointer_manager);
    s->pointer_manager = NULL;
}

int cwl_pointer_global_remove(struct cwl_session *s, uint32_t global) {
    if (!s->pointer_manager || global != s->pointer_manager_global) return 0;
    cwl_pointer_release(s);
    return 1;
}

int cwl_pointer_supported(struct cwl_session *s) { return s->pointer_manager != NULL; }

static int make(struct cwl_session *s, struct cwl_output *out) {
    if (out->pointer) return 0;
    out->pointer = wl_proxy_get_version((struct wl_proxy *)s->pointer_manager) >= 2
        ? zwlr_virtual_pointer_manager_v1_create_virtual_pointer_with_output(s->pointer_manager, NULL, out->proxy)
        : zwlr_virtual_pointer_manager_v1_create_virtual_pointer(s->pointer_manager, NULL);
    return out->pointer ? 0 : -1;
}

int cwl_pointer_prepare(struct cwl_session *s) {
    if (!s->pointer_manager) return -1;
    for (int i = 0; i < s->output_count; i++) {
        if (make(s, &s->outputs[i]) < 0) return -1;
    }
    if (wl_display_flush(s->display) < 0 && errno != EAGAIN) return -1;
    return 0;
}

/* The extent absolute positions are given in. */
#define CWL_EXTENT 65535u

int cwl_click(struct cwl_session *s, int i, unsigned button, double x, double y) {
    if (!s->pointer_manager || i < 0 || i >= s->output_count || !(x >= 0 && x <= 1 && y >= 0 && y <= 1)) return -1;
    struct cwl_output *out = &s->outputs[i];
    if (make(s, out) < 0) return -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint32_t ms = (uint32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    uint32_t px = (uint32_t)(x * CWL_EXTENT + 0.5), py = (uint32_t)(y * CWL_EXTENT + 0.5);
    zwlr_virtual_pointer_v1_motion_absolute(out->pointer, ms, px, py, CWL_EXTENT, CWL_EXTENT);
    zwlr_virtual_pointer_v1_frame(out->pointer);
    zwlr_virtual_pointer_v1_button(out->pointer, ms, button, WL_POINTER_BUTTON_STATE_PRESSED);
    zwlr_virtual_pointer_v1_frame(out->pointer);
    zwlr_virtual_pointer_v1_button(out->pointer, ms, button, WL_POINTER_BUTTON_STATE_RELEASED);
    zwlr_virtual_pointer_v1_frame(out->pointer);
    if (wl_display_flush(s->display) < 0 && errno != EAGAIN) return -1;
    return 0;
}
