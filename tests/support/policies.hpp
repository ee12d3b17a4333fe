// tests/support/policies.hpp — scan-policy helpers the policy and numeric-mode
// tests share: naming a policy, telling the tuned one from the textbook ones,
// their tile sizes and rounding depth bounds, and fake pointers for
// argument checks that must throw before touching memory.
#pragma once

#include "reference.hpp"

#include <scankit/detail/textbook_dispatch.cuh>
#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/policy.hpp>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace sktest {

/// "grid/block threads=.. items=.. numeric=.." for CAPTURE.
inline std::string describe(const scankit::scan_policy& p) {
  std::ostringstream s;
  s << scankit::to_string(p.grid) << "/" << scankit::to_string(p.block) << " threads=" << p.threads
    << " items=" << p.items_per_thread << " numeric=" << scankit::to_string(p.numeric);
  return s.str();
}

/// The tuned policy (the default): decoupled look-back with the warp-shuffle
/// block runs the tuned single-pass kernel and ignores threads/items.
inline bool is_tuned(const scankit::scan_policy& p) {
  return p.grid == scankit::grid_strategy::decoupled_lookback && p.block == scankit::block_algorithm::warp_shuffle;
}

/// Items per tile of a scan of T with policy p, as the library resolves it.
template <class T>
std::size_t tile_of(const scankit::scan_policy& p) {
  if (is_tuned(p)) return scankit::detail::tile_items<T, scankit::detail::default_scan_tuning<T>>;
  return scankit::detail::resolve_textbook_shape(p, sizeof(T)).tile_items;
}

/// Rounding depth bound h of a scan of n items of T with policy p: tiles +
/// tile + 64 for every textbook policy (derived in test_scan_policies.cu),
/// reference.hpp's bound for the tuned one.
template <class T>
double policy_depth_bound(const scankit::scan_policy& p, std::size_t n) {
  if (is_tuned(p)) return scankit_depth_bound<T>(n);
  const std::size_t tile = tile_of<T>(p);
  return double((n + tile - 1) / tile) + double(tile) + 64.0;
}

/// The textbook policies (every policy but the tuned one), default sizes.
inline std::vector<scankit::scan_policy> textbook_policies() {
  std::vector<scankit::scan_policy> out;
  for (const scankit::scan_policy& p : scankit::all_scan_policies())
    if (!is_tuned(p)) out.push_back(p);
  return out;
}

/// A device pointer that is never dereferenced (argument checks only).
template <class T>
T* fake(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

}  // namespace sktest
