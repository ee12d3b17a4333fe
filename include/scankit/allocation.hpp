// scankit/allocation.hpp — allocation offsets: where each of n producers
// writes its sizes[i] items. Host API, plain C++; link scankit::scankit.
//
//   std::uint64_t total = scankit::allocation_offsets(ctx, d_sizes, n, d_offsets);  // n + 1 offsets
//   // item k of producer i goes to out[d_offsets[i] + k]
//
// Size → offset types: uint32 → uint32 or uint64, uint64 → uint64,
// int32 → int32 or int64, int64 → int64 (a 64-bit offset type keeps totals
// past 2^32 exact; sums that overflow the offset type wrap).
#pragma once

#include <scankit/context.hpp>
#include <scankit/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace scankit {

/// When allocation_offsets_async makes the total known.
enum class total_timing {
  /// Together with the offsets: one pass over the sizes, at scan speed.
  with_offsets,
  /// Before the offsets: a reduction over the sizes runs first and the total
  /// (and `total_ready`) is there while the offsets are still being written,
  /// so the caller can allocate the next buffer meanwhile. Costs one more
  /// read of the sizes.
  first,
};

#define SCANKIT_DECLARE_ALLOCATION(Size, Offset)                                                                  \
  /** offsets[i] = sizes[0] + ... + sizes[i-1] for i = 0 .. n: d_offsets has n + 1 entries and               \
      d_offsets[n] is the total, which is returned. Synchronizes ctx.stream(). Throws                        \
      std::invalid_argument before any launch (null d_offsets — it always has at least one entry — or null  \
      d_sizes with n > 0; sizes and offsets overlapping other than d_offsets == d_sizes), and                 \
      scankit::cuda_error if CUDA fails. n == 0 writes d_offsets[0] = 0. */                                   \
  Offset allocation_offsets(context& ctx, const Size* d_sizes, std::size_t n, Offset* d_offsets);            \
  /** Asynchronous allocation_offsets: the total is left in d_offsets[n]. If h_total (host memory the       \
      device can write to: pinned, e.g. cudaMallocHost) is given, it receives the total; if total_ready is   \
      given, it is recorded on ctx.stream() as soon as the total is in d_offsets[n] (and *h_total). With     \
      total_timing::first that is before the offsets are written. */                                         \
  void allocation_offsets_async(context& ctx, const Size* d_sizes, std::size_t n, Offset* d_offsets,         \
                                Offset* h_total = nullptr, cudaEvent_t total_ready = nullptr,                \
                                total_timing timing = total_timing::with_offsets);

SCANKIT_DECLARE_ALLOCATION(std::uint32_t, std::uint32_t)
SCANKIT_DECLARE_ALLOCATION(std::uint32_t, std::uint64_t)
SCANKIT_DECLARE_ALLOCATION(std::uint64_t, std::uint64_t)
SCANKIT_DECLARE_ALLOCATION(std::int32_t, std::int32_t)
SCANKIT_DECLARE_ALLOCATION(std::int32_t, std::int64_t)
SCANKIT_DECLARE_ALLOCATION(std::int64_t, std::int64_t)
#undef SCANKIT_DECLARE_ALLOCATION

}  // namespace scankit
