#ifndef GESTURED_CEVDEV_SHIM_H
#define GESTURED_CEVDEV_SHIM_H
/* libevdev: raw evdev devices for `gestured record`, and the kernel's event
 * names wherever events are shown to people. */
#include <libevdev/libevdev.h>
#endif
