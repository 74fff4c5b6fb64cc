// The extension for GNOME Shell 43 and 44 (before ES modules):
// scripts/gnome-extension.sh puts reporter.js where the marker is.
'use strict';

const { Gio, GLib } = imports.gi;
const Main = imports.ui.main;

// @REPORTER@

function init() {
    return new Reporter();
}
