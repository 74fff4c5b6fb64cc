#ifndef CX11_H
#define CX11_H

/*
 * The focused window of an X11 session, for `gestured act`, through libxcb
 * (Debian: libxcb1-dev): the window manager's EWMH `_NET_ACTIVE_WINDOW` on
 * the root window, and that window's `WM_CLASS`, `_NET_WM_NAME` (else
 * `WM_NAME`) and `_NET_WM_STATE`. Every window manager that follows EWMH
 * sets it: KWin and GNOME Shell on X11, Xfwm, Openbox, i3, and most others.
 *
 * act's EWMH focus source: connect, wait on the descriptor, read, then
 * take what changed. Each read handles at most a bounded number of
 * events; cx11_focus_more says some may wait in libxcb's queue, where the
 * descriptor does not show them.
 */
struct cx11_focus;

/* NULL when no X server answers at $DISPLAY (errno says why, as far as libxcb does). */
struct cx11_focus *cx11_focus_connect(void);
void cx11_focus_disconnect(struct cx11_focus *f);
/* 0 while the window manager does not say which window is active (it does
 * not list _NET_ACTIVE_WINDOW in _NET_SUPPORTED, or no window manager runs). */
int cx11_focus_supported(struct cx11_focus *f);
int cx11_focus_fd(struct cx11_focus *f);
/* -1 when the connection failed. */
int cx11_focus_before_wait(struct cx11_focus *f);
int cx11_focus_read(struct cx11_focus *f);
/* Whether the last read or before_wait stopped at its budget. */
int cx11_focus_more(struct cx11_focus *f);
/* Whether what the getters below give changed since the last call. */
int cx11_focus_take_changed(struct cx11_focus *f);
int cx11_focus_has_window(struct cx11_focus *f);
/* The class of its WM_CLASS (the app), its title, whether it is fullscreen. */
const char *cx11_focus_app(struct cx11_focus *f);
const char *cx11_focus_title(struct cx11_focus *f);
int cx11_focus_fullscreen(struct cx11_focus *f);

#endif
