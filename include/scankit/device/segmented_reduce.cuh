// scankit/device/segmented_reduce.cuh — segmented reduction, template API:
// any trivially copyable T, any associative operator (applied in input order,
// so non-commutative operators work), any integer offset type.
//
//   scankit::device::segmented_reduce(ctx, d_values, num_values, d_offsets, num_segments, d_out, op, init);
#pragma once

#include <scankit/context.hpp>
#include <scankit/detail/kernels/segmented_reduce_kernel.cuh>
#include <scankit/detail/launch_shape.cuh>
#include <scankit/detail/ragged/merge_path_dispatch.cuh>
#include <scankit/detail/ragged/ragged_checks.hpp>
#include <scankit/device/scan.cuh>
#include <scankit/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace scankit::device {

/// d_out[i] = init ⊕ values[offsets[i]] ⊕ ... ⊕ values[offsets[i+1] - 1] for
/// i in [0, num_segments); an empty segment gives init. d_offsets has
/// num_segments + 1 entries indexing d_values (num_values entries; offsets[0]
/// need not be 0). Load-balanced by merge path: each block takes a fixed
/// number of values + boundaries; a partition launch, the tiles (no tile waits
/// for another), a scan of the tiles' carries and a fix-up of the segments
/// crossing tiles. Asynchronous on ctx.stream(). Errors as
/// scankit::segmented_reduce; also std::invalid_argument when d_values is not
/// aligned to sizeof(T) for a T whose size divides 16 (the tiles are staged
/// by 16-byte bulk copies). T: at most 32 bytes, and 1, 2, 4 or a multiple of
/// 4 bytes (the shared-memory slots of the boundaries are 4-byte words).
template <class T, class Offset, class Op>
void segmented_reduce(context& ctx, const T* d_values, std::size_t num_values, const Offset* d_offsets,
                      std::size_t num_segments, T* d_out, Op op, T init) {
  static_assert(std::is_integral_v<Offset>, "integer offsets");
  static_assert(sizeof(T) <= 4 || sizeof(T) % 4 == 0, "segmented_reduce: sizeof(T) must be 1, 2, 4 or a multiple of 4");
  static_assert(detail::segmented_reduce_smem<T, Offset>::bytes <= 220 * 1024,
                "segmented_reduce: T too large for the tile in shared memory (at most 32 bytes)");
  constexpr const char* call = "segmented_reduce";
  if (16 % sizeof(T) == 0 && reinterpret_cast<std::uintptr_t>(d_values) % sizeof(T) != 0)
    throw std::invalid_argument("scankit::segmented_reduce: d_values must be aligned to sizeof(T)");
  if (num_segments > 0) {
    detail::require_pointer(d_offsets, "d_offsets", call);
    detail::require_pointer(d_out, "d_out", call);
  }
  if (num_values > 0) detail::require_pointer(d_values, "d_values", call);
  detail::require_apart({{"d_out", d_out, detail::checked_bytes(num_segments, sizeof(T), call)}},
                        {{"d_values", d_values, detail::checked_bytes(num_values, sizeof(T), call)},
                         {"d_offsets", d_offsets, detail::checked_bytes(num_segments + 1, sizeof(Offset), call)}},
                        call);
  ctx.acquire(0, 0);  // checks that a device is there
  if (num_segments == 0) return;

  using shape = detail::segmented_reduce_shape<T>;
  using carry_t = detail::segment_carry<T>;
  // The carries are few (one per tile: about 30 000 at 2^28 items), so their
  // scan uses small tiles to spread over more SMs than the default's 5 blocks.
  using carry_scan_tuning = detail::scan_tuning<128, 4>;
  const std::uint64_t num_boundaries = num_segments + 1;
  const std::uint64_t num_tiles = detail::merge_path_tiles(num_boundaries, num_values, shape::tile_diagonals, call);

  // Scratch: partition | tile carries | first partials | carry-scan values.
  auto round_up = [](std::size_t bytes) { return (bytes + 255) / 256 * 256; };
  const std::size_t split_bytes = detail::merge_path_split_bytes(num_tiles);
  const std::size_t carry_bytes = round_up(num_tiles * sizeof(carry_t));
  const std::size_t first_bytes = round_up(num_tiles * sizeof(detail::maybe<T>));
  const std::size_t scan_tiles = detail::scan_num_tiles<carry_t, carry_scan_tuning>(num_tiles);
  const detail::workspace_view ws =
      ctx.acquire(1 + detail::tile_status<carry_t>::words(scan_tiles),
                  split_bytes + carry_bytes + first_bytes + detail::tile_status<carry_t>::scratch_bytes(scan_tiles),
                  2);  // the tiles kernel and the carry scan draw from the launch counter
  unsigned char* const scratch = static_cast<unsigned char*>(ws.d_scratch);
  detail::segmented_reduce_launch<T> L{};
  L.num_values = num_values;
  L.num_boundaries = num_boundaries;
  L.num_tiles = num_tiles;
  L.d_splits = reinterpret_cast<std::uint64_t*>(scratch);
  L.d_counter = ws.d_status;  // the tiles kernel draws from it, then the carry scan (in stream order)
  L.d_carries = reinterpret_cast<carry_t*>(scratch + split_bytes);
  L.d_first_partials = reinterpret_cast<detail::maybe<T>*>(scratch + split_bytes + carry_bytes);
  L.init = init;
  cudaStream_t stream = ctx.stream();

  // The kernel prepared first, so a device that cannot run it throws before anything is queued.
  const auto kernel = detail::segmented_reduce_tiles_kernel<T, Offset, Op>;
  constexpr std::size_t smem = detail::segmented_reduce_smem<T, Offset>::bytes;
  const int blocks_per_sm = detail::prepare_kernel(kernel, shape::threads, smem);  // also the shared memory limit
  const unsigned resident = detail::current_sm_count() * unsigned(blocks_per_sm);
  // Partition, then reduce the tiles with a persistent grid.
  detail::partition_merge_path(d_offsets, num_boundaries, num_values, shape::tile_diagonals, num_tiles,
                               const_cast<std::uint64_t*>(L.d_splits), stream);
  const unsigned blocks = num_tiles < resident ? unsigned(num_tiles) : resident;
  // Each launch after the partition is its predecessor's programmatic
  // dependent: it starts while that one finishes and waits for its results.
  detail::launch_maybe_dependent(kernel, true, blocks, shape::threads, smem, stream, call, d_values, d_offsets, d_out, op,
                                 L);

  // Carry in of every tile (in place), then the tiles' first segments.
  const detail::segment_carry_op<T, Op, false> carry_op{op};
  detail::launch_single_pass_scan<true, carry_scan_tuning>(
      stream, L.d_carries, L.d_carries, num_tiles, carry_op, detail::maybe<carry_t>{carry_t{0, init}, true},
      ws.d_status, scratch + split_bytes + carry_bytes + first_bytes, static_cast<carry_t*>(nullptr), call, true);
  detail::launch_maybe_dependent(detail::segmented_reduce_fixup_kernel<T, Op>, true, unsigned((num_tiles + 255) / 256),
                                 256, 0, stream, call, d_out, op, L);
}

}  // namespace scankit::device
