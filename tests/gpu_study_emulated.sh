#!/usr/bin/env bash
# Rehearses a GPU loan with cuda-emu at tiny sizes: packs this build tree into the bundle
# archive (under its size budget), then, from an empty directory with an empty
# environment, unpacks and runs it three times with one work directory:
#   1. `check key pc2` with room to spare: the verdict has measured (emulated) GPU cells at
#      2KiB and 8MiB, PC2 ran verified on cuda-emu and cpu, and the pack holds at most 8 files;
#   2. every step with a budget too short for them: it stops within the budget, skips
#      what the first call finished, and still packs;
#   3. every step again: it resumes with what is left and finishes all of it;
#   4. with device tests that fail: reported (exit 1), and the study goes on once the
#      vectors verify;
#   5. `rest` in a fresh work directory resumed from the first one (--resume-from): no
#      point runs again; a link planted at a step's records is refused, nothing written.
# Usage: gpu_study_emulated.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
root=$build/gpu-study-rehearsal
rm -rf "$root"
mkdir -p "$root/empty"
fail() { echo "FAILED: $*" >&2; exit 1; }

"$src/scripts/gpu-bundle" --from-build "$build" --out "$root/gpu-bundle.tar.xz" >"$root/bundle.txt" 2>&1 ||
  { cat "$root/bundle.txt" >&2; fail "gpu-bundle --from-build"; }
cat "$root/bundle.txt"
grep -q "MiB carried (limit 48 MiB)" "$root/bundle.txt" || fail "gpu-bundle printed no carried size"

study() {  # study BUDGET LOG [STEP...]: one call, as on the device: no environment, no cwd
  local budget=$1 log=$2
  shift 2
  local t0=$SECONDS rc=0
  (cd "$root/empty" && env -i /bin/bash "$src/scripts/gpu-study" --archive "$root/gpu-bundle.tar.xz" --emulate \
    --budget "$budget" --out "$root/out" "$@") >"$root/$log" 2>&1 || rc=$?
  took=$((SECONDS - t0))
  echo "== $log: exit $rc in $took s (budget $budget s)"
  grep -E 'gpu-study: \[' "$root/$log" || true
  ((rc == 0)) || { tail -n 30 "$root/$log" >&2; fail "gpu-study ($log) exited $rc"; }
  ((took <= budget + 10)) || fail "gpu-study ($log) took $took s with a budget of $budget s"
  local n
  n=$(find "$root/out" -type f | wc -l)
  ((n >= 4 && n <= 8)) || fail "pack wrote $n files (want 4..8)"
  for f in results.tar.gz report.md model.txt check.txt; do [ -s "$root/out/$f" ] || fail "no $f after $log"; done
}

# 1. The key cells.
study 600 call1.log check key pc2
[ -d "$root/gpu-bundle/bin" ] || fail "the archive was not unpacked beside itself"
for f in verdict.md verdict.json; do [ -s "$root/out/$f" ] || fail "no $f"; done
python3 - "$root/out/verdict.json" <<'PY' || fail "the verdict lacks measured emulated GPU cells at 2KiB and 8MiB"
import json, sys
v = json.load(open(sys.argv[1]))
for size in (2048, 8 << 20):
    row = next(s for s in v["sizes"] if s["sector_size"] == size)
    gpu = [d for d in row["devices"] if d["kind"] == "gpu-emulated"]
    assert gpu and gpu[0]["pc1_seconds"]["source"] == "measured", (size, gpu)
    assert "cuda-emu" in gpu[0]["device"], gpu[0]["device"]
PY
for size in 2KiB 8MiB 512MiB 32GiB 64GiB; do
  grep -q "^| $size |" "$root/out/verdict.md" || fail "verdict.md has no $size row"
done
if grep -E '^\| [0-9]+[KMG]iB \|' "$root/out/verdict.md" | grep -vqE '\((measured|extrapolated|MODELED|none)\)'; then
  fail "a verdict row lacks a source"
fi
grep -q "EMULATED" "$root/out/report.md" || fail "report.md does not say it is emulated"
listing=$(tar -tzf "$root/out/results.tar.gz")
grep -q "key/records.jsonl" <<<"$listing" || fail "results.tar.gz lacks the key records"
mkdir -p "$root/unpacked"
tar -xzf "$root/out/results.tar.gz" -C "$root/unpacked" ./pc2/results.json || fail "results.tar.gz lacks the pc2 results"
python3 - "$root/unpacked/pc2/results.json" <<'PY' || fail "the pc2 step's points are not all verified on cuda-emu and cpu"
import json, sys
points = json.load(open(sys.argv[1]))["points"]
assert len(points) == 4, len(points)  # the GPU window from memory and from files
for p in points:
    assert p["status"] == "ok" and p["verified"], p
assert {p["axes"]["backend"] for p in points} == {"cuda-emu", "cpu"}
files = [p for p in points if p["axes"].get("source") == "files"]
assert len(files) == 1 and files[0]["axes"]["backend"] == "cuda-emu", files
PY

# 2. A budget too short for the rest: stops in time, skips the finished steps, still packs.
study 25 call2.log
grep -q "check: done in an earlier call" "$root/call2.log" || fail "call 2 ran check again"
grep -q "key: done in an earlier call" "$root/call2.log" || fail "call 2 ran key again"
grep -qE "cut off by the budget|not started, the budget is spent" "$root/call2.log" ||
  fail "call 2 was not cut by its budget"

# 3. The rest, resumed.
study 600 call3.log
for step in check key pc2 throughput hash rest; do
  [ -f "$root/gpu-study-work/$step/done" ] || fail "step $step is not done after call 3"
done
grep -q "key: done in an earlier call" "$root/call3.log" || fail "call 3 ran key again"

# 4. A device test that fails while the vectors verify: reported, and the study goes on.
cp -a "$root/gpu-bundle" "$root/failing-tests"
printf '#!/bin/sh\necho "a failing device test"\nexit 1\n' >"$root/failing-tests/poreplab_tests"
rc=0
(cd "$root/empty" && env -i /bin/bash "$root/failing-tests/gpu-study" --emulate --budget 300 \
  --work "$root/work4" --out "$root/out4" check hash) >"$root/call4.log" 2>&1 || rc=$?
((rc == 1)) || { tail -n 30 "$root/call4.log" >&2; fail "a failed device test gave exit $rc, not 1"; }
grep -q "check: device tests FAILED" "$root/work4/timeline.txt" || fail "the timeline does not report the failed device test"
grep -q "hash: done" "$root/work4/timeline.txt" || fail "the study stopped after a failed device test whose vectors verified"
grep -q "a failing device test" "$root/out4/check.txt" || fail "check.txt lacks the device tests' output"
# 5. A later loan from an earlier one's records: nothing is measured twice.
rc=0
(cd "$root/empty" && env -i /bin/bash "$src/scripts/gpu-study" --archive "$root/gpu-bundle.tar.xz" --emulate \
  --budget 300 --work "$root/work5" --resume-from "$root/gpu-study-work" --out "$root/out5" rest) >"$root/call5.log" 2>&1 || rc=$?
((rc == 0)) || { tail -n 30 "$root/call5.log" >&2; fail "gpu-study --resume-from exited $rc"; }
grep -q "rest: starts from the [1-9][0-9]* points recorded in $root/gpu-study-work/rest/records.jsonl" "$root/call5.log" ||
  fail "call 5 did not start rest from the earlier records"
grep -qE "resume: ([0-9]+) of \1 points already recorded; running 0" "$root/call5.log" || fail "call 5 measured points again"
mkdir -p "$root/work6/rest"
ln -s "$root/planted" "$root/work6/rest/records.jsonl"
rc=0
(cd "$root/empty" && env -i /bin/bash "$src/scripts/gpu-study" --archive "$root/gpu-bundle.tar.xz" --emulate \
  --budget 300 --work "$root/work6" --resume-from "$root/gpu-study-work" --out "$root/out6" rest) >"$root/call6.log" 2>&1 || rc=$?
((rc == 1)) || fail "a link planted at rest/records.jsonl gave exit $rc, not 1"
grep -q "is a link; nothing is written through one" "$root/call6.log" || fail "call 6 did not say why"
! [ -e "$root/planted" ] || fail "call 6 wrote through the planted link"
echo "1 passed, 0 failed"
