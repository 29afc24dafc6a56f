#!/usr/bin/env python3
"""Figures for a poreplab result directory.

Usage: plot.py DIR
       plot.py --compare DIR   (DIR/plots/compare.png from DIR/compare.json of poreplab compare)

Reads DIR/results.json (or, when it is absent, DIR/records.jsonl) and writes PNG and SVG
figures into DIR/plots/, plus DIR/plots/index.json listing them with captions for
poreplab's report.md. A figure whose data is absent from the results is not drawn.
"""
import json
import math
import os
import stat
import sys
import types
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

MARKERS = "osD^vP*Xh<>p"

# One colour and marker per kind of device, the same in every figure.
STYLE = {
    "cpu": ("#1f77b4", "o"),          # CPU, all threads (or one sector: fastest engine)
    "cpu-core": ("#17becf", "s"),     # CPU, one core / one thread
    "cpu-threads": ("#8c564b", "h"),  # CPU, another thread count
    "cpu-no-sha-ni": ("#ff7f0e", "v"),
    "oracle": ("#7f7f7f", "X"),     # the reference backend (scalar, for checking)
    "emu": ("#9467bd", "D"),          # cuda-emu: the kernels on the host CPU
    "gpu": ("#2ca02c", "^"),          # a GPU, measured
    "gpu-model": ("#d62728", "P"),    # a GPU, MODELED
    "gpu-reference": ("#2ca02c", "*"),  # a GPU measured elsewhere (a reference dataset)
}
# Reference GPUs after the first: their own colours, the same star.
REFERENCE_COLORS = ["#2ca02c", "#bcbd22", "#e377c2", "#7f7f7f"]
EMU_LABEL = "cuda-emu (emulation on the CPU, not a GPU)"


# ---------------------------------------------------------------- loading

def read_file(path, max_bytes=1 << 30):
    """A file read as poreplab reads one (common/file_io.hpp): opened without blocking (a
    FIFO cannot hang the plot), a regular file only, at most max_bytes."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            raise ValueError("%s: not a regular file of at most %d bytes" % (path, max_bytes))
        return f.read().decode("utf-8", errors="replace")


def load_record_schema():
    """The keys and words of a record (data/record-schema.json beside plots/, held equal to
    poreplab's records/schema.hpp and records/payload_keys.hpp by a test): a key renamed there
    fails here by its name instead of reading as missing."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "data", "record-schema.json")
    words = lambda names: types.SimpleNamespace(**{n.replace("-", "_"): n for n in names})  # noqa: E731
    try:
        s = json.loads(read_file(path))
        return (words(s["header_keys"] + s["point_keys"]), words(s["record_types"]), words(s["point_statuses"]),
                words(s["record_kinds"]), words(s["axis_keys"]), words(s["context_keys"]), words(s["rate_keys"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        sys.exit("plot: error: %s: not the record schema poreplab installs (%s: %s)"
                 % (os.path.normpath(path), type(e).__name__, e))


# K: the envelope's keys; AX, CTX, RATE: the keys inside a point's axes, context and rates
# that poreplab's kinds and readers share (a verdict.json size or device row uses them too).
K, RECORD, STATUS, KIND, AX, CTX, RATE = load_record_schema()


# A backend's device class (poreplab's backends table; the run header's
# build.device_classes). These are the classes of result sets written before the header
# named them; a newer header replaces them.
DEVICE_CLASSES = {"reference": "oracle", "cpu": "host-cpu", "cuda-emu": "gpu-emulated", "cuda": "gpu"}


def learn_device_classes(results):
    DEVICE_CLASSES.update(environment(results).get("build", {}).get("device_classes") or {})
    return results


def device_class_of(p):
    """The device class of a point's backend: host-cpu where the point names none."""
    backend = p[K.axes].get(AX.backend)
    return DEVICE_CLASSES.get(backend, "") if backend else "host-cpu"


def on_host_cpu(p):
    return device_class_of(p) == "host-cpu"


def on_gpu_kernels(p):
    """A GPU's kernels, on the GPU or emulated on the host."""
    return device_class_of(p) in ("gpu", "gpu-emulated")


def load_results(d):
    """The result set: results.json, or the latest point records of records.jsonl."""
    path = os.path.join(d, "results.json")
    if os.path.exists(path):
        results = json.loads(read_file(path))
        # `run --repeat`: one figure point per point, its last repeat.
        last = OrderedDict()
        for p in results.get("points", []):
            last[p[K.experiment] + " " + json.dumps(p[K.axes], sort_keys=True)] = p
        results["points"] = list(last.values())
        return learn_device_classes(results)
    runs, latest = [], OrderedDict()
    if not os.path.exists(os.path.join(d, "records.jsonl")):
        return {"runs": [], "points": []}  # nothing run yet: no figures
    for line in read_file(os.path.join(d, "records.jsonl")).splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # an incomplete last line
        if rec.get(K.type) == RECORD.header:
            runs.append(rec)
        elif rec.get(K.type) == RECORD.point:
            latest[rec[K.experiment] + " " + json.dumps(rec[K.axes], sort_keys=True)] = rec
    return learn_device_classes({"runs": runs, "points": list(latest.values())})


def ok_points(results, kind):
    return [p for p in results.get("points", []) if p.get(K.kind) == kind and p.get(K.status) == STATUS.ok]


def environment(results):
    for run in reversed(results.get("runs") or []):
        if run.get(K.environment):
            return run[K.environment]
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


def sig3(v):
    """Three significant digits with an SI suffix: 1.15G, 14.6k."""
    return si_text(float("%.3g" % v))


def spans_decades(values, decades=1.5):
    vals = [v for v in values if v and v > 0]
    return len(vals) > 1 and math.log10(max(vals) / min(vals)) >= decades


def cpu_name(results):
    return environment(results).get("cpu", {}).get("model", "CPU")


def axis_value_text(k, v):
    return size_text(v) if k.endswith("size") and isinstance(v, int) else str(v)


def used_engines(points):
    return sorted({p.get(K.context, {}).get(CTX.engine) for p in points if p.get(K.context, {}).get(CTX.engine)})


def series_name(points, vary):
    """Legend text of a series: backend, the engine (for auto, the one it chose when
    that is one), the label kernel of cuda and cuda-emu (likewise), the GPU for cuda,
    and the axes that differ between the series."""
    p = points[0]
    axes = p[K.axes]
    backend = axes.get(AX.backend) or p[K.kind]
    name = backend
    engine = axes.get(AX.engine)
    if on_host_cpu(p) and engine:
        used = used_engines(points)
        if engine == "auto":
            name += " auto" + (" (%s)" % used[0] if len(used) == 1 else "")
        else:
            name += " " + engine
    if on_gpu_kernels(p):
        kernel = axes.get("kernel") or "auto"
        used = sorted({q.get(K.context, {}).get("kernel_used") for q in points if q.get(K.context, {}).get("kernel_used")})
        if kernel == "auto":
            name += " kernel auto" + (" (%s)" % used[0] if len(used) == 1 else "")
        else:
            name += " kernel " + kernel
    if device_class_of(p) == "gpu":
        dev = p.get(K.context, {}).get(CTX.device)
        if dev:
            name += " on " + dev
    extra = ["%s=%s" % (k, axis_value_text(k, axes[k])) for k in vary
             if k not in (AX.backend, AX.engine, "kernel") and axes.get(k) is not None]
    return name + (", " + ", ".join(extra) if extra else "")


def make_series(points, x_axis):
    """Points grouped into series along x_axis: one per experiment and combination of
    the other axes. Names carry the experiment only where they would collide."""
    keys = sorted({k for p in points for k in p[K.axes] if k != x_axis})
    vary = [k for k in keys if len({json.dumps(p[K.axes].get(k)) for p in points}) > 1]
    groups = OrderedDict()
    for p in points:
        key = json.dumps([p[K.experiment]] + [p[K.axes].get(k) for k in keys])
        groups.setdefault(key, []).append(p)
    series = [[series_name(g, vary), sorted(g, key=lambda q: q[K.axes][x_axis])] for g in groups.values()]
    names = [s[0] for s in series]
    for s in series:
        if names.count(s[0]) > 1:
            s[0] += " [%s]" % s[1][0][K.experiment]
    return series


def style(ax, title, xlabel, ylabel):
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)


def rel_range(p, rate):
    """(lower, upper) relative error of the median from the sample min/max; for a rate
    (inverse of time) the bounds swap."""
    st = p.get(K.stats) or {}
    if not st.get("median") or not st.get("min"):
        return 0.0, 0.0
    a, b = st["min"] / st["median"], st["max"] / st["median"]
    if rate:
        a, b = 1 / b, 1 / a
    return 1 - a, b - 1


def log2_x(ax, xs, sizes):
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    text = (lambda v: size_text(v)) if sizes else (lambda v: "%d" % v)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: text(v)))
    ax.xaxis.set_minor_formatter(NullFormatter())
    if len(xs) == 1:
        ax.set_xlim(xs[0] / 2, xs[0] * 2)
    # Ticks a factor 2 apart leave no room for long labels side by side: slant them all.
    ordered = sorted(xs)
    if any(b <= 2 * a and max(len(text(a)), len(text(b))) >= 4 for a, b in zip(ordered, ordered[1:])):
        ax.tick_params(axis="x", labelrotation=35)
        plt.setp(ax.get_xticklabels(), ha="right")


# ---------------------------------------------------------------- words for values

TIME_TICKS = [(1e-6, "1 µs"), (1e-5, "10 µs"), (1e-4, "100 µs"), (1e-3, "1 ms"), (1e-2, "10 ms"),
              (0.1, "100 ms"), (1, "1 s"), (10, "10 s"), (60, "1 min"), (600, "10 min"), (3600, "1 h"),
              (36000, "10 h"), (86400, "1 day"), (864000, "10 days"), (8640000, "100 days")]


def time_axis(ax, values):
    """Log y axis of durations in seconds, ticks in words (1 ms, 1 min, 1 h)."""
    lo, hi = min(values) / 2, max(values) * 2
    ticks = [t for t in TIME_TICKS if lo <= t[0] <= hi]
    if len(ticks) > 8:  # every other one, keeping the largest
        ticks = ticks[::-1][::2][::-1]
    ax.set_yscale("log")
    ax.set_ylim(lo, hi)
    ax.set_yticks([t[0] for t in ticks])
    ax.set_yticklabels([t[1] for t in ticks])
    ax.yaxis.set_minor_formatter(NullFormatter())


def si_axis(ax):
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: si_text(v)))
    ax.yaxis.set_minor_formatter(NullFormatter())


ENGINE_WORDS = {"portable": "portable C++", "openssl": "OpenSSL (reference)", "auto": "auto",
                "shani": "SHA-NI", "avx2-1": "AVX2, 1 stream"}


def engine_text(e):
    """Readable engine name: shani-x4 -> SHA-NI x4 (4 chains), avx512-x16 -> AVX-512 x16 (16 lanes)."""
    if not e:
        return ""
    if e in ENGINE_WORDS:
        return ENGINE_WORDS[e]
    base, _, n = e.partition("-x")
    words = {"shani": "SHA-NI", "avx512": "AVX-512", "avx2": "AVX2"}.get(base, base)
    if n.isdigit():
        return "%s, %s %s" % (words, n, "chains" if base == "shani" else "lanes")
    return words


def threads_text(t, results):
    """The threads axis in words: 0 is every hardware thread of the machine."""
    if not t:
        n = environment(results).get("cpu", {}).get("logical_cores")
        return "all %d threads" % n if n else "all threads"
    return "one thread" if t == 1 else "%d threads" % t


def short_gpu_name(text):
    """'GPU MODEL: NVIDIA H100 SXM5 80GB HBM3 (sm_90, ...)' -> 'NVIDIA H100 SXM5 80GB HBM3'."""
    text = text.split(": ", 1)[-1] if text.upper().startswith("GPU") else text
    return text.split(" (")[0].strip()


# ---------------------------------------------------------------- devices of label points

def rate(p, key):
    return (p.get(K.rates) or {}).get(key)


def sectors_of(p):
    return p[K.axes].get(AX.sectors) or 1


def is_window(p):
    return bool(p[K.axes].get(AX.window_nodes))


def fastest_per_size(pts):
    """One point a sector size, sorted by size: the fastest (ns per node per layer) of the
    fewest sectors among pts. Points of other sector counts or arrangements at one size are
    not steps of a scaling series."""
    if not pts:
        return []
    fewest = min(sectors_of(p) for p in pts)
    best = {}
    for p in pts:
        size, ns = p[K.axes][AX.sector_size], p[K.rates][RATE.ns_per_node_layer]
        if sectors_of(p) == fewest and (size not in best or ns < best[size][K.rates][RATE.ns_per_node_layer]):
            best[size] = p
    return [best[s] for s in sorted(best)]


def used_engine(p):
    """The engine (cpu) or kernel (cuda, cuda-emu) a point ran, auto resolved."""
    ctx, axes = p.get(K.context) or {}, p[K.axes]
    if on_gpu_kernels(p):
        return ctx.get("kernel_used") or axes.get("kernel") or ""
    return ctx.get(CTX.engine) or axes.get(AX.engine) or ""


def is_filecoin_scheme(p):
    axes = p[K.axes]
    return (axes.get(AX.variant) or "sdr") == "sdr" and (axes.get("hash") or "sha256") == "sha256"


def device_class(p, by_threads, results):
    """(style key, legend text) of a label point's device. by_threads: tell CPU thread
    counts apart (throughput); otherwise a CPU point is 'the CPU' (one sector)."""
    axes = p[K.axes]
    cls = device_class_of(p)
    if cls == "gpu":
        dev = (p.get(K.context) or {}).get(CTX.device) or "GPU"
        return "gpu", "GPU: %s (measured)" % dev
    if cls == "gpu-emulated":
        return "emu", EMU_LABEL
    if cls == "oracle":
        return "oracle", "reference implementation (scalar, for checking)"
    if not by_threads:
        return "cpu", "CPU, fastest engine"
    t = axes.get(AX.threads) or 0
    key = "cpu" if t == 0 else "cpu-core" if t == 1 else "cpu-threads"
    return key, "CPU, %s, fastest engine" % threads_text(t, results)


def best_series(pts, x_of, y_of, better, results, by_threads):
    """The fastest point per device class and x: {(key, label): [(x, y, point)]}, the
    classes in the order of STYLE."""
    best = {}
    for p in pts:
        y = y_of(p)
        if y is None:
            continue
        cls, x = device_class(p, by_threads, results), x_of(p)
        cur = best.get((cls, x))
        if cur is None or better(y, cur[1]):
            best[(cls, x)] = (x, y, p)
    out = OrderedDict()
    for (cls, x), v in sorted(best.items(), key=lambda kv: (list(STYLE).index(kv[0][0][0]), kv[0][1])):
        out.setdefault(cls, []).append(v)
    return out


def plot_best(ax, cls, rows, rate_like, hollow=False, fold=True):
    """One device's line; the engine in the legend when one engine won everywhere (and
    fold: one panel, so the legend is this line's alone), else next to the points."""
    key, label = cls
    color, marker = STYLE[key]
    engines = [used_engine(r[2]) for r in rows]
    one = fold and len(set(engines)) == 1 and engines[0]
    if one and key in ("emu", "gpu"):
        label += ", kernel " + engines[0]
    elif one and key != "oracle":
        label = label.replace("fastest engine", engine_text(engines[0]))
    xs, ys = [r[0] for r in rows], [r[1] for r in rows]
    err = [[], []]
    for x, y, p in rows:
        lo, hi = rel_range(p, rate_like)
        err[0].append(y * lo)
        err[1].append(y * hi)
    ax.errorbar(xs, ys, yerr=err, color=color, marker=marker, markersize=6, capsize=2, linewidth=1.5,
                markerfacecolor="white" if hollow else color, label=label)
    if not one and key != "oracle":
        # Name the engine where it changes along the line; once where two lines put the same
        # name at the same spot (within 1.5x), as one-thread and all-thread CPU lines can.
        placed = ax.__dict__.setdefault("_engine_names", [])
        for i, (x, y, p) in enumerate(rows):
            if i and used_engine(p) == used_engine(rows[i - 1][2]):
                continue
            text = engine_text(used_engine(p)) if key.startswith("cpu") else used_engine(p)
            if any(px == x and pt == text and max(py, y) <= 1.5 * min(py, y) for px, py, pt in placed):
                continue
            placed.append((x, y, text))
            ax.annotate(text, (x, y), fontsize=6.5, color="0.3", xytext=(4, 4), textcoords="offset points")


def figure_handles(fig):
    """Legend entries of every panel, each label once."""
    seen = OrderedDict()
    for ax in fig.axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, h)
    # Modeled lines last, after what was run.
    return sorted(seen.values(), key=lambda h: "MODELED" in h.get_label())


def legend_right(ax, handles=None):
    kw = {"fontsize": 8, "loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "borderaxespad": 0, "frameon": False}
    if handles is not None:
        kw["handles"] = handles
    ax.legend(**kw)


# ---------------------------------------------------------------- the verdict (GPU model rows)

def load_verdict(d):
    path = os.path.join(d, "verdict.json")
    if not os.path.exists(path):
        return None
    try:
        return json.loads(read_file(path))
    except (ValueError, OSError):
        return None


def verdict_rows(verdict, kind):
    """(size row, device row) of every size for one device kind."""
    for s in (verdict or {}).get("sizes", []):
        for d in s.get("devices", []):
            if d.get("kind") == kind:
                yield s, d


def field(d, name):
    f = d.get(name) or {}
    return f.get("value"), f.get("source") or "none"


def gpu_model(verdict):
    """The modeled GPU of the verdict: name, seconds per node and layer for one sector
    by size, and the device-wide labels/s with the sectors it needs, by size."""
    out = None
    for s, d in verdict_rows(verdict, "gpu-model"):
        sec, src = field(d, "pc1_seconds")
        if sec is None or src != "modeled" or not s.get("nodes") or not s.get(AX.layers):
            continue
        labels = s["nodes"] * s[AX.layers]
        out = out or {"name": short_gpu_name(d.get("name") or d.get(CTX.device, "GPU")), "node_s": {}, "cap": {}}
        out["node_s"][s[AX.sector_size]] = sec / labels
        sph, ssrc = field(d, "sectors_per_hour")
        batch, _ = field(d, "batch_sectors")
        if sph and ssrc == "modeled":
            out["cap"][s[AX.sector_size]] = (sph * labels / 3600.0, batch)
    return out


def gpu_references(verdict):
    """The GPUs measured elsewhere (reference datasets) of the verdict, in its order: name,
    date, and by size where a record of that size measured it: seconds per node and layer of
    one sector, and (labels/s, sectors) of its best throughput."""
    out = OrderedDict()
    for s, d in verdict_rows(verdict, "gpu-reference"):
        if not s.get("nodes") or not s.get(AX.layers):
            continue
        labels = s["nodes"] * s[AX.layers]
        ref = out.setdefault(d.get(CTX.device), {"name": short_gpu_name(d.get("name") or "GPU"),
                                               "date": (d.get("reference") or "").split(",")[0],
                                               "node_s": {}, "rate": {}})
        sec, src = field(d, "pc1_seconds")
        if sec and src == "measured":
            ref["node_s"][s[AX.sector_size]] = sec / labels
        sph, ssrc = field(d, "sectors_per_hour")
        batch, _ = field(d, "batch_sectors")
        if sph and ssrc == "measured" and batch:
            ref["rate"][s[AX.sector_size]] = (sph * labels / 3600.0, batch)
    return list(out.values())


def reference_label(r):
    return "GPU: %s, measured elsewhere (%s)" % (r["name"], r["date"])


def nearest(table, size):
    """The entry of the size nearest (log scale) to size."""
    return table[min(table, key=lambda k: abs(math.log2(k) - math.log2(size)))]


def model_label(m):
    return "GPU MODELED: %s (not measured)" % m["name"]


# ---------------------------------------------------------------- figures

def write_file(path, write):
    """The one way a file is written here, as poreplab's own (common/file_io.hpp): staged
    under a name of this process, created new (a link planted there is removed, never
    written through), fsynced and renamed over `path` once whole."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    try:
        os.unlink(tmp)
    except (FileNotFoundError, IsADirectoryError, PermissionError):  # a directory: the create names it
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def own_directory(path):
    """The directory figures go into, made here or already a real directory: a link
    planted at its name (or a file) is refused, never written through."""
    try:
        os.mkdir(path)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        sys.exit("plot: error: %s: is %s, where the figures' directory goes; nothing drawn"
                 % (path, "a link" if stat.S_ISLNK(st.st_mode) else "not a directory"))
    return path


def save_figure(fig, path, ext, **kwargs):
    write_file(path, lambda f: fig.savefig(f, format=ext, **kwargs))


class Figures:
    def __init__(self, d, results):
        self.dir = own_directory(os.path.join(d, "plots"))
        self.results = results
        self.verdict_data = load_verdict(d)
        self.index = []

    def save(self, fig, name, title, caption):
        if name.startswith("label_") and self.what_if_left_out():
            caption += (" Filecoin's scheme (sdr + SHA-256) only: the %d what-if points (another variant or hash) "
                        "are in report.md, not drawn." % self.what_if_left_out())
        for ext in ("png", "svg"):
            save_figure(fig, os.path.join(self.dir, "%s.%s" % (name, ext)), ext, dpi=130, bbox_inches="tight")
        plt.close(fig)
        self.index.append({"name": name, "png": "plots/%s.png" % name, "svg": "plots/%s.svg" % name,
                           "title": title, "caption": caption})

    def label_points(self):
        """The label points of Filecoin's scheme where there are any: the label figures
        pick the fastest point per size or count, which must not be another scheme's."""
        pts = ok_points(self.results, KIND.label)
        filecoin = [p for p in pts if is_filecoin_scheme(p)]
        return filecoin or pts

    def what_if_left_out(self):
        pts = ok_points(self.results, KIND.label)
        return len(pts) - len(self.label_points())

    def gpu_measured(self):
        return any(device_class_of(p) == "gpu" for p in self.label_points())

    # -- hash engines: one bar per engine, small multiples per algorithm (rows) and mode
    #    (columns); OpenSSL hatched and as a dashed reference line.
    def hash_cycles(self):
        pts = [p for p in ok_points(self.results, KIND.hash) if "cycles_per_byte" in p.get(K.rates, {})]
        if not pts:
            return
        size = max(p[K.axes].get("size") or 0 for p in pts)  # the largest message size only
        pts = [p for p in pts if (p[K.axes].get("size") or 0) == size]
        modes = [m for m in ("throughput", "chain") if any(p[K.axes].get("mode") == m for p in pts)]
        algos = list(OrderedDict.fromkeys(p[K.axes]["algo"] for p in pts))
        engines = {a: list(OrderedDict.fromkeys(p[K.axes][AX.engine] for p in pts if p[K.axes]["algo"] == a))
                   for a in algos}
        # Fastest first (one dependent chain, the SDR pattern, where measured), the reference
        # implementations last as the bar to compare against: the records say which they are.
        refs = {q[K.axes][AX.engine] for q in pts if (q.get(K.context) or {}).get("reference")}

        def order(a, e):
            cpb = {q[K.axes].get("mode"): q[K.rates]["cycles_per_byte"] for q in pts
                   if q[K.axes]["algo"] == a and q[K.axes][AX.engine] == e}
            return (e in refs, cpb.get("chain", cpb.get("throughput", 0)))
        for a in algos:
            engines[a].sort(key=lambda e: order(a, e))
        fig, axs = plt.subplots(len(algos), len(modes), squeeze=False, sharey="row",
                                figsize=(5.0 * len(modes) + 1.5, sum(0.32 * len(engines[a]) + 0.9 for a in algos)),
                                gridspec_kw={"height_ratios": [len(engines[a]) + 1 for a in algos]})
        limit_drawn = noisy_seen = False
        for r, a in enumerate(algos):
            for c, m in enumerate(modes):
                ax = axs[r][c]
                vals = []
                for i, e in enumerate(engines[a]):
                    p = next((q for q in pts if q[K.axes]["algo"] == a and q[K.axes][AX.engine] == e
                              and q[K.axes].get("mode") == m), None)
                    if p is None:
                        continue
                    y = p[K.rates]["cycles_per_byte"]
                    lo, hi = rel_range(p, False)
                    vals.append(y * (1 + hi))
                    ref = e in refs
                    ax.barh(i, y, 0.7, color="0.85" if ref else ("#1f77b4" if m == "throughput" else "#ff7f0e"),
                            hatch="///" if ref else None, edgecolor="black", linewidth=0.5,
                            xerr=[[y * lo], [y * hi]], capsize=2, error_kw={"linewidth": 0.8})
                    if ref:
                        ax.axvline(y, color="0.3", linestyle="--", linewidth=1)
                    mark = "*" if p.get(K.noisy) else ""
                    noisy_seen = noisy_seen or bool(mark)
                    ax.annotate("%.3g%s" % (y, mark), (y * (1 + hi), i), va="center", fontsize=7,
                                xytext=(3, 0), textcoords="offset points")
                    limit = p[K.rates].get("critical_path_cycles_per_byte")
                    if limit:
                        ax.plot([limit, limit], [i - 0.4, i + 0.4], color="crimson", linewidth=2.5)
                        limit_drawn = True
                ax.set_yticks(range(len(engines[a])))
                ax.set_yticklabels([engine_text(e) for e in engines[a]], fontsize=8)
                ax.set_ylim(len(engines[a]) - 0.5, -0.5)
                ax.set_xlim(0, max(vals or [1]) * 1.25)
                ax.grid(True, axis="x", alpha=0.35)
                if r == 0:
                    ax.set_title({"throughput": "independent messages (throughput)",
                                  "chain": "one dependent chain (the SDR pattern)"}.get(m, m), fontsize=10)
                if r == len(algos) - 1:
                    ax.set_xlabel("cycles per byte, TSC (lower is faster)")
                if c == 0:
                    ax.set_ylabel({"sha256": "SHA-256", "blake2s": "BLAKE2s", "blake2b": "BLAKE2b"}.get(a, a),
                                  fontsize=10, fontweight="bold")
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
        handles = [Patch(facecolor="0.85", edgecolor="black", hatch="///", label="OpenSSL EVP (reference)")]
        if limit_drawn:
            handles.append(Line2D([], [], color="crimson", linewidth=2.5, label="critical-path limit of the engine"))
        fig.legend(handles=handles, fontsize=8, loc="lower center", ncol=2, frameon=False, bbox_to_anchor=(0.5, -0.02))
        fig.suptitle("Which hash engine is fastest on %s, and how far ahead of OpenSSL?\n(%s messages)"
                     % (cpu_name(self.results), size_text(size)), fontsize=11)
        fig.tight_layout(rect=(0, 0.04, 1, 1))
        caption = ("Median TSC cycles per hashed byte of each engine (one bar each, fastest chain first; OpenSSL "
                   "hatched, with a dashed "
                   "line to compare against), per algorithm (rows), for independent messages and for one dependent "
                   "chain as SDR labeling hashes (columns); %s messages. Error bars span the sample min and max."
                   % size_text(size))
        if noisy_seen:
            caption += " * marks a noisy point (spread over 5%)."
        if limit_drawn:
            caption += " Red marks: the critical-path limit of the engine."
        others = sorted({p[K.axes].get("size") for p in ok_points(self.results, KIND.hash)} - {size, None})
        if others:
            caption += " Also measured (report tables): %s messages." % ", ".join(size_text(s) for s in others)
        skipped = [p for p in self.results.get("points", []) if p.get(K.kind) == KIND.hash and p.get(K.status) == STATUS.skipped]
        if skipped:
            names = OrderedDict.fromkeys("%s %s" % (p[K.axes].get("algo"), p[K.axes].get(AX.engine)) for p in skipped)
            caption += " Not runnable here: " + ", ".join(names) + "."
        self.save(fig, "hash_cycles_per_byte", "Hash engines against OpenSSL: cycles per byte", caption)

    # -- labeling time per node against sector size, one sector, per device.
    def label_latency(self):
        pts = [p for p in self.label_points() if sectors_of(p) == 1 and rate(p, RATE.ns_per_node_layer)]
        whole = [p for p in pts if not is_window(p)]
        windows = [p for p in pts if is_window(p) and on_host_cpu(p)]
        if not whole and not windows:
            return
        ns = lambda p: rate(p, RATE.ns_per_node_layer)  # noqa: E731
        size = lambda p: p[K.axes][AX.sector_size]  # noqa: E731
        fig, ax = plt.subplots(figsize=(8.0, 4.6))
        # Without SHA-NI: the fastest engine that does not use it, where one ran.
        no_sha = [p for p in whole if on_host_cpu(p)
                  and not used_engine(p).startswith("shani")]
        # On a CPU with SHA-NI, a size measured only without it is no point of the fastest
        # engine's line (it would dip to the slower engine there).
        has_sha = any(on_host_cpu(p) and used_engine(p).startswith("shani") for p in whole)
        fastest = [p for p in whole if not (has_sha and p in no_sha)]
        series = best_series(fastest, size, ns, lambda a, b: a < b, self.results, by_threads=False)
        for cls, rows in series.items():
            plot_best(ax, cls, rows, False)
        cpu_rows = series.get(("cpu", "CPU, fastest engine"), [])
        if no_sha and any(used_engine(r[2]).startswith("shani") for r in cpu_rows):
            rows = list(best_series(no_sha, size, ns, lambda a, b: a < b, self.results, by_threads=False).values())[0]
            plot_best(ax, ("cpu-no-sha-ni", "CPU without SHA-NI, fastest engine"), rows, False)
        if windows:
            rows = list(best_series(windows, size, ns, lambda a, b: a < b, self.results, by_threads=False).values())[0]
            plot_best(ax, ("cpu", "CPU, fastest engine, node window of a full-size sector (not the whole sector)"),
                      rows, False, hollow=True)
        sizes = sorted({size(p) for p in pts})
        ys = [ns(p) for p in pts]
        what = self.gpu_series_latency(ax, sizes, ys)
        sizes = sorted(set(sizes))  # with the reference GPUs' sizes, so their stars have ticks
        log2_x(ax, sizes, True)
        if len(sizes) > 6:
            plt.setp(ax.get_xticklabels(), rotation=35, ha="right")
        ys += [line.get_ydata()[0] for line in ax.get_lines() if "MODELED" in line.get_label()]
        log_y = spans_decades(ys, 1.0)
        if log_y:
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
            ax.yaxis.set_minor_formatter(NullFormatter())
        else:
            ax.set_ylim(bottom=0)  # the top from the data, error bars included
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "0" if v == 0 else "%g ns" % v if v < 1e3 else
                                                   "%g µs" % (v / 1e3)))
        style(ax, "How long does labeling one node of one sector take, by sector size?", "sector size",
              "time per node per layer" + (" (log scale)" if log_y else ""))
        legend_right(ax, figure_handles(fig))
        self.save(fig, "label_latency", "Labeling time per node, one sector, by sector size",
                  "Median time to label one node of one layer when one sector is labeled (lower is better; error "
                  "bars: sample min/max), the fastest engine or kernel at each size, named in the legend or next to "
                  "the point. CPU: %s. %s" % (cpu_name(self.results), what))

    def gpu_series_latency(self, ax, sizes, ys):
        """The GPU's line of the latency figure: measured where a GPU ran (drawn with the
        points), else the model's from verdict.json, dashed. Adds the sizes it draws to sizes
        and their times to ys; returns the caption's words."""
        if self.gpu_measured():
            return "GPU: measured."
        refs = gpu_references(self.verdict_data)
        for i, r in enumerate(refs):
            pts = sorted(r["node_s"].items())
            if pts:
                ax.plot([k for k, _ in pts], [v * 1e9 for _, v in pts], color=REFERENCE_COLORS[i % len(REFERENCE_COLORS)],
                        marker="*", markersize=11, linestyle=":", label=reference_label(r), zorder=3)
                ys += [v * 1e9 for _, v in pts]
                sizes += [k for k, _ in pts]
        said = (" Stars: %s, measured elsewhere (the reference datasets of verdict.json), not on this machine."
                % " and ".join(r["name"] for r in refs)) if refs else ""
        m = gpu_model(self.verdict_data)
        if not m:
            return ("No GPU was measured here and no GPU model is in this directory." + said)
        node_ns = {k: v * 1e9 for k, v in m["node_s"].items()}
        lo, hi = min(sizes), max(sizes)
        inside = sorted(k for k in node_ns if lo <= k <= hi)
        vals = list(node_ns.values())
        color, marker = STYLE["gpu-model"]
        if max(vals) <= min(vals) * 1.02:
            # The model's time per node does not depend on the sector size: one line across.
            ax.axhline(vals[0], color=color, linestyle="--", linewidth=1.5, label=model_label(m))
        elif inside:
            ax.plot(inside, [node_ns[k] for k in inside], color=color, marker=marker, linestyle="--",
                    markerfacecolor="white", label=model_label(m))
        else:
            return "The GPU model of this directory covers other sector sizes."
        return ("Dashed: %s, from the SASS latency model (verdict.json), not a measurement. cuda-emu runs the CUDA "
                "kernels on the host CPU: an emulation, not a GPU." % m["name"]) + said

    # -- labels/s against sectors labeled together, one panel per sector size.
    def label_throughput(self):
        pts = [p for p in self.label_points() if rate(p, RATE.labels_per_s) and not is_window(p)]
        sizes = [s for s in sorted({p[K.axes][AX.sector_size] for p in pts})
                 if len({sectors_of(p) for p in pts if p[K.axes][AX.sector_size] == s}) > 1]
        if not sizes:
            return
        fig, axs = plt.subplots(1, len(sizes), figsize=(4.6 * len(sizes) + 1.0, 4.6), sharey=True, squeeze=False)
        m = None if self.gpu_measured() else gpu_model(self.verdict_data)
        ys = []
        for ax, s in zip(axs[0], sizes):
            sp = [p for p in pts if p[K.axes][AX.sector_size] == s]
            ys += [rate(p, RATE.labels_per_s) for p in sp]
            for cls, rows in best_series(sp, sectors_of, lambda p: rate(p, RATE.labels_per_s),
                                         lambda a, b: a > b, self.results, by_threads=True).items():
                plot_best(ax, cls, rows, True, fold=False)
            counts = sorted({sectors_of(p) for p in sp})
            if m:
                ys += self.gpu_model_rate(ax, m, s, counts)
            if not self.gpu_measured():
                self.reference_rates(ax, s)
            log2_x(ax, counts, False)
            style(ax, "%s sectors" % size_text(s), "sectors labeled together", "")
        axs[0][0].set_ylabel("labels per second, all sectors together (log scale)")
        axs[0][0].set_yscale("log")
        axs[0][0].yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
        si_axis(axs[0][0])
        fig.suptitle("How many labels per second does each device reach with more sectors at once?", fontsize=11)
        handles = figure_handles(fig)
        ncol = min(3, len(sizes) + 1)
        rows = (len(handles) + ncol - 1) // ncol
        fig.tight_layout(rect=(0, 0.05 + 0.04 * rows, 1, 1))
        fig.legend(handles=handles, fontsize=8, loc="lower center", ncol=ncol, frameon=False)
        caption = ("Labels per second over all sectors against the number of sectors labeled together (higher is "
                   "better), the fastest engine or kernel at each count (named in the legend or next to the "
                   "point); error bars: sample min/max. CPU: %s." % cpu_name(self.results))
        if m:
            caption += (" Dashed: %s, MODELED from its SASS (verdict.json): one sector's modeled rate times the "
                        "sectors, up to the device-wide modeled rate (the model of the nearest sector size in "
                        "verdict.json); not a measurement." % m["name"])
        if any(device_class_of(p) == "gpu-emulated" for p in pts):
            caption += " cuda-emu runs the CUDA kernels on the host CPU: an emulation, not a GPU."
        self.save(fig, "label_throughput", "Labels per second vs sectors labeled together", caption)

    def reference_rates(self, ax, size):
        """The GPUs measured elsewhere at this size: their best labels/s and its sector count,
        in words in the panel (their batches lie far right of this machine's counts)."""
        lines = ["%s (measured elsewhere, %s): %s labels/s with %s sectors"
                 % (r["name"], r["date"], sig3(r["rate"][size][0]), sig3(r["rate"][size][1]))
                 for r in gpu_references(self.verdict_data) if size in r["rate"]]
        if lines:
            ax.annotate("\n".join(lines), (0.02, 0.98), xycoords="axes fraction", fontsize=6.5,
                        color=REFERENCE_COLORS[0], ha="left", va="top")

    def gpu_model_rate(self, ax, m, size, counts):
        """The modeled GPU's labels/s for `counts` sectors of `size`: n x one sector's
        rate, capped at the device-wide rate. Returns the values drawn."""
        one = 1.0 / nearest(m["node_s"], size)
        cap, need = nearest(m["cap"], size) if m["cap"] else (float("inf"), None)
        xs = [2 ** (i / 4.0) for i in range(int(4 * math.log2(max(counts))) + 1)]
        ys = [min(n * one, cap) for n in xs]
        color, _ = STYLE["gpu-model"]
        ax.plot(xs, ys, color=color, linestyle="--", linewidth=1.6, label=model_label(m))
        if cap < float("inf") and need and need > max(counts):
            ax.annotate("GPU model: up to %s labels/s\nwith %s sectors" % (sig3(cap), sig3(need)),
                        (0.98, 0.02), xycoords="axes fraction", fontsize=6.5, color=color, ha="right", va="bottom")
        return ys

    # -- efficiency against the hash-only floor: the fastest engine per size.
    def label_efficiency(self):
        pts = [p for p in self.label_points() if rate(p, RATE.efficiency) is not None
               and on_host_cpu(p) and sectors_of(p) == 1]
        whole = [p for p in pts if not is_window(p)]
        windows = [p for p in pts if is_window(p)]
        if not pts:
            return
        ns = lambda p: rate(p, RATE.ns_per_node_layer) or float("inf")  # noqa: E731
        size = lambda p: p[K.axes][AX.sector_size]  # noqa: E731
        if len({size(p) for p in pts}) < 2:
            return self.efficiency_bars(whole or windows)
        fig, ax = plt.subplots(figsize=(8.0, 4.4))
        for part, label, hollow in ((whole, "CPU, fastest engine, one sector", False),
                                    (windows, "CPU, fastest engine, node window of a full-size sector", True)):
            best = best_series(part, size, ns, lambda a, b: a < b, self.results, by_threads=False)
            for rows in best.values():
                rows = [(x, rate(p, RATE.efficiency), p) for x, _, p in rows]
                plot_best(ax, ("cpu", label), rows, True, hollow=hollow)
        ax.axhline(1.0, color="0.35", linestyle=":", linewidth=1.2, label="hash-only floor (1 = as fast as hashing)")
        sizes = sorted({size(p) for p in pts})
        log2_x(ax, sizes, True)
        if len(sizes) > 6:
            plt.setp(ax.get_xticklabels(), rotation=35, ha="right")
        ax.set_ylim(0, max([1.2] + [rate(p, RATE.efficiency) * 1.1 for p in pts]))
        style(ax, "How close does labeling come to the speed of hashing alone?", "sector size",
              "efficiency: hash-only floor / labeling time")
        legend_right(ax)
        self.save(fig, "label_efficiency", "Labeling efficiency vs the hash-only floor, fastest engine",
                  "Time of the same chained SHA-256 compressions on the same engine with cache-resident inputs, "
                  "divided by the measured labeling time, for the fastest engine at each sector size (one sector; "
                  "1 = labeling runs at the speed of hashing alone, lower = time lost to memory). Hollow markers: "
                  "node windows of a full-size sector, not whole sectors. Above 1 the floor itself was measured "
                  "slower than labeling (noise or a different schedule).")

    def efficiency_bars(self, pts):
        """One sector size only: one bar per engine."""
        size = pts[0][K.axes][AX.sector_size]
        best = {}
        for p in pts:
            e = used_engine(p)
            if e not in best or rate(p, RATE.ns_per_node_layer) < rate(best[e], RATE.ns_per_node_layer):
                best[e] = p
        rows = sorted(best.items(), key=lambda kv: rate(kv[1], RATE.ns_per_node_layer))
        fig, ax = plt.subplots(figsize=(7.0, 0.35 * len(rows) + 1.4))
        vals = [rate(p, RATE.efficiency) for _, p in rows]
        ax.barh(range(len(rows)), vals, 0.7, color=STYLE["cpu"][0], edgecolor="black", linewidth=0.4)
        for i, (v, (_, p)) in enumerate(zip(vals, rows)):
            ax.annotate("%.2f%s" % (v, "*" if p.get(K.noisy) else ""), (v, i), xytext=(3, 0),
                        textcoords="offset points", va="center", fontsize=7)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([engine_text(e) for e, _ in rows], fontsize=8)
        ax.invert_yaxis()
        ax.axvline(1.0, color="0.35", linestyle=":", linewidth=1.2)
        ax.set_xlim(0, max(vals + [1.0]) * 1.2)
        style(ax, "How close does each engine come to the speed of hashing alone?\n(%s, one sector; fastest "
              "engine first)" % size_text(size), "efficiency: hash-only floor / labeling time", "")
        ax.grid(False, axis="y")
        self.save(fig, "label_efficiency", "Labeling efficiency vs the hash-only floor, per engine",
                  "Time of the same chained SHA-256 compressions on the same engine with cache-resident inputs, "
                  "divided by the measured labeling time, one sector of %s, engines fastest first (1 = labeling "
                  "runs at the speed of hashing alone). * marks noisy points." % size_text(size))

    # -- memory per node against sector size, one sector, per device.
    def label_memory(self):
        pts = [p for p in self.label_points() if rate(p, "bytes_per_node") and not is_window(p)
               and sectors_of(p) == 1]
        if not pts:
            return
        fig, ax = plt.subplots(figsize=(8.0, 4.4))
        ns = lambda p: rate(p, RATE.ns_per_node_layer) or float("inf")  # noqa: E731
        size = lambda p: p[K.axes][AX.sector_size]  # noqa: E731
        top = 0
        for cls, rows in best_series(pts, size, ns, lambda a, b: a < b, self.results, by_threads=False).items():
            rows = [(x, rate(p, "bytes_per_node"), p) for x, _, p in rows]
            top = max([top] + [r[1] for r in rows])
            color, marker = STYLE[cls[0]]
            ax.plot([r[0] for r in rows], [r[1] for r in rows], color=color, marker=marker, linewidth=1.5,
                    label=cls[1].replace(", fastest engine", ""))
        log2_x(ax, sorted({size(p) for p in pts}), True)
        ax.set_ylim(0, top * 1.15)
        style(ax, "How much memory does labeling one sector take per node?", "sector size",
              "bytes per node (peak RSS growth)")
        legend_right(ax)
        self.save(fig, "label_memory", "Memory per node during labeling, one sector",
                  "Peak resident memory growth while labeling one sector divided by its nodes, for the point of the "
                  "fastest engine or kernel at each size. Small sectors are dominated by page granularity (4 KiB "
                  "pages over the 64 nodes of a 2KiB sector is 64 B per node).")

    def label_figures(self):
        self.label_latency()
        self.label_throughput()
        self.label_efficiency()
        self.label_memory()

    def data_scaling(self):
        """Label points of a data-scaling experiment (they name the window_nodes axis):
        bytes per node (RAM, whole sectors) and ns/node/layer against sector size."""
        pts = [p for p in ok_points(self.results, KIND.label) if AX.window_nodes in p[K.axes]
               and p.get(K.rates, {}).get(RATE.ns_per_node_layer)]
        if len({p[K.axes][AX.sector_size] for p in pts}) < 2:
            return
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(12.0, 4.6))
        any_mem, top = False, 0.0
        for backend in OrderedDict.fromkeys(p[K.axes].get(AX.backend) for p in pts):
            bp = sorted([p for p in pts if p[K.axes].get(AX.backend) == backend], key=lambda p: p[K.axes][AX.sector_size])
            key, name = device_class(bp[0], False, self.results)
            name = name.replace(", fastest engine", "")
            color, marker = STYLE[key]
            whole = fastest_per_size([p for p in bp if not is_window(p)])
            win = fastest_per_size([p for p in bp if is_window(p)])
            mem = [(p[K.axes][AX.sector_size], p[K.context]["max_rss_bytes"] / p[K.context]["nodes"]) for p in whole
                   if p.get(K.context, {}).get("max_rss_bytes") and p[K.context].get("nodes")]
            if mem:
                any_mem = True
                a1.plot([m[0] for m in mem], [m[1] for m in mem], color=color, marker=marker,
                        label="%s: peak RSS / nodes (measured)" % name)
            for part, style_, what, face in ((whole, "-", "whole sector", color),
                                             (win, "--", "node window of a full-size sector", "white")):
                if part and sectors_of(part[0]) > 1:
                    what += ", %d sectors" % sectors_of(part[0])
                if part:
                    top = max([top] + [p[K.rates][RATE.ns_per_node_layer] for p in part])
                    a2.plot([p[K.axes][AX.sector_size] for p in part], [p[K.rates][RATE.ns_per_node_layer] for p in part],
                            color=color, linestyle=style_, marker=marker, markerfacecolor=face,
                            label="%s, %s" % (name, what))
        a1.axhline(200, color="0.35", linestyle="--", linewidth=1, label="2019 report: 200 B/node (quoted)")
        if not any_mem:
            a1.text(0.5, 0.5, "no whole-sector points in these results", transform=a1.transAxes, ha="center",
                    color="0.35")
        sizes = sorted({p[K.axes][AX.sector_size] for p in pts})
        for ax in (a1, a2):
            log2_x(ax, sizes, True)
            plt.setp(ax.get_xticklabels(), rotation=35, ha="right")
            ax.set_ylim(bottom=0)
        a2.set_ylim(0, top * 1.25)
        style(a1, "How much RAM per node does labeling need?", "sector size", "bytes per node")
        style(a2, "Does labeling slow down as sectors grow?", "sector size", "ns per node per layer")
        a1.legend(fontsize=7, loc="lower left")
        a2.legend(fontsize=7, loc="upper left")
        fig.suptitle("Data scaling on %s" % cpu_name(self.results), fontsize=11)
        fig.tight_layout()
        self.save(fig, "data_scaling", "Data scaling: bytes/node and ns/node/layer vs sector size",
                  "Left: the process's peak resident set (parent table, both layers, everything) over the sector's "
                  "nodes, for whole-sector points; the dashed line is the 2019 Supranational PoRep report's "
                  "200 B/node (quoted). Right: median ns per node per layer, at each size the fastest point of the "
                  "fewest sectors measured (one, where measured); dashed with hollow markers: node windows of a "
                  "full-size sector (docs/scaling.md), not whole-sector runs.")

    def tree_d(self):
        pts = [p for p in ok_points(self.results, KIND.tree_d) if "gb_per_s" in p.get(K.rates, {})]
        if not pts:
            return
        fig, ax = plt.subplots(figsize=(7, 4.3))
        series = make_series(pts, AX.sector_size)
        for i, (label, sp) in enumerate(series[:6]):
            ax.plot([p[K.axes][AX.sector_size] for p in sp], [p[K.rates]["gb_per_s"] for p in sp],
                    marker=MARKERS[i % len(MARKERS)], color="C%d" % i, label=label.replace("tree_d", "").strip(", "))
        log2_x(ax, sorted({p[K.axes][AX.sector_size] for p in pts}), True)
        ax.set_ylim(bottom=0)
        style(ax, "How fast is tree_d (comm_d) built? (CPU: %s)" % cpu_name(self.results), "sector size",
              "GB of sector data per second")
        if len(series) > 1:
            ax.legend(fontsize=8)
        self.save(fig, "tree_d_throughput", "tree_d throughput",
                  "Sector data hashed into tree_d per second (median; higher is better).")

    # -- the verdict: PC1 time of one sector against sector size, per device.
    VERDICT_KINDS = OrderedDict([
        ("cpu-core", "CPU, one core, fastest engine"),
        ("cpu-no-sha-ni-core", "CPU, one core, without SHA-NI"),
        ("gpu", None),  # the measured GPU's name
        ("gpu-model", None),
        ("gpu-reference", None),  # one series per GPU measured elsewhere, drawn over the model
        ("gpu-emulated", EMU_LABEL),
    ])
    VERDICT_STYLE = {"cpu-core": "cpu", "cpu-no-sha-ni-core": "cpu-no-sha-ni", "gpu": "gpu",
                     "gpu-reference": "gpu-reference", "gpu-model": "gpu-model", "gpu-emulated": "emu"}

    def verdict(self):
        """PC1 time of one sector against sector size, per device, from DIR/verdict.json.
        The whole-CPU rows are left out as lines: one sector's chain runs on one core; a
        producer thread's gain shows in the window pentagons."""
        series = OrderedDict()  # (kind, device) -> (label, rows, colour)
        for kind, label in self.VERDICT_KINDS.items():
            rows = [(s[AX.sector_size],) + field(d, "pc1_seconds") + (d,)
                    for s, d in verdict_rows(self.verdict_data, kind)]
            rows = [r for r in rows if r[1] is not None and r[1] > 0]
            for device in OrderedDict((r[3].get(CTX.device), None) for r in rows):
                mine = [r for r in rows if r[3].get(CTX.device) == device]
                d = mine[0][3]
                name = short_gpu_name(d.get("name") or d.get(CTX.device, "GPU"))
                color = STYLE[self.VERDICT_STYLE[kind]][0]
                if kind == "gpu-reference":
                    color = REFERENCE_COLORS[sum(k == kind for k, _ in series) % len(REFERENCE_COLORS)]
                    text = "GPU: %s, measured elsewhere (%s)" % (name, d.get("reference", "").split(",")[0])
                elif kind == "gpu-model":
                    text = "GPU MODELED: %s (not measured)" % name
                else:
                    text = "GPU: %s (measured)" % name
                series[(kind, device)] = (label or text, sorted(mine, key=lambda r: r[0]), color)
                if kind != "gpu-reference":
                    break  # one series per kind: its first device
        if not series:
            return
        fig, ax = plt.subplots(figsize=(9.0, 5.0))
        ys, seen = [], set()
        for (kind, _), (label, rows, color) in series.items():
            marker = STYLE[self.VERDICT_STYLE[kind]][1]
            xs = [r[0] for r in rows]
            ax.plot(xs, [r[1] for r in rows], color=color,
                    linestyle="--" if kind == "gpu-model" else ":" if kind == "gpu-reference" else "-",
                    linewidth=1.5, label=label)
            for x, y, src, _ in rows:
                # Filled: measured (here, or elsewhere for a reference star); hollow: extrapolated or modeled.
                ax.plot([x], [y], color=color, marker=marker, markersize=10 if kind == "gpu-reference" else 7,
                        linestyle="none", markerfacecolor=color if src == "measured" else "white",
                        zorder=3 if kind == "gpu-reference" else 2)
                seen.add("elsewhere" if kind == "gpu-reference" and src == "measured" else src)
                ys.append(y)
        windows = self.verdict_windows(ax)
        ys += windows.get_ydata().tolist() if windows else []
        sizes = sorted({r[0] for _, rows, _ in series.values() for r in rows})
        log2_x(ax, sizes, True)
        # 32GiB and 64GiB sit one doubling apart on a 2KiB..64GiB axis: slanted labels.
        plt.setp(ax.get_xticklabels(), rotation=35, ha="right")
        time_axis(ax, ys)
        cpu = next((d.get(CTX.device, "").split(": ", 1)[-1] for _, d in verdict_rows(self.verdict_data, "cpu-core")),
                   cpu_name(self.results))
        style(ax, "How long does PC1 take for one sector, by sector size?\nCPU: %s" % cpu,
              "sector size",
              "PC1 time for one sector (log scale)")
        from matplotlib.lines import Line2D
        handles = []
        for (kind, _), (label, _, color) in series.items():
            marker = STYLE[self.VERDICT_STYLE[kind]][1]
            handles.append(Line2D([], [], color=color, marker=marker,
                                  linestyle="--" if kind == "gpu-model" else ":" if kind == "gpu-reference" else "-",
                                  label=label))
        if windows:
            handles.append(windows)
        key = [("measured", Line2D([], [], color="0.3", marker="o", linestyle="none", label="filled: measured here")),
               ("elsewhere", Line2D([], [], color="0.3", marker="*", markersize=10, linestyle="none",
                                    label="filled star: measured elsewhere (a reference dataset)")),
               ("extrapolated", Line2D([], [], color="0.3", marker="o", markerfacecolor="white", linestyle="none",
                                       label="hollow: extrapolated from a measured size")),
               ("modeled", Line2D([], [], color="0.3", linestyle="--", marker="o", markerfacecolor="white",
                                  label="dashed: MODELED, not measured"))]
        handles += [h for src, h in key if src in seen]
        legend_right(ax, handles)
        self.save(fig, "verdict_pc1", "PC1 time per sector by sector size (verdict)",
                  "Wall time of PC1 (every layer) for one sector against sector size per device (log-log), from "
                  "verdict.json. Filled markers are measured here, filled stars on dotted lines measured on a GPU "
                  "elsewhere (a reference dataset the repository holds, named in the legend), hollow ones "
                  "extrapolated from a measured size "
                  "(time per node x nodes x layers); dashed lines are MODELED from the kernel's SASS, not measured. "
                  "One sector's hash chain runs on one core, so the line is one core's; a second core can only "
                  "gather the parents ahead (a producer thread), which the pentagons include. cuda-emu runs the "
                  "CUDA kernels on the host CPU: an emulation, never a GPU."
                  + (" Hollow pentagons: PC1 of the whole sector from the fastest node window of it measured here "
                     "(time per node x nodes x layers), a producer thread's included." if windows else ""))

    def verdict_windows(self, ax):
        """Node windows of full-size sectors measured in this directory, as PC1 of the whole
        sector (time per node x nodes x the verdict's layers): extrapolations, hollow pentagons."""
        layers = {s[AX.sector_size]: s.get(AX.layers) for s in (self.verdict_data or {}).get("sizes", [])}
        pts = [p for p in self.label_points() if is_window(p) and on_host_cpu(p)
               and layers.get(p[K.axes][AX.sector_size]) and rate(p, RATE.ns_per_node_layer)]
        best = {}
        for p in pts:
            s = p[K.axes][AX.sector_size]
            if s not in best or rate(p, RATE.ns_per_node_layer) < rate(best[s], RATE.ns_per_node_layer):
                best[s] = p
        if not best:
            return None
        xs = sorted(best)
        ys = [rate(best[s], RATE.ns_per_node_layer) * 1e-9 * (s // 32) * layers[s] for s in xs]
        return ax.plot(xs, ys, color=STYLE["cpu"][0], marker="p", markerfacecolor="white", linestyle="none",
                       markersize=8, label="CPU: fastest node window × nodes × layers (a producer's too)")[0]

    def write_index(self):
        text = json.dumps(self.index, indent=2).encode()
        write_file(os.path.join(self.dir, "index.json"), lambda f: f.write(text))


VERDICT_COLORS = {"faster": "#2ca02c", "slower": "#d62728", "within noise": "#7f7f7f"}


def compare_figure(d):
    """DIR/plots/compare.{png,svg} from DIR/compare.json (poreplab compare): per compared
    side, each point's ratio to the baseline with its 95% bootstrap interval, log scale."""
    data = json.loads(read_file(os.path.join(d, "compare.json")))
    comps = [c for c in data.get("comparisons", []) if c.get("points")]
    if not comps:
        print("plot: no compared points in %s" % d, file=sys.stderr)
        return 0
    heights = [max(2.0, 0.28 * len(c["points"]) + 1.2) for c in comps]
    fig, axes = plt.subplots(len(comps), 1, figsize=(9, sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, c in zip(axes[:, 0], comps):
        pts = c["points"]
        ys = list(range(len(pts)))[::-1]
        for y, p in zip(ys, pts):
            color = VERDICT_COLORS.get(p["verdict"], "black")
            lo, hi = p["ci95"] if p.get("ci95") else (p["ratio"], p["ratio"])
            ax.plot([lo, hi], [y, y], color=color, linewidth=2)
            ax.plot([p["ratio"]], [y], marker="o" if p.get("ci95") else "x", color=color, markersize=6)
        ax.axvline(1.0, color="0.3", linewidth=0.8)
        ax.set_xscale("log")
        ratios = [v for p in pts for v in ([p["ratio"]] + (p["ci95"] or []))]
        lo, hi = min(ratios + [1.0]), max(ratios + [1.0])
        ax.set_xlim(lo / 1.15, hi * 1.15)
        ticks = [m * 10.0 ** e for e in range(-4, 5) for m in (1, 2, 5) if lo / 1.15 <= m * 10.0 ** e <= hi * 1.15]
        ticks += [v for v in (0.8, 0.9, 1.1, 1.25) if lo / 1.15 <= v <= hi * 1.15 and hi / lo < 3]
        ax.set_xticks(sorted(set(ticks)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % float("%.3g" % v)))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_yticks(ys)
        ax.set_yticklabels([p.get("label") or p[K.description] for p in pts], fontsize=7)
        ax.set_ylim(-0.7, len(pts) - 0.3)
        ax.grid(True, axis="x", which="both", alpha=0.3)
        ax.set_title("%s against %s\n%d faster, %d slower, %d within noise" % (
            c["other"], c["baseline"], c["counts"]["faster"], c["counts"]["slower"], c["counts"]["within_noise"]),
            fontsize=9)
        ax.set_xlabel("ratio of medians, other / baseline (log)\nfor times, below 1 is faster", fontsize=8)
    fig.tight_layout()
    out = own_directory(os.path.join(d, "plots"))
    for ext in ("png", "svg"):
        save_figure(fig, os.path.join(out, "compare." + ext), ext, dpi=110)
    plt.close(fig)
    print("plot: %s" % os.path.join(out, "compare.png"), file=sys.stderr)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--compare":
        return compare_figure(argv[2])
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    d = argv[1]
    results = load_results(d)
    figs = Figures(d, results)
    figs.verdict()
    figs.hash_cycles()
    figs.label_figures()
    figs.data_scaling()
    figs.tree_d()
    figs.write_index()
    print("plot: %d figures in %s" % (len(figs.index), figs.dir), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
