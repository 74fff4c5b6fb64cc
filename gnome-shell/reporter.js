// gestured context: reports to `gestured act` (on the Shell's own session
// bus connection) which window has the focus, its title and fullscreen
// state, and whether the Shell's on-screen keyboard is shown. Read-only
// properties and their PropertiesChanged: no method, nothing that acts on
// a window. scripts/gnome-extension.sh puts it in the extension format of
// the Shell (legacy.js for 43 and 44, module.js for 45 and later), where
// Gio, GLib and Main are imported.

const PATH = '/org/gestured/Context';
const INTERFACE = 'org.gestured.Context1';
const XML = `<node>
  <interface name="${INTERFACE}">
    <property name="Known" type="b" access="read"/>
    <property name="App" type="s" access="read"/>
    <property name="Title" type="s" access="read"/>
    <property name="Fullscreen" type="b" access="read"/>
    <property name="KeyboardVisible" type="b" access="read"/>
  </interface>
</node>`;

const TYPES = { Known: 'b', App: 's', Title: 's', Fullscreen: 'b', KeyboardVisible: 'b' };

class Reporter {
    constructor() {
        this.Known = false;
        this.App = '';
        this.Title = '';
        this.Fullscreen = false;
        this.KeyboardVisible = false;
        this._window = null;
        this._windowSignals = [];
        this._signals = [];
        this._exported = null;
    }

    enable() {
        this._exported = Gio.DBusExportedObject.wrapJSObject(XML, this);
        this._exported.export(Gio.DBus.session, PATH);
        this._connect(global.display, 'notify::focus-window', () => this._follow());
        if (Main.keyboard)
            this._connect(Main.keyboard, 'visibility-changed', () => this._update());
        this._follow();
    }

    disable() {
        this._followWindow(null);
        for (const [object, id] of this._signals)
            object.disconnect(id);
        this._signals = [];
        this._set('Known', false);
        if (this._exported) {
            this._exported.flush();
            this._exported.unexport();
            this._exported = null;
        }
    }

    _connect(object, signal, callback) {
        this._signals.push([object, object.connect(signal, callback)]);
    }

    _followWindow(w) {
        for (const id of this._windowSignals)
            this._window.disconnect(id);
        this._windowSignals = [];
        this._window = w;
        if (!w)
            return;
        for (const signal of ['notify::title', 'notify::fullscreen', 'notify::wm-class', 'unmanaged'])
            this._windowSignals.push(w.connect(signal, () => this._follow()));
    }

    _follow() {
        const w = global.display.get_focus_window();
        if (w !== this._window)
            this._followWindow(w);
        this._update();
    }

    _update() {
        const w = this._window;
        this._set('Known', true);
        this._set('App', w ? (w.get_wm_class() || w.get_gtk_application_id() || '') : '');
        this._set('Title', w ? (w.get_title() || '') : '');
        this._set('Fullscreen', w ? w.is_fullscreen() : false);
        this._set('KeyboardVisible', !!(Main.keyboard && Main.keyboard.visible));
    }

    _set(name, value) {
        if (this[name] === value)
            return;
        this[name] = value;
        if (this._exported)
            this._exported.emit_property_changed(name, new GLib.Variant(TYPES[name], value));
    }
}
