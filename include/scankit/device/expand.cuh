// scankit/device/expand.cuh — expand / load-balancing search, template API.
//
//   // offsets: num_segments + 1 CSR offsets, offsets[0] = 0, offsets[num_segments] = total
//   scankit::device::expand(ctx, d_offsets, num_segments, total,
//       [=] __device__ (std::uint64_t j, std::uint64_t segment, std::uint64_t rank) { out[j] = f(segment, rank); });
//
// Merge-path tiles give every block the same work, whatever the segment sizes.
#pragma once

#include <scankit/context.hpp>
#include <scankit/detail/dependent_launch.cuh>
#include <scankit/detail/kernel_settings.hpp>
#include <scankit/detail/kernels/expand_kernel.cuh>
#include <scankit/detail/ragged/merge_path_dispatch.cuh>
#include <scankit/detail/ragged/ragged_checks.hpp>
#include <scankit/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace scankit {
namespace detail {

template <class Offset>
struct load_balancing_writer {
  Offset* d_source;
  Offset* d_rank;
  __device__ void operator()(std::uint64_t j, std::uint64_t segment, std::uint64_t rank) const {
    d_source[j] = Offset(segment);
    if (d_rank != nullptr) d_rank[j] = Offset(rank);
  }
};

template <class T>
struct interval_writer {
  const T* d_values;
  T* d_out;
  __device__ void operator()(std::uint64_t j, std::uint64_t segment, std::uint64_t) const { d_out[j] = d_values[segment]; }
};

template <class Offset, class F>
void dispatch_expand(context& ctx, const Offset* d_offsets, std::size_t num_segments, std::size_t total, F f,
                     const char* call) {
  static_assert(std::is_integral_v<Offset>, "integer offsets");
  require_pointer(d_offsets, "d_offsets", call);
  if (total > 0 && num_segments == 0)
    throw std::invalid_argument(std::string("scankit::") + call + ": total > 0 but no segments");
  checked_bytes(num_segments + 1, sizeof(Offset), call);
  ctx.acquire(0, 0);  // checks that a device is there
  if (total == 0) return;
  const std::uint64_t num_tiles = merge_path_tiles(num_segments + 1, total, expand_shape::tile_diagonals, call);
  const workspace_view ws = ctx.acquire(0, merge_path_split_bytes(num_tiles));
  auto* d_splits = static_cast<std::uint64_t*>(ws.d_scratch);
  const auto kernel = expand_kernel<Offset, F>;
  constexpr std::size_t smem = expand_smem_bytes();
  prepare_kernel(kernel, expand_shape::threads, smem);  // first: a device that cannot run it throws before any launch
  partition_merge_path(d_offsets, num_segments + 1, total, expand_shape::tile_diagonals, num_tiles, d_splits,
                       ctx.stream());
  // The partition's programmatic dependent: the tiles start while it
  // finishes and wait for its splits.
  launch_maybe_dependent(kernel, true, unsigned(num_tiles), expand_shape::threads, smem, ctx.stream(), call, d_offsets, f,
                         expand_launch{num_segments, total, num_tiles, d_splits});
}

}  // namespace detail

namespace device {

/// Calls f(j, segment, rank) on the device once for every output j in
/// [0, total), where offsets[segment] <= j < offsets[segment + 1] and rank =
/// j - offsets[segment] (all std::uint64_t). Consecutive threads get
/// consecutive j. d_offsets: num_segments + 1 non-decreasing entries,
/// offsets[0] = 0, offsets[num_segments] = total (scankit::validate_offsets
/// with limit = total checks the order and that no offset passes total; the
/// two ends are the caller's to keep). With invalid offsets the segments
/// passed are unspecified but always < num_segments. Asynchronous on
/// ctx.stream().
template <class Offset, class F>
void expand(context& ctx, const Offset* d_offsets, std::size_t num_segments, std::size_t total, F f) {
  detail::dispatch_expand(ctx, d_offsets, num_segments, total, f, "expand");
}

/// d_source[j] = segment of output j, d_rank[j] (if not null) = its rank.
template <class Offset>
void load_balancing_search(context& ctx, const Offset* d_offsets, std::size_t num_segments, std::size_t total,
                           Offset* d_source, Offset* d_rank = nullptr) {
  constexpr const char* call = "load_balancing_search";
  if (total > 0) detail::require_pointer(d_source, "d_source", call);
  if (total > std::uint64_t(std::numeric_limits<Offset>::max()))
    throw std::invalid_argument("scankit::load_balancing_search: total does not fit the offset type");
  if (num_segments > 0 && num_segments - 1 > std::uint64_t(std::numeric_limits<Offset>::max()))
    throw std::invalid_argument("scankit::load_balancing_search: segment indices do not fit the offset type");
  const std::size_t out_bytes = detail::checked_bytes(total, sizeof(Offset), call);
  detail::require_apart({{"d_source", d_source, out_bytes}, {"d_rank", d_rank, out_bytes}},
                        {{"d_offsets", d_offsets, (num_segments + 1) * sizeof(Offset)}}, call);
  detail::dispatch_expand(ctx, d_offsets, num_segments, total, detail::load_balancing_writer<Offset>{d_source, d_rank},
                          call);
}

/// d_out[j] = d_values[segment of j]: values[i] repeated offsets[i+1] -
/// offsets[i] times.
template <class T, class Offset>
void interval_expand(context& ctx, const T* d_values, const Offset* d_offsets, std::size_t num_segments,
                     std::size_t total, T* d_out) {
  constexpr const char* call = "interval_expand";
  if (total > 0) {
    detail::require_pointer(d_values, "d_values", call);
    detail::require_pointer(d_out, "d_out", call);
  }
  detail::require_apart({{"d_out", d_out, detail::checked_bytes(total, sizeof(T), call)}},
                        {{"d_values", d_values, num_segments * sizeof(T)},
                         {"d_offsets", d_offsets, (num_segments + 1) * sizeof(Offset)}},
                        call);
  detail::dispatch_expand(ctx, d_offsets, num_segments, total, detail::interval_writer<T>{d_values, d_out}, call);
}

}  // namespace device
}  // namespace scankit
