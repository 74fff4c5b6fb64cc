'''A seat for a compositor that takes its devices from logind: python-dbusmock's
logind template with one active session, "c1" on seat0, that hands out the
devices a session controller asks for (TakeControl, TakeDevice,
ReleaseDevice). scripts/kernel-guest-compositor.sh runs it inside the virtual
machine, where no logind runs, for KWin and GNOME Shell (neither has another
way to a seat):

    python3 -m dbusmock --system --template scripts/logind-seat.py -p '{"uid": 65534}'

TakeDevice opens the character device MAJOR:MINOR as the mock's user (root
there) and passes the descriptor on, as logind does; the first descriptor
of a DRM card is its master. Nothing pauses: the session stays active.
'''

import os

import dbus
from dbusmock.templates import logind
# The template's own D-Bus methods (dbusmock takes them from this module).
from dbusmock.templates.logind import (  # noqa: F401
    AddSeat, AddSession, AddUser, Inhibit, ListInhibitors, ListSessions, ListUsers)

BUS_NAME = logind.BUS_NAME
MAIN_OBJ = logind.MAIN_OBJ
MAIN_IFACE = logind.MAIN_IFACE
SYSTEM_BUS = True

SESSION_IFACE = 'org.freedesktop.login1.Session'

# Run inside dbusmock's method objects, where `args` holds the call's
# arguments; the device's node comes from sysfs.
TAKE_DEVICE = '''
import os
with open("/sys/dev/char/%d:%d/uevent" % (args[0], args[1])) as uevent:
    name = [l.split("=", 1)[1].strip() for l in uevent if l.startswith("DEVNAME=")][0]
fd = os.open("/dev/" + name, os.O_RDWR | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY)
ret = (dbus.types.UnixFd(fd), False)
os.close(fd)
'''


def load(mock, parameters):
    logind.load(mock, parameters)
    uid = int(parameters.get('uid', os.getuid()))
    path = mock.AddSession('c1', 'seat0', dbus.UInt32(uid), parameters.get('user', 'seat'), True)
    session = logind.mockobject.objects[path]
    session.Set(SESSION_IFACE, 'VTNr', dbus.UInt32(0))
    session.Set(SESSION_IFACE, 'Type', 'wayland')
    session.Set(SESSION_IFACE, 'Leader', dbus.UInt32(os.getpid()))
    session.AddMethods(SESSION_IFACE, [
        ('TakeControl', 'b', '', ''),
        ('ReleaseControl', '', '', ''),
        ('TakeDevice', 'uu', 'hb', TAKE_DEVICE),
        ('ReleaseDevice', 'uu', '', ''),
        ('PauseDeviceComplete', 'uu', '', ''),
        ('SetType', 's', '', ''),
    ])
    seat = logind.mockobject.objects['/org/freedesktop/login1/seat/seat0']
    seat.Set('org.freedesktop.login1.Seat', 'CanGraphical', True)
    seat.Set('org.freedesktop.login1.Seat', 'CanTTY', False)
