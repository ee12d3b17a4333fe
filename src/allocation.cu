// src/allocation.cu — host API allocation offsets. Sums wrap identically
// for signed and unsigned integers of one width, so int32 → int32 runs the
// uint32 kernel and int64 → int64 the uint64 one; int32 → int64 keeps its
// own kernel (sign extension).
#include "ragged_types.hpp"

#include <scankit/allocation.hpp>
#include <scankit/device/allocation.cuh>

namespace scankit::detail {

template <class Size, class Offset>
Offset run_allocation_offsets(context& ctx, const Size* d_sizes, std::size_t n, Offset* d_offsets) {
  if constexpr (sizeof(Size) == sizeof(Offset) && std::is_signed_v<Size>)
    return Offset(device::allocation_offsets(ctx, as_unsigned(d_sizes), n, as_unsigned(d_offsets)));
  else
    return device::allocation_offsets(ctx, d_sizes, n, d_offsets);
}

template <class Size, class Offset>
void run_allocation_offsets_async(context& ctx, const Size* d_sizes, std::size_t n, Offset* d_offsets,
                                  Offset* h_total, cudaEvent_t total_ready, total_timing timing) {
  if constexpr (sizeof(Size) == sizeof(Offset) && std::is_signed_v<Size>)
    device::allocation_offsets_async(ctx, as_unsigned(d_sizes), n, as_unsigned(d_offsets), as_unsigned(h_total),
                                     total_ready, timing);
  else
    device::allocation_offsets_async(ctx, d_sizes, n, d_offsets, h_total, total_ready, timing);
}

}  // namespace scankit::detail

#define SCANKIT_DEFINE_ALLOCATION(Size, Offset)                                                                   \
  Offset scankit::allocation_offsets(context& ctx, const Size* d_sizes, std::size_t n, Offset* d_offsets) {       \
    return detail::run_allocation_offsets(ctx, d_sizes, n, d_offsets);                                          \
  }                                                                                                              \
  void scankit::allocation_offsets_async(context& ctx, const Size* d_sizes, std::size_t n, Offset* d_offsets,    \
                                         Offset* h_total, cudaEvent_t total_ready, total_timing timing) {       \
    detail::run_allocation_offsets_async(ctx, d_sizes, n, d_offsets, h_total, total_ready, timing);             \
  }

SCANKIT_DEFINE_ALLOCATION(std::uint32_t, std::uint32_t)
SCANKIT_DEFINE_ALLOCATION(std::uint32_t, std::uint64_t)
SCANKIT_DEFINE_ALLOCATION(std::uint64_t, std::uint64_t)
SCANKIT_DEFINE_ALLOCATION(std::int32_t, std::int32_t)
SCANKIT_DEFINE_ALLOCATION(std::int32_t, std::int64_t)
SCANKIT_DEFINE_ALLOCATION(std::int64_t, std::int64_t)
