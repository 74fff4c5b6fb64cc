#!/usr/bin/env bash
# Installs the PyPI tools of scripts/python-requirements.txt into a virtual
# environment under the build folder, as the user who builds (`make setup-tests`
# runs it after the Debian packages). Nothing reaches the system's Python,
# and `make clean` removes it.
# Usage: scripts/setup-tools.sh [PYTHON [DIR]]   (python3, .build/tools)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
dir=${2:-.build/tools}
if [ "$(id -u)" -ne 0 ] && [ -e "$dir" ] && [ ! -O "$dir" ]; then
    echo "setup: $dir belongs to $(stat -c %U "$dir"), not to you: remove it (sudo rm -rf $dir) and run make setup-tests as yourself" >&2
    exit 1
fi
if [ ! -x "$dir/bin/pip" ]; then
    "$python" -m venv "$dir" || {
        echo "setup: '$python -m venv' failed: install python3-venv (make setup-tests installs it)" >&2
        exit 1
    }
fi
"$dir/bin/pip" install --quiet --disable-pip-version-check -r scripts/python-requirements.txt
echo "setup: $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/python-requirements.txt | tr -s ' \n' ' ')in $dir"
