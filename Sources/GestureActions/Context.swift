#if canImport(Glibc)
    import Glibc
#endif

/// The window that has the keyboard focus, as the compositor says.
package struct FocusedWindow: Equatable, Sendable {
    /// Its Wayland `app_id`, or on X11 its `WM_CLASS` class.
    package var app: String
    package var title: String
    package var fullscreen: Bool

    package init(app: String, title: String, fullscreen: Bool) {
        self.app = app
        self.title = title
        self.fullscreen = fullscreen
    }
}

/// A name to match with shell wildcards (`*`, `?`, `[…]`), ignoring case:
/// `org.kde.*` matches `org.kde.krita`, `gimp*` matches `Gimp-2.10`.
package struct NamePattern: Equatable, Sendable, CustomStringConvertible {
    package let text: String

    package init(_ text: String) { self.text = text }

    package func matches(_ name: String) -> Bool {
        // FNM_CASEFOLD, which Glibc's module does not name.
        fnmatch(text, name, 1 << 4) == 0
    }

    package var description: String { text }
}

extension [NamePattern] {
    package func matchesAny(_ name: String) -> Bool { contains { $0.matches(name) } }
}

/// The `[context]` table of an actions file.
package struct ContextSettings: Equatable, Sendable {
    /// While one of these apps has the focus, act claims nothing and only
    /// the bindings whose `when.app` names it act.
    package var leaveToApps: [NamePattern] = []
    /// Whether the compositor passes touch cancels on to apps (`TouchCancel`).
    package var touchCancel = TouchCancel.auto
    package init() {}
}

extension Binding {
    /// What the gestures happen in: the daemon's `context` message (lock
    /// state, tablet mode) and the focused window (`FocusFollower`).
    package struct Context: Equatable, Sendable {
        package var locked = false
        package var tabletMode = false
        /// The focused window; nil when none has the focus, or when the
        /// compositor does not say (then `focusKnown` is false).
        package var focus: FocusedWindow?
        package var focusKnown = false
        /// Whether an on-screen keyboard is shown; false also while no
        /// keyboard says (then `keyboardKnown` is false).
        package var keyboardShown = false
        package var keyboardKnown = false

        package init(
            locked: Bool = false, tabletMode: Bool = false, focus: FocusedWindow? = nil, focusKnown: Bool = false,
            keyboardShown: Bool = false
        ) {
            self.locked = locked
            self.tabletMode = tabletMode
            self.focus = focus
            self.focusKnown = focusKnown || focus != nil
            self.keyboardShown = keyboardShown
            self.keyboardKnown = keyboardShown
        }

        /// Whether the focused app is one the file leaves its touches to.
        package func leftToApp(_ settings: ContextSettings) -> Bool {
            guard let app = focus?.app else { return false }
            return settings.leaveToApps.matchesAny(app)
        }
    }

    /// Whether it may act in this context. Criteria about the focused
    /// window are false while no window is known to have the focus, except
    /// `not-app` and `fullscreen = false`, which are then true; likewise
    /// `keyboard = false` is true while no keyboard is known. While an
    /// app of `leave-to-apps` has the focus, only bindings whose `when.app`
    /// names it act.
    package func acts(in context: Context, _ settings: ContextSettings = ContextSettings()) -> Bool {
        guard context.locked == whenLocked else { return false }
        if let whenTabletMode, whenTabletMode != context.tabletMode { return false }
        let focus = context.focus
        if let whenApps {
            guard let app = focus?.app, whenApps.matchesAny(app) else { return false }
        } else if context.leftToApp(settings) {
            return false
        }
        if let whenNotApps, let app = focus?.app, whenNotApps.matchesAny(app) { return false }
        if let whenTitles {
            guard let title = focus?.title, whenTitles.matchesAny(title) else { return false }
        }
        if let whenFullscreen, whenFullscreen != (focus?.fullscreen ?? false) { return false }
        if let whenKeyboard, whenKeyboard != context.keyboardShown { return false }
        return true
    }

    /// Whether it says anything about the focused window.
    package var needsFocus: Bool { whenApps != nil || whenNotApps != nil || whenTitles != nil || whenFullscreen != nil }
}
