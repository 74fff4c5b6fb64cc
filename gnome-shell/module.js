// The extension for GNOME Shell 45 and later (an ES module):
// scripts/gnome-extension.sh puts reporter.js where the marker is.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

// @REPORTER@

export default class GesturedContext extends Extension {
    enable() {
        this._reporter = new Reporter();
        this._reporter.enable();
    }

    disable() {
        this._reporter.disable();
        this._reporter = null;
    }
}
