// scankit/device/allocation.cuh — allocation offsets, template API: any
// integer size type scanned into any (usually wider) integer offset type.
//
//   scankit::device::allocation_offsets_async(ctx, d_sizes, n, d_offsets);  // d_offsets[n] = total
#pragma once

#include <scankit/allocation.hpp>
#include <scankit/context.hpp>
#include <scankit/detail/kernels/offsets_kernels.cuh>
#include <scankit/detail/launch_shape.cuh>
#include <scankit/detail/memory_ranges.hpp>
#include <scankit/device/operators.cuh>
#include <scankit/device/scan.cuh>
#include <scankit/error.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace scankit::device {

/// d_offsets[i] = sizes[0] + ... + sizes[i-1] for i = 0 .. n (n + 1 entries;
/// d_offsets[n] is the total), asynchronous on ctx.stream(). h_total (host
/// memory the device can write, e.g. pinned) receives the total if given;
/// total_ready is recorded once the total is known — with
/// total_timing::first, before the offsets are written (a reduction runs
/// first). d_offsets == d_sizes (same type) scans in place. Errors as
/// scankit::allocation_offsets_async.
template <class Size, class Offset>
void allocation_offsets_async(context& ctx, const Size* d_sizes, std::size_t n, Offset* d_offsets,
                              Offset* h_total = nullptr, cudaEvent_t total_ready = nullptr,
                              total_timing timing = total_timing::with_offsets) {
  static_assert(std::is_integral_v<Size> && std::is_integral_v<Offset>, "integer sizes and offsets");
  static_assert(sizeof(Offset) == 4 || sizeof(Offset) == 8, "4- or 8-byte offsets");
  const std::string where = "scankit::allocation_offsets: ";
  if (d_offsets == nullptr) throw std::invalid_argument(where + "d_offsets is null (it needs n + 1 entries)");
  if (n > 0 && d_sizes == nullptr) throw std::invalid_argument(where + "d_sizes is null with n > 0");
  if (n >= std::size_t(-1) / sizeof(Offset)) throw std::invalid_argument(where + "n too large");
  const bool in_place = static_cast<const void*>(d_sizes) == static_cast<const void*>(d_offsets) &&
                        sizeof(Size) == sizeof(Offset);
  if (!in_place && detail::ranges_overlap(d_sizes, n * sizeof(Size), d_offsets, (n + 1) * sizeof(Offset)))
    throw std::invalid_argument(where + "sizes and offsets overlap (only d_offsets == d_sizes is allowed)");

  auto announce_total = [&] {
    if (h_total != nullptr)
      detail::throw_on_cuda_error(
          cudaMemcpyAsync(h_total, d_offsets + n, sizeof(Offset), cudaMemcpyDeviceToHost, ctx.stream()),
          "cudaMemcpyAsync");
    if (total_ready != nullptr) detail::throw_on_cuda_error(cudaEventRecord(total_ready, ctx.stream()), "cudaEventRecord");
  };
  if (n == 0) {
    ctx.acquire(0, 0);  // checks that a device is there
    detail::throw_on_cuda_error(cudaMemsetAsync(d_offsets, 0, sizeof(Offset), ctx.stream()), "cudaMemsetAsync");
    announce_total();
    return;
  }
  using tuning = detail::default_scan_tuning<Offset>;
  const detail::maybe<Offset> zero{Offset(0), true};
  if (timing == total_timing::first) {
    ctx.acquire(0, 0);
    detail::throw_on_cuda_error(cudaMemsetAsync(d_offsets + n, 0, sizeof(Offset), ctx.stream()), "cudaMemsetAsync");
    constexpr int threads = detail::sum_sizes_threads;
    detail::sum_sizes_kernel<<<detail::grid_stride_blocks(n, threads) / 4 + 1, threads, 0, ctx.stream()>>>(
        d_sizes, n, d_offsets + n);
    detail::throw_on_cuda_error(cudaGetLastError(), "allocation total kernel launch");
    announce_total();
    detail::dispatch_scan<true, tuning>(ctx, d_sizes, d_offsets, n, plus{}, zero, "allocation_offsets");
  } else {
    detail::dispatch_scan<true, tuning>(ctx, d_sizes, d_offsets, n, plus{}, zero, "allocation_offsets", d_offsets + n);
    announce_total();
  }
}

/// Synchronous allocation_offsets_async: returns the total.
template <class Size, class Offset>
Offset allocation_offsets(context& ctx, const Size* d_sizes, std::size_t n, Offset* d_offsets) {
  allocation_offsets_async(ctx, d_sizes, n, d_offsets);
  Offset total{};
  detail::throw_on_cuda_error(
      cudaMemcpyAsync(&total, d_offsets + n, sizeof(Offset), cudaMemcpyDeviceToHost, ctx.stream()), "cudaMemcpyAsync");
  detail::throw_on_cuda_error(cudaStreamSynchronize(ctx.stream()), "cudaStreamSynchronize");
  return total;
}

}  // namespace scankit::device
