// scankit/device/reduce_by_key.cuh — reduce-by-key, template API: any key
// type and equality, any value type and associative operator (applied in
// input order, so non-commutative operators work).
//
//   std::size_t runs = scankit::device::reduce_by_key(ctx, d_keys, d_values, n, d_unique, d_reduced, op);
#pragma once

#include <scankit/context.hpp>
#include <scankit/detail/kernels/reduce_by_key_kernel.cuh>
#include <scankit/detail/kernel_settings.hpp>
#include <scankit/detail/ragged/ragged_checks.hpp>
#include <scankit/detail/select/selectors.cuh>  // equal_to
#include <scankit/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace scankit {
namespace detail {

/// Runs reduce-by-key; the count goes to *d_count, or when d_count is null
/// is returned (synchronizing; it is kept in the context's scratch).
template <class K, class V, class Op, class Equal>
std::size_t run_reduce_by_key(context& ctx, const K* d_keys, const V* d_values, std::size_t n, K* d_unique_keys,
                              V* d_reduced, std::size_t* d_count, Op op, Equal equal, const char* call) {
  if (n > 0) {
    require_pointer(d_keys, "d_keys", call);
    require_pointer(d_values, "d_values", call);
    require_pointer(d_unique_keys, "d_unique_keys", call);
    require_pointer(d_reduced, "d_reduced", call);
  }
  const std::size_t key_bytes = checked_bytes(n, sizeof(K), call);
  const std::size_t value_bytes = checked_bytes(n, sizeof(V), call);
  require_apart({{"d_unique_keys", d_unique_keys, key_bytes},
                 {"d_reduced", d_reduced, value_bytes},
                 {"d_count", d_count, sizeof(std::size_t)}},
                {{"d_keys", d_keys, key_bytes}, {"d_values", d_values, value_bytes}}, call);
  static_assert(reduce_by_key_smem_bytes<K, V>() <= 220 * 1024,
                "reduce_by_key: keys + values too large for the tile in shared memory (at most about 56 bytes)");
  using shape = reduce_by_key_shape<K, V>;
  using carry_t = segment_carry<V>;
  if (n > std::numeric_limits<std::uint32_t>::max())  // run counts travel as 32-bit numbers
    throw std::invalid_argument(std::string("scankit::") + call + ": n too large (at most 2^32 - 1 items)");
  const std::uint64_t num_tiles = (n + shape::tile_items - 1) / shape::tile_items;
  constexpr std::size_t count_bytes = 256;  // the count's slot when the caller gives none
  const workspace_view ws =
      ctx.acquire(1 + tile_status<carry_t>::words(num_tiles), count_bytes + tile_status<carry_t>::scratch_bytes(num_tiles));
  std::size_t* const d_result = d_count != nullptr ? d_count : static_cast<std::size_t*>(ws.d_scratch);
  if (n == 0) {
    throw_on_cuda_error(cudaMemsetAsync(d_result, 0, sizeof(std::size_t), ctx.stream()), "cudaMemsetAsync");
  } else {
    const auto kernel = reduce_by_key_kernel_for<K, V, Op, Equal>();
    constexpr std::size_t smem = reduce_by_key_smem_bytes<K, V>();
    prepare_kernel(kernel, shape::threads, smem);
    const bool vector_loads =
        reinterpret_cast<std::uintptr_t>(d_keys) % 16 == 0 && reinterpret_cast<std::uintptr_t>(d_values) % 16 == 0;
    const reduce_by_key_launch L{n, std::uint32_t(num_tiles), vector_loads, ws.d_status,
                                 static_cast<unsigned char*>(ws.d_scratch) + count_bytes, d_result};
    kernel<<<unsigned(num_tiles), shape::threads, smem, ctx.stream()>>>(d_keys, d_values, d_unique_keys, d_reduced,
                                                                        op, equal, L);
    throw_on_cuda_error(cudaGetLastError(), call);
  }
  if (d_count != nullptr) return 0;
  std::size_t count = 0;
  throw_on_cuda_error(cudaMemcpyAsync(&count, d_result, sizeof(count), cudaMemcpyDeviceToHost, ctx.stream()),
                      "cudaMemcpyAsync");
  throw_on_cuda_error(cudaStreamSynchronize(ctx.stream()), "cudaStreamSynchronize");
  return count;
}

}  // namespace detail

namespace device {

/// For every run of consecutive keys that `equal` joins: its first key goes to
/// d_unique_keys[r] and the reduction of its values (in order) to
/// d_reduced[r]; the number of runs goes to *d_count (device memory).
/// Outputs need room for n entries and must not overlap the inputs or each
/// other. One pass; asynchronous on ctx.stream(). Errors as
/// scankit::reduce_by_key_async.
template <class K, class V, class Op, class Equal = detail::equal_to>
void reduce_by_key_async(context& ctx, const K* d_keys, const V* d_values, std::size_t n, K* d_unique_keys,
                         V* d_reduced, std::size_t* d_count, Op op, Equal equal = {}) {
  detail::require_pointer(d_count, "d_count", "reduce_by_key_async");
  detail::run_reduce_by_key(ctx, d_keys, d_values, n, d_unique_keys, d_reduced, d_count, op, equal,
                            "reduce_by_key_async");
}

/// reduce_by_key_async that returns the number of runs (synchronizes).
template <class K, class V, class Op, class Equal = detail::equal_to>
std::size_t reduce_by_key(context& ctx, const K* d_keys, const V* d_values, std::size_t n, K* d_unique_keys,
                          V* d_reduced, Op op, Equal equal = {}) {
  return detail::run_reduce_by_key(ctx, d_keys, d_values, n, d_unique_keys, d_reduced, nullptr, op, equal,
                                   "reduce_by_key");
}

}  // namespace device
}  // namespace scankit
