/*
 * The active window of an X11 session (EWMH), read with libxcb. act selects
 * PropertyNotify on the root window, to hear _NET_ACTIVE_WINDOW change, and
 * on the active window, to hear its class, title and state change; each
 * change is read back with GetProperty.
 */
#include "CX11.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>

#define CX11_TEXT 256

enum { ACTIVE, SUPPORTED, NET_WM_NAME, UTF8_STRING, NET_WM_STATE, FULLSCREEN, ATOM_COUNT };

static const char *const atom_names[ATOM_COUNT] = {
    "_NET_ACTIVE_WINDOW", "_NET_SUPPORTED", "_NET_WM_NAME", "UTF8_STRING", "_NET_WM_STATE", "_NET_WM_STATE_FULLSCREEN",
};

struct cx11_focus {
    xcb_connection_t *c;
    xcb_window_t root;
    xcb_atom_t atoms[ATOM_COUNT];
    int supported;
    /* The active window (0: none), whose properties act listens to. */
    xcb_window_t window;
    char app[CX11_TEXT], title[CX11_TEXT];
    int fullscreen;
    int changed;
    /* The last dispatch stopped at its budget: events may wait in libxcb's queue. */
    int more;
};

/* A property's value, at most `words` 32-bit units of it; NULL when the
 * window has none (or is gone). */
static xcb_get_property_reply_t *property(struct cx11_focus *f, xcb_window_t w, xcb_atom_t name, xcb_atom_t type,
                                          uint32_t words) {
    xcb_generic_error_t *error = NULL;
    xcb_get_property_reply_t *r =
        xcb_get_property_reply(f->c, xcb_get_property(f->c, 0, w, name, type, 0, words), &error);
    free(error);
    if (r && r->type == XCB_NONE) {
        free(r);
        return NULL;
    }
    return r;
}

/* Whether an ATOM list property holds `atom`. */
static int holds_atom(struct cx11_focus *f, xcb_window_t w, xcb_atom_t name, xcb_atom_t atom, uint32_t words) {
    xcb_get_property_reply_t *r = property(f, w, name, XCB_ATOM_ATOM, words);
    int found = 0;
    if (r && r->format == 32) {
        const xcb_atom_t *a = xcb_get_property_value(r);
        int n = xcb_get_property_value_length(r) / 4;
        for (int i = 0; i < n && !found; i++) found = a[i] == atom;
    }
    free(r);
    return found;
}

/* Bytes of a text property, up to its first NUL, into `to` (NUL-ended). */
static void copy_text(char *to, const char *from, int length) {
    int n = 0;
    while (n < length && n < CX11_TEXT - 1 && from[n]) n++;
    memcpy(to, from, n);
    to[n] = 0;
}

static void set(struct cx11_focus *f, char *field, const char *value) {
    if (strcmp(field, value) == 0) return;
    memcpy(field, value, CX11_TEXT);
    f->changed = 1;
}

/* The active window's class, title and fullscreen state. */
static void read_window(struct cx11_focus *f) {
    char app[CX11_TEXT] = "", title[CX11_TEXT] = "";
    int fullscreen = 0;
    if (f->window) {
        /* WM_CLASS is "instance\0class\0": the class names the app. */
        xcb_get_property_reply_t *r = property(f, f->window, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 128);
        if (r && r->format == 8) {
            const char *v = xcb_get_property_value(r);
            int n = xcb_get_property_value_length(r);
            const char *end = memchr(v, 0, n);
            if (end) copy_text(app, end + 1, n - (int)(end + 1 - v));
        }
        free(r);
        r = property(f, f->window, f->atoms[NET_WM_NAME], f->atoms[UTF8_STRING], CX11_TEXT / 4);
        if (!r) r = property(f, f->window, XCB_ATOM_WM_NAME, XCB_GET_PROPERTY_TYPE_ANY, CX11_TEXT / 4);
        if (r && r->format == 8) copy_text(title, xcb_get_property_value(r), xcb_get_property_value_length(r));
        free(r);
        fullscreen = holds_atom(f, f->window, f->atoms[NET_WM_STATE], f->atoms[FULLSCREEN], 64);
    }
    set(f, f->app, app);
    set(f, f->title, title);
    if (fullscreen != f->fullscreen) f->changed = 1;
    f->fullscreen = fullscreen;
}

static void listen_to(struct cx11_focus *f, xcb_window_t w, uint32_t mask) {
    xcb_change_window_attributes(f->c, w, XCB_CW_EVENT_MASK, &mask);
}

/* The window manager's _NET_ACTIVE_WINDOW, and what act listens to. */
static void read_active(struct cx11_focus *f) {
    xcb_window_t window = 0;
    if (f->supported) {
        xcb_get_property_reply_t *r = property(f, f->root, f->atoms[ACTIVE], XCB_ATOM_WINDOW, 1);
        if (r && r->format == 32 && xcb_get_property_value_length(r) >= 4)
            window = *(const xcb_window_t *)xcb_get_property_value(r);
        free(r);
    }
    if (window != f->window) {
        /* A window already gone gives an error event, which is dropped. */
        if (f->window) listen_to(f, f->window, XCB_EVENT_MASK_NO_EVENT);
        if (window) listen_to(f, window, XCB_EVENT_MASK_PROPERTY_CHANGE);
        f->window = window;
        f->changed = 1;
    }
    read_window(f);
}

static void read_supported(struct cx11_focus *f) {
    int supported = holds_atom(f, f->root, f->atoms[SUPPORTED], f->atoms[ACTIVE], 4096);
    if (supported != f->supported) f->changed = 1;
    f->supported = supported;
    read_active(f);
}

/* The most events handled in one call: a server that floods leaves the
 * rest for the next turn of act's loop (cx11_focus_more). */
#define CX11_BUDGET 256

static void dispatch(struct cx11_focus *f) {
    xcb_generic_event_t *ev;
    int budget = CX11_BUDGET;
    f->more = 0;
    while (budget > 0 && (ev = xcb_poll_for_event(f->c))) {
        budget--;
        if ((ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY) {
            const xcb_property_notify_event_t *p = (const xcb_property_notify_event_t *)ev;
            if (p->window == f->root && p->atom == f->atoms[SUPPORTED]) {
                read_supported(f);
            } else if (p->window == f->root && p->atom == f->atoms[ACTIVE]) {
                read_active(f);
            } else if (p->window == f->window && f->window &&
                       (p->atom == XCB_ATOM_WM_CLASS || p->atom == XCB_ATOM_WM_NAME ||
                        p->atom == f->atoms[NET_WM_NAME] || p->atom == f->atoms[NET_WM_STATE])) {
                read_window(f);
            }
        }
        free(ev);
    }
    if (budget == 0) f->more = 1;
}

struct cx11_focus *cx11_focus_connect(void) {
    int screen = 0;
    xcb_connection_t *c = xcb_connect(NULL, &screen);
    if (xcb_connection_has_error(c)) {
        xcb_disconnect(c);
        if (!errno) errno = ECONNREFUSED;
        return NULL;
    }
    struct cx11_focus *f = calloc(1, sizeof *f);
    if (!f) {
        xcb_disconnect(c);
        errno = ENOMEM;
        return NULL;
    }
    f->c = c;
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c));
    for (int i = 0; i < screen && it.rem > 1; i++) xcb_screen_next(&it);
    f->root = it.data->root;
    xcb_intern_atom_cookie_t cookies[ATOM_COUNT];
    for (int i = 0; i < ATOM_COUNT; i++) cookies[i] = xcb_intern_atom(c, 0, strlen(atom_names[i]), atom_names[i]);
    for (int i = 0; i < ATOM_COUNT; i++) {
        xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, cookies[i], NULL);
        f->atoms[i] = r ? r->atom : XCB_NONE;
        free(r);
    }
    listen_to(f, f->root, XCB_EVENT_MASK_PROPERTY_CHANGE);
    read_supported(f);
    if (xcb_connection_has_error(c)) {
        cx11_focus_disconnect(f);
        errno = EPROTO;
        return NULL;
    }
    f->changed = 1;
    return f;
}

void cx11_focus_disconnect(struct cx11_focus *f) {
    if (!f) return;
    xcb_disconnect(f->c);
    free(f);
}

int cx11_focus_supported(struct cx11_focus *f) { return f->supported; }

int cx11_focus_fd(struct cx11_focus *f) { return xcb_get_file_descriptor(f->c); }

int cx11_focus_before_wait(struct cx11_focus *f) {
    dispatch(f);
    return xcb_flush(f->c) > 0 && !xcb_connection_has_error(f->c) ? 0 : -1;
}

int cx11_focus_read(struct cx11_focus *f) {
    dispatch(f);
    return xcb_connection_has_error(f->c) ? -1 : 0;
}

int cx11_focus_more(struct cx11_focus *f) { return f->more; }

int cx11_focus_take_changed(struct cx11_focus *f) {
    int c = f->changed;
    f->changed = 0;
    return c;
}

int cx11_focus_has_window(struct cx11_focus *f) { return f->window != 0; }

const char *cx11_focus_app(struct cx11_focus *f) { return f->app; }

const char *cx11_focus_title(struct cx11_focus *f) { return f->title; }

int cx11_focus_fullscreen(struct cx11_focus *f) { return f->fullscreen; }
