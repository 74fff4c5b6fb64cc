/* The session's state, shared by the files of each protocol (not part of
 * the module's interface). */
#ifndef GESTURED_CWAYLAND_SESSION_H
#define GESTURED_CWAYLAND_SESSION_H

#include "CWayland.h"

#include <stdint.h>
#include <wayland-client.h>

#include "generated/wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "generated/wlr-virtual-pointer-unstable-v1-client-protocol.h"

/* More outputs than any machine has; those beyond are not followed. */
#define CWL_MAX_OUTPUTS 16
/* More windows than anyone opens at once: those beyond are not followed. */
#define CWL_MAX_TOPLEVELS 512
#define CWL_TEXT 256

struct cwl_output {
    struct cwl_session *owner;
    struct wl_output *proxy;
    uint32_t global;
    uint32_t version;
    char name[64];
    int32_t transform;
    /* Sent in geometry, in force at done (version 2 and later). */
    int32_t pending_transform;
    /* This output's virtual pointer (NULL until it is made). */
    struct zwlr_virtual_pointer_v1 *pointer;
};

struct cwl_toplevel {
    struct zwlr_foreign_toplevel_handle_v1 *proxy;
    struct cwl_session *owner;
    /* In force since the last done, and pending until the next. */
    char app[CWL_TEXT], title[CWL_TEXT];
    int activated, fullscreen;
    char pending_app[CWL_TEXT], pending_title[CWL_TEXT];
    int pending_activated, pending_fullscreen;
};

struct cwl_session {
    struct wl_display *display;
    struct wl_registry *registry;
    int changes;

    struct cwl_output outputs[CWL_MAX_OUTPUTS];
    int output_count;

    struct zwlr_foreign_toplevel_manager_v1 *toplevel_manager;
    struct cwl_toplevel *toplevels[CWL_MAX_TOPLEVELS];
    int toplevel_count;
    /* The toplevel last reported activated (NULL: none). */
    struct cwl_toplevel *focused;
    /* The compositor sent the manager's finished. */
    int toplevels_finished;

    struct zwlr_virtual_pointer_manager_v1 *pointer_manager;
    uint32_t pointer_manager_global;
};

/* Each protocol's part of the registry: bind GLOBAL if it is theirs (1), or not (0). */
int cwl_output_global(struct cwl_session *s, uint32_t global, const char *interface, uint32_t version);
int cwl_toplevels_global(struct cwl_session *s, uint32_t global, const char *interface, uint32_t version);
int cwl_pointer_global(struct cwl_session *s, uint32_t global, const char *interface, uint32_t version);
/* A global went away: 1 if it was theirs. */
int cwl_output_global_remove(struct cwl_session *s, uint32_t global);
int cwl_pointer_global_remove(struct cwl_session *s, uint32_t global);
/* What each holds, let go at disconnect. */
void cwl_outputs_release(struct cwl_session *s);
void cwl_toplevels_release(struct cwl_session *s);
void cwl_pointer_release(struct cwl_session *s);
/* An output's virtual pointer, destroyed with it. */
void cwl_pointer_forget(struct cwl_output *out);

#endif
