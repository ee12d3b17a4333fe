// scankit/reduce_by_key.hpp — reduction of runs of equal consecutive keys.
// Host API, plain C++; link scankit::scankit.
//
//   std::size_t runs = scankit::reduce_by_key(ctx, d_keys, d_values, n, d_unique_keys, d_sums);
//   // keys 1 1 2 2 2 1, values 1 2 3 4 5 6  →  unique keys 1 2 1, sums 3 12 6, runs = 3
//
// n < 2^32. Keys: int32, uint32, int64, uint64 (equal when bitwise equal; the template
// API takes any key type and equality). Values: int32, uint32, int64, uint64,
// float, double; operators plus, min, max, applied in input order. One
// single-pass kernel (heads counted and runs reduced through the decoupled
// look-back). The plain function returns the number of runs and
// synchronizes; the _async twin writes it to *d_count (device memory).
// Errors: std::invalid_argument before any launch (null pointers with n > 0,
// outputs overlapping inputs or each other, a bitwise operator),
// scankit::cuda_error if CUDA fails. n == 0 gives 0 runs.
#pragma once

#include <scankit/context.hpp>
#include <scankit/error.hpp>
#include <scankit/scan.hpp>  // scankit::op

#include <cstddef>
#include <cstdint>

namespace scankit {

#define SCANKIT_DECLARE_REDUCE_BY_KEY(K, V)                                                                       \
  /** Writes one unique key and the reduction of its run's values per run of equal consecutive keys         \
      (d_unique_keys and d_reduced need room for n entries); returns the number of runs. Synchronizes. */   \
  std::size_t reduce_by_key(context& ctx, const K* d_keys, const V* d_values, std::size_t n,                \
                            K* d_unique_keys, V* d_reduced, op o = op::plus);                               \
  /** Asynchronous reduce_by_key: the number of runs goes to *d_count (device memory). */                   \
  void reduce_by_key_async(context& ctx, const K* d_keys, const V* d_values, std::size_t n,                 \
                           K* d_unique_keys, V* d_reduced, std::size_t* d_count, op o = op::plus);

#define SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES(K)           \
  SCANKIT_DECLARE_REDUCE_BY_KEY(K, std::int32_t)          \
  SCANKIT_DECLARE_REDUCE_BY_KEY(K, std::uint32_t)         \
  SCANKIT_DECLARE_REDUCE_BY_KEY(K, std::int64_t)          \
  SCANKIT_DECLARE_REDUCE_BY_KEY(K, std::uint64_t)         \
  SCANKIT_DECLARE_REDUCE_BY_KEY(K, float)                 \
  SCANKIT_DECLARE_REDUCE_BY_KEY(K, double)

SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES(std::int32_t)
SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES(std::uint32_t)
SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES(std::int64_t)
SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES(std::uint64_t)
#undef SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES
#undef SCANKIT_DECLARE_REDUCE_BY_KEY

}  // namespace scankit
