"""Another client of the bus, sending every other client signals that look
like a service's: COUNT PropertiesChanged on PATH (unicast, from its own
connection), then a NameOwnerChanged saying SERVICE left the bus, as if
from the bus driver.

Usage: forge_signals.py SERVICE PATH INTERFACE COUNT
"""
import sys

import dbus

service, path, interface, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
bus = dbus.SystemBus()
driver = bus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus')
me = bus.get_unique_name()
names = [n for n in driver.ListNames(dbus_interface='org.freedesktop.DBus') if n.startswith(':') and n != me]
sent = 0
for _ in range(count):
    for n in names:
        m = dbus.lowlevel.SignalMessage(path, 'org.freedesktop.DBus.Properties', 'PropertiesChanged')
        m.append(interface, dbus.Dictionary({}, signature='sv'), dbus.Array(['ActiveSession', 'AccelerometerOrientation'],
                                                                             signature='s'))
        m.set_destination(n)
        bus.send_message(m)
        sent += 1
for n in names:
    m = dbus.lowlevel.SignalMessage('/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameOwnerChanged')
    m.append(service, ':1.1', '')
    m.set_destination(n)
    bus.send_message(m)
    sent += 1
bus.flush()
print(sent, flush=True)
