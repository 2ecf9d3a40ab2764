#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder's image (Ubuntu):
# it installs what grading needs.  Written by `judge gradescope`; the zip it came in is
# extracted into /autograder/source.  AUTOGRADER_ROOT moves /autograder (for tests).
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
export DEBIAN_FRONTEND=noninteractive

# bubblewrap: each learner's code runs in namespaces of its own (README, Isolation)
apt-get update -qq
apt-get install -y -qq bubblewrap python3 python3-venv python3-pip ca-certificates

# jax-judge needs Python 3.11 or newer: the image's own, or Ubuntu's python3.11
new_enough() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }
pick_python() {
  for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null && new_enough "$candidate"; then
      command -v "$candidate"; return 0
    fi
  done
  return 1
}
PYTHON="$(pick_python || true)"
if [ -z "$PYTHON" ]; then
  apt-get install -y -qq python3.11 python3.11-venv || true
  PYTHON="$(pick_python || true)"
fi
if [ -z "$PYTHON" ]; then
  echo "setup.sh: jax-judge needs Python 3.11 or newer and none could be installed here;" \
       "choose a newer base image (Ubuntu 24.04) in the assignment's autograder settings" >&2
  exit 1
fi

# the judge from the copy of its source in this zip, with the versions it was built with
"$PYTHON" -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install -q --upgrade pip
"$ROOT/venv/bin/python" -m pip install -q -r "$SOURCE/requirements.txt"
"$ROOT/venv/bin/python" -m pip install -q "$SOURCE/judge-src"

# the bank parses, and the build log says how learners' code will be isolated
"$ROOT/venv/bin/judge" --bank "$SOURCE/bank" list
"$ROOT/venv/bin/python" -I - <<'PY'
from judge.sandbox import resolve_isolation
mode = resolve_isolation("auto")
print(f"setup.sh: learners' code will run with {mode} isolation")
if mode != "bubblewrap":
    print("setup.sh: bubblewrap does not work in this image, so grading falls back to "
          "process isolation, which is weaker as root (README, Isolation)")
PY
