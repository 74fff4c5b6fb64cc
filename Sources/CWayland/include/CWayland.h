#ifndef GESTURED_CWAYLAND_H
#define GESTURED_CWAYLAND_H
/* The outputs a Wayland compositor announces, and how each is turned
 * (wl_output.geometry's transform, in force at wl_output.done), for
 * `gestured act`, through libwayland-client (Debian: libwayland-dev).
 * The listeners are C because libwayland's headers make them tables of C
 * function pointers and inline functions. Single-threaded: act's loop
 * calls cwl_before_wait before each wait and cwl_read when the descriptor
 * is readable. */
#include <stddef.h>

struct cwl_display;

/* Connects to $WAYLAND_DISPLAY (or wayland-0 in $XDG_RUNTIME_DIR) and
 * learns the outputs (two round trips). NULL on failure, with errno. */
struct cwl_display *cwl_connect(void);
void cwl_disconnect(struct cwl_display *d);
int cwl_fd(struct cwl_display *d);
/* Dispatches what was read already and sends what waits: 0, or -1 when
 * the connection failed. */
int cwl_before_wait(struct cwl_display *d);
/* Reads and dispatches what arrived: 0, or -1 when the connection failed
 * (the compositor went away). */
int cwl_read(struct cwl_display *d);
/* Whether an output came, went or changed its transform since the last call. */
int cwl_take_changed(struct cwl_display *d);
int cwl_output_count(struct cwl_display *d);
/* The output's name (wl_output version 4, e.g. "eDP-1"; "" before it is
 * known or from an older compositor) and its transform (0 to 7, as
 * wl_output.transform). */
const char *cwl_output_name(struct cwl_display *d, int i);
int cwl_output_transform(struct cwl_display *d, int i);
/* Whether the compositor offers wlr-virtual-pointer (wlroots compositors). */
int cwl_pointer_supported(struct cwl_display *d);
/* Clicks BUTTON (a kernel code, BTN_RIGHT) at X, Y (fractions 0 to 1 of
 * output I) with a virtual pointer of this client's own, made for that
 * output at its first click: an absolute motion, a press and a release,
 * each in a frame. 0, or -1 when the compositor offers no virtual pointer
 * or the connection failed. */
int cwl_click(struct cwl_display *d, int i, unsigned button, double x, double y);

/*
 * The focused window, from wlr-foreign-toplevel-management (toplevels.c):
 * a connection of its own. cwl_focus_supported is 0 when the compositor
 * does not offer the protocol (or stopped offering it).
 */
struct cwl_focus;

struct cwl_focus *cwl_focus_connect(void);
void cwl_focus_disconnect(struct cwl_focus *f);
int cwl_focus_supported(struct cwl_focus *f);
int cwl_focus_fd(struct cwl_focus *f);
int cwl_focus_before_wait(struct cwl_focus *f);
int cwl_focus_read(struct cwl_focus *f);
int cwl_focus_take_changed(struct cwl_focus *f);
int cwl_focus_has_window(struct cwl_focus *f);
const char *cwl_focus_app(struct cwl_focus *f);
const char *cwl_focus_title(struct cwl_focus *f);
int cwl_focus_fullscreen(struct cwl_focus *f);

#endif
