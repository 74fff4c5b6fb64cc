#!/usr/bin/env bash
# Installs into a scratch DESTDIR (man pages from `make man`) and checks that
# everything a user reads or runs is there: the binary, units, man pages for
# every subcommand, shell completions, the example clients, the bundled
# recordings `gestured tune` checks its suggestions against; and that the
# installed binary replays them as the build the tests ran does.
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests' build (the Makefile's TEST_BUILD).
tested=$(swift build --build-path "${TEST_BUILD:-.build/lint}" --show-bin-path)/gestured
bin=${GESTURED_BIN:-$tested}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make -s man >/dev/null
make -s install-files GESTURED_BIN="$bin" DESTDIR="$dest" >/dev/null
p=$dest/usr/local
missing=0
for f in bin/gestured lib/systemd/system/gestured.service lib/systemd/system/gestured.socket \
    lib/systemd/user/gestured-act.service share/doc/gestured/examples/actions/sway.toml \
    lib/udev/rules.d/70-gestured.rules lib/udev/rules.d/74-gestured.rules lib/udev/rules.d/75-gestured-uinput.rules lib/udev/rules.d/76-gestured-touchpad.rules lib/udev/rules.d/81-gestured-clone.rules \
    share/man/man1/gestured.1 share/man/man1/gestured.serve.1 share/man/man1/gestured.record.1 \
    share/man/man1/gestured.replay.1 share/man/man1/gestured.tune.1 share/man/man1/gestured.monitor.1 share/man/man1/gestured.act.1 \
    share/bash-completion/completions/gestured share/zsh/site-functions/_gestured \
    share/fish/vendor_completions.d/gestured.fish share/doc/gestured/examples/gestured_client.py \
    share/doc/gestured/examples/gestured-watch.sh share/doc/gestured/examples/follow-panel.py \
    share/doc/gestured/examples/follow.toml share/gestured/recordings/tour.tablet.expect \
    share/man/man5/gestured.toml.5 share/man/man5/gestured.actions.5 share/doc/gestured/gestures.md share/doc/gestured/README.md \
    share/doc/gestured/protocol.md share/gnome-shell/extensions/gestured-context@gestured/metadata.json \
    share/gnome-shell/extensions/gestured-context@gestured/extension.js; do
    [ -s "$p/$f" ] || { echo "check-install: missing $f" >&2; missing=1; }
done
[ -s "$dest/etc/polkit-1/rules.d/50-gestured-sensor.rules" ] || { echo "check-install: missing the polkit rule (etc/polkit-1/rules.d)" >&2; missing=1; }
# The touchpad's quirk, beside libinput's own: libinput refuses every quirk
# when one file does not parse.
quirks=$dest/usr/share/libinput
if [ -s "$quirks/50-gestured-touchpad.quirks" ]; then
    cp /usr/share/libinput/*.quirks "$quirks/"
    libinput quirks validate --data-dir "$quirks" || { echo "check-install: libinput does not accept 50-gestured-touchpad.quirks" >&2; missing=1; }
else
    echo "check-install: missing the touchpad's libinput quirk (usr/share/libinput)" >&2
    missing=1
fi
grep -q "record" "$p/share/bash-completion/completions/gestured" || { echo "check-install: bash completion lacks record" >&2; missing=1; }
man -l "$p/share/man/man1/gestured.tune.1" 2>/dev/null | grep -q "confusion matrix" || { echo "check-install: gestured.tune.1 does not render" >&2; missing=1; }
# Every page it names exists; each subcommand's page has examples; no page points into the repository.
for page in "$p"/share/man/man1/*.1 "$p"/share/man/man5/*.5; do
    for ref in $(sed -n 's/^\.Xr \([^ ]*\) \([0-9]\).*/\1.\2/p' "$page"); do
        [ -f "$p/share/man/man${ref##*.}/$ref" ] || { echo "check-install: $(basename "$page") names $ref, which is not installed" >&2; missing=1; }
    done
    grep -q '^\.Sh EXAMPLES' "$page" || { echo "check-install: $(basename "$page") has no EXAMPLES" >&2; missing=1; }
    ! grep -q 'docs/[a-z-]*\.md' "$page" || { echo "check-install: $(basename "$page") points to a repository path" >&2; missing=1; }
done
grep -q "double-tap" "$p/share/bash-completion/completions/gestured" || { echo "check-install: bash completion offers no gesture names" >&2; missing=1; }
# The installed binary replays every bundled recording to the same output,
# byte for byte, as the build the tests ran (whose recognizers they hold
# to each .expect): `make test` installs the release build, compiled with
# LTO, the order file and the profile. (Installing that same build, as by
# default, leaves nothing to compare.)
if [ "$(readlink -f "$bin")" != "$(readlink -f "$tested")" ]; then
    if [ ! -x "$tested" ]; then
        echo "check-install: $tested is missing (make lint builds it) to compare the installed gestured with" >&2
        missing=1
    else
        for f in "$p"/share/gestured/recordings/*.evemu; do
            cmp -s <("$p/bin/gestured" replay "$f" 2>&1) <("$tested" replay "$f" 2>&1) || {
                echo "check-install: the installed gestured replays $(basename "$f") otherwise than $tested" >&2
                missing=1
            }
        done
    fi
fi
[ "$missing" -eq 0 ] && echo "check-install: ok ($(find "$dest" -type f | wc -l) files)"
exit "$missing"
