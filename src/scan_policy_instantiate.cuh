// src/scan_policy_instantiate.cuh — host API scans with an explicit policy
// for one element type (each src/scan_policy_<type>.cu includes this once).
// The default policy forwards to the tuned host API; the textbook policies
// are instantiated for plus only, to keep the build time in budget.
#pragma once

#include <scankit/device/operators.cuh>
#include <scankit/device/scan.cuh>
#include <scankit/scan.hpp>

#include <stdexcept>
#include <string>

namespace scankit::detail {

inline void require_plus_for_textbook(op o, const char* name) {
  if (o != op::plus)
    throw std::invalid_argument(std::string("scankit::") + name + ": textbook policies support op::plus in the " +
                                "host API (got '" + to_string(o) + "'); the template API takes any operator");
}

}  // namespace scankit::detail

#define SCANKIT_DEFINE_POLICY_SCAN(T)                                                                       \
  void scankit::inclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n,                        \
                               const scan_policy& policy, op o) {                                           \
    if (detail::is_tuned_policy(policy)) return inclusive_scan(ctx, d_in, d_out, n, o);                     \
    detail::require_plus_for_textbook(o, "inclusive_scan");                                                 \
    detail::dispatch_textbook_scan(ctx, d_in, d_out, n, device::plus{}, detail::maybe<T>{T{}, false}, false, \
                                   policy, "inclusive_scan");                                               \
  }                                                                                                         \
  void scankit::exclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, T init,                \
                               const scan_policy& policy, op o) {                                           \
    if (detail::is_tuned_policy(policy)) return exclusive_scan(ctx, d_in, d_out, n, init, o);               \
    detail::require_plus_for_textbook(o, "exclusive_scan");                                                 \
    detail::dispatch_textbook_scan(ctx, d_in, d_out, n, device::plus{}, detail::maybe<T>{init, true}, true,  \
                                   policy, "exclusive_scan");                                               \
  }
