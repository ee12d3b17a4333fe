// scankit/policy.hpp — scan policies: which grid strategy and which block
// algorithm a scan uses. The default is the tuned single-pass decoupled
// look-back; the textbook policies exist to be compared against it and are
// available for plus scans of the built-in types (host API) and for any
// operator with an identity-free formulation (template API).
#pragma once

#include <vector>

namespace scankit {

/// How tiles are combined across the grid.
enum class grid_strategy {
  decoupled_lookback,   ///< single pass; each tile looks back over predecessors' aggregates (~2N traffic)
  reduce_then_scan,     ///< tile reductions, scan of tile sums, re-read and scan (~3N)
  scan_then_propagate,  ///< scan tiles, scan tile sums recursively, add carries (~4N)
  chained,              ///< single pass; each tile waits for its predecessor's inclusive prefix (serialized)
};

/// How one block scans its tile.
enum class block_algorithm {
  warp_shuffle,               ///< warp-shuffle scans of 16-byte vectors (tuned default)
  kogge_stone,                ///< one item per thread, in place: log2(N) steps, two barriers each
  kogge_stone_double_buffer,  ///< one item per thread, two buffers: one barrier per step
  brent_kung,                 ///< two items per thread, up-sweep then down-sweep
  three_phase,                ///< each thread scans its run, Kogge-Stone over run totals, fix-up
};

/// What a floating-point scan promises about its bits (scankit/policy.hpp's
/// scan_policy::numeric; docs/numeric.md). Integer scans are exact and
/// reproducible in every mode, and every mode gives them the same result.
enum class numeric_mode {
  fast,         ///< any combine order: the last bits may differ from run to run
  run_to_run,   ///< the same bits on every run for the same input, policy and GPU model (any operator)
  exact,        ///< sums: each output is the correctly rounded exact prefix sum, the same bits on every GPU
  compensated,  ///< sums: value + error pairs (TwoSum), error u|S| + gamma(d)^2 Σ|x| instead of gamma(d) Σ|x|
};

/// A scan policy. threads / items_per_thread of 0 pick the algorithm's
/// default; otherwise kogge_stone and kogge_stone_double_buffer take 1 item
/// per thread, brent_kung 2, three_phase and warp_shuffle 1 to 64; threads
/// may be any number from 1 to 1024 (not only multiples of 32), except that
/// decoupled_lookback needs at least 32 (a warp looks back) and the
/// multi-pass strategies at least 2 items per tile. The default
/// policy (decoupled_lookback + warp_shuffle) is the tuned kernel, whose tile
/// shape is fixed at compile time: it ignores both. Caller-provided
/// workspaces are sized for the default policy (scan_workspace_bytes).
///
/// `numeric` applies to float and double: run_to_run works with every policy
/// and operator (the textbook policies combine in a fixed order anyway);
/// exact and compensated are sums (op::plus) with the default grid and block
/// (std::invalid_argument otherwise; for integers every mode is plain
/// integer arithmetic, which is exact).
struct scan_policy {
  grid_strategy grid = grid_strategy::decoupled_lookback;
  block_algorithm block = block_algorithm::warp_shuffle;
  unsigned threads = 0;
  unsigned items_per_thread = 0;
  numeric_mode numeric = numeric_mode::fast;
};

/// The default policy with numeric mode `mode`:
///   scankit::inclusive_scan(ctx, d_in, d_out, n, scankit::with_numeric(scankit::numeric_mode::exact));
inline scan_policy with_numeric(numeric_mode mode) {
  scan_policy p;
  p.numeric = mode;
  return p;
}

/// Names as used in benchmark tables ("decoupled_lookback", "kogge_stone", ...).
const char* to_string(grid_strategy g) noexcept;
const char* to_string(block_algorithm b) noexcept;
const char* to_string(numeric_mode m) noexcept;

/// Every grid strategy × block algorithm combination, with default sizes.
std::vector<scan_policy> all_scan_policies();

}  // namespace scankit
