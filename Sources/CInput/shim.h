#ifndef GESTURED_CINPUT_SHIM_H
#define GESTURED_CINPUT_SHIM_H
/* libinput for touch events, libudev for device properties (ID_INPUT_TOUCHSCREEN). */
#include <libinput.h>
#include <libudev.h>
#endif
