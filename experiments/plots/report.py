#!/usr/bin/env python3
"""Markdown report for a poreplab result directory.

Usage: report.py DIR

Writes DIR/report.md: the run's environment, the figures plot.py drew (DIR/plots/
index.json) and one table per experiment, from DIR/results.json (or records.jsonl).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import NOISY_SPREAD, load_results, size_text  # noqa: E402

UNITS = {
    "ns_per_node_layer": "ns/node/layer", "labels_per_s": "labels/s", "gb_per_s": "GB/s",
    "cycles_per_byte": "cycles/B", "efficiency": "floor/actual", "bytes_per_node": "B/node",
    "ns_per_node": "ns/node", "ns_per_byte": "ns/B", "floor_ns_per_node_layer": "ns/node/layer",
    "critical_path_cycles_per_byte": "cycles/B", "ns_per_block": "ns/block", "lane_ns_per_block": "ns/block",
    "cycles_per_byte_core": "cycles/B", "seconds": "s",
    "measured_cycles_per_byte": "core cycles/B, 1 chain", "limit_cycles_per_byte": "core cycles/B, 1 chain",
    "ratio": "measured/limit", "single_stream_gb_per_s": "GB/s, 1 chain",
}

HASH_ORDER = {"sha256": 0, "blake2s": 1, "blake2b": 2, "blake2b-256": 2}
PROFILE_SHARES = ["share_hash", "share_fetch", "share_encode", "share_io", "share_other", "overhead"]


def num(v):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        a = abs(v)
        if a and (a >= 1e7 or a < 1e-3):
            return "%.3e" % v
        return ("%.4g" % v) if a < 1e4 else "{:,.0f}".format(v)
    return str(v)


def axis_text(k, v):
    if v is None:
        return "-"
    if k.endswith("size") and isinstance(v, int):
        return size_text(v)
    return str(v)


def esc(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def header_with_unit(name):
    return "%s (%s)" % (name, UNITS[name]) if name in UNITS else name


def environment_lines(results):
    runs = results.get("runs") or []
    if not runs:
        return []
    last = runs[-1]
    env = last.get("environment") or next((r.get("environment") for r in reversed(runs) if r.get("environment")), {})
    out = []
    cpu = env.get("cpu", {})
    if cpu:
        feats = [f for f in cpu.get("features", []) if f in ("sha_ni", "avx2", "avx512f", "avx512vl", "bmi2")]
        out.append("- CPU: %s, %s logical cores, TSC %.2f GHz, features: %s" % (
            cpu.get("model", "?"), cpu.get("logical_cores", "?"), cpu.get("tsc_hz", 0) / 1e9,
            ", ".join(feats) or "none of sha_ni/avx2/avx512"))
    cuda = env.get("cuda", {})
    if cuda.get("available"):
        for d in cuda.get("devices", []):
            out.append("- GPU: %s (sm_%s, %s SMs, %s MiB), driver %s" % (
                d.get("name"), d.get("compute_capability"), d.get("multiprocessors"),
                int(d.get("total_memory_bytes", 0)) >> 20, cuda.get("driver_version")))
    elif cuda:
        out.append("- GPU: none; %s" % cuda.get("reason", "unavailable"))
    b = env.get("build", {})
    if b:
        out.append("- build: poreplab %s, git %s, %s, flags `%s`" % (
            b.get("version"), b.get("git_revision"), b.get("compiler"), (b.get("flags") or "").strip()))
    if env.get("host") or env.get("date"):
        out.append("- host %s, %s" % (env.get("host", "?"), env.get("date", "?")))
    argv = [r.get("argv") for r in runs if r.get("argv")]
    if argv:
        out.append("- command: `%s`" % " ".join(argv[-1]))
    if len(runs) > 1:
        out.append("- %d runs recorded (resumed runs, shards or a merge)" % len(runs))
    return out


def experiment_table(points):
    first = points[0]
    keys = list(first["axes"].keys())
    vary = [k for k in keys if len({json.dumps(p["axes"].get(k)) for p in points}) > 1]
    fixed = ["%s=%s" % (k, axis_text(k, first["axes"][k])) for k in keys
             if k not in vary and first["axes"][k] is not None]
    metric = next((p["metric"] for p in points if p.get("metric")), None)
    rates = []
    for p in points:
        for k in p.get("rates", {}):
            if k not in rates and k != metric:
                rates.append(k)
    head = vary + ["engine used", "status", "median " + header_with_unit(metric) if metric else "median",
                   "spread"] + [header_with_unit(r) for r in rates] + ["verified"]
    lines = []
    if fixed:
        lines.append("Fixed: %s.\n" % ", ".join(fixed))
    lines.append("| " + " | ".join(esc(h) for h in head) + " |")
    lines.append("|" + "|".join(" --- " if i <= len(vary) + 1 else " ---: " for i in range(len(head))) + "|")
    for p in points:
        st = p.get("stats") or {}
        status = p.get("status", "?")
        if status == "ok":
            status_text = "ok" + (" (noisy)" if p.get("noisy") else "")
        else:
            status_text = "%s: %s" % (status, p.get("reason", ""))
        row = [axis_text(k, p["axes"].get(k)) for k in vary]
        row.append((p.get("context") or {}).get("engine", "-"))
        row.append(status_text)
        if st.get("n"):
            row += [num(st["median"]), "%.2f%%" % (100 * st["spread"])]
        else:
            row += ["-", "-"]
        r = p.get("rates") or {}
        row += [num(r.get(k)) for k in rates]
        row.append("-" if status != "ok" else
                   "modeled" if p.get("modeled") else ("yes" if p.get("verified") else "**no**"))
        lines.append("| " + " | ".join(esc(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def limits_section(results):
    """(a) Hash c/B vs limit: each engine's critical-path limit (instruction latencies
    measured here) against its measured single-stream cycles per byte (`limits` kind)."""
    pts = [p for p in results.get("points", []) if p.get("kind") == "limits"]
    if not pts:
        return []
    ok = sorted((p for p in pts if p.get("status") == "ok"),
                key=lambda p: (HASH_ORDER.get(p["axes"].get("algo"), 9),
                               (p.get("rates") or {}).get("measured_cycles_per_byte") or 0))
    out = ["## Hash c/B vs limit", "",
           "Core cycles per byte of one dependent chain (the labeling pattern). *limit*: the engine's critical "
           "path from instruction latencies measured on this CPU (docs/hash-limits.md); *measured*: the engine "
           "hashing one chain per lane (bench_hash, mode chain), converted with the same add-chain clock "
           "calibration. A ratio near 1 means latency-bound; well above 1, bound by something else "
           "(issue width, shuffles, message loads).", ""]
    if ok:
        out.append("| algo | engine | lanes | limit c/B | measured c/B | measured / limit | GB/s (1 chain) | "
                   "core clock | latencies used (cycles) |")
        out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        for p in ok:
            r, c = p.get("rates") or {}, p.get("context") or {}
            lat = ", ".join("%s %s" % (k, num(v)) for k, v in sorted((c.get("latencies") or {}).items()))
            hz = c.get("core_hz")
            out.append("| " + " | ".join(esc(x) for x in [
                p["axes"].get("algo"), p["axes"].get("engine"), num(c.get("lanes")),
                num(r.get("limit_cycles_per_byte")), num(r.get("measured_cycles_per_byte")), num(r.get("ratio")),
                num(r.get("single_stream_gb_per_s")), "%.3f GHz" % (hz / 1e9) if hz else "-", lat or "-"]) + " |")
        out.append("")
    others = [p for p in pts if p.get("status") != "ok"]
    if others:
        out.append("Not measured here: " + "; ".join(
            "%s %s (%s: %s)" % (p["axes"].get("algo"), p["axes"].get("engine"), p.get("status"),
                                esc(p.get("reason", ""))) for p in others) + ".")
        out.append("")
    return out


def _match_key(p, keys):
    a = p.get("axes") or {}
    return tuple(json.dumps(a.get(k)) for k in keys)


def replication_section(results):
    """(b) Replication c/B and profile: `label` records with the variant/hash axes and
    `profile` records, side by side; fields that are not recorded show as '-'."""
    pts = results.get("points", [])
    labels = [p for p in pts if p.get("kind") == "label"
              and ("variant" in (p.get("axes") or {}) or "hash" in (p.get("axes") or {}))]
    profiles = [p for p in pts if p.get("kind") == "profile"]
    if not labels and not profiles:
        return []
    keys = [k for k in ("variant", "hash", "backend", "engine", "sector_size", "sectors", "layers")
            if any(k in (p.get("axes") or {}) for p in labels + profiles)]
    # A profile matches a label point on the axes both have.
    prof_by_key = {}
    for p in profiles:
        if p.get("status") == "ok":
            prof_by_key.setdefault(_match_key(p, [k for k in keys if k in p["axes"]]), p)
    shares = [k for k in PROFILE_SHARES if any(k in (p.get("rates") or {}) for p in profiles)]

    def scheme(p, prof):
        st = (p.get("context") or {}).get("scheme_status") or ((prof or {}).get("context") or {}).get("scheme_status")
        return "**what-if**" if st == "what-if" else (st or "-")

    out = ["## Replication c/B and profile", "",
           "SDR labeling (and its variants) per hash: time per node per layer, labels per second, cycles per byte "
           "hashed; where a `profile` record matches (same axes), where the time goes. Rows marked **what-if** "
           "are not Filecoin's scheme (another hash or variant, run for comparison).", ""]
    head = keys + ["scheme", "status", "ns/node/layer", "labels/s", "cycles/B"] + shares
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(" --- " if i < len(keys) + 2 else " ---: " for i in range(len(head))) + "|")
    used = set()
    for p in labels:
        a = p.get("axes") or {}
        prof = None
        for kk, pr in prof_by_key.items():
            pk = [k for k in keys if k in pr["axes"]]
            if _match_key(p, pk) == kk:
                prof = pr
                used.add(id(pr))
                break
        r = p.get("rates") or {}
        pr_r = (prof or {}).get("rates") or {}
        status = p.get("status", "?") if p.get("status") == "ok" else "%s: %s" % (p.get("status"), p.get("reason", ""))
        row = [axis_text(k, a.get(k)) for k in keys] + [scheme(p, prof), status, num(r.get("ns_per_node_layer")),
                                                       num(r.get("labels_per_s")), num(r.get("cycles_per_byte"))]
        row += [num(pr_r.get(k)) for k in shares]
        out.append("| " + " | ".join(esc(x) for x in row) + " |")
    for p in profiles:
        if id(p) in used:
            continue
        a = p.get("axes") or {}
        r = p.get("rates") or {}
        status = p.get("status", "?") if p.get("status") == "ok" else "%s: %s" % (p.get("status"), p.get("reason", ""))
        row = [axis_text(k, a.get(k)) for k in keys] + [scheme(p, None), status + " (profile)",
                                                       num(r.get("ns_per_node_layer")), "-",
                                                       num(r.get("cycles_per_byte"))]
        row += [num(r.get(k)) for k in shares]
        out.append("| " + " | ".join(esc(x) for x in row) + " |")
    out.append("")
    return out


def amax_section(d, name="amax.md"):
    """(c) Amax: DIR/amax.md (written by poreplab for a config with "reports": ["amax"],
    or by `poreplab report amax -o`), its headings one level down; also the verdict
    (DIR/verdict.md, "reports": ["verdict"])."""
    path = os.path.join(d, name)
    if not os.path.exists(path):
        return []
    out = []
    for line in open(path).read().splitlines():
        out.append("#" + line if line.startswith("#") else line)
    return out + [""]


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    d = argv[1]
    results = load_results(d)
    cfg = results.get("config") or (results.get("runs") or [{}])[-1].get("config", {})
    out = ["# poreplab experiment report", ""]
    if cfg.get("description"):
        out += [cfg["description"], ""]
    c = results.get("counts")
    if c:
        out.append("**%d points**: %d ok, %d skipped, %d failed, %d missing; %d noisy (spread > %d%%)." % (
            c["expected"], c["ok"], c["skipped"], c["failed"], c["missing"], c["noisy"], NOISY_SPREAD * 100))
        out.append("")
    if results.get("interrupted"):
        out += ["**Interrupted**: the remaining points were not run (`poreplab run --resume` continues).", ""]
    out += environment_lines(results)
    if results.get("config_digest"):
        out.append("- config digest `%s`%s" % (results["config_digest"][:16],
                                              " (%s)" % results["source"] if results.get("source") else ""))
    out.append("")

    index_path = os.path.join(d, "plots", "index.json")
    figures = json.load(open(index_path)) if os.path.exists(index_path) else []
    if figures:
        out += ["## Figures", ""]
        for f in figures:
            out += ["### %s" % f["title"], "", "![%s](%s)" % (f["title"], f["png"]), "",
                    "%s ([SVG](%s))" % (f["caption"], f["svg"]), ""]

    out += limits_section(results)
    out += replication_section(results)
    out += amax_section(d)
    out += amax_section(d, "verdict.md")

    out += ["## Results", "",
            "Medians over the samples; spread is (max - min) / median; rates derive from the median. "
            "`verified`: the output digest matched an independent implementation; `modeled`: a "
            "figure of `poreplab model gpu` (kind gpu-model), computed, not measured.", ""]
    order, by_exp = [], {}
    for p in results.get("points", []):
        if p["experiment"] not in by_exp:
            order.append(p["experiment"])
            by_exp[p["experiment"]] = []
        by_exp[p["experiment"]].append(p)
    exp_desc = {e["name"]: e.get("description") for e in cfg.get("experiments", [])}
    for e in order:
        pts = by_exp[e]
        out += ["### %s (%s)" % (e, pts[0]["kind"]), ""]
        if exp_desc.get(e):
            out += [exp_desc[e], ""]
        out.append(experiment_table(pts))

    missing = results.get("missing") or []
    if missing:
        out += ["## Missing points", ""]
        out += ["- [%s] %s" % (m.get("index"), m.get("description")) for m in missing]
        out.append("")

    with open(os.path.join(d, "report.md.tmp"), "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(os.path.join(d, "report.md.tmp"), os.path.join(d, "report.md"))
    print("report: %s" % os.path.join(d, "report.md"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
