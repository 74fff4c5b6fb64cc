/*
 * The focused window through wlr-foreign-toplevel-management
 * (zwlr_foreign_toplevel_manager_v1, versions 1 to 3), which wlroots
 * compositors offer (sway, phoc, labwc, Wayfire, river, Hyprland) and niri
 * too: the window whose state has `activated` has the focus.
 */
#include "session.h"

#include <stdlib.h>
#include <string.h>

static void copy(char *to, const char *from) {
    if (!from) from = "";
    strncpy(to, from, CWL_TEXT - 1);
    to[CWL_TEXT - 1] = 0;
}

static void handle_title(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, const char *title) {
    (void)h;
    copy(((struct cwl_toplevel *)data)->pending_title, title);
}

static void handle_app_id(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, const char *app) {
    (void)h;
    copy(((struct cwl_toplevel *)data)->pending_app, app);
}

static void handle_output(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_output *output) {
    (void)data, (void)h, (void)output;
}

static void handle_state(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_array *states) {
    (void)h;
    struct cwl_toplevel *t = data;
    t->pending_activated = 0;
    t->pending_fullscreen = 0;
    uint32_t *state;
    wl_array_for_each(state, states) {
        if (*state == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED) t->pending_activated = 1;
        if (*state == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_FULLSCREEN) t->pending_fullscreen = 1;
    }
}

static void handle_done(void *data, struct zwlr_foreign_toplevel_handle_v1 *h) {
    (void)h;
    struct cwl_toplevel *t = data;
    struct cwl_session *s = t->owner;
    int was_focused = s->focused == t;
    int shown_changed = strcmp(t->app, t->pending_app) != 0 || strcmp(t->title, t->pending_title) != 0 ||
                        t->fullscreen != t->pending_fullscreen;
    memcpy(t->app, t->pending_app, CWL_TEXT);
    memcpy(t->title, t->pending_title, CWL_TEXT);
    t->fullscreen = t->pending_fullscreen;
    t->activated = t->pending_activated;
    if (t->activated && !was_focused) {
        s->focused = t;
        s->changes |= CWL_FOCUS;
    } else if (!t->activated && was_focused) {
        s->focused = NULL;
        s->changes |= CWL_FOCUS;
    } else if (was_focused && shown_changed) {
        s->changes |= CWL_FOCUS;
    }
}

static void forget(struct cwl_session *s, struct cwl_toplevel *t) {
    if (s->focused == t) {
        s->focused = NULL;
        s->changes |= CWL_FOCUS;
    }
    for (int i = 0; i < s->toplevel_count; i++) {
        if (s->toplevels[i] != t) continue;
        s->toplevels[i] = s->toplevels[--s->toplevel_count];
        break;
    }
    zwlr_foreign_toplevel_handle_v1_destroy(t->proxy);
    free(t);
}

static void handle_closed(void *data, struct zwlr_foreign_toplevel_handle_v1 *h) {
    (void)h;
    struct cwl_toplevel *t = data;
    forget(t->owner, t);
}

static void handle_parent(void *data, struct zwlr_foreign_toplevel_handle_v1 *h,
                          struct zwlr_foreign_toplevel_handle_v1 *parent) {
    (void)data, (void)h, (void)parent;
}

static const struct zwlr_foreign_toplevel_handle_v1_listener handle_listener = {
    .title = handle_title,
    .app_id = handle_app_id,
    .output_enter = handle_output,
    .output_leave = handle_output,
    .state = handle_state,
    .done = handle_done,
    .closed = handle_closed,
    .parent = handle_parent,
};

static void manager_toplevel(void *data, struct zwlr_foreign_toplevel_manager_v1 *m,
                             struct zwlr_foreign_toplevel_handle_v1 *handle) {
    (void)m;
    struct cwl_session *s = data;
    struct cwl_toplevel *t = s->toplevel_count < CWL_MAX_TOPLEVELS ? calloc(1, sizeof *t) : NULL;
    if (!t) {
        zwlr_foreign_toplevel_handle_v1_destroy(handle);
        return;
    }
    t->proxy = handle;
    t->owner = s;
    s->toplevels[s->toplevel_count++] = t;
    zwlr_foreign_toplevel_handle_v1_add_listener(handle, &handle_listener, t);
}

static void manager_finished(void *data, struct zwlr_foreign_toplevel_manager_v1 *m) {
    (void)m;
    struct cwl_session *s = data;
    s->toplevels_finished = 1;
    s->changes |= CWL_FOCUS;
}

static const struct zwlr_foreign_toplevel_manager_v1_listener manager_listener = {
    .toplevel = manager_toplevel,
    .finished = manager_finished,
};

int cwl_toplevels_global(struct cwl_session *s, uint32_t global, const char *interface, uint32_t version) {
    if (strcmp(interface, zwlr_foreign_toplevel_manager_v1_interface.name) != 0) return 0;
    if (s->toplevel_manager) return 1;
    uint32_t v = version < 3 ? version : 3;
    s->toplevel_manager = wl_registry_bind(s->registry, global, &zwlr_foreign_toplevel_manager_v1_interface, v);
    if (s->toplevel_manager) zwlr_foreign_toplevel_manager_v1_add_listener(s->toplevel_manager, &manager_listener, s);
    return 1;
}

void cwl_toplevels_release(struct cwl_session *s) {
    while (s->toplevel_count > 0) forget(s, s->toplevels[s->toplevel_count - 1]);
    if (s->toplevel_manager) {
        if (!s->toplevels_finished) zwlr_foreign_toplevel_manager_v1_stop(s->toplevel_manager);
        zwlr_foreign_toplevel_manager_v1_destroy(s->toplevel_manager);
        s->toplevel_manager = NULL;
    }
}

int cwl_focus_supported(struct cwl_session *s) { return s->toplevel_manager != NULL && !s->toplevels_finished; }

int cwl_focus_has_window(struct cwl_session *s) { return s->focused != NULL; }

const char *cwl_focus_app(struct cwl_session *s) { return s->focused ? s->focused->app : ""; }

const char *cwl_focus_title(struct cwl_session *s) { return s->focused ? s->focused->title : ""; }

int cwl_focus_fullscreen(struct cwl_session *s) { return s->focused ? s->focused->fullscreen : 0; }
