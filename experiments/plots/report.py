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
}


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
        row.append("-" if status != "ok" else ("yes" if p.get("verified") else "**no**"))
        lines.append("| " + " | ".join(esc(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


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

    out += ["## Results", "",
            "Medians over the samples; spread is (max - min) / median; rates derive from the median. "
            "`verified`: the output digest matched an independent implementation.", ""]
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
