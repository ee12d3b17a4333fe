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

/// A scan policy. threads / items_per_thread of 0 pick the algorithm's
/// default; otherwise kogge_stone and kogge_stone_double_buffer take 1 item
/// per thread, brent_kung 2, three_phase and warp_shuffle 1 to 64; threads
/// may be any number from 1 to 1024 (not only multiples of 32), except that
/// decoupled_lookback needs at least 32 (a warp looks back) and the
/// multi-pass strategies at least 2 items per tile. The default
/// policy (decoupled_lookback + warp_shuffle) is the tuned kernel, whose tile
/// shape is fixed at compile time: it ignores both. Caller-provided
/// workspaces are sized for the default policy (scan_workspace_bytes).
struct scan_policy {
  grid_strategy grid = grid_strategy::decoupled_lookback;
  block_algorithm block = block_algorithm::warp_shuffle;
  unsigned threads = 0;
  unsigned items_per_thread = 0;
};

/// Names as used in benchmark tables ("decoupled_lookback", "kogge_stone", ...).
const char* to_string(grid_strategy g) noexcept;
const char* to_string(block_algorithm b) noexcept;

/// Every grid strategy × block algorithm combination, with default sizes.
std::vector<scan_policy> all_scan_policies();

}  // namespace scankit
