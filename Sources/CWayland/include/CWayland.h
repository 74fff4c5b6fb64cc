#ifndef GESTURED_CWAYLAND_H
#define GESTURED_CWAYLAND_H
/*
 * `gestured act`'s one connection to the Wayland compositor of its
 * session, through libwayland-client (Debian: libwayland-dev), and the
 * globals act binds on it from one registry:
 *
 * - wl_output (outputs.c): each output's name and how it is turned;
 * - zwlr_foreign_toplevel_manager_v1 (toplevels.c): which window has the
 *   focus, its app id, title and fullscreen state;
 * - zwlr_virtual_pointer_manager_v1 (pointer.c): a pointer of act's own
 *   per output, which clicks where a finger is.
 *
 * The listeners are C because libwayland's headers make them tables of C
 * function pointers and inline functions; the protocols beyond the core
 * one come from wayland-scanner (generated/, from protocols/). Single
 * threaded: act's loop calls cwl_before_wait before each wait and
 * cwl_read when the descriptor is readable, then takes what changed.
 */
#include <stddef.h>

struct cwl_session;

/* Takes FD, a stream socket already connected to the compositor (act checks
 * whose it is first), and learns the globals, the outputs and the windows
 * open now (three round trips). NULL on failure, with errno; FD is closed
 * either way. */
struct cwl_session *cwl_connect_fd(int fd);
void cwl_disconnect(struct cwl_session *s);
int cwl_fd(struct cwl_session *s);
/* Dispatches what was read already and sends what waits: 0, or -1 when
 * the connection failed. */
int cwl_before_wait(struct cwl_session *s);
/* Reads once (at most libwayland's buffer, whatever else waits) and
 * dispatches it: 0, or -1 when the connection failed (the compositor went
 * away). */
int cwl_read(struct cwl_session *s);

/* What changed since the last call: CWL_OUTPUTS (an output came, went, was
 * named or turned), CWL_FOCUS (the focused window, its title or state, or
 * whether the compositor tells). */
enum { CWL_OUTPUTS = 1, CWL_FOCUS = 2 };
int cwl_take_changes(struct cwl_session *s);

/* The outputs: a name (wl_output version 4, e.g. "eDP-1"; "" before it is
 * known or from an older compositor) and a transform (0 to 7, as
 * wl_output.transform). */
int cwl_output_count(struct cwl_session *s);
const char *cwl_output_name(struct cwl_session *s, int i);
int cwl_output_transform(struct cwl_session *s, int i);

/* The focused window: whether the compositor tells (it offers
 * wlr-foreign-toplevel-management and has not stopped), whether a window
 * has the focus, and that window's app id, title and fullscreen state. */
int cwl_focus_supported(struct cwl_session *s);
int cwl_focus_has_window(struct cwl_session *s);
const char *cwl_focus_app(struct cwl_session *s);
const char *cwl_focus_title(struct cwl_session *s);
int cwl_focus_fullscreen(struct cwl_session *s);

/* Whether the compositor offers wlr-virtual-pointer (wlroots compositors). */
int cwl_pointer_supported(struct cwl_session *s);
/* Makes the virtual pointer of each output that has none yet, so that the
 * compositor gives its seat a pointer before the first click: 0, or -1
 * when the compositor offers none. */
int cwl_pointer_prepare(struct cwl_session *s);
/* Clicks BUTTON (a kernel code, BTN_RIGHT) at X, Y (fractions 0 to 1 of
 * output I) with that output's virtual pointer (made now if it has none):
 * an absolute motion, a press and a release, each in a frame. 0, or -1
 * when the compositor offers no virtual pointer or the connection failed. */
int cwl_click(struct cwl_session *s, int i, unsigned button, double x, double y);

#endif
