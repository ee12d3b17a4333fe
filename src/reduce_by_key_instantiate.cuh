// src/reduce_by_key_instantiate.cuh — defines the host API reduce-by-key for
// one value type and every key type (each src/reduce_by_key_<type>.cu
// includes this once). Signed keys run as their unsigned twins (equality is
// bitwise for integers).
#pragma once

#include "ragged_types.hpp"
#include "scan_instantiate.cuh"  // with_operator

#include <scankit/device/reduce_by_key.cuh>
#include <scankit/reduce_by_key.hpp>

namespace scankit::detail {

template <class K, class V>
std::size_t host_reduce_by_key(context& ctx, const K* d_keys, const V* d_values, std::size_t n, K* d_unique_keys,
                               V* d_reduced, std::size_t* d_count, op o, const char* call) {
  if (o != op::plus && o != op::min && o != op::max)
    throw std::invalid_argument(std::string("scankit::") + call + ": operator '" + to_string(o) +
                                "' is not supported (plus, min, max)");
  std::size_t runs = 0;
  with_operator<V>(o, call, [&](auto functor) {
    runs = run_reduce_by_key(ctx, as_unsigned(d_keys), d_values, n, as_unsigned(d_unique_keys), d_reduced, d_count,
                             functor, equal_to{}, call);
  });
  return runs;
}

}  // namespace scankit::detail

#define SCANKIT_DEFINE_REDUCE_BY_KEY(K, V)                                                                        \
  std::size_t scankit::reduce_by_key(context& ctx, const K* d_keys, const V* d_values, std::size_t n,          \
                                     K* d_unique_keys, V* d_reduced, op o) {                                    \
    return detail::host_reduce_by_key(ctx, d_keys, d_values, n, d_unique_keys, d_reduced, nullptr, o,           \
                                      "reduce_by_key");                                                         \
  }                                                                                                              \
  void scankit::reduce_by_key_async(context& ctx, const K* d_keys, const V* d_values, std::size_t n,           \
                                    K* d_unique_keys, V* d_reduced, std::size_t* d_count, op o) {               \
    detail::require_pointer(d_count, "d_count", "reduce_by_key_async");                                         \
    detail::host_reduce_by_key(ctx, d_keys, d_values, n, d_unique_keys, d_reduced, d_count, o,                  \
                               "reduce_by_key_async");                                                          \
  }

#define SCANKIT_DEFINE_REDUCE_BY_KEY_KEYS(V)            \
  SCANKIT_DEFINE_REDUCE_BY_KEY(std::int32_t, V)         \
  SCANKIT_DEFINE_REDUCE_BY_KEY(std::uint32_t, V)        \
  SCANKIT_DEFINE_REDUCE_BY_KEY(std::int64_t, V)         \
  SCANKIT_DEFINE_REDUCE_BY_KEY(std::uint64_t, V)
