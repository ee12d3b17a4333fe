#!/usr/bin/env python3
"""benchmarks/ab_compare.py — compares builds timed by scripts/bench-ab.

    ab_compare.py DIR NAME [NAME ...]

Reads DIR/NAME.*.csv (one per round, in the docs/benchmarks.md schema) and
prints one row per case (primitive, variant, policy, type, n): the first
build's median scankit time over the rounds with its ratio to the baseline
(CUB, or cuSPARSE where that is the CSV's baseline) and % of copy, then per
other build the change of its median against the first (negative: faster)
and its own ratio and % of copy.
"""
import collections
import csv
import glob
import statistics
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    folder, names = argv[1], argv[2:]
    times = collections.defaultdict(lambda: collections.defaultdict(list))
    copy_pct = collections.defaultdict(lambda: collections.defaultdict(list))
    baseline = collections.defaultdict(list)
    for name in names:
        for path in sorted(glob.glob(f"{folder}/{name}.*.csv")):
            with open(path) as f:
                for row in csv.DictReader(f):
                    if row["baseline"] not in ("cub", "cusparse"):
                        continue
                    key = (row["primitive"], row["variant"], row["policy"], row["type"], int(row["n"]))
                    times[key][name].append(float(row["scankit_ms"]))
                    copy_pct[key][name].append(float(row["pct_of_copy"]))
                    baseline[key].append(float(row["baseline_ms"]))
    first = names[0]
    print(f"case | {first}: ms (x baseline, % of copy) | " + " | ".join(f"{n}: change (x, %)" for n in names[1:]))
    for key in sorted(times):
        if first not in times[key]:
            continue
        base_ms = statistics.median(baseline[key])
        first_ms = statistics.median(times[key][first])
        n = key[4]
        size = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)
        row = (f"{key[0]} {key[1]} {key[2]} {key[3]} {size} | {first_ms:.4f} ({base_ms / first_ms:.3f}x, "
               f"{statistics.median(copy_pct[key][first]):.1f}%)")
        for name in names[1:]:
            if name in times[key]:
                ms = statistics.median(times[key][name])
                row += (f" | {100 * (ms / first_ms - 1):+5.1f}% ({base_ms / ms:.3f}x, "
                        f"{statistics.median(copy_pct[key][name]):.1f}%)")
            else:
                row += " | -"
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
