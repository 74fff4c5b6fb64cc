"""logind as the seat tests need it: org.freedesktop.login1 on a private
system bus, with the seat's ActiveSession and each session's User and
LockedHint, that answers, errs or never answers as the test sets it
(test.Control on /control), answers and signals late as a busy logind
does (SetDelay), floods LockedHint changes (Flip), and counts the
questions it is asked.

Usage: fake_logind.py UID SESSION   (the session active at start, of UID)
"""
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

PROPS = 'org.freedesktop.DBus.Properties'
SEAT = '/org/freedesktop/login1/seat/seat0'

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
state = {'mode': 'answer', 'session': sys.argv[2], 'uid': int(sys.argv[1]), 'questions': 0,
         'locked': False, 'delay': 0.0}


def later(call):
    """Runs CALL now, or after the delay a busy logind takes. An answer is
    made when it is sent, from the state then, as logind makes it when it
    gets to the question: its answers and signals keep their order."""
    if state['delay'] <= 0:
        call()
    else:
        GLib.timeout_add(int(state['delay'] * 1000), lambda: (call(), False)[1])


def answering(err):
    """Counts a question; whether to answer it (else it errs, or is never answered)."""
    state['questions'] += 1
    if state['mode'] == 'error':
        err(dbus.exceptions.DBusException('logind is failing', name='org.freedesktop.DBus.Error.Failed'))
    return state['mode'] == 'answer'


class Seat(dbus.service.Object):
    @dbus.service.method(PROPS, in_signature='ss', out_signature='v', async_callbacks=('ok', 'err'))
    def Get(self, interface, prop, ok, err):
        if not answering(err):
            return
        def answer():
            s = state['session']
            path = '/org/freedesktop/login1/session/' + s if s else '/'
            ok(dbus.Struct((s, dbus.ObjectPath(path)), signature='so', variant_level=1))
        later(answer)

    @dbus.service.signal(PROPS, signature='sa{sv}as')
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


class Session(dbus.service.Object):
    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}', async_callbacks=('ok', 'err'))
    def GetAll(self, interface, ok, err):
        if not answering(err):
            return
        def answer():
            uid = dbus.UInt32(state['uid'])
            user = dbus.Struct((uid, dbus.ObjectPath('/org/freedesktop/login1/user/%d' % state['uid'])),
                               signature='uo')
            ok(dbus.Dictionary({'Id': dbus.String(state['session']), 'User': user,
                                'LockedHint': dbus.Boolean(state['locked'])}, signature='sv'))
        later(answer)

    @dbus.service.signal(PROPS, signature='sa{sv}as')
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


seat = Seat(bus, SEAT)
sessions = {}


def session(name):
    if name and name not in sessions:
        sessions[name] = Session(bus, '/org/freedesktop/login1/session/' + name)


session(state['session'])


class Control(dbus.service.Object):
    @dbus.service.method('test.Control', in_signature='s')
    def SetMode(self, mode):
        state['mode'] = mode

    @dbus.service.method('test.Control', in_signature='su')
    def Activate(self, name, uid):
        """Makes the session NAME of UID the active one, and says so."""
        session(name)
        state['session'], state['uid'] = name, uid
        # logind's ActiveSession emits its change with the new value.
        value = dbus.Struct((name, dbus.ObjectPath('/org/freedesktop/login1/session/' + name)), signature='so',
                            variant_level=1)
        later(lambda: seat.PropertiesChanged('org.freedesktop.login1.Seat',
                                             dbus.Dictionary({'ActiveSession': value}, signature='sv'),
                                             dbus.Array([], signature='s')))

    @dbus.service.method('test.Control', in_signature='b')
    def SetLocked(self, locked):
        """Locks or unlocks the active session, and says so as logind does."""
        state['locked'] = bool(locked)
        sessions[state['session']].PropertiesChanged(
            'org.freedesktop.login1.Session', dbus.Dictionary({'LockedHint': dbus.Boolean(locked)}, signature='sv'),
            dbus.Array([], signature='s'))

    @dbus.service.method('test.Control', in_signature='d')
    def SetDelay(self, seconds):
        """Answers, and the signal of the next switch, come SECONDS late."""
        state['delay'] = seconds

    @dbus.service.method('test.Control', in_signature='u')
    def Flip(self, count):
        """COUNT LockedHint changes of the active session as fast as they go, the last one locking it."""
        for i in range(count):
            locked = (count - i) % 2 == 1
            state['locked'] = locked
            sessions[state['session']].PropertiesChanged(
                'org.freedesktop.login1.Session', dbus.Dictionary({'LockedHint': dbus.Boolean(locked)}, signature='sv'),
                dbus.Array([], signature='s'))

    @dbus.service.method('test.Control', out_signature='u')
    def Questions(self):
        return state['questions']


Control(bus, '/control')
# The name last: a client that sees it finds every object in place.
name = dbus.service.BusName('org.freedesktop.login1', bus)
print('ready', flush=True)
GLib.MainLoop().run()
