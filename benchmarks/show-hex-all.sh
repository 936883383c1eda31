#!/usr/bin/env bash
# show-hex-all.sh KEX: `kex show --format hex` of every kernel that `kex run --list` names
# in the shipped configs (configs/*.json), one "NAME<TAB>sha256 of the hex" line each,
# sorted. Issue 36 asks that a refactoring leave this byte-identical: run it before and
# after and diff the two outputs.
set -eu
kex=${1:-build/kex}
for c in configs/*.json; do
  "$kex" run --list "$c" 2>/dev/null || true
done |
  # A point name is the kernel's name, then its size (digits, or digits with KiB/MiB/GiB), then
  # the point's tokens: keep what comes before the size.
  grep -v "^#" | sed -E 's#/[0-9]+(KiB|MiB|GiB)?(/.*)?$##' | sort -u |
  while IFS= read -r name; do
    if hex=$("$kex" show --format hex -- "$name" 2>&1); then
      printf '%s\t%s\n' "$name" "$(printf '%s' "$hex" | sha256sum | cut -c1-16)"
    else
      printf '%s\tERROR %s\n' "$name" "$(printf '%s' "$hex" | head -c 200)"
    fi
  done
