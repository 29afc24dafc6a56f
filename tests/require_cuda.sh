#!/usr/bin/env bash
# POREPLAB_REQUIRE_CUDA=1 makes the [cuda] device tests fail where no CUDA device is
# usable, instead of skipping them; with a device they must pass.
# Usage: require_cuda.sh POREPLAB POREPLAB_TESTS
set -uo pipefail
poreplab=$1 tests=$2
if "$poreplab" info --require-cuda >/dev/null 2>&1; then
  POREPLAB_REQUIRE_CUDA=1 "$tests" "[cuda]~[emu]" || { echo "FAILED: device tests fail with a device" >&2; exit 1; }
  echo "1 passed, 0 failed"
  exit 0
fi
if POREPLAB_REQUIRE_CUDA=1 "$tests" "[cuda]~[emu]" >/dev/null 2>&1; then
  echo "FAILED: [cuda] tests passed without a usable device although POREPLAB_REQUIRE_CUDA=1" >&2
  exit 1
fi
"$tests" "[cuda]~[emu]" >/dev/null 2>&1 || { echo "FAILED: [cuda] tests fail without the requirement" >&2; exit 1; }
# The runner: a cuda point is skipped (exit 0) without --require, fails (exit 1) with it.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/c.json" <<'JSON'
{"schema": "poreplab-experiments/1", "experiments": [
  {"name": "g", "kind": "label", "axes": {"backend": ["cuda"], "sector_size": ["2KiB"]}, "samples": 1}]}
JSON
"$poreplab" run "$tmp/c.json" -o "$tmp/skip" --no-plots >/dev/null 2>&1 ||
  { echo "FAILED: an unavailable cuda point was not a skip" >&2; exit 1; }
grep -q '"status":"skipped"' "$tmp/skip/records.jsonl" || { echo "FAILED: no skipped record" >&2; exit 1; }
if "$poreplab" run "$tmp/c.json" -o "$tmp/req" --no-plots --require cuda >/dev/null 2>&1; then
  echo "FAILED: run --require cuda succeeded without a device" >&2
  exit 1
fi
grep -q '"reason":"required backend cuda cannot run' "$tmp/req/records.jsonl" ||
  { echo "FAILED: the failed record does not say the backend was required" >&2; exit 1; }
echo "1 passed, 0 failed"
