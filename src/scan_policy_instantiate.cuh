// src/scan_policy_instantiate.cuh — host API scans with an explicit policy
// for one element type (each src/scan_policy_<type>.cu includes this once).
// The default policy forwards to the tuned host API (float and double in a
// numeric mode other than fast: to src/scan_numeric_<type>.cu); the textbook
// policies are instantiated for plus only, to keep the build time in budget.
#pragma once

#include "scan_numeric.hpp"

#include <scankit/device/operators.cuh>
#include <scankit/device/scan.cuh>
#include <scankit/scan.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace scankit::detail {

inline void require_plus_for_textbook(op o, const char* name) {
  if (o != op::plus)
    throw std::invalid_argument(std::string("scankit::") + name + ": textbook policies support op::plus in the " +
                                "host API (got '" + to_string(o) + "'); the template API takes any operator");
}

/// True when the host API's scan of T with `policy` runs in a numeric mode
/// other than fast on the default policy (integers: every mode is fast).
template <class T>
bool tuned_numeric_scan(const scan_policy& policy) {
  return std::is_floating_point_v<T> && is_tuned_policy(policy) && policy.numeric != numeric_mode::fast;
}

/// Checks a textbook policy's operator (plus only, here) and, for float and
/// double, its numeric mode (fast or run_to_run; integers run every mode as fast).
template <class T>
void check_textbook_policy(const scan_policy& policy, op o, const char* name) {
  if (std::is_floating_point_v<T>) check_textbook_numeric_mode(policy, name);
  require_plus_for_textbook(o, name);
}

}  // namespace scankit::detail

#define SCANKIT_DEFINE_POLICY_SCAN(T)                                                                       \
  void scankit::inclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n,                        \
                               const scan_policy& policy, op o) {                                           \
    if (detail::tuned_numeric_scan<T>(policy))                                                              \
      return detail::numeric_mode_scan<T>(ctx, d_in, d_out, n, detail::maybe<T>{T{}, false}, false,         \
                                          policy.numeric, o, "inclusive_scan");                             \
    if (detail::is_tuned_policy(policy)) return inclusive_scan(ctx, d_in, d_out, n, o);                     \
    detail::check_textbook_policy<T>(policy, o, "inclusive_scan");                                          \
    detail::dispatch_textbook_scan(ctx, d_in, d_out, n, device::plus{}, detail::maybe<T>{T{}, false}, false, \
                                   policy, "inclusive_scan");                                               \
  }                                                                                                         \
  void scankit::exclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, T init,                \
                               const scan_policy& policy, op o) {                                           \
    if (detail::tuned_numeric_scan<T>(policy))                                                              \
      return detail::numeric_mode_scan<T>(ctx, d_in, d_out, n, detail::maybe<T>{init, true}, true,          \
                                          policy.numeric, o, "exclusive_scan");                             \
    if (detail::is_tuned_policy(policy)) return exclusive_scan(ctx, d_in, d_out, n, init, o);               \
    detail::check_textbook_policy<T>(policy, o, "exclusive_scan");                                          \
    detail::dispatch_textbook_scan(ctx, d_in, d_out, n, device::plus{}, detail::maybe<T>{init, true}, true,  \
                                   policy, "exclusive_scan");                                               \
  }
