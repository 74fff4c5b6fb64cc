#ifndef GESTURED_CEVDEV_SHIM_H
#define GESTURED_CEVDEV_SHIM_H
/* libevdev: raw evdev devices for `gestured record`, the virtual keyboard of
 * `gestured act` (uinput), and the kernel's event
 * names wherever events are shown to people. */
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#endif
