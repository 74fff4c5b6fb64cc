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
# udev reads rules from /usr/local/lib/udev/rules.d as well as /usr/lib/udev/rules.d.
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
# polkit reads rules from /etc/polkit-1/rules.d and /usr/share/polkit-1/rules.d
# only: a local install puts its rule among the administrator's.
POLKITRULESDIR ?= /etc/polkit-1/rules.d
# libinput reads quirks from its own data folder only, whatever PREFIX is.
LIBINPUTQUIRKSDIR ?= /usr/share/libinput
DOCDIR ?= $(PREFIX)/share/doc/gestured
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
# How long one run of the tests may take before scripts/watchdog.sh prints
# where it is stuck (process tree, every thread's stack) and stops it. A run
# takes 1 to 3 minutes here; the limit is for hangs, not for speed.
# scripts/test-run.sh runs each under the watchdog and lists the tests it
# skipped with their reasons (in CI a skipped test fails the run).
TEST_LIMIT ?= 1200
TEST_RUN = scripts/test-run.sh $(TEST_LIMIT)

.PHONY: all setup setup-check setup-tests setup-packages debian13-root build release release-profiled deb arch rpm check test test-kernel sanitize fuzz bench bench-smoke bench-update perf-guard lint format harness install install-files uninstall check-units systemd-smoke wayland-protocols recordings throughput demo pictures man clean

# `make` builds, as you, what `sudo make install` copies: the release binary
# and the man pages (about 2 minutes the first time on two cores, most of it
# compiling the dependencies).
all: release man

# Swift is checked as you first (sudo's secure_path hides a Swift in /opt or
# your home directory); then the Debian packages the build and the demo need
# (scripts/debian-packages.txt), as root, only those missing.
PYTHON ?= python3
TOOLS ?= .build/tools
setup:
	scripts/check-swift.sh $(SWIFT)
	@if [ -n "$$(scripts/setup.sh --missing scripts/debian-packages.txt)" ]; then $(SUDO) scripts/setup.sh scripts/debian-packages.txt; \
	    else echo "setup: every package the build needs is installed"; fi

# What `make check` needs: the Debian packages of
# scripts/debian-test-packages.txt that are missing (through sudo: sway,
# umockdev, dbus, Xvfb…), and nothing of the virtual machine or the package.
CHECK_PACKAGES = scripts/debian-packages.txt scripts/debian-test-packages.txt
setup-check:
	@if [ -n "$$(scripts/setup.sh --missing $(CHECK_PACKAGES))" ]; then $(SUDO) scripts/setup.sh $(CHECK_PACKAGES); \
	    else echo "setup: every package the quick tests need is installed"; fi

# The whole test lab, which `make test` sets up first: those, the packages
# of scripts/debian-lab-packages.txt (a virtual machine's kernel, qemu,
# lintian…), and the PyPI tools of scripts/python-requirements.txt
# (virtme-ng) in a virtual environment of the checkout's own, as you
# (TOOLS; scripts/setup-tools.sh).
# And a Debian 13 root (DESKTOP_ROOT; scripts/debian13-root.sh) for the
# desktop tests' KWin 6 and GNOME Shell 48.
LAB_PACKAGES = $(CHECK_PACKAGES) scripts/debian-lab-packages.txt scripts/debian-deb-packages.txt
DESKTOP_ROOT ?= .build/debian13
setup-tests:
	@if [ -n "$$(scripts/setup.sh --missing $(LAB_PACKAGES))" ]; then $(SUDO) scripts/setup.sh $(LAB_PACKAGES); \
	    else echo "setup: every package the tests need is installed"; fi
	scripts/setup-tools.sh $(PYTHON) $(TOOLS)
	scripts/debian13-root.sh $(DESKTOP_ROOT)

debian13-root:
	scripts/debian13-root.sh $(DESKTOP_ROOT)

build:
	$(SWIFT) build

# The installed binary: Swift's libraries linked statically, so only the code
# used is loaded, and libstdc++ too (only the Swift runtime uses it: the few
# pieces it needs instead of the whole shared library mapped and relocated);
# linked by lld (in Swift's toolchain) with the loader's relocations packed
# (DT_RELR, glibc 2.36), no symbols exported (nothing loads the binary's
# symbols; SwiftPM exports them for tests) and every function in a section
# of its own: resident memory, docs/cost.md ("Memory").
# Optimized at link time as well (LLVM's full LTO over every Swift module and
# the C shims, --experimental-lto-mode=full): a frame crosses GestureCore,
# GestureDaemon and CLinux, whose calls only the link can inline
# (docs/performance.md).
# RELEASE_ORDER and RELEASE_PROFILE add the lab's layout (release-profiled).
STATIC_CXX = $(CURDIR)/.build/static-cxx
RELEASE_LINK = -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
	-Xswiftc -L$(STATIC_CXX) -Xswiftc -Xfrontend -Xswiftc -function-sections
RELEASE_LTO = --experimental-lto-mode=full
RELEASE_ORDER =
RELEASE_PROFILE =
# Where the release build goes (Performance/scripts/profile.sh builds its instrumented one apart).
RELEASE_BUILD = .build
release:
	@# A folder holding only libstdc++.a, searched first: the runtime's -lstdc++ finds the archive.
	@a=$$(gcc -print-file-name=libstdc++.a); [ -f "$$a" ] || { echo "make release: libstdc++.a not found (apt-get install libstdc++-12-dev, or make setup)" >&2; exit 1; }; \
		mkdir -p $(STATIC_CXX) && ln -sf "$$a" $(STATIC_CXX)/libstdc++.a
	$(SWIFT) build -c release --build-path $(RELEASE_BUILD) --product gestured --static-swift-stdlib -Xswiftc -warnings-as-errors \
	    $(RELEASE_LTO) $(RELEASE_LINK) $(RELEASE_ORDER) $(RELEASE_PROFILE)

# The release build laid out by the lab's two inputs, into .build/profiled: a
# build to measure against `make release`, not the one installed
# (docs/cost.md, "Code layout"). Compiled with the branch counts of
# Performance/layout/gestured.profdata (LLVM's profile-guided optimization,
# written by Performance/scripts/profile.sh), linked with the functions the
# daemon runs placed together (Performance/layout/link-order.txt, written by
# Performance/scripts/link-order.sh). The build reads a copy of the profile
# named by its hash (SwiftPM sees a new profile as new flags and compiles
# again); SwiftPM does not see the order file change, so a newer one forces
# the link.
PROFILE = Performance/layout/gestured.profdata
PROFILE_COPY = $(CURDIR)/.build/profile/gestured-$(shell sha256sum $(PROFILE) | cut -c1-16).profdata
PROFILED_ORDER = -Xlinker --symbol-ordering-file=$(CURDIR)/Performance/layout/link-order.txt -Xlinker --no-warn-symbol-ordering
release-profiled:
	@if [ Performance/layout/link-order.txt -nt .build/profiled/release/gestured ]; then rm -f .build/profiled/release/gestured; fi
	@[ -f $(PROFILE_COPY) ] || { mkdir -p $(dir $(PROFILE_COPY)) && cp $(PROFILE) $(PROFILE_COPY); }
	$(MAKE) release RELEASE_BUILD=.build/profiled RELEASE_ORDER="$(PROFILED_ORDER)" \
	    RELEASE_PROFILE="-Xswiftc -Xfrontend -Xswiftc -ir-profile-use=$(PROFILE_COPY)"

# The Debian package, .build/deb/gestured_VERSION_ARCH.deb, built by
# debhelper from debian/ (which runs `make release man` and `make
# install-files` with Debian's paths) and checked by lintian (scripts/deb.sh;
# docs/packaging.md).
VERSION := $(shell scripts/version.sh)
DEB_FILE = .build/deb/gestured_$(VERSION)_$(shell dpkg --print-architecture).deb
# The packages, Debian's and the others', first install the packaging tools of
# scripts/debian-deb-packages.txt that are missing (through sudo: debhelper,
# dpkg-dev, fakeroot, lintian, makepkg, rpm).
DEB_PACKAGES = scripts/debian-packages.txt scripts/debian-deb-packages.txt
setup-packages:
	@if [ -n "$$(scripts/setup.sh --missing $(DEB_PACKAGES))" ]; then $(SUDO) scripts/setup.sh $(DEB_PACKAGES); \
	    else echo "setup: every package make deb, arch and rpm need is installed"; fi

deb: setup-packages
	scripts/deb.sh

# The Arch Linux package, .build/arch/gestured-VERSION-1-ARCH.pkg.tar.*, by
# makepkg from packaging/arch/PKGBUILD (scripts/arch.sh), and the RPM for
# Fedora, .build/rpm/gestured-VERSION-1.ARCH.rpm, by rpmbuild from
# packaging/rpm/gestured.spec (scripts/rpm.sh): the same `make release man`
# and `make install-files` as the .deb, with each distribution's paths.
arch: setup-packages
	scripts/arch.sh

rpm: setup-packages
	scripts/rpm.sh

# Style and warnings (lint), the end-to-end harness, every test (Swift
# Testing), the release build (as `make` builds it: LTO, lld) installed
# into a scratch directory (scripts/check-install.sh), the Debian package
# built, checked by lintian, then installed, upgraded and purged in a
# throwaway systemd (make deb, scripts/deb-test.sh), the Arch and RPM
# packages built and their files checked against the .deb's (make arch rpm,
# scripts/package-files-test.sh), the real-kernel tests
# in a virtual machine (test-kernel, which installs the package there
# last), the benchmarks' allocation counts against Benchmarks/Thresholds (no
# timing), 20 s of each fuzz target, then every test again under the
# sanitizers. Each test run is stopped with a report if it hangs (TEST_LIMIT, scripts/watchdog.sh).
# Real recordings in ../shared/traces are replayed when that folder is present.
# A test that needs what this machine lacks (root, a tool, a virtual
# machine) is skipped with its reason, and listed after its run.
# While working, `make check` is the quick loop (`swift test --filter NAME` for one suite).
test: setup-tests lint harness
	$(TEST_RUN) $(SWIFT) test --skip-build --build-path $(TEST_BUILD) --skip KernelTests
	$(MAKE) release
	GESTURED_BIN=$(RELEASE_BUILD)/release/gestured TEST_BUILD=$(TEST_BUILD) scripts/check-install.sh
	$(MAKE) deb
	scripts/deb-test.sh $(DEB_FILE)
	$(MAKE) arch rpm
	scripts/package-files-test.sh $(DEB_FILE) .build/arch/gestured-$(VERSION)-1-*.pkg.tar.* .build/rpm/gestured-$(VERSION)-1.*.rpm
	GESTURED_DEB=$(CURDIR)/$(DEB_FILE) $(MAKE) test-kernel
	$(MAKE) bench-smoke
	$(MAKE) fuzz FUZZ_SECONDS=20
	$(MAKE) sanitize

# The quick loop while working: style and warnings (lint, whose build is
# the tests' one build), then every test but the real-kernel ones, once: no
# virtual machine and none of its lab, no release build, no package, no
# sanitizer build. A test whose tool is missing is skipped with its reason.
# `make test` is CI's.
check: setup-check lint harness
	$(TEST_RUN) $(SWIFT) test --skip-build --build-path $(TEST_BUILD) --skip KernelTests

# The real-kernel tests alone (Tests/EndToEndTests/KernelTests.swift): boots
# Debian's kernel under qemu through virtme-ng (scripts/kernel-test.sh, 15 to
# 25 minutes under software emulation) with uinput touchscreens made from the
# bundled recordings. Run on their own, not beside the other suites, whose
# timings a virtual machine on two cores would disturb. Outside CI they are
# skipped, saying so, where no virtual machine can be booted.
# GESTURED_DEB=PATH (make test passes the package make deb built) has the
# guest install it and plug in a touchscreen after (scripts/kernel-guest-deb.sh).
test-kernel: harness
	$(SWIFT) build --build-tests --build-path $(TEST_BUILD) $(LINT_FLAGS)
	GESTURED_KERNEL_TESTS=1 scripts/test-run.sh 2700 $(SWIFT) test --skip-build --build-path $(TEST_BUILD) --filter KernelTests

# Every test with AddressSanitizer (Swift and C) and UndefinedBehaviorSanitizer
# (the C code: shims, libyaml glue), in .build/asan. Known leaks of the
# toolchain's own libraries are suppressed by name
# (scripts/lsan-suppressions.txt). Tests wait longer under it
# (GESTURED_SANITIZER; Harness's Timing.scale).
sanitize: harness
	$(SWIFT) build --build-tests --build-path .build/asan -Xswiftc -sanitize=address -Xcc -fsanitize=undefined
	GESTURED_SANITIZER=address SWIFT_BACKTRACE=enable=no \
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan-suppressions.txt:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(TEST_RUN) $(SWIFT) test --skip-build --build-path .build/asan --skip KernelTests

# The README's picture, drawn by the tool from a bundled recording (a test
# checks it is current).
pictures: build
	$(SWIFT) run -q gestured replay --format summary --svg docs/pictures/tour.svg Recordings/tour.tablet.evemu

# libFuzzer on the evemu and libinput-record readers, the configuration reader
# and the socket request parser (Fuzz/, scripts/fuzz.sh; docs/security.md).
FUZZ_SECONDS ?= 60
fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

# Benchmarks (Benchmarks/, ordo-one/benchmark; docs/performance.md).
# bench: every metric against the committed thresholds (times within tolerance).
# bench-smoke: allocation counts only, which do not depend on the machine's load.
# bench-update: rewrite the thresholds from a run on this machine.
BENCH = cd Benchmarks && $(SWIFT) package
bench:
	$(BENCH) benchmark thresholds check --no-progress

bench-smoke:
	$(BENCH) benchmark thresholds check --metric mallocCountTotal --no-progress

bench-update:
	$(BENCH) --allow-writing-to-package-directory benchmark thresholds update --no-progress

# The instructions gestured executes per frame above a libinput-only drain,
# counted by callgrind under the daemon-cost harness, against the figure in
# docs/cost.md ("Beside lisgd"): a regression guard that fails above 1.25 times it
# (needs valgrind; a measurement run by hand, not in CI).
INSTRUCTION_FIGURE = 2563
perf-guard:
	Performance/scripts/daemon-cost.sh --runs 1 --programs drain,gestured --filters '"phases":["recognized","ended"]' \
	    --callgrind --guard $(INSTRUCTION_FIGURE)

# The umockdev harness the end-to-end tests drive (needs libumockdev-dev).
harness:
	scripts/build-harness.sh

# Style (swift-format) and no compiler warnings: the package and its tests
# built with warnings as errors, in a build folder of its own so that the
# everyday build keeps its flags (`make release` is built the same way).
# An expression that takes the type checker over 1.5 s is an error too: on
# a busy machine such an expression can pass the compiler's own limit and
# fail the build ("unable to type-check this expression in reasonable time").
# That build is the one the tests run from (TEST_BUILD): `make check`,
# `make test` and `make test-kernel` build the tests once, this way.
TEST_BUILD ?= .build/lint
LINT_FLAGS = -Xswiftc -warnings-as-errors -Xswiftc -Xfrontend -Xswiftc -warn-long-expression-type-checking=1500
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks Fuzz/Package.swift Fuzz/Sources Performance/Package.swift Performance/DaemonCost
	$(SWIFT) build --build-tests --build-path $(TEST_BUILD) $(LINT_FLAGS)
	$(SWIFT) build --package-path Performance

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks Fuzz/Package.swift Fuzz/Sources

# The daemon, its systemd units, sysusers/tmpfiles snippets and an example
# configuration. With DESTDIR (packaging) nothing else happens; without it the
# user and group are created and systemd reloads, if systemd runs. It builds
# nothing and needs no Swift: run `make` as yourself first, then
# `sudo make install`.
install:
	@[ -x "$(GESTURED_BIN)" ] && [ -d "$(MANPAGES)" ] || { \
	    echo "install: nothing to install yet ($(GESTURED_BIN) or $(MANPAGES) is missing):" >&2; \
	    echo "install: run 'make' as yourself first (about 2 minutes the first time), then 'sudo make install'" >&2; exit 1; }
	$(MAKE) install-files

# Man pages, one per subcommand, from the command line's own help
# (swift-argument-parser's generate-manual plugin) with the FILES and EXAMPLES
# of docs/man, and gestured.toml(5) and gestured.actions(5), into .build/man
# (scripts/man-pages.sh).
man:
	$(SWIFT) package --disable-sandbox plugin generate-manual --multi-page --configuration debug \
	    --authors "the gestured developers" --section 1
	scripts/man-pages.sh .build/plugins/GenerateManual/outputs/gestured $(MANPAGES) $(DOCDIR) $(DATADIR)

# What install copies, without building: GESTURED_BIN picks the binary (the
# release build by default).
GESTURED_BIN ?= .build/release/gestured
MANPAGES ?= .build/man
# The GNOME Shell extension's format: legacy (GNOME Shell 43, 44) or
# module (45 and later); by default that of this machine's Shell
# (scripts/gnome-extension.sh --format).
GNOME_SHELL_EXTENSION ?= $(shell scripts/gnome-extension.sh --format)
install-files:
	install -Dm755 "$(GESTURED_BIN)" "$(DESTDIR)$(BINDIR)/gestured"
	install -d "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(USERUNITDIR)"
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' systemd/gestured.service > "$(DESTDIR)$(UNITDIR)/gestured.service"
	sed -e 's|@DOCDIR@|$(DOCDIR)|g' systemd/gestured.socket > "$(DESTDIR)$(UNITDIR)/gestured.socket"
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' systemd/gestured-user.service > "$(DESTDIR)$(USERUNITDIR)/gestured.service"
	sed -e 's|@BINDIR@|$(BINDIR)|g' systemd/gestured-act.service > "$(DESTDIR)$(USERUNITDIR)/gestured-act.service"
	chmod 644 "$(DESTDIR)$(UNITDIR)/gestured.service" "$(DESTDIR)$(UNITDIR)/gestured.socket" "$(DESTDIR)$(USERUNITDIR)/gestured.service" \
	    "$(DESTDIR)$(USERUNITDIR)/gestured-act.service"
	install -Dm644 systemd/gestured.sysusers.conf "$(DESTDIR)$(SYSUSERSDIR)/gestured.conf"
	install -Dm644 systemd/gestured.tmpfiles.conf "$(DESTDIR)$(TMPFILESDIR)/gestured.conf"
	install -Dm644 systemd/70-gestured.rules "$(DESTDIR)$(UDEVRULESDIR)/70-gestured.rules"
	install -Dm644 systemd/74-gestured.rules "$(DESTDIR)$(UDEVRULESDIR)/74-gestured.rules"
	install -Dm644 systemd/75-gestured-uinput.rules "$(DESTDIR)$(UDEVRULESDIR)/75-gestured-uinput.rules"
	install -Dm644 systemd/76-gestured-touchpad.rules "$(DESTDIR)$(UDEVRULESDIR)/76-gestured-touchpad.rules"
	install -Dm644 systemd/50-gestured-touchpad.quirks "$(DESTDIR)$(LIBINPUTQUIRKSDIR)/50-gestured-touchpad.quirks"
	sed -e 's|@BINDIR@|$(BINDIR)|g' systemd/81-gestured-clone.rules > "$(DESTDIR)$(UDEVRULESDIR)/81-gestured-clone.rules"
	chmod 644 "$(DESTDIR)$(UDEVRULESDIR)/81-gestured-clone.rules"
	install -Dm644 systemd/gestured-sensor.polkit.rules "$(DESTDIR)$(POLKITRULESDIR)/50-gestured-sensor.rules"
	install -Dm644 examples/gestured.toml "$(DESTDIR)$(DOCDIR)/gestured.toml.example"
	install -Dm644 docs/protocol.md "$(DESTDIR)$(DOCDIR)/protocol.md"
	install -m644 README.md docs/gestures.md docs/state-machines.md "$(DESTDIR)$(DOCDIR)/"
	install -Dm755 examples/python/gestured_client.py "$(DESTDIR)$(DOCDIR)/examples/gestured_client.py"
	install -Dm755 examples/shell/gestured-watch.sh "$(DESTDIR)$(DOCDIR)/examples/gestured-watch.sh"
	install -Dm755 examples/follow/follow-panel.py "$(DESTDIR)$(DOCDIR)/examples/follow-panel.py"
	install -Dm644 examples/follow/follow.toml "$(DESTDIR)$(DOCDIR)/examples/follow.toml"
	install -d "$(DESTDIR)$(DOCDIR)/examples/actions"
	install -m644 examples/actions/*.toml "$(DESTDIR)$(DOCDIR)/examples/actions/"
	scripts/gnome-extension.sh $(GNOME_SHELL_EXTENSION) "$(DESTDIR)$(DATADIR)/gnome-shell/extensions"
	install -d "$(DESTDIR)$(DATADIR)/gestured/recordings"
	install -m644 Recordings/*.evemu Recordings/*.expect "$(DESTDIR)$(DATADIR)/gestured/recordings/"
	if [ -d "$(MANPAGES)" ]; then install -d "$(DESTDIR)$(MANDIR)/man1" && install -m644 "$(MANPAGES)"/*.1 "$(DESTDIR)$(MANDIR)/man1/"; fi
	for page in gestured.toml.5 gestured.actions.5; do \
	    if [ -f "$(MANPAGES)/$$page" ]; then install -Dm644 "$(MANPAGES)/$$page" "$(DESTDIR)$(MANDIR)/man5/$$page"; fi; done
	install -d "$(DESTDIR)$(DATADIR)/bash-completion/completions" "$(DESTDIR)$(DATADIR)/zsh/site-functions" \
	    "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d"
	"$(GESTURED_BIN)" --generate-completion-script bash | sed '1{/^#!/d}' > "$(DESTDIR)$(DATADIR)/bash-completion/completions/gestured"
	"$(GESTURED_BIN)" --generate-completion-script zsh > "$(DESTDIR)$(DATADIR)/zsh/site-functions/_gestured"
	"$(GESTURED_BIN)" --generate-completion-script fish > "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/gestured.fish"
	if [ -z "$(DESTDIR)" ] && [ "$(SYSUSERSDIR)" = "$(PREFIX)/lib/sysusers.d" ] && [ -d /run/systemd/system ]; then \
	    systemd-sysusers "$(SYSUSERSDIR)/gestured.conf" && \
	    systemd-tmpfiles --create "$(TMPFILESDIR)/gestured.conf" && \
	    systemctl daemon-reload; fi
	if [ -z "$(DESTDIR)" ] && [ "$(UDEVRULESDIR)" = "$(PREFIX)/lib/udev/rules.d" ] && [ -d /run/udev ]; then \
	    udevadm control --reload && udevadm trigger --subsystem-match=input --action=change; fi

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/gestured" "$(DESTDIR)$(UNITDIR)/gestured.service" "$(DESTDIR)$(UNITDIR)/gestured.socket" \
	    "$(DESTDIR)$(USERUNITDIR)/gestured.service" "$(DESTDIR)$(USERUNITDIR)/gestured-act.service" \
	    "$(DESTDIR)$(SYSUSERSDIR)/gestured.conf" \
	    "$(DESTDIR)$(TMPFILESDIR)/gestured.conf" "$(DESTDIR)$(UDEVRULESDIR)/70-gestured.rules" "$(DESTDIR)$(UDEVRULESDIR)/74-gestured.rules" \
	    "$(DESTDIR)$(UDEVRULESDIR)/75-gestured-uinput.rules" "$(DESTDIR)$(UDEVRULESDIR)/76-gestured-touchpad.rules" \
	    "$(DESTDIR)$(UDEVRULESDIR)/81-gestured-clone.rules" "$(DESTDIR)$(POLKITRULESDIR)/50-gestured-sensor.rules" \
	    "$(DESTDIR)$(LIBINPUTQUIRKSDIR)/50-gestured-touchpad.quirks"
	rm -rf "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(DATADIR)/gestured"
	rm -f "$(DESTDIR)$(MANDIR)"/man1/gestured.*1 "$(DESTDIR)$(MANDIR)/man5/gestured.toml.5" "$(DESTDIR)$(MANDIR)/man5/gestured.actions.5" "$(DESTDIR)$(DATADIR)/bash-completion/completions/gestured" \
	    "$(DESTDIR)$(DATADIR)/zsh/site-functions/_gestured" "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/gestured.fish"

# systemd-analyze verify and the offline security score of the installed units.
check-units:
	scripts/check-units.sh

# gestured under a throwaway systemd in its own namespaces: systemd-run, the
# shipped socket and service units, reload, stop (scripts/systemd-smoke.sh).
systemd-smoke: release
	scripts/systemd-smoke.sh

# wayland-scanner's C for the Wayland protocols act speaks beyond the
# core one, from their XML in Sources/CWayland/protocols into
# Sources/CWayland/generated (WaylandProtocolTests checks it is current).
wayland-protocols:
	scripts/wayland-protocols.sh

# Regenerates Recordings/ from the synthesizer (tests check the two agree).
recordings:
	rm -f Recordings/*.evemu Recordings/*.expect
	$(SWIFT) run synth-recordings Recordings

# Frames per second through parse, pipeline and JSON (see docs/performance.md).
throughput:
	Performance/scripts/replay-throughput.sh

# The daemon serving bundled recordings as virtual touchscreens to `gestured monitor`.
demo: release
	scripts/demo.sh

clean:
	rm -rf .build
