#!/usr/bin/env bash
# The GPU study's whole pipeline with cuda-emu at tiny sizes: every phase runs, pack
# leaves at most 8 files, and the verdict covers the five registered sizes with a source
# in every row. Usage: gpu_study_emulated.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
work=$build/gpu-study-emulated/work
out=$build/gpu-study-emulated/out
rm -rf "$build/gpu-study-emulated"
fail() { echo "FAILED: $*" >&2; exit 1; }
cd /  # the study must not depend on the working directory
"$src/scripts/gpu-study" --emulate --build "$build" --work "$work" --out "$out" \
  check hash latency throughput model pack
n=$(find "$out" -type f | wc -l)
((n >= 5 && n <= 8)) || fail "pack wrote $n files (want 5..8)"
for f in results.tar.gz report.md verdict.md verdict.json model.txt; do [ -s "$out/$f" ] || fail "no $f"; done
for size in 2KiB 8MiB 512MiB 32GiB 64GiB; do
  grep -q "^| $size |" "$out/verdict.md" || fail "verdict.md has no $size row"
done
grep -q "cuda-emu" "$out/verdict.md" || fail "the verdict does not name cuda-emu"
if grep -E '^\| [0-9]+[KMG]iB \|' "$out/verdict.md" | grep -vqE '\((measured|extrapolated|MODELED|none)\)'; then
  fail "a verdict row lacks a source"
fi
listing=$(tar -tzf "$out/results.tar.gz")
grep -q 'latency/records.jsonl' <<<"$listing" || fail "results.tar.gz lacks the latency records"
# A second run resumes: every point is already recorded.
again=$("$src/scripts/gpu-study" --emulate --build "$build" --work "$work" --out "$out" latency 2>&1)
grep -q "already recorded" <<<"$again" || fail "a second latency phase did not resume"
echo "1 passed, 0 failed"
