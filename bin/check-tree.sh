#!/usr/bin/env bash
# Fails when a committed file is one .gitignore keeps out (a JVM's crash log, a jqwik database, a build folder):
# what a run leaves behind is never committed again. Run by ./run-tests before the build; outside a Git work tree
# (an unpacked archive) there is nothing to check.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check-tree: not a Git work tree, nothing to check"
  exit 0
fi
committed=$(git ls-files --cached --ignored --exclude-standard)
if [ -n "$committed" ]; then
  echo "check-tree: these committed files are ones .gitignore keeps out (a run's leftovers): git rm --cached them" >&2
  echo "$committed" | sed 's/^/  /' >&2
  exit 1
fi
