#!/usr/bin/env bash
# benchmarks/run_scan.sh — runs the scan benchmarks on a GPU host and writes
# benchmarks/results/scan{,_tuning,_policies}.{csv,md,png}. Run from the
# repository root after building (cmake -B build && cmake --build build -j):
#
#   benchmarks/run_scan.sh [build-dir] [extra scan_bench options, e.g. --quick]
#
# Expected wall time on an H200: ~15-30 s for scan_bench (full sweep), ~10 s
# for scan_tuning_bench, ~15-40 s (estimated, not yet measured) for
# scan_policies_bench. Exits non-zero at the first failing step (a wrong
# result, CUDA error or hang in any driver exits non-zero).
set -euo pipefail

build=${1:-build}
shift || true
results=benchmarks/results
mkdir -p "$results"
if [[ -z "${SCANKIT_COMMIT:-}" ]]; then
  SCANKIT_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [[ "$SCANKIT_COMMIT" != unknown ]] && ! git diff --quiet HEAD -- include src 2>/dev/null; then
    SCANKIT_COMMIT="$SCANKIT_COMMIT-dirty"
  fi
fi
export SCANKIT_COMMIT

"$build/benchmarks/scan_bench" --csv="$results/scan.csv" "$@"
"$build/benchmarks/scan_tuning_bench" --csv="$results/scan_tuning.csv"
"$build/benchmarks/scan_policies_bench" --csv="$results/scan_policies.csv"
python3 benchmarks/report.py "$results/scan.csv"
python3 benchmarks/report.py "$results/scan_tuning.csv" --title "scan tuning sweep (decoupled look-back, THREADSxROUNDS)"
python3 benchmarks/report.py "$results/scan_policies.csv"
