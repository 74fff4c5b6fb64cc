#!/usr/bin/env python3
"""Writes debian/changelog from CHANGELOG.md, its one source.

Each "## VERSION (YYYY-MM-DD)" section of CHANGELOG.md becomes an entry:
its bullets become the entry's items, a paragraph one item. The maintainer
is debian/control's. Exits 1, saying why, on a section heading without a
version and date, or a version that is not the newest first.

Usage: scripts/debian-changelog.py CHANGELOG.md debian/control > debian/changelog
"""
import datetime
import re
import sys
import textwrap

HEADING = re.compile(r"^## (\d+\.\d+\.\d+) \((\d{4}-\d{2}-\d{2})\)$")


def fail(message):
    sys.exit(f"debian-changelog: {message}")


def sections(text):
    """(version, date, [item]) per section, in file order."""
    found, current, paragraph = [], None, []

    def flush():
        if current is not None and paragraph:
            current[2].append(" ".join(paragraph))
        paragraph.clear()

    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            flush()
            m = HEADING.match(line)
            if not m:
                fail(f"CHANGELOG.md:{number}: '{line}' is not '## VERSION (YYYY-MM-DD)'")
            current = (m.group(1), m.group(2), [])
            found.append(current)
        elif current is None:
            continue
        elif line.startswith("- "):
            flush()
            paragraph.append(line[2:].strip())
        elif line.strip():
            paragraph.append(line.strip())
        else:
            flush()
    flush()
    return found


def main():
    if len(sys.argv) != 3:
        fail("usage: debian-changelog.py CHANGELOG.md debian/control")
    text = open(sys.argv[1], encoding="utf-8").read()
    control = open(sys.argv[2], encoding="utf-8").read()
    maintainer = re.search(r"^Maintainer: (.+)$", control, re.M)
    if not maintainer:
        fail(f"{sys.argv[2]} has no Maintainer field")
    entries = sections(text)
    if not entries:
        fail("CHANGELOG.md has no '## VERSION (YYYY-MM-DD)' section")
    versions = [tuple(int(p) for p in v.split(".")) for v, _, _ in entries]
    if versions != sorted(versions, reverse=True) or len(set(versions)) != len(versions):
        fail("CHANGELOG.md's versions are not newest first, each once")
    dates = [date for _, date, _ in entries]
    if dates != sorted(dates, reverse=True):
        fail("CHANGELOG.md's dates are not newest first")
    out = []
    for index, (version, date, items) in enumerate(entries):
        # Debian wants each entry strictly newer than the one below it; releases
        # on one day are spaced an hour apart, the oldest of them at midnight.
        older_same_day = dates[index + 1 :].count(date)
        day = datetime.datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
        day += datetime.timedelta(hours=older_same_day)
        out.append(f"gestured ({version}) unstable; urgency=medium\n")
        for item in items or ["No user-visible change."]:
            out.append(textwrap.fill(item, width=78, initial_indent="  * ", subsequent_indent="    ", break_on_hyphens=False))
        out.append(f"\n -- {maintainer.group(1)}  {day.strftime('%a, %d %b %Y %H:%M:%S +0000')}\n")
    sys.stdout.write("\n".join(out))


main()
