# gestured: common tasks. `make test` is what CI runs.
SWIFT ?= swift
# Installing Debian packages needs root: use sudo unless we are root already.
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
# systemd reads units, sysusers and tmpfiles from /usr/local/lib as well as /usr/lib.
UNITDIR ?= $(PREFIX)/lib/systemd/system
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
DOCDIR ?= $(PREFIX)/share/doc/gestured

.PHONY: all setup build release test lint format harness install uninstall check-units recordings throughput demo clean

all: build

# Debian packages the build needs (libinput, libudev, libevdev, pkg-config).
setup:
	$(SUDO) scripts/setup.sh

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release --product gestured

# Style check, the end-to-end harness, then every test (Swift Testing). Real
# recordings in ../shared/traces are replayed when that folder is present.
test: lint harness
	$(SWIFT) test

# The umockdev harness the end-to-end tests drive (needs libumockdev-dev).
harness:
	scripts/build-harness.sh

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

# The daemon, its systemd units, sysusers/tmpfiles snippets and an example
# configuration. With DESTDIR (packaging) nothing else happens; without it the
# user and group are created and systemd reloads, if systemd runs.
install: release
	install -Dm755 "$$($(SWIFT) build -c release --show-bin-path)/gestured" "$(DESTDIR)$(BINDIR)/gestured"
	install -d "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(USERUNITDIR)"
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' systemd/gestured.service > "$(DESTDIR)$(UNITDIR)/gestured.service"
	sed -e 's|@DOCDIR@|$(DOCDIR)|g' systemd/gestured.socket > "$(DESTDIR)$(UNITDIR)/gestured.socket"
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' systemd/gestured-user.service > "$(DESTDIR)$(USERUNITDIR)/gestured.service"
	chmod 644 "$(DESTDIR)$(UNITDIR)/gestured.service" "$(DESTDIR)$(UNITDIR)/gestured.socket" "$(DESTDIR)$(USERUNITDIR)/gestured.service"
	install -Dm644 systemd/gestured.sysusers.conf "$(DESTDIR)$(SYSUSERSDIR)/gestured.conf"
	install -Dm644 systemd/gestured.tmpfiles.conf "$(DESTDIR)$(TMPFILESDIR)/gestured.conf"
	install -Dm644 examples/gestured.toml "$(DESTDIR)$(DOCDIR)/gestured.toml.example"
	install -Dm644 docs/protocol.md "$(DESTDIR)$(DOCDIR)/protocol.md"
	if [ -z "$(DESTDIR)" ] && [ "$(SYSUSERSDIR)" = "$(PREFIX)/lib/sysusers.d" ] && [ -d /run/systemd/system ]; then \
	    systemd-sysusers "$(SYSUSERSDIR)/gestured.conf" && \
	    systemd-tmpfiles --create "$(TMPFILESDIR)/gestured.conf" && \
	    systemctl daemon-reload; fi

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/gestured" "$(DESTDIR)$(UNITDIR)/gestured.service" "$(DESTDIR)$(UNITDIR)/gestured.socket" \
	    "$(DESTDIR)$(USERUNITDIR)/gestured.service" "$(DESTDIR)$(SYSUSERSDIR)/gestured.conf" \
	    "$(DESTDIR)$(TMPFILESDIR)/gestured.conf"
	rm -rf "$(DESTDIR)$(DOCDIR)"

# systemd-analyze verify and the offline security score of the installed units.
check-units:
	scripts/check-units.sh

# Regenerates Recordings/ from the synthesizer (tests check the two agree).
recordings:
	rm -f Recordings/*.evemu Recordings/*.expect
	$(SWIFT) run synth-recordings Recordings

# Frames per second through parse, pipeline and JSON (see docs/performance.md).
throughput:
	scripts/replay-throughput.sh

demo: release
	$$($(SWIFT) build -c release --show-bin-path)/gestured replay --format text \
	    Recordings/double-tap-1f.phone.evemu Recordings/swipe-right-1f.tablet.evemu Recordings/pinch-close-3f.tablet.evemu

clean:
	rm -rf .build
