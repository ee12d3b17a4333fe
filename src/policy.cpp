// src/policy.cpp — scan policy names and the list of all policies. Plain C++.
#include <scankit/policy.hpp>

namespace scankit {

const char* to_string(grid_strategy g) noexcept {
  switch (g) {
    case grid_strategy::decoupled_lookback: return "decoupled_lookback";
    case grid_strategy::reduce_then_scan: return "reduce_then_scan";
    case grid_strategy::scan_then_propagate: return "scan_then_propagate";
    case grid_strategy::chained: return "chained";
  }
  return "unknown";
}

const char* to_string(block_algorithm b) noexcept {
  switch (b) {
    case block_algorithm::warp_shuffle: return "warp_shuffle";
    case block_algorithm::kogge_stone: return "kogge_stone";
    case block_algorithm::kogge_stone_double_buffer: return "kogge_stone_double_buffer";
    case block_algorithm::brent_kung: return "brent_kung";
    case block_algorithm::three_phase: return "three_phase";
  }
  return "unknown";
}

const char* to_string(numeric_mode m) noexcept {
  switch (m) {
    case numeric_mode::fast: return "fast";
    case numeric_mode::run_to_run: return "run_to_run";
    case numeric_mode::exact: return "exact";
    case numeric_mode::compensated: return "compensated";
  }
  return "unknown";
}

std::vector<scan_policy> all_scan_policies() {
  std::vector<scan_policy> policies;
  for (grid_strategy g : {grid_strategy::decoupled_lookback, grid_strategy::reduce_then_scan,
                          grid_strategy::scan_then_propagate, grid_strategy::chained})
    for (block_algorithm b : {block_algorithm::warp_shuffle, block_algorithm::kogge_stone,
                              block_algorithm::kogge_stone_double_buffer, block_algorithm::brent_kung,
                              block_algorithm::three_phase})
      policies.push_back(scan_policy{g, b, 0, 0, numeric_mode::fast});
  return policies;
}

}  // namespace scankit
