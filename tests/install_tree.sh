#!/usr/bin/env bash
# The installed tree: `cmake --install` of the build into a temporary prefix; the installed
# poreplab, run from a directory outside the checkout, must find its configs, data and plot
# script in PREFIX/share/poreplab (not in the checkout it was built from), run a shipped
# config by name, and refuse a POREPLAB_SHARE_DIR without the data in one line.
# Usage: tests/install_tree.sh BUILD_DIR CMAKE
set -euo pipefail
[ $# -eq 2 ] || {
  echo "usage: tests/install_tree.sh BUILD_DIR CMAKE" >&2
  exit 1
}
build=$1 cmake=$2
# Physical path: poreplab names its share directory after /proc/self/exe.
tmp=$(cd "$(mktemp -d)" && pwd -P)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "install_tree: FAILED: $*" >&2
  exit 1
}

"$cmake" --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in bin/poreplab share/poreplab/configs/scaling.json share/poreplab/configs/gpu-study/hash.json \
  share/poreplab/data/custom-hardware.json share/poreplab/data/report-2019.json \
  share/poreplab/machines/dgx-h100-8gpu.json share/poreplab/plots/plot.py \
  share/poreplab/reference/nvidia-h100-80gb-hbm3-2026-11-27/raw/key/records.jsonl \
  share/doc/poreplab/README.md share/doc/poreplab/experiments.md share/doc/poreplab/spec/sdr.md; do
  [ -e "$tmp/prefix/$f" ] || fail "cmake --install did not install $f"
done
[ ! -e "$tmp/prefix/share/doc/poreplab/results" ] || fail "docs/results was installed"
poreplab=$tmp/prefix/bin/poreplab share=$tmp/prefix/share/poreplab

mkdir "$tmp/work"
cd "$tmp/work"
unset POREPLAB_SHARE_DIR POREPLAB_PYTHON
"$poreplab" --version >/dev/null || fail "poreplab --version"
"$poreplab" info >info.txt || fail "poreplab info"
grep -qxF "share:     $share" info.txt || fail "the installed poreplab does not use $share: $(grep '^share:' info.txt)"

# A shipped config by name: configs/default.json of the install, the embedded default's points.
"$poreplab" run --list default >named.txt || fail "run --list default"
"$poreplab" run --list >embedded.txt
[ -s named.txt ] && cmp -s named.txt embedded.txt || fail "run --list default differs from the embedded default"

# A one-point run (a second): its amax report from the installed data, and the installed
# plot.py run with POREPLAB_PYTHON, a stand-in that records its arguments.
cat >c.json <<'JSON'
{"schema": "poreplab-experiments/1", "reports": ["amax"], "experiments": [{"name": "h", "kind": "hash",
  "axes": {"backend": ["cpu"], "algo": ["sha256"], "engine": ["portable"], "mode": ["chain"], "size": ["1KiB"]},
  "samples": 1}]}
JSON
printf '#!/bin/sh\necho "$@" >%s/plot-args\n' "$tmp/work" >python
chmod +x python
POREPLAB_PYTHON=$tmp/work/python "$poreplab" run c.json -o out >run.log 2>&1 || fail "run c.json: $(cat run.log)"
[ "$(cat plot-args)" = "$share/plots/plot.py out" ] || fail "plots: ran '$(cat plot-args)'"
grep -qF "Custom hardware: $share/data/custom-hardware.json" out/amax.md || fail "run: amax.md not from $share"
# A one-point label run: its verdict shows the GPUs measured elsewhere from the install's
# reference datasets, and none with --reference none.
cat >l.json <<'JSON'
{"schema": "poreplab-experiments/1", "experiments": [{"name": "l", "kind": "label",
  "axes": {"backend": ["cpu"], "sector_size": ["2KiB"]}, "samples": 1}]}
JSON
"$poreplab" run l.json -o lab --no-plots >lab.log 2>&1 || fail "run l.json: $(cat lab.log)"
grep -qF "GPU, measured elsewhere: NVIDIA H100 80GB HBM3 (2026-11-27, $share/reference/nvidia-h100-80gb-hbm3-2026-11-27)" \
  lab/verdict.md || fail "verdict: no reference GPU from $share/reference"
"$poreplab" report verdict --reference none lab >none.md || fail "report verdict --reference none"
! grep -qF "measured elsewhere" none.md || fail "report verdict --reference none still shows a reference GPU"
# report amax reads data/custom-hardware.json, --report-2019 data/report-2019.json.
"$poreplab" report amax out >amax.md || fail "report amax"
grep -qF "Custom hardware: $share/data/custom-hardware.json" amax.md || fail "report amax: not from $share"
"$poreplab" report amax --report-2019 out >report-2019.md || fail "report amax --report-2019"

# A POREPLAB_SHARE_DIR without the data: exit 1 and one line naming it.
rc=0
POREPLAB_SHARE_DIR=$tmp/nowhere "$poreplab" report amax out >/dev/null 2>err.txt || rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -qF "POREPLAB_SHARE_DIR=$tmp/nowhere" err.txt ||
  fail "a bogus POREPLAB_SHARE_DIR: exit $rc, $(cat err.txt)"
echo "install_tree: passed"
