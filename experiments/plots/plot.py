#!/usr/bin/env python3
"""Figures for a poreplab result directory.

Usage: plot.py DIR

Reads DIR/results.json (or, when it is absent, DIR/records.jsonl) and writes PNG and SVG
figures into DIR/plots/, plus DIR/plots/index.json listing them with captions for
poreplab's report.md. A figure whose data is absent from the results is not drawn.
"""
import json
import math
import os
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

NOISY_SPREAD = 0.05
MARKERS = "osD^vP*Xh<>p"
MODE_COLORS = {"throughput": "#1f77b4", "chain": "#ff7f0e"}


# ---------------------------------------------------------------- loading

def load_results(d):
    """The result set: results.json, or the latest point records of records.jsonl."""
    path = os.path.join(d, "results.json")
    if os.path.exists(path):
        with open(path) as f:
            results = json.load(f)
        # `run --repeat`: one figure point per point, its last repeat.
        last = OrderedDict()
        for p in results.get("points", []):
            last[p["experiment"] + " " + json.dumps(p["axes"], sort_keys=True)] = p
        results["points"] = list(last.values())
        return results
    runs, latest = [], OrderedDict()
    with open(os.path.join(d, "records.jsonl")) as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # an incomplete last line
            if rec.get("type") == "header":
                runs.append(rec)
            elif rec.get("type") == "point":
                latest[rec["experiment"] + " " + json.dumps(rec["axes"], sort_keys=True)] = rec
    return {"runs": runs, "points": list(latest.values())}


def ok_points(results, kind):
    return [p for p in results.get("points", []) if p.get("kind") == kind and p.get("status") == "ok"]


def environment(results):
    for run in reversed(results.get("runs") or []):
        if run.get("environment"):
            return run["environment"]
    return {}


# ---------------------------------------------------------------- formatting

def size_text(b):
    b = int(b)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if b < 1024 or b % 1024:
            return "%d%s" % (b, unit)
        b //= 1024
    return "%dPiB" % b


def si_text(v):
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return "%g%s" % (round(v / div, 3), suffix)
    return "%g" % v


def spans_decades(values, decades=1.5):
    vals = [v for v in values if v and v > 0]
    return len(vals) > 1 and math.log10(max(vals) / min(vals)) >= decades


def cpu_name(results):
    return environment(results).get("cpu", {}).get("model", "CPU")


def axis_value_text(k, v):
    return size_text(v) if k.endswith("size") and isinstance(v, int) else str(v)


def used_engines(points):
    return sorted({p.get("context", {}).get("engine") for p in points if p.get("context", {}).get("engine")})


def series_name(points, vary):
    """Legend text of a series: backend, the engine (for auto, the one it chose when
    that is one), the label kernel of cuda and cuda-emu (likewise), the GPU for cuda,
    and the axes that differ between the series."""
    p = points[0]
    axes = p["axes"]
    backend = axes.get("backend") or p["kind"]
    name = backend
    engine = axes.get("engine")
    if backend == "cpu" and engine:
        used = used_engines(points)
        if engine == "auto":
            name += " auto" + (" (%s)" % used[0] if len(used) == 1 else "")
        else:
            name += " " + engine
    if backend in ("cuda", "cuda-emu"):
        kernel = axes.get("kernel") or "auto"
        used = sorted({q.get("context", {}).get("kernel_used") for q in points if q.get("context", {}).get("kernel_used")})
        if kernel == "auto":
            name += " kernel auto" + (" (%s)" % used[0] if len(used) == 1 else "")
        else:
            name += " kernel " + kernel
    if backend == "cuda":
        dev = p.get("context", {}).get("device")
        if dev:
            name += " on " + dev
    extra = ["%s=%s" % (k, axis_value_text(k, axes[k])) for k in vary
             if k not in ("backend", "engine", "kernel") and axes.get(k) is not None]
    return name + (", " + ", ".join(extra) if extra else "")


def make_series(points, x_axis):
    """Points grouped into series along x_axis: one per experiment and combination of
    the other axes. Names carry the experiment only where they would collide."""
    keys = sorted({k for p in points for k in p["axes"] if k != x_axis})
    vary = [k for k in keys if len({json.dumps(p["axes"].get(k)) for p in points}) > 1]
    groups = OrderedDict()
    for p in points:
        key = json.dumps([p["experiment"]] + [p["axes"].get(k) for k in keys])
        groups.setdefault(key, []).append(p)
    series = [[series_name(g, vary), sorted(g, key=lambda q: q["axes"][x_axis])] for g in groups.values()]
    names = [s[0] for s in series]
    for s in series:
        if names.count(s[0]) > 1:
            s[0] += " [%s]" % s[1][0]["experiment"]
    return series


def style(ax, title, xlabel, ylabel):
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)


def legend_outside(ax, n):
    if n > 6:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    else:
        ax.legend(fontsize=8, loc="best")


def rel_range(p, rate):
    """(lower, upper) relative error of the median from the sample min/max; for a rate
    (inverse of time) the bounds swap."""
    st = p.get("stats") or {}
    if not st.get("median") or not st.get("min"):
        return 0.0, 0.0
    a, b = st["min"] / st["median"], st["max"] / st["median"]
    if rate:
        a, b = 1 / b, 1 / a
    return 1 - a, b - 1


def log2_x(ax, xs, sizes):
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_text(v) if sizes else "%d" % v))
    ax.xaxis.set_minor_formatter(NullFormatter())
    if len(xs) == 1:
        ax.set_xlim(xs[0] / 2, xs[0] * 2)


# ---------------------------------------------------------------- figures

class Figures:
    def __init__(self, d, results):
        self.dir = os.path.join(d, "plots")
        os.makedirs(self.dir, exist_ok=True)
        self.results = results
        self.index = []

    def save(self, fig, name, title, caption):
        for ext in ("png", "svg"):
            fig.savefig(os.path.join(self.dir, "%s.%s" % (name, ext)), dpi=130, bbox_inches="tight")
        plt.close(fig)
        self.index.append({"name": name, "png": "plots/%s.png" % name, "svg": "plots/%s.svg" % name,
                           "title": title, "caption": caption})

    # -- hash engines: cycles per byte; engines along x grouped by algorithm, one bar per
    #    mode, OpenSSL hatched grey as the reference; one panel per message size.
    def hash_cycles(self):
        pts = [p for p in ok_points(self.results, "hash") if "cycles_per_byte" in p.get("rates", {})]
        if not pts:
            return
        sizes = sorted({p["axes"].get("size") for p in pts})
        modes = [m for m in ("throughput", "chain") if any(p["axes"].get("mode") == m for p in pts)]
        algos = list(OrderedDict.fromkeys(p["axes"]["algo"] for p in pts))
        engines = {a: list(OrderedDict.fromkeys(p["axes"]["engine"] for p in pts if p["axes"]["algo"] == a))
                   for a in algos}
        n_bars = sum(len(v) for v in engines.values())
        fig, axs = plt.subplots(len(sizes), 1, figsize=(min(13.0, max(7.0, 0.6 * n_bars + 2)), 4.4 * len(sizes)),
                                squeeze=False)
        width = 0.8 / max(1, len(modes))
        limit_drawn = noisy_seen = False
        for row, size in enumerate(sizes):
            ax = axs[row][0]
            x, ticks, labels, centers = 0.0, [], [], []
            for a in algos:
                start = x
                for e in engines[a]:
                    for mi, m in enumerate(modes):
                        p = next((q for q in pts if q["axes"]["algo"] == a and q["axes"]["engine"] == e
                                  and q["axes"].get("mode") == m and q["axes"].get("size") == size), None)
                        if p is None:
                            continue
                        xb = x + (mi - (len(modes) - 1) / 2) * width
                        y = p["rates"]["cycles_per_byte"]
                        lo, hi = rel_range(p, False)
                        ref = e == "openssl"
                        ax.bar(xb, y, width * 0.95, color=MODE_COLORS.get(m, "C2"), alpha=0.45 if ref else 1.0,
                               hatch="///" if ref else None, edgecolor="black", linewidth=0.5,
                               yerr=[[y * lo], [y * hi]], capsize=2, error_kw={"linewidth": 0.8})
                        mark = "*" if p.get("noisy") else ""
                        noisy_seen = noisy_seen or bool(mark)
                        ax.annotate("%.3g%s" % (y, mark), (xb, y * (1 + hi)), ha="center", va="bottom", fontsize=6,
                                    xytext=(0, 1), textcoords="offset points")
                        limit = p["rates"].get("critical_path_cycles_per_byte")
                        if limit:
                            ax.plot([xb - width / 2, xb + width / 2], [limit, limit], color="crimson", linewidth=2)
                            limit_drawn = True
                    ticks.append(x)
                    labels.append(e + (" (ref.)" if e == "openssl" else ""))
                    x += 1
                centers.append(((start + x - 1) / 2, a))
                x += 0.7
            ax.set_xticks(ticks)
            ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
            for cx, a in centers:
                ax.annotate(a, (cx, 1.0), xycoords=("data", "axes fraction"), ha="center", va="bottom",
                            fontsize=9, fontweight="bold", xytext=(0, 3), textcoords="offset points")
            ys = [p["rates"]["cycles_per_byte"] for p in pts]
            if spans_decades(ys):
                ax.set_yscale("log")
            style(ax, "", "", "cycles per byte (TSC)\n%s messages per lane" % size_text(size))
            ax.grid(False, axis="x")
        from matplotlib.patches import Patch
        handles = [Patch(facecolor=MODE_COLORS[m], edgecolor="black",
                         label={"throughput": "throughput (independent messages)",
                                "chain": "chain (dependent, the SDR pattern)"}[m]) for m in modes]
        handles.append(Patch(facecolor="white", edgecolor="black", hatch="///", label="OpenSSL EVP (reference)"))
        if limit_drawn:
            from matplotlib.lines import Line2D
            handles.append(Line2D([], [], color="crimson", linewidth=2, label="critical-path limit"))
        axs[0][0].legend(handles=handles, fontsize=8, loc="upper left")
        fig.suptitle("Hash engines on %s: cycles per byte (lower is better)" % cpu_name(self.results), fontsize=11)
        fig.tight_layout()
        caption = ("Median TSC cycles per hashed byte of each engine, per algorithm, for independent messages "
                   "(throughput) and dependent chains (the SDR pattern); error bars span the sample min and max.")
        if noisy_seen:
            caption += " * marks a noisy point (spread over 5%)."
        if limit_drawn:
            caption += " Red marks: the critical-path limit of the engine."
        skipped = [p for p in self.results.get("points", []) if p.get("kind") == "hash" and p.get("status") == "skipped"]
        if skipped:
            names = OrderedDict.fromkeys("%s %s" % (p["axes"].get("algo"), p["axes"].get("engine")) for p in skipped)
            caption += " Not runnable here: " + ", ".join(names) + "."
        self.save(fig, "hash_cycles_per_byte", "Hash engines: cycles per byte", caption)

    # -- label metrics along an axis (sector size or sector count), one line per series.
    def label_lines(self, pts, x_axis, metric, rate, name, title, ylabel, caption, logy=None, ref=None):
        if not pts:
            return False
        series = make_series(pts, x_axis)
        fig, ax = plt.subplots(figsize=(8.0, 4.8))
        ys, tops = [], []
        for i, (label, sp) in enumerate(series):
            xs = [p["axes"][x_axis] for p in sp]
            y = [metric(p) for p in sp]
            ys += y
            err = [[], []]
            for p, v in zip(sp, y):
                lo, hi = rel_range(p, rate) if rate is not None else (0, 0)
                err[0].append(v * lo)
                err[1].append(v * hi)
                tops.append(v * (1 + hi))
            ax.errorbar(xs, y, yerr=err, marker=MARKERS[i % len(MARKERS)], markersize=5, capsize=3,
                        linewidth=1.4, label=label)
            # With engine auto, name the engine it chose where that changes along the line.
            if sp[0]["axes"].get("engine") == "auto" and len(used_engines(sp)) > 1:
                for p, xv, yv in zip(sp, xs, y):
                    ax.annotate(p["context"].get("engine", ""), (xv, yv), fontsize=6.5, xytext=(4, 4),
                                textcoords="offset points", color="0.3")
        log2_x(ax, sorted({p["axes"][x_axis] for p in pts}), x_axis.endswith("size"))
        if logy if logy is not None else spans_decades(ys):
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0, top=max(tops + ([ref[0]] if ref else [])) * 1.1 if tops else None)
            if ys and max(ys) >= 1e4:
                ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: si_text(v)))
        if ref:
            ax.axhline(ref[0], color="0.35", linestyle="--", linewidth=1, label=ref[1])
        style(ax, title, ("sector size (log scale)" if x_axis == "sector_size" else
                          "sectors labeled together (log scale)"), ylabel)
        legend_outside(ax, len(series))
        self.save(fig, name, title, caption)
        return True

    # -- one horizontal bar per label point, for metrics where the x axis is not telling.
    def label_bars(self, pts, metric, name, title, xlabel, caption, ref=None, timed=True):
        """timed: the metric derives from the timing samples (noisy points get a *)."""
        if not pts:
            return False
        pts = sorted(pts, key=lambda p: (p["experiment"], p["axes"].get("backend") or "", p["axes"]["sector_size"],
                                         p["axes"].get("sectors", 1)))
        keys = sorted({k for p in pts for k in p["axes"]})
        vary = [k for k in keys if len({json.dumps(p["axes"].get(k)) for p in pts}) > 1]
        labels = []
        for p in pts:
            axes = p["axes"]
            text = series_name([p], [k for k in vary if k not in ("sector_size", "sectors")])
            text += ", %s" % size_text(axes["sector_size"])
            if axes.get("sectors", 1) != 1:
                text += " x%d" % axes["sectors"]
            used = p.get("context", {}).get("engine")
            if axes.get("engine") == "auto" and used:
                text = text.replace(" auto (%s)" % used, " auto→%s" % used)
            labels.append(text)
        fig, ax = plt.subplots(figsize=(8.0, 0.32 * len(pts) + 1.6))
        backends = list(OrderedDict.fromkeys(p["axes"].get("backend") for p in pts))
        colors = ["C%d" % backends.index(p["axes"].get("backend")) for p in pts]
        vals = [metric(p) for p in pts]
        ax.barh(range(len(pts)), vals, color=colors, edgecolor="black", linewidth=0.4)
        for i, v in enumerate(vals):
            ax.annotate("%.3g%s" % (v, "*" if timed and pts[i].get("noisy") else ""), (v, i), xytext=(3, 0),
                        textcoords="offset points", va="center", fontsize=7)
        ax.set_yticks(range(len(pts)))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        # Experiments as groups: a rule between them, the name at the right.
        for i, p in enumerate(pts):
            if i == 0 or p["experiment"] != pts[i - 1]["experiment"]:
                if i:
                    ax.axhline(i - 0.5, color="0.5", linewidth=0.6)
                ax.annotate(p["experiment"], (1.0, i - 0.45), xycoords=("axes fraction", "data"), ha="right",
                            va="top", fontsize=7, color="0.4", style="italic", xytext=(-3, 0),
                            textcoords="offset points")
        if ref:
            ax.axvline(ref[0], color="0.35", linestyle="--", linewidth=1)
            ax.annotate(ref[1], (ref[0], 0), xytext=(3, -10), textcoords="offset points", fontsize=7, color="0.35")
        # Room at the right for the value and group labels.
        top = max(vals + [ref[0] if ref else 0])
        if spans_decades(vals, 2):
            ax.set_xscale("log")
            ax.set_xlim(right=top * 4)
        else:
            ax.set_xlim(0, top * 1.35)
        style(ax, title, xlabel, "")
        ax.grid(False, axis="y")
        self.save(fig, name, title, caption)
        return True

    def label_figures(self):
        pts = ok_points(self.results, "label")
        if not pts:
            return
        cpu = cpu_name(self.results)

        def rate_of(key):
            return lambda p: p.get("rates", {}).get(key)

        latency, labels_s, eff, mem = (rate_of("ns_per_node_layer"), rate_of("labels_per_s"),
                                       rate_of("efficiency"), rate_of("bytes_per_node"))
        one = [p for p in pts if p["axes"].get("sectors", 1) == 1 and latency(p) is not None]
        self.label_lines(one, "sector_size", latency, False, "label_latency",
                         "SDR labeling latency, one sector (CPU: %s)" % cpu, "ns per node per layer",
                         "Median time per node per layer for one sector, by backend and engine (error bars: "
                         "sample min/max; lower is better). Single markers are experiments run at one size.")
        # Throughput against the sector count, only where an experiment varies it.
        exps = {e for e in {p["experiment"] for p in pts}
                if len({q["axes"].get("sectors") for q in pts if q["experiment"] == e}) > 1}
        sweep = [p for p in pts if p["experiment"] in exps and labels_s(p)]
        self.label_lines(sweep, "sectors", labels_s, True, "label_throughput",
                         "SDR labeling throughput vs sectors labeled together", "labels per second (all sectors)",
                         "Labels per second over all sectors against the number of sectors sharing one graph, "
                         "per backend (the CPU vs GPU picture; higher is better). With engine auto, the labels "
                         "name the engine chosen for that sector count.")
        with_eff = [p for p in pts if eff(p) is not None]
        if len({p["axes"]["sector_size"] for p in with_eff}) >= 3:
            self.label_lines(with_eff, "sector_size", eff, True, "label_efficiency",
                             "Labeling efficiency vs the hash-only floor", "floor / measured time",
                             "Efficiency: time of the same chained SHA-256 compressions on the same engine with "
                             "cache-resident inputs, divided by the measured labeling time (1 = labeling runs at "
                             "the speed of hashing alone).", logy=False, ref=(1.0, "floor"))
        else:
            self.label_bars(with_eff, eff, "label_efficiency", "Labeling efficiency vs the hash-only floor",
                            "floor / measured time (1 = at the floor)",
                            "Efficiency of each labeling point: time of the same chained SHA-256 compressions on "
                            "the same engine with cache-resident inputs, divided by the measured time. Above 1 the "
                            "floor itself was measured slower than labeling (noise or a different schedule). "
                            "* marks noisy points.", ref=(1.0, "floor"))
        with_mem = [p for p in pts if mem(p)]
        if len({p["axes"]["sector_size"] for p in with_mem}) >= 3:
            self.label_lines(with_mem, "sector_size", mem, None, "label_memory", "Memory per node during labeling",
                             "bytes per node (peak RSS growth)",
                             "Peak resident memory growth during labeling divided by sectors x nodes.")
        else:
            self.label_bars(with_mem, mem, "label_memory", "Memory per node during labeling",
                            "bytes per node (peak RSS growth / (sectors x nodes))",
                            "Peak resident memory growth during labeling per node. Small sectors are dominated by "
                            "page granularity (4 KiB pages over 64 nodes of a 2KiB sector is 64 B/node).",
                            timed=False)

    def data_scaling(self):
        """Label points of a data-scaling experiment (they name the window_nodes axis):
        bytes per node (RAM, whole sectors) and ns/node/layer against sector size."""
        pts = [p for p in ok_points(self.results, "label") if "window_nodes" in p["axes"]
               and p.get("rates", {}).get("ns_per_node_layer")]
        if len({p["axes"]["sector_size"] for p in pts}) < 2:
            return
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(12.0, 4.6))
        for i, backend in enumerate(OrderedDict.fromkeys(p["axes"].get("backend") for p in pts)):
            bp = sorted([p for p in pts if p["axes"].get("backend") == backend], key=lambda p: p["axes"]["sector_size"])
            whole = [p for p in bp if not p["axes"].get("window_nodes")]
            win = [p for p in bp if p["axes"].get("window_nodes")]
            mem = [(p["axes"]["sector_size"], p["context"]["max_rss_bytes"] / p["context"]["nodes"]) for p in whole
                   if p.get("context", {}).get("max_rss_bytes") and p["context"].get("nodes")]
            if mem:
                a1.plot([m[0] for m in mem], [m[1] for m in mem], marker=MARKERS[i % len(MARKERS)],
                        label="%s: max RSS / nodes (measured)" % backend)
            for part, style_, what in ((whole, "-", "whole sector"), (win, "--", "window")):
                if part:
                    a2.plot([p["axes"]["sector_size"] for p in part], [p["rates"]["ns_per_node_layer"] for p in part],
                            linestyle=style_, marker=MARKERS[i % len(MARKERS)], label="%s, %s" % (backend, what))
        a1.axhline(200, color="0.35", linestyle="--", linewidth=1, label="2019 report: 200 B/node (quoted)")
        sizes = sorted({p["axes"]["sector_size"] for p in pts})
        for ax in (a1, a2):
            log2_x(ax, sizes, True)
            ax.set_ylim(bottom=0)
        style(a1, "RAM bytes per node (labeling)", "sector size (log scale)", "bytes per node")
        style(a2, "Labeling time per node per layer", "sector size (log scale)", "ns per node per layer")
        a1.legend(fontsize=7)
        a2.legend(fontsize=7)
        fig.suptitle("Data scaling on %s" % cpu_name(self.results), fontsize=11)
        fig.tight_layout()
        self.save(fig, "data_scaling", "Data scaling: bytes/node and ns/node/layer vs sector size",
                  "Left: the process's peak resident set (parent table, both layers, everything) over the sector's "
                  "nodes, for whole-sector points; the dashed line is the 2019 Supranational PoRep report's "
                  "200 B/node (quoted). Right: median ns per node per layer; dashed: node windows of a full-size "
                  "sector (docs/scaling.md), not whole-sector runs.")

    def tree_d(self):
        pts = [p for p in ok_points(self.results, "tree_d") if "gb_per_s" in p.get("rates", {})]
        if not pts:
            return
        fig, ax = plt.subplots(figsize=(7, 4.3))
        for i, (label, sp) in enumerate(make_series(pts, "sector_size")):
            ax.plot([p["axes"]["sector_size"] for p in sp], [p["rates"]["gb_per_s"] for p in sp],
                    marker=MARKERS[i % len(MARKERS)], label="tree_d " + label.replace("tree_d", "").strip(", "))
        log2_x(ax, sorted({p["axes"]["sector_size"] for p in pts}), True)
        ax.set_ylim(bottom=0)
        style(ax, "tree_d (comm_d) build throughput (CPU: %s)" % cpu_name(self.results), "sector size (log scale)",
              "GB/s of sector data")
        ax.legend(fontsize=8)
        self.save(fig, "tree_d_throughput", "tree_d throughput",
                  "Sector data hashed into tree_d per second (median; higher is better).")

    def verdict(self):
        """PC1 time of one sector against sector size, per device, from DIR/verdict.json."""
        path = os.path.join(os.path.dirname(self.dir), "verdict.json")
        if not os.path.exists(path):
            return
        v = json.load(open(path))
        series = {}
        for s in v.get("sizes", []):
            for d in s.get("devices", []):
                f = d.get("pc1_seconds", {})
                if f.get("value") is None or d.get("kind") in ("cpu", "cpu-no-sha-ni"):  # one sector: the whole CPU = one core
                    continue
                series.setdefault(d["device"], []).append((s["sector_size"], f["value"], f.get("source", "")))
        if not series:
            return
        fig, ax = plt.subplots(figsize=(8, 4.8))
        for i, (name, pts) in enumerate(series.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=MARKERS[i % len(MARKERS)],
                    linestyle="--" if any(p[2] == "modeled" for p in pts) else "-", label=name[:70])
            for x, y, src in pts:
                if src != "measured":
                    ax.annotate(src[:5], (x, y), fontsize=6, xytext=(3, -8), textcoords="offset points")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        sizes = sorted({p[0] for pts in series.values() for p in pts})
        ax.set_xticks(sizes)
        # 32GiB and 64GiB sit one doubling apart on a 2KiB..64GiB axis: slanted labels.
        ax.set_xticklabels([size_text(b) for b in sizes], rotation=45, ha="right", fontsize=8)
        style(ax, "SDR PC1 of one sector, every layer (verdict)", "sector size (log scale)",
              "seconds (log scale)")
        ax.legend(fontsize=7)
        self.save(fig, "verdict_pc1", "PC1 time per sector (verdict)",
                  "Wall time of PC1 for one sector against sector size per device (log-log). Dashed: modeled; "
                  "points marked extra/model are extrapolated from another size or modeled, not measured here.")

    def write_index(self):
        with open(os.path.join(self.dir, "index.json"), "w") as f:
            json.dump(self.index, f, indent=2)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    d = argv[1]
    results = load_results(d)
    figs = Figures(d, results)
    figs.hash_cycles()
    figs.label_figures()
    figs.data_scaling()
    figs.tree_d()
    figs.verdict()
    figs.write_index()
    print("plot: %d figures in %s" % (len(figs.index), figs.dir), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
