#ifndef GESTURED_CSYSTEMD_SHIM_H
#define GESTURED_CSYSTEMD_SHIM_H
/* libsystemd's sd-bus: the daemon asks logind on the system bus which login
 * session is active on its seat, inside its own loop. */
#include <systemd/sd-bus.h>
#endif
