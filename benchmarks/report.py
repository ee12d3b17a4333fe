#!/usr/bin/env python3
"""benchmarks/report.py — markdown table and plot from a benchmark results CSV.

Reads a CSV in the docs/benchmarks.md schema written by scan_bench,
scan_tuning_bench, scan_policies_bench, compact_bench or ragged_bench (one row
per case and baseline):

    primitive,variant,policy,type,n,scankit_ms,baseline,baseline_ms,copy_ms,
    pct_of_copy,speedup_vs_baseline,gpu,date,commit

and writes beside it (same name, other suffix; --out-dir DIR writes there
instead):

  <name>.md   a header line (GPU, date, commit) and one table row per
              (variant, policy, type, n): scankit / CUB / Thrust / copy ms,
              scankit % of copy, CUB % of copy (copy_ms / cub baseline_ms * 100),
              speedup of scankit vs CUB and vs Thrust; plus a headline line
              (int32 inclusive at 2^28, 2^24, 2^16) when those rows exist;
  <name>.png  % of copy against n (log2 axis), one panel per variant
              (inclusive, exclusive, ...): scankit solid, CUB dashed, one colour
              per type; when a CSV holds several policies (a tuning sweep), one
              panel per variant and type, one colour per policy.
              Needs matplotlib; without it the plot is skipped with a message.

Scan policies (policy names "<grid>/<block>", scan_policies_bench): the
markdown starts with one table per variant and type, a row per policy and a
column per n, of % of copy (best per column in bold), then the full table;
the plot has one panel per variant and type, colour = block algorithm,
line style and marker = grid strategy, a logarithmic % axis when the
policies span more than 20x, and the legend outside the panels.

Selection primitives (primitive "compact", compact_bench, or
"compact_back_to_back", its --back-to-back-csv; variant
"<operation>_<rate>", e.g. flagged_50, if_10, partition_90, unique_50,
rle_50): % of copy is the CSV's pct_of_copy, which credits each operation
with the bytes it must move (docs/benchmarks.md); a baseline's % of copy is
pct_of_copy × scankit_ms ÷ baseline_ms (same bytes). The markdown starts with
a headline (uint32, 2^28, 50 %), then one table per type at 2^28 and at 2^24
(the largest size when neither was run): a row per operation and rate, with
scankit % of copy, and per baseline (CUB, Thrust) its % of copy and the
speedup; then, when the CSV holds compact_bench's scan-policy sweep (uint32
flagged_50 rows whose policy is not the default), a table of % of copy with a
row per scan policy (the default first, in bold; CUB DeviceSelect::Flagged
last) and a column per n the sweep ran; then the table of all cases. The
plot has one panel per type: % of copy against n for each operation at 50 %
(the rate nearest 50 % when absent), scankit solid, CUB dashed, Thrust
dotted, one colour per operation. The headline, the per-type tables, the
table of all cases and the plot use the default-policy rows only.

Ragged primitives (ragged_bench; primitives segmented_reduce, reduce_by_key,
load_balancing_search, interval_expand, allocation_offsets): % of copy is the
CSV's pct_of_copy (bytes each case must move, docs/benchmarks.md), a
baseline's as for compact. The markdown starts with a headline (segmented
reduction at its largest n: % of the read-only speed of light per length
distribution, target >= 70 %, and speedup vs CUB, target >= 100x for
segments of 4), then a table per primitive (rows type / variant / n):
scankit ms and % of copy, then per baseline its ms and the speedup; for
segmented_reduce also "% RO SOL" = read_only_stream ms / scankit ms * 100.
The plot has one panel per primitive: segmented_reduce as % of the
read-only speed of light (70 % target line), the others as % of copy, against
n; scankit solid, CUB dashed, Thrust dotted, one colour per variant
(reduce_by_key: int32/int32 only; load_balancing_search: uint32 only;
allocation_offsets: the baselines drawn once, with with_offsets).

Numeric modes (primitive "scan_numeric", scan_numeric_bench; policy = the
numeric mode fast / run_to_run / exact / compensated of the float and double
inclusive sum; baselines cub and, for modes other than fast, fast): the error
columns, for which the schema has no room, come from the companion CSV
<name>_accuracy.csv beside it (scan_numeric_bench writes both):

    type,n,contender,max_abs_err,max_ulp_err,inexact_outputs,sum_abs,
    distinct_outputs,runs,gpu,date,commit

(contender = a mode or cub; errors against the exact prefix sums rounded to
the type; see scan_numeric_bench.cu). The markdown has a headline (the
largest n: each mode's % of copy and speed vs fast; run_to_run's target is
>= 0.9x fast, design.md) and one table per type, a row per n and contender
(the modes, then CUB): ms, GB/s (2·n·sizeof(T) ÷ time), % of copy, speedup
vs CUB (CUB ms ÷ ms) and vs fast (fast ms ÷ ms), max ulp error, max absolute
error, that error ÷ (u·Σ|x|) (u = 2^-24 float, 2^-53 double), the share of
outputs that are not the correctly rounded exact sum, and distinct outputs
over the repeat runs. Without the companion CSV the error columns show —.
The plot: % of copy against n, one panel per type, one line per mode, CUB
dashed.

Usage: python3 benchmarks/report.py benchmarks/results/scan.csv [--title TEXT] [--no-plot] [--out-dir DIR]
Only the Python standard library is needed for the markdown.
"""

import argparse
import csv
import math
import os
import sys

HEADER = [
    "primitive", "variant", "policy", "type", "n", "scankit_ms", "baseline", "baseline_ms",
    "copy_ms", "pct_of_copy", "speedup_vs_baseline", "gpu", "date", "commit",
]
TYPE_ORDER = ["int32", "uint32", "float", "int64", "uint64", "double"]
VARIANT_ORDER = ["inclusive", "exclusive"]
# Scan policies "<grid>/<block>", in the order of scankit::all_scan_policies().
GRID_ORDER = ["decoupled_lookback", "reduce_then_scan", "scan_then_propagate", "chained"]
BLOCK_ORDER = ["warp_shuffle", "kogge_stone", "kogge_stone_double_buffer", "brent_kung", "three_phase"]
DEFAULT_POLICY = "decoupled_lookback/warp_shuffle"  # the tuned default (scankit/policy.hpp)


def order(value, known):
    return (known.index(value), value) if value in known else (len(known), value)


def is_grid_block(policy):
    return "/" in policy


def policy_order(policy):
    """grid/block names in all_scan_policies() order; others by name after them."""
    if is_grid_block(policy):
        grid, block = policy.split("/", 1)
        return (0, order(grid, GRID_ORDER), order(block, BLOCK_ORDER))
    return (1, policy)


def policy_sweep(cases):
    """True for a CSV of grid/block scan policies (scan_policies_bench)."""
    return all(is_grid_block(k[2]) for k in cases)


def read_cases(path):
    """Rows grouped into cases keyed by (primitive, variant, policy, type, n)."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != HEADER:
            sys.exit(f"{path}: unexpected header {reader.fieldnames}\n  expected {','.join(HEADER)}")
        cases, meta = {}, {"gpu": [], "date": [], "commit": []}
        for line, row in enumerate(reader, start=2):
            try:
                key = (row["primitive"], row["variant"], row["policy"], row["type"], int(row["n"]))
                scankit_ms, baseline_ms, copy_ms = (float(row[k]) for k in ("scankit_ms", "baseline_ms", "copy_ms"))
            except (TypeError, ValueError) as e:
                sys.exit(f"{path}:{line}: bad row ({e}): {row}")
            if min(scankit_ms, baseline_ms, copy_ms) <= 0:
                sys.exit(f"{path}:{line}: non-positive time in row: {row}")
            case = cases.setdefault(key, {"scankit_ms": scankit_ms, "copy_ms": copy_ms, "baselines": {},
                                          "pct_of_copy": row["pct_of_copy"]})
            case["baselines"][row["baseline"]] = baseline_ms
            for k in meta:
                if row[k] not in meta[k]:
                    meta[k].append(row[k])
    if not cases:
        sys.exit(f"{path}: no data rows")
    return cases, meta


def sorted_keys(cases):
    return sorted(cases, key=lambda k: (k[0], order(k[1], VARIANT_ORDER), order(k[3], TYPE_ORDER), k[4],
                                        policy_order(k[2])))


def size_label(n):
    lg = math.log2(n)
    return f"2^{int(lg)}" if lg == int(lg) else str(n)


def fmt_ms(v):
    return "—" if v is None else f"{v:.4f}"


def fmt_pct(v):
    if v is None:
        return "—"
    return f"{v:.1f} %" if v >= 1 else f"{v:.2f} %"  # the slowest scan policies are far below 1 %


def fmt_x(v):
    if v is None:
        return "—"
    return f"{v:.2f}×" if v >= 0.1 else f"{v:.2g}×"  # the slowest scan policies are over 100x slower than CUB


def ratio(a, b):
    return None if a is None or b is None else a / b


def headline(cases):
    """The headline numbers (int32 inclusive scan targets), where present."""
    def find(n):
        for k in sorted_keys(cases):
            if k[0] == "scan" and k[1] == "inclusive" and k[3] == "int32" and k[4] == n:
                return cases[k]
        return None

    parts = []
    c = find(1 << 28)
    if c and "cub" in c["baselines"]:
        parts.append(f"2^28: {c['copy_ms'] / c['scankit_ms'] * 100:.1f} % of copy, "
                     f"{c['baselines']['cub'] / c['scankit_ms']:.2f}× CUB (target ≥ 90 %, ≥ 1.2×)")
    c = find(1 << 24)
    if c:
        parts.append(f"2^24: {c['copy_ms'] / c['scankit_ms'] * 100:.1f} % of copy (target ≥ 80 %)")
    c = find(1 << 16)
    if c:
        cub = c["baselines"].get("cub")
        extra = f", CUB {cub * 1e3:.1f} µs" if cub else ""
        parts.append(f"2^16: {c['scankit_ms'] * 1e3:.1f} µs{extra} (target ≤ 7 µs)")
    return ("**Headline, int32 inclusive sum** — " + "; ".join(parts)) if parts else None


def policy_tables(cases):
    """Scan policies: per variant and type, % of copy with a row per policy and
    a column per n (best per column in bold), then CUB and the copy time."""
    lines = []
    variants = sorted({k[1] for k in cases}, key=lambda v: order(v, VARIANT_ORDER))
    types = sorted({k[3] for k in cases}, key=lambda t: order(t, TYPE_ORDER))
    for variant in variants:
        for t in types:
            keys = [k for k in cases if k[1] == variant and k[3] == t]
            if not keys:
                continue
            sizes = sorted({k[4] for k in keys})
            policies = sorted({k[2] for k in keys}, key=policy_order)
            pct = {(k[2], k[4]): cases[k]["copy_ms"] / cases[k]["scankit_ms"] * 100 for k in keys}
            best = {n: max(v for (p, m), v in pct.items() if m == n) for n in sizes}
            lines.append(f"### {variant} {t}: % of copy by policy")
            lines.append("")
            lines.append("| policy | " + " | ".join(size_label(n) for n in sizes) + " |")
            lines.append("|---|" + "---:|" * len(sizes))
            for p in policies:
                cells = []
                for n in sizes:
                    v = pct.get((p, n))
                    cell = fmt_pct(v)
                    cells.append(f"**{cell}**" if len(policies) > 1 and v is not None and v == best[n] else cell)
                label = f"{p} (default)" if p == DEFAULT_POLICY else p
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
            cub_cells, copy_cells = [], []
            for n in sizes:
                c = next((cases[k] for k in keys if k[4] == n and "cub" in cases[k]["baselines"]), None)
                cub_cells.append(fmt_pct(None if c is None else c["copy_ms"] / c["baselines"]["cub"] * 100))
                copy_cells.append(fmt_ms(next(cases[k]["copy_ms"] for k in keys if k[4] == n)))
            lines.append("| *CUB InclusiveSum* | " + " | ".join(cub_cells) + " |")
            lines.append("| *copy ms* | " + " | ".join(copy_cells) + " |")
            lines.append("")
    return lines


# ---- selection primitives (compact_bench) ----------------------------------

COMPACT_OPS = ["flagged", "if", "if_host", "partition", "unique", "rle"]
COMPACT_CUB = {"flagged": "DeviceSelect::Flagged", "if": "DeviceSelect::If", "if_host": "DeviceSelect::If",
               "partition": "DevicePartition::Flagged", "unique": "DeviceSelect::Unique",
               "rle": "DeviceRunLengthEncode::Encode"}
COMPACT_BYTES = ("bytes moved: flagged n·(T+1) + k·T, if (and if_host) n·T + k·T, partition n·(T+1) + n·T, "
                 "unique n·T + k·T, "
                 "rle n·T + k·(T+4); the copy moves 2·n·T (T = sizeof item, k = selected items or runs)")


def is_compact(cases):
    """True for a CSV of selection primitives (compact_bench), per call or back to back."""
    return all(k[0] in ("compact", "compact_back_to_back") for k in cases)


def is_back_to_back(cases):
    """True for compact_bench's back-to-back CSV (--back-to-back-csv)."""
    return all(k[0] == "compact_back_to_back" for k in cases)


def compact_default(cases):
    """The default-policy rows: every compact table but the policy table, and the plot."""
    return {k: c for k, c in cases.items() if k[2] == DEFAULT_POLICY}


def compact_variant(variant):
    """("flagged", 50) from "flagged_50"; (variant, None) if it has no rate."""
    op, _, rate = variant.rpartition("_")
    return (op, int(rate)) if op and rate.isdigit() else (variant, None)


def compact_order(key):
    op, rate = compact_variant(key[1])
    return (order(key[3], TYPE_ORDER), key[4], order(op, COMPACT_OPS), rate if rate is not None else -1, key[2])


def compact_pct(case, ms=None):
    """% of copy, credited with the bytes the operation moves: the CSV's
    pct_of_copy for scankit; for a baseline, the same bytes in its time."""
    try:
        pct = float(case["pct_of_copy"])
    except (TypeError, ValueError):
        pct = case["copy_ms"] / case["scankit_ms"] * 100
    return pct if ms is None else pct * case["scankit_ms"] / ms


def compact_headline(cases):
    """uint32 at 2^28, 50 %: every operation against its CUB call."""
    parts = []
    for op in COMPACT_OPS:
        c = next((cases[k] for k in cases if k[3] == "uint32" and k[4] == 1 << 28 and compact_variant(k[1]) == (op, 50)),
                 None)
        if c is None or "cub" not in c["baselines"]:
            continue
        text = (f"{op} {fmt_pct(compact_pct(c))} (CUB {fmt_pct(compact_pct(c, c['baselines']['cub']))}, "
                f"{fmt_x(c['baselines']['cub'] / c['scankit_ms'])}")
        if "thrust" in c["baselines"]:
            text += (f"; Thrust {fmt_pct(compact_pct(c, c['baselines']['thrust']))}, "
                     f"{fmt_x(c['baselines']['thrust'] / c['scankit_ms'])}")
        parts.append(text + ")")
    return ("**Headline, uint32 at 2^28, 50 % selected** — % of copy: " + "; ".join(parts)) if parts else None


def compact_tables(cases):
    """Per type, at 2^28 and 2^24 (else the largest n): a row per operation and
    rate; scankit % of copy, and per baseline its % of copy and the speedup."""
    lines = []
    baselines = [b for b in ("cub", "thrust") if any(b in c["baselines"] for c in cases.values())]
    names = {"cub": "CUB", "thrust": "Thrust"}
    types = sorted({k[3] for k in cases}, key=lambda t: order(t, TYPE_ORDER))
    for t in types:
        sizes_run = sorted({k[4] for k in cases if k[3] == t})
        sizes = [n for n in (1 << 28, 1 << 24) if n in sizes_run] or sizes_run[-1:]
        for n in sizes:
            keys = sorted((k for k in cases if k[3] == t and k[4] == n), key=compact_order)
            lines.append(f"### {t}, n = {size_label(n)}: % of copy by operation and rate")
            lines.append("")
            cols = ["operation", "rate", "scankit % copy"]
            for b in baselines:
                cols += [f"{names[b]} % copy", f"vs {names[b]}"]
            lines.append("| " + " | ".join(cols) + " |")
            lines.append("|---|" + "---:|" * (len(cols) - 1))
            for k in keys:
                c = cases[k]
                op, rate = compact_variant(k[1])
                row = [op, "—" if rate is None else f"{rate} %", fmt_pct(compact_pct(c))]
                for b in baselines:
                    ms = c["baselines"].get(b)
                    row += [fmt_pct(None if ms is None else compact_pct(c, ms)), fmt_x(ratio(ms, c["scankit_ms"]))]
                lines.append("| " + " | ".join(row) + " |")
            copy_ms = cases[keys[0]]["copy_ms"]
            lines.append("")
            lines.append(f"copy of {size_label(n)} {t} items: {fmt_ms(copy_ms)} ms. Baselines: CUB "
                         + ", ".join(f"{op}: {COMPACT_CUB[op]}" for op in COMPACT_OPS)
                         + ("; Thrust: copy_if (if only)" if "thrust" in baselines else "") + ".")
            lines.append("")
    return lines


POLICY_SWEEP_VARIANT, POLICY_SWEEP_TYPE = "flagged_50", "uint32"  # compact_bench's scan-policy sweep


def compact_policy_table(cases):
    """The scan-policy sweep: uint32 flagged 50 %, % of copy with a row per
    policy (the default first, in bold) and a column per n the sweep ran;
    CUB DeviceSelect::Flagged last. Empty without the sweep's rows."""
    sweep = {k: c for k, c in cases.items() if k[1] == POLICY_SWEEP_VARIANT and k[3] == POLICY_SWEEP_TYPE}
    sizes = sorted({k[4] for k in sweep if k[2] != DEFAULT_POLICY})
    if not sizes:
        return []
    policies = sorted({k[2] for k in sweep if k[4] in sizes}, key=lambda p: (p != DEFAULT_POLICY, policy_order(p)))
    lines = [f"### {POLICY_SWEEP_TYPE} flagged 50 %: % of copy by scan policy", ""]
    lines.append("| policy | " + " | ".join(size_label(n) for n in sizes) + " |")
    lines.append("|---|" + "---:|" * len(sizes))
    for p in policies:
        cells = []
        for n in sizes:
            c = sweep.get(("compact", POLICY_SWEEP_VARIANT, p, POLICY_SWEEP_TYPE, n))
            cell = fmt_pct(None if c is None else compact_pct(c))
            cells.append(f"**{cell}**" if p == DEFAULT_POLICY and c is not None else cell)
        label = f"**{p} (default)**" if p == DEFAULT_POLICY else p
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    cub_cells = []
    for n in sizes:
        # CUB is measured once per size: the default row's, else any row's.
        at_n = sorted((k for k in sweep if k[4] == n and "cub" in sweep[k]["baselines"]),
                      key=lambda k: (k[2] != DEFAULT_POLICY, policy_order(k[2])))
        c = sweep[at_n[0]] if at_n else None
        cub_cells.append(fmt_pct(None if c is None else compact_pct(c, c["baselines"]["cub"])))
    lines.append(f"| *CUB {COMPACT_CUB['flagged']}* | " + " | ".join(cub_cells) + " |")
    lines.append("")
    lines.append("compact_async with uint8 flags and each scan policy (grid strategy / block algorithm): the default "
                 "is the single-pass selection (decoupled look-back); every other policy runs mark → exclusive scan "
                 "of the marks with that policy → scatter. % copy as above (flagged bytes). — = not run: chained "
                 "policies, whose tiles run one after the other, are timed at 2^24 only.")
    lines.append("")
    return lines


def write_compact_markdown(cases, meta, csv_path, md_path, title):
    lines = [f"# {title}", ""]
    lines.append(f"GPU: {', '.join(meta['gpu'])} · date: {', '.join(meta['date'])} · "
                 f"commit: {', '.join(meta['commit'])} · source: `{os.path.basename(csv_path)}`")
    lines.append("")
    timing = ("Times are per call of calls queued back to back: the median over five batches of a batch's time ÷ "
              "its calls (CUDA events around each batch, none between its calls; the copy timed the same way)."
              if is_back_to_back(cases) else
              "Times are medians of single calls (CUDA events around each; scankit's, CUB's and the copy's calls "
              "queued behind a hold kernel and released together, so each is GPU time alone, unless compact_bench "
              "ran with --unheld; Thrust's as issued, since it synchronizes inside its call).")
    lines.append(f"{timing} % copy = the operation's effective bandwidth "
                 "relative to cudaMemcpy D2D: copy time × (bytes the operation must move ÷ bytes the copy moved) ÷ "
                 f"the operation's time × 100 ({COMPACT_BYTES}); speedup = baseline time ÷ scankit time. Rate: % of "
                 "items selected (flagged, if, if_host, partition) or starting a run (unique, rle: mean run length "
                 "100 ÷ rate).")
    lines.append("")
    all_cases, cases = cases, compact_default(cases)
    hl = compact_headline(cases)
    if hl:
        lines += [hl, ""]
    lines += compact_tables(cases)
    lines += compact_policy_table(all_cases)
    lines += ["### All cases", ""]
    show_thrust = any("thrust" in c["baselines"] for c in cases.values())
    policies = sorted({k[2] for k in cases})
    show_policy = len(policies) > 1
    cols = ["type", "operation", "rate"] + (["policy"] if show_policy else []) + [
        "n", "scankit ms", "CUB ms"] + (["Thrust ms"] if show_thrust else []) + [
        "copy ms", "scankit % copy", "CUB % copy"] + (["Thrust % copy"] if show_thrust else []) + [
        "speedup vs CUB"] + (["vs Thrust"] if show_thrust else [])
    text_cols = 4 if show_policy else 3
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "|".join("---" if i < text_cols else "---:" for i in range(len(cols))) + "|")
    for k in sorted(cases, key=compact_order):
        c = cases[k]
        op, rate = compact_variant(k[1])
        cub, thr = c["baselines"].get("cub"), c["baselines"].get("thrust")
        row = [k[3], op, "—" if rate is None else f"{rate} %"] + ([k[2]] if show_policy else []) + [
            size_label(k[4]), fmt_ms(c["scankit_ms"]), fmt_ms(cub)] + ([fmt_ms(thr)] if show_thrust else []) + [
            fmt_ms(c["copy_ms"]), fmt_pct(compact_pct(c)), fmt_pct(None if cub is None else compact_pct(c, cub))] + (
            [fmt_pct(None if thr is None else compact_pct(c, thr))] if show_thrust else []) + [
            fmt_x(ratio(cub, c["scankit_ms"]))] + ([fmt_x(ratio(thr, c["scankit_ms"]))] if show_thrust else [])
        lines.append("| " + " | ".join(row) + " |")
    with open(md_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {md_path} ({len(all_cases)} cases)")


def write_compact_plot(plt, cases, meta, png_path, title):
    """% of copy vs n, one panel per type, each operation at 50 % (or the rate
    nearest it): scankit solid, CUB dashed, Thrust dotted; colour = operation."""
    from matplotlib.ticker import FuncFormatter

    types = sorted({k[3] for k in cases}, key=lambda t: order(t, TYPE_ORDER))
    ops = sorted({compact_variant(k[1])[0] for k in cases}, key=lambda o: order(o, COMPACT_OPS))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = {"cub": ("--", "x", "CUB"), "thrust": (":", "+", "Thrust")}
    fig, axes = plt.subplots(1, len(types), figsize=(6.5 * len(types), 4.8), squeeze=False, sharey=True)
    rates_shown = set()
    for ax, t in zip(axes[0], types):
        for i, op in enumerate(ops):
            keys = [k for k in cases if k[3] == t and compact_variant(k[1])[0] == op]
            rates = {compact_variant(k[1])[1] for k in keys} - {None}
            if not keys:
                continue
            rate = min(rates, key=lambda r: (abs(r - 50), r)) if rates else None
            rates_shown.add(rate)
            keys = sorted((k for k in keys if compact_variant(k[1])[1] == rate), key=lambda k: k[4])
            color = colors[order(op, COMPACT_OPS)[0] % len(colors)]
            label = op if rate in (50, None) else f"{op} {rate} %"
            ax.plot([k[4] for k in keys], [compact_pct(cases[k]) for k in keys], "-o", color=color, markersize=3,
                    label=f"scankit {label}")
            for b, (line, marker, name) in styles.items():
                with_b = [k for k in keys if b in cases[k]["baselines"]]
                if with_b:
                    ax.plot([k[4] for k in with_b], [compact_pct(cases[k], cases[k]["baselines"][b]) for k in with_b],
                            linestyle=line, marker=marker, color=color, markersize=4, alpha=0.8,
                            label=f"{name} {label}")
        ax.axhline(100, color="gray", linewidth=0.8, linestyle=":")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted({k[4] for k in cases if k[3] == t}))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: size_label(x) if x > 0 else ""))
        ax.set_xlabel("n (items)")
        ax.set_title(t)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    rate_text = "50 % selected" if rates_shown <= {50, None} else "rate nearest 50 %"
    axes[0][0].set_ylabel(f"% of cudaMemcpy D2D bandwidth ({rate_text})")
    fig.suptitle(f"{title} — {', '.join(meta['gpu'])}, {', '.join(meta['date'])}, commit {', '.join(meta['commit'])}",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(png_path, dpi=130)
    plt.close(fig)
    print(f"wrote {png_path}")


# ---- ragged primitives (ragged_bench) --------------------------------------

RAGGED_PRIMS = ["segmented_reduce", "reduce_by_key", "load_balancing_search", "interval_expand", "allocation_offsets"]
RAGGED_VARIANTS = ["len1", "len4", "len256", "len65536", "uniform4", "uniform256", "powerlaw", "giant", "run1", "run4",
                   "run256", "run65536", "with_offsets", "first", "first:time_to_total"]
RAGGED_TYPES = ["int32", "int32/int32", "uint64/double", "uint32", "uint64", "int32/uint32", "uint32/uint32",
                "uint32/uint64"]
RAGGED_BASELINES = ["cub", "cub_u64", "thrust", "read_only_stream"]
RAGGED_BASELINE_NAMES = {"cub": "CUB", "cub_u64": "CUB u64-init", "thrust": "Thrust", "read_only_stream": "read-only"}
RAGGED_CALLS = {
    "segmented_reduce": "int32 sum, int32 offsets; CUB: DeviceSegmentedReduce::Sum; read-only: a streaming kernel "
                        "reading values + offsets + output once (% RO SOL = its time ÷ scankit's × 100)",
    "reduce_by_key": "sum; CUB: DeviceReduce::ReduceByKey; Thrust: reduce_by_key",
    "load_balancing_search": "source + rank; Thrust: upper_bound(offsets + 1, ..., counting) + transform(rank)",
    "interval_expand": "int32 values, uint32 offsets; Thrust: upper_bound + gather",
    "allocation_offsets": "uint32 sizes; CUB: DeviceScan::ExclusiveSum (accumulates in uint32); CUB u64-init: "
                          "ExclusiveScan(plus, uint64 0); first:time_to_total = call start → total_ready event",
}
RAGGED_BYTES = ("bytes moved: segmented_reduce 4n + 4(S+1) + 4S; reduce_by_key n(K+V) + R(K+V) + 8; "
                "load_balancing_search O(S+1) + 2·O·total; interval_expand 4S + O(S+1) + 4·total; "
                "allocation_offsets 4n + O(n+1) (time to total: 4n); the copy moves 2·n·sizeof(T)")
SEGREDUCE_RO_TARGET, SEGREDUCE_LEN4_CUB_TARGET = 70.0, 100.0


def is_ragged(cases):
    """True for a CSV of ragged primitives (ragged_bench)."""
    return all(k[0] in RAGGED_PRIMS for k in cases)


def ragged_order(key):
    return (order(key[0], RAGGED_PRIMS), order(key[3], RAGGED_TYPES), order(key[1], RAGGED_VARIANTS), key[4])


def ragged_x(v):
    """Speedups: whole numbers from 100× up (CUB's segmented reduction of short segments)."""
    return fmt_x(v) if v is None or v < 100 else f"{v:.0f}×"


def ragged_ro_pct(case):
    """% of the read-only speed of light (segmented_reduce), or None."""
    ro = case["baselines"].get("read_only_stream")
    return None if ro is None else ro / case["scankit_ms"] * 100


def ragged_headline(cases):
    keys = [k for k in cases if k[0] == "segmented_reduce"]
    if not keys:
        return None
    n = max(k[4] for k in keys)
    parts, lowest = [], None
    for k in sorted((k for k in keys if k[4] == n), key=ragged_order):
        c = cases[k]
        ro = ragged_ro_pct(c)
        cub = ratio(c["baselines"].get("cub"), c["scankit_ms"])
        text = f"{k[1]} {fmt_pct(ro)}"
        if ro is not None:
            text += " ✓" if ro >= SEGREDUCE_RO_TARGET else " ✗"
            lowest = ro if lowest is None else min(lowest, ro)
        text += f" ({ragged_x(cub)} CUB"
        if k[1] == "len4" and cub is not None:
            text += f", target ≥ {SEGREDUCE_LEN4_CUB_TARGET:g}× {'✓' if cub >= SEGREDUCE_LEN4_CUB_TARGET else '✗'}"
        parts.append(text + ")")
    tail = f"; lowest {fmt_pct(lowest)}" if lowest is not None else ""
    return (f"**Headline, segmented_reduce int32 at {size_label(n)}** — % of the read-only speed of light "
            f"(target ≥ {SEGREDUCE_RO_TARGET:g} % for every distribution) and speedup vs CUB: "
            + "; ".join(parts) + tail)


def ragged_tables(cases):
    lines = []
    for prim in [p for p in RAGGED_PRIMS if any(k[0] == p for k in cases)]:
        keys = sorted((k for k in cases if k[0] == prim), key=ragged_order)
        baselines = [b for b in RAGGED_BASELINES if any(b in cases[k]["baselines"] for k in keys)]
        lines += [f"### {prim}", "", RAGGED_CALLS.get(prim, "") + ".", ""]
        cols = ["type", "variant", "n", "scankit ms", "scankit % copy"]
        for b in baselines:
            name = RAGGED_BASELINE_NAMES.get(b, b)
            cols += [f"{name} ms", "% RO SOL" if b == "read_only_stream" else f"vs {name}"]
        lines.append("| " + " | ".join(cols) + " |")
        lines.append("|---|---|" + "---:|" * (len(cols) - 2))
        for k in keys:
            c = cases[k]
            row = [k[3], k[1], size_label(k[4]), fmt_ms(c["scankit_ms"]), fmt_pct(compact_pct(c))]
            for b in baselines:
                ms = c["baselines"].get(b)
                if b == "read_only_stream":
                    ro = ragged_ro_pct(c)
                    cell = fmt_pct(ro)
                    row += [fmt_ms(ms), f"**{cell}**" if ro is not None and ro < SEGREDUCE_RO_TARGET else cell]
                else:
                    row += [fmt_ms(ms), ragged_x(ratio(ms, c["scankit_ms"]))]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        if prim == "segmented_reduce":
            lines.append(f"% RO SOL in bold: below the {SEGREDUCE_RO_TARGET:g} % target.")
            lines.append("")
    return lines


def write_ragged_markdown(cases, meta, csv_path, md_path, title):
    lines = [f"# {title}", ""]
    lines.append(f"GPU: {', '.join(meta['gpu'])} · date: {', '.join(meta['date'])} · "
                 f"commit: {', '.join(meta['commit'])} · source: `{os.path.basename(csv_path)}`")
    lines.append("")
    lines.append("Times are medians of single calls (CUDA events; slow baselines fewer calls under a time budget, "
                 "see ragged_bench.cu). % copy = copy time × (bytes the case must move ÷ bytes the copy moved) ÷ "
                 f"the case's time × 100 ({RAGGED_BYTES}; S segments, R runs, O / K / V bytes per offset / key / "
                 "value); speedup = baseline time ÷ scankit time.")
    lines.append("")
    hl = ragged_headline(cases)
    if hl:
        lines += [hl, ""]
    lines += ragged_tables(cases)
    with open(md_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {md_path} ({len(cases)} cases)")


def write_ragged_plot(plt, cases, meta, png_path, title):
    """One panel per primitive: % of the read-only SOL (segmented_reduce) or %
    of copy against n; scankit solid, CUB dashed, Thrust dotted; colour = variant."""
    from matplotlib.ticker import FuncFormatter

    prims = [p for p in RAGGED_PRIMS if any(k[0] == p for k in cases)]
    panel_type = {"reduce_by_key": "int32/int32", "load_balancing_search": "uint32"}
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = {"cub": ("--", "x", "CUB"), "cub_u64": ("-.", "1", "CUB u64-init"), "thrust": (":", "+", "Thrust")}
    cols = min(3, len(prims))
    rows = (len(prims) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 4.6 * rows), squeeze=False)
    for ax in axes.flat[len(prims):]:
        ax.axis("off")
    for ax, prim in zip(axes.flat, prims):
        keys = [k for k in cases if k[0] == prim and (prim not in panel_type or k[3] == panel_type[prim])]
        series = sorted({(k[3], k[1]) for k in keys}, key=lambda tv: (order(tv[0], RAGGED_TYPES),
                                                                       order(tv[1], RAGGED_VARIANTS)))
        show_type = len({t for t, _ in series}) > 1
        ys_all = []
        for i, (t, v) in enumerate(series):
            ks = sorted((k for k in keys if k[3] == t and k[1] == v), key=lambda k: k[4])
            color = colors[i % len(colors)]
            label = f"{v} {t}" if show_type else v
            if prim == "segmented_reduce":
                pts = [(k[4], ragged_ro_pct(cases[k])) for k in ks if ragged_ro_pct(cases[k]) is not None]
                cub = [(k[4], cases[k]["baselines"]["read_only_stream"] / cases[k]["baselines"]["cub"] * 100)
                       for k in ks if "cub" in cases[k]["baselines"] and "read_only_stream" in cases[k]["baselines"]]
                base = {"cub": cub}
            else:
                pts = [(k[4], compact_pct(cases[k])) for k in ks]
                base = {b: [(k[4], compact_pct(cases[k], cases[k]["baselines"][b])) for k in ks
                            if b in cases[k]["baselines"]] for b in styles}
                if prim == "allocation_offsets" and v != "with_offsets":
                    base = {}  # the same CUB calls as with_offsets
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], "-o", color=color, markersize=3,
                        label=f"scankit {label}")
                ys_all += [y for _, y in pts]
            for b, p in base.items():
                if p:
                    line, marker, name = styles[b]
                    ax.plot([x for x, _ in p], [y for _, y in p], linestyle=line, marker=marker, color=color,
                            markersize=4, alpha=0.8, label=f"{name} {label}")
                    ys_all += [y for _, y in p]
        if prim == "segmented_reduce":
            ax.axhline(SEGREDUCE_RO_TARGET, color="red", linewidth=0.8, linestyle=":", label="target 70 %")
            ax.set_ylabel("% of read-only speed of light")
        else:
            ax.set_ylabel("% of cudaMemcpy D2D bandwidth")
        ax.axhline(100, color="gray", linewidth=0.8, linestyle=":")
        if ys_all and min(ys_all) > 0 and max(ys_all) / min(ys_all) > 20:
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g} %"))
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted({k[4] for k in keys}) or [1])
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: size_label(x) if x > 0 else ""))
        ax.set_xlabel("n (values, keys, outputs or sizes)")
        ax.set_title(prim + (f" ({panel_type[prim]})" if prim in panel_type else ""))
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
    fig.suptitle(f"{title} — {', '.join(meta['gpu'])}, {', '.join(meta['date'])}, commit {', '.join(meta['commit'])}",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(png_path, dpi=130)
    plt.close(fig)
    print(f"wrote {png_path}")


# ---- numeric modes of the float / double scan (scan_numeric_bench) --------

NUMERIC_MODES = ["fast", "run_to_run", "exact", "compensated"]
ACCURACY_HEADER = ["type", "n", "contender", "max_abs_err", "max_ulp_err", "inexact_outputs", "sum_abs",
                   "distinct_outputs", "runs", "gpu", "date", "commit"]
TYPE_BYTES = {"int32": 4, "uint32": 4, "float": 4, "int64": 8, "uint64": 8, "double": 8}
UNIT_ROUNDOFF = {"float": 2.0 ** -24, "double": 2.0 ** -53}
RUN_TO_RUN_TARGET = 0.9  # design.md: the deterministic mode within 10 % of fast's speed


def is_numeric(cases):
    """True for a CSV of the float/double numeric modes (scan_numeric_bench)."""
    return all(k[0] == "scan_numeric" for k in cases)


def accuracy_path(csv_path):
    return os.path.splitext(csv_path)[0] + "_accuracy.csv"


def read_accuracy(path):
    """{(type, n, contender): row} from the companion accuracy CSV; {} if absent."""
    if not os.path.isfile(path):
        print(f"{path}: not found, the error columns are left empty")
        return {}
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != ACCURACY_HEADER:
            sys.exit(f"{path}: unexpected header {reader.fieldnames}\n  expected {','.join(ACCURACY_HEADER)}")
        rows = {}
        for line, row in enumerate(reader, start=2):
            try:
                rows[(row["type"], int(row["n"]), row["contender"])] = {
                    "max_abs_err": float(row["max_abs_err"]), "max_ulp_err": int(row["max_ulp_err"]),
                    "inexact_outputs": int(row["inexact_outputs"]), "sum_abs": float(row["sum_abs"]),
                    "distinct_outputs": int(row["distinct_outputs"]), "runs": int(row["runs"])}
            except (TypeError, ValueError) as e:
                sys.exit(f"{path}:{line}: bad row ({e}): {row}")
    return rows


def numeric_times(cases, t, n):
    """{contender: ms} at (type, n), CUB from any mode's cub row, and the copy ms."""
    ms, copy_ms = {}, None
    for k, c in cases.items():
        if k[3] == t and k[4] == n:
            ms[k[2]] = c["scankit_ms"]
            copy_ms = c["copy_ms"]
            if "cub" in c["baselines"]:
                ms.setdefault("cub", c["baselines"]["cub"])
            if "fast" in c["baselines"]:
                ms.setdefault("fast", c["baselines"]["fast"])
    return ms, copy_ms


def numeric_contenders(ms):
    return sorted((m for m in ms if m != "cub"), key=lambda m: order(m, NUMERIC_MODES)) + (["cub"] if "cub" in ms else [])


def fmt_count(v):
    return "—" if v is None else (f"{v:,}" if v < 10 ** 7 else f"{v:.2e}")


def fmt_err(v):
    return "—" if v is None else ("0" if v == 0 else f"{v:.3g}")


def numeric_headline(cases):
    types = sorted({k[3] for k in cases}, key=lambda t: order(t, TYPE_ORDER))
    parts = []
    for t in types:
        n = max(k[4] for k in cases if k[3] == t)
        ms, copy_ms = numeric_times(cases, t, n)
        items = []
        for m in numeric_contenders(ms):
            text = f"{'CUB' if m == 'cub' else m} {fmt_pct(copy_ms / ms[m] * 100)}"
            if m not in ("fast", "cub") and "fast" in ms:
                x = ms["fast"] / ms[m]
                text += f" ({fmt_x(x)} fast"
                if m == "run_to_run":
                    text += f", target ≥ {RUN_TO_RUN_TARGET:.2f}× {'✓' if x >= RUN_TO_RUN_TARGET else '✗'}"
                text += ")"
            items.append(text)
        parts.append(f"{t} at {size_label(n)}: " + ", ".join(items))
    return "**Headline, inclusive sum, % of copy by numeric mode** — " + "; ".join(parts) if parts else None


def write_numeric_markdown(cases, meta, csv_path, md_path, title):
    acc_path = accuracy_path(csv_path)
    acc = read_accuracy(acc_path)
    lines = [f"# {title}", ""]
    lines.append(f"GPU: {', '.join(meta['gpu'])} · date: {', '.join(meta['date'])} · "
                 f"commit: {', '.join(meta['commit'])} · source: `{os.path.basename(csv_path)}`"
                 + (f", `{os.path.basename(acc_path)}`" if acc else ""))
    lines.append("")
    lines.append("scankit::inclusive_scan(ctx, d_in, d_out, n, scankit::with_numeric(mode)) of x uniform in [-1, 1) "
                 "(fixed seed) against cub::DeviceScan::InclusiveSum and cudaMemcpy D2D in the same run. Times are "
                 "medians of single calls (CUDA events; slow modes fewer calls under a time budget, see "
                 "scan_numeric_bench.cu). % copy = copy time ÷ time × 100; GB/s = 2·n·sizeof(T) ÷ time; × CUB = CUB "
                 "time ÷ time; × fast = fast-mode time ÷ time.")
    lines.append("")
    lines.append("Errors against S_i, the exact prefix sum rounded once to the type (host, exact fixed-point "
                 "accumulator), over all n outputs of one call: max ulp = max |ord(out_i) − ord(S_i)|, the number of "
                 "representable values between them (large where S_i crosses zero: any absolute error is many ulps of "
                 "a tiny S_i); max abs = max |out_i − S_i|; ÷ uΣ|x| = max abs ÷ (u·Σ|x_j|), u = 2^-24 (float) or "
                 "2^-53 (double), the scale of summation error bounds; inexact = share of outputs ≠ S_i; distinct = "
                 "different outputs over untimed repeat calls of the same input (exact: all S_i bit for bit and "
                 "run_to_run: identical bits, both checked, else the run fails).")
    lines.append("")
    hl = numeric_headline(cases)
    if hl:
        lines += [hl, ""]
    types = sorted({k[3] for k in cases}, key=lambda t: order(t, TYPE_ORDER))
    for t in types:
        lines += [f"### {t}", ""]
        cols = ["n", "mode", "ms", "GB/s", "% copy", "× CUB", "× fast", "max ulp", "max abs", "÷ u·Σ\\|x\\|",
                "inexact", "distinct"]
        lines.append("| " + " | ".join(cols) + " |")
        lines.append("|---|---|" + "---:|" * (len(cols) - 2))
        for n in sorted({k[4] for k in cases if k[3] == t}):
            ms, copy_ms = numeric_times(cases, t, n)
            for m in numeric_contenders(ms):
                a = acc.get((t, n, m))
                gbs = 2 * n * TYPE_BYTES.get(t, 4) / (ms[m] * 1e-3) / 1e9
                scaled = None
                if a and a["sum_abs"] > 0 and t in UNIT_ROUNDOFF:
                    scaled = a["max_abs_err"] / (UNIT_ROUNDOFF[t] * a["sum_abs"])
                row = [size_label(n), "*CUB InclusiveSum*" if m == "cub" else m, fmt_ms(ms[m]), f"{gbs:.0f}",
                       fmt_pct(copy_ms / ms[m] * 100),
                       "—" if m == "cub" else fmt_x(ratio(ms.get("cub"), ms[m])),
                       "—" if m in ("cub", "fast") else fmt_x(ratio(ms.get("fast"), ms[m])),
                       fmt_count(a and a["max_ulp_err"]), fmt_err(a and a["max_abs_err"]), fmt_err(scaled),
                       "—" if not a else ("0" if a["inexact_outputs"] == 0 else
                                          fmt_pct(a["inexact_outputs"] / n * 100)),
                       "—" if not a else f"{a['distinct_outputs']} / {a['runs']}"]
                lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    with open(md_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {md_path} ({len(cases)} cases)")


def write_numeric_plot(plt, cases, meta, png_path, title):
    """% of copy vs n, one panel per type: a line per mode, CUB dashed black."""
    from matplotlib.ticker import FuncFormatter

    types = sorted({k[3] for k in cases}, key=lambda t: order(t, TYPE_ORDER))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, axes = plt.subplots(1, len(types), figsize=(6.5 * len(types), 4.8), squeeze=False, sharey=True)
    pcts = []
    for ax, t in zip(axes[0], types):
        sizes = sorted({k[4] for k in cases if k[3] == t})
        series = {}
        for n in sizes:
            ms, copy_ms = numeric_times(cases, t, n)
            for m in numeric_contenders(ms):
                series.setdefault(m, []).append((n, copy_ms / ms[m] * 100))
        for m, pts in series.items():
            pcts += [y for _, y in pts]
            if m == "cub":
                ax.plot([x for x, _ in pts], [y for _, y in pts], color="black", linestyle="--", marker="x",
                        label="CUB InclusiveSum")
            else:
                ax.plot([x for x, _ in pts], [y for _, y in pts], "-o", markersize=3,
                        color=colors[order(m, NUMERIC_MODES)[0] % len(colors)], label=m)
        ax.axhline(100, color="gray", linewidth=0.8, linestyle=":")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: size_label(x) if x > 0 else ""))
        ax.set_xlabel("n (items)")
        ax.set_title(f"inclusive sum, {t}")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7)
    if pcts and min(pcts) > 0 and max(pcts) / min(pcts) > 20:
        for ax in axes[0]:
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g} %"))
    axes[0][0].set_ylabel("% of cudaMemcpy D2D bandwidth")
    fig.suptitle(f"{title} — {', '.join(meta['gpu'])}, {', '.join(meta['date'])}, commit {', '.join(meta['commit'])}",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(png_path, dpi=130)
    plt.close(fig)
    print(f"wrote {png_path}")


def write_markdown(cases, meta, csv_path, md_path, title):
    if is_numeric(cases):
        write_numeric_markdown(cases, meta, csv_path, md_path, title)
        return
    if is_ragged(cases):
        write_ragged_markdown(cases, meta, csv_path, md_path, title)
        return
    if is_compact(cases):
        write_compact_markdown(cases, meta, csv_path, md_path, title)
        return
    policies = sorted({k[2] for k in cases})
    show_policy = len(policies) > 1 or policy_sweep(cases)
    lines = [f"# {title}", ""]
    lines.append(f"GPU: {', '.join(meta['gpu'])} · date: {', '.join(meta['date'])} · "
                 f"commit: {', '.join(meta['commit'])} · source: `{os.path.basename(csv_path)}`")
    lines.append("")
    lines.append("Times are medians of single calls (CUDA events). % copy = cudaMemcpy D2D time at the "
                 "same byte count ÷ the primitive's time × 100; speedup = baseline time ÷ scankit time.")
    lines.append("")
    hl = headline(cases)
    if hl:
        lines += [hl, ""]
    if policy_sweep(cases):
        lines += policy_tables(cases)
        lines += ["### All cases", ""]
    if any(set(c["baselines"]) - {"cub", "thrust"} for c in cases.values()):
        lines += other_baselines_table(cases, show_policy)
        with open(md_path, "w") as f:
            f.write("\n".join(lines) + "\n")
        print(f"wrote {md_path} ({len(cases)} cases)")
        return
    show_cub = any("cub" in c["baselines"] for c in cases.values())
    show_thrust = any("thrust" in c["baselines"] for c in cases.values())
    cols = ["type", "variant"] + (["policy"] if show_policy else []) + ["n", "scankit ms"] + (
        ["CUB ms"] if show_cub else []) + (["Thrust ms"] if show_thrust else []) + [
        "copy ms", "scankit % copy"] + (["CUB % copy", "speedup vs CUB"] if show_cub else []) + (
        ["vs Thrust"] if show_thrust else [])
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "|".join("---" if i < (3 if show_policy else 2) else "---:" for i in range(len(cols))) + "|")
    for k in sorted_keys(cases):
        c = cases[k]
        sk, cp = c["scankit_ms"], c["copy_ms"]
        cub, thr = c["baselines"].get("cub"), c["baselines"].get("thrust")
        row = [k[3], k[1]] + ([k[2]] if show_policy else []) + [size_label(k[4]), fmt_ms(sk)] + (
            [fmt_ms(cub)] if show_cub else []) + ([fmt_ms(thr)] if show_thrust else []) + [
            fmt_ms(cp), fmt_pct(cp / sk * 100)] + (
            [fmt_pct(None if cub is None else cp / cub * 100), fmt_x(ratio(cub, sk))] if show_cub else []) + (
            [fmt_x(ratio(thr, sk))] if show_thrust else [])
        lines.append("| " + " | ".join(row) + " |")
    with open(md_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {md_path} ({len(cases)} cases)")


BASELINE_NAMES = {"cub": "CUB", "thrust": "Thrust", "cusparse": "cuSPARSE", "cub_cusparse": "CUB + cuSPARSE"}


def other_baselines_table(cases, show_policy):
    """A row per case and baseline, for CSVs whose baselines are not CUB and
    Thrust alone (csr.csv: cuSPARSE, a CUB + cuSPARSE pipeline)."""
    cols = ["primitive", "type", "variant"] + (["policy"] if show_policy else []) + [
        "n", "scankit ms", "baseline", "baseline ms", "copy ms", "scankit % copy", "baseline % copy", "speedup"]
    lines = ["| " + " | ".join(cols) + " |",
             "|" + "|".join("---" if i < (4 if show_policy else 3) else "---:" for i in range(len(cols))) + "|"]
    for k in sorted_keys(cases):
        c = cases[k]
        sk, cp = c["scankit_ms"], c["copy_ms"]
        for b, ms in sorted(c["baselines"].items()):
            row = [k[0], k[3], k[1]] + ([k[2]] if show_policy else []) + [
                size_label(k[4]), fmt_ms(sk), BASELINE_NAMES.get(b, b), fmt_ms(ms), fmt_ms(cp),
                fmt_pct(cp / sk * 100), fmt_pct(cp / ms * 100), fmt_x(ratio(ms, sk))]
            lines.append("| " + " | ".join(row) + " |")
    return lines


def write_plot(cases, meta, png_path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib not available: skipped the plot ({png_path})")
        return
    if is_numeric(cases):
        write_numeric_plot(plt, cases, meta, png_path, title)
        return
    if is_ragged(cases):
        write_ragged_plot(plt, cases, meta, png_path, title)
        return
    if is_compact(cases):
        default_cases = compact_default(cases)
        if default_cases:
            write_compact_plot(plt, default_cases, meta, png_path, title)
        else:
            print(f"no {DEFAULT_POLICY} rows: skipped the plot ({png_path})")
        return
    if policy_sweep(cases):
        write_policy_plot(plt, cases, meta, png_path, title)
        return
    variants = sorted({k[1] for k in cases}, key=lambda v: order(v, VARIANT_ORDER))
    policies = sorted({k[2] for k in cases})
    show_policy = len(policies) > 1
    types = sorted({k[3] for k in cases}, key=lambda t: order(t, TYPE_ORDER))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    # One panel per variant; with several policies (a tuning sweep), one per variant and type.
    panels = [(v, [t]) for v in variants for t in types] if show_policy else [(v, types) for v in variants]
    panels = [(v, ts) for v, ts in panels if any(k[1] == v and k[3] in ts for k in cases)]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.8), squeeze=False, sharey=True)
    for ax, (variant, panel_types) in zip(axes[0], panels):
        line_index = 0
        for t in panel_types:
            color_for_type = colors[types.index(t) % len(colors)]
            for p in policies:
                keys = sorted(k for k in cases if k[1] == variant and k[2] == p and k[3] == t)
                if not keys:
                    continue
                xs = [k[4] for k in keys]
                color = colors[line_index % len(colors)] if show_policy else color_for_type
                line_index += 1
                label = f"scankit {t}" + (f" {p.replace('decoupled_lookback_', '')}" if show_policy else "")
                ax.plot(xs, [cases[k]["copy_ms"] / cases[k]["scankit_ms"] * 100 for k in keys],
                        "-o", color=color, markersize=3, label=label)
            # CUB once per type (the same measurement in every policy's rows).
            keys = sorted((k for k in cases if k[1] == variant and k[3] == t and "cub" in cases[k]["baselines"]),
                          key=lambda k: k[4])
            seen, xs, ys = set(), [], []
            for k in keys:
                if k[4] in seen:
                    continue
                seen.add(k[4])
                xs.append(k[4])
                ys.append(cases[k]["copy_ms"] / cases[k]["baselines"]["cub"] * 100)
            if xs:
                ax.plot(xs, ys, "--", color="black" if show_policy else color_for_type, alpha=0.8, label=f"CUB {t}")
        ax.axhline(100, color="gray", linewidth=0.8, linestyle=":")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n (items)")
        ax.set_title(f"{variant} {panel_types[0]}" if show_policy else variant)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    axes[0][0].set_ylabel("% of cudaMemcpy D2D bandwidth")
    fig.suptitle(f"{title} — {', '.join(meta['gpu'])}, {', '.join(meta['date'])}, commit {', '.join(meta['commit'])}",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(png_path, dpi=130)
    plt.close(fig)
    print(f"wrote {png_path}")


def write_policy_plot(plt, cases, meta, png_path, title):
    """Scan policies: % of copy vs n, one panel per variant and type; colour =
    block algorithm, line style and marker = grid strategy; CUB dashed black;
    legend outside on the right."""
    from matplotlib.ticker import FuncFormatter

    variants = sorted({k[1] for k in cases}, key=lambda v: order(v, VARIANT_ORDER))
    types = sorted({k[3] for k in cases}, key=lambda t: order(t, TYPE_ORDER))
    policies = sorted({k[2] for k in cases}, key=policy_order)
    panels = [(v, t) for v in variants for t in types if any(k[1] == v and k[3] == t for k in cases)]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = [("-", "o"), ("--", "s"), ("-.", "^"), (":", "D")]
    blocks = sorted({p.split("/", 1)[1] for p in policies}, key=lambda b: order(b, BLOCK_ORDER))
    grids = sorted({p.split("/", 1)[0] for p in policies}, key=lambda g: order(g, GRID_ORDER))

    def style(policy):
        grid, block = policy.split("/", 1)
        line, marker = styles[grids.index(grid) % len(styles)]
        return dict(color=colors[blocks.index(block) % len(colors)], linestyle=line, marker=marker)

    pcts = [c["copy_ms"] / c["scankit_ms"] * 100 for c in cases.values()]
    pcts += [c["copy_ms"] / c["baselines"]["cub"] * 100 for c in cases.values() if "cub" in c["baselines"]]
    log_y = max(pcts) / min(pcts) > 20
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels) + 3.8, 5.2), squeeze=False, sharey=True)
    handles = {}
    for ax, (variant, t) in zip(axes[0], panels):
        for p in policies:
            keys = sorted((k for k in cases if k[1] == variant and k[2] == p and k[3] == t), key=lambda k: k[4])
            if not keys:
                continue
            label = f"{p} (default)" if p == DEFAULT_POLICY else p
            (h,) = ax.plot([k[4] for k in keys], [cases[k]["copy_ms"] / cases[k]["scankit_ms"] * 100 for k in keys],
                           markersize=4, linewidth=2.2 if p == DEFAULT_POLICY else 1.2, label=label, **style(p))
            handles.setdefault(label, h)
        # CUB once per size (the same measurement in every policy's rows).
        seen, xs, ys = set(), [], []
        for k in sorted((k for k in cases if k[1] == variant and k[3] == t and "cub" in cases[k]["baselines"]),
                        key=lambda k: k[4]):
            if k[4] not in seen:
                seen.add(k[4])
                xs.append(k[4])
                ys.append(cases[k]["copy_ms"] / cases[k]["baselines"]["cub"] * 100)
        if xs:
            (h,) = ax.plot(xs, ys, color="black", linestyle=(0, (6, 2)), linewidth=2, marker="x", label="CUB InclusiveSum")
            handles.setdefault("CUB InclusiveSum", h)
        ax.axhline(100, color="gray", linewidth=0.8, linestyle=":")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted({k[4] for k in cases if k[1] == variant and k[3] == t}))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: size_label(x) if x > 0 else ""))
        if log_y:
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g} %"))
        ax.set_xlabel("n (items)")
        ax.set_title(f"{variant} {t}")
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel("% of cudaMemcpy D2D bandwidth" + (" (log scale)" if log_y else ""))
    fig.legend(list(handles.values()), list(handles.keys()), loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7,
               title="grid strategy / block algorithm", title_fontsize=7, frameon=False)
    fig.suptitle(f"{title} — {', '.join(meta['gpu'])}, {', '.join(meta['date'])}, commit {', '.join(meta['commit'])}",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(png_path, dpi=130, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {png_path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="results CSV, e.g. benchmarks/results/scan.csv")
    ap.add_argument("--title", help="title of the table and plot (default: from the CSV's primitive)")
    ap.add_argument("--no-plot", action="store_true", help="write only the markdown table")
    ap.add_argument("--out-dir", help="write the .md and .png into this directory (default: beside the CSV)")
    args = ap.parse_args()
    if not os.path.isfile(args.csv):
        sys.exit(f"{args.csv}: no such file")
    if args.out_dir and not os.path.isdir(args.out_dir):
        sys.exit(f"--out-dir {args.out_dir}: no such directory")
    cases, meta = read_cases(args.csv)
    primitives = sorted({k[0] for k in cases})
    if args.title:
        title = args.title
    elif is_numeric(cases):
        title = "scan numeric modes (float / double inclusive sum): scankit vs CUB / cudaMemcpy"
    elif is_ragged(cases):
        title = "ragged primitives: scankit vs CUB / Thrust / read-only stream / cudaMemcpy"
    elif is_compact(cases) and is_back_to_back(cases):
        title = "compact back to back (selection primitives, calls queued with no event between them): scankit vs CUB"
    elif is_compact(cases):
        title = "compact (selection primitives): scankit vs CUB / Thrust / cudaMemcpy"
    elif policy_sweep(cases):
        title = f"{', '.join(primitives)}: scan policies (grid strategy / block algorithm) vs CUB / cudaMemcpy"
    else:
        names = sorted({BASELINE_NAMES.get(b, b) for c in cases.values() for b in c["baselines"]})
        title = f"{', '.join(primitives)}: scankit vs {' / '.join(names + ['cudaMemcpy'])}"
    stem = os.path.splitext(args.csv)[0]
    if args.out_dir:
        stem = os.path.join(args.out_dir, os.path.basename(stem))
    write_markdown(cases, meta, args.csv, stem + ".md", title)
    if not args.no_plot:
        write_plot(cases, meta, stem + ".png", title)


if __name__ == "__main__":
    main()
