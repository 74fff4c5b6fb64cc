# gestured: common tasks. `make test` is what CI runs.
SWIFT ?= swift
# Installing Debian packages needs root: use sudo unless we are root already.
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all setup build release test lint format harness recordings throughput demo clean

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
