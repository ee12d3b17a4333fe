// detail/select/select_dispatch.cuh — host side of the selection primitives:
// checks the arguments, then runs either the single-pass kernel (the default
// policy; select_kernel.cuh) or, for a textbook scan policy, the classic
// three steps: mark (0/1 per item), exclusive scan of the marks with that
// policy, scatter.
#pragma once

#include <scankit/context.hpp>
#include <scankit/detail/cooperative_launch.cuh>
#include <scankit/detail/dependent_launch.cuh>
#include <scankit/detail/kernels/select_kernel.cuh>
#include <scankit/detail/launch_shape.cuh>
#include <scankit/detail/memory_ranges.hpp>
#include <scankit/detail/select/count_selected.cuh>
#include <scankit/detail/select/selectors.cuh>
#include <scankit/detail/textbook_dispatch.cuh>
#include <scankit/error.hpp>
#include <scankit/policy.hpp>
#include <scankit/scan.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace scankit::detail {

/// The arrays of one selection call (null where a mode has none).
template <class Item, class Value>
struct select_arrays {
  const Item* d_in = nullptr;
  const void* d_flags = nullptr;    // for the argument checks only
  std::size_t flag_bytes = 0;
  const Value* d_values_in = nullptr;
  Item* d_out = nullptr;
  Value* d_values_out = nullptr;    // compact: values; RLE: run lengths
};

/// std::invalid_argument for null pointers, sizes that overflow, and
/// overlaps. Compact, unique and RLE may write their items over the input
/// (d_out == d_in: each tile is staged in shared memory before any tile
/// writes where it was); partition may not, and nothing else may overlap.
template <select_mode Mode, class Item, class Value>
void check_select_arguments(const select_arrays<Item, Value>& a, std::size_t n, const char* name) {
  const std::string where = std::string("scankit::") + name + ": ";
  if (n == 0) return;
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  if (a.d_in == nullptr || a.d_out == nullptr || (a.flag_bytes != 0 && a.d_flags == nullptr) ||
      (has_values && (a.d_values_out == nullptr || (Mode == select_mode::compact && a.d_values_in == nullptr))))
    throw std::invalid_argument(where + "null device pointer with n > 0");
  const std::size_t largest = sizeof(Item) > sizeof(Value) ? sizeof(Item) : sizeof(Value);
  if (n > std::numeric_limits<std::size_t>::max() / largest / 2)
    throw std::invalid_argument(where + "n too large");
  const std::size_t item_bytes = n * sizeof(Item), value_bytes = has_values ? n * sizeof(Value) : 0;
  const std::size_t flag_bytes = n * a.flag_bytes;
  if (Mode == select_mode::partition ? ranges_overlap(a.d_in, item_bytes, a.d_out, item_bytes)
                                     : (a.d_in != a.d_out && ranges_overlap(a.d_in, item_bytes, a.d_out, item_bytes)))
    throw std::invalid_argument(where + (Mode == select_mode::partition
                                             ? "input and output overlap (partition cannot work in place)"
                                             : "input and output overlap (only d_out == d_in is allowed)"));
  if (ranges_overlap(a.d_flags, flag_bytes, a.d_out, item_bytes))
    throw std::invalid_argument(where + "flags and output overlap");
  if (has_values) {
    // Values are read while other tiles write theirs, so never in place.
    if (ranges_overlap(a.d_values_in, value_bytes, a.d_values_out, value_bytes))
      throw std::invalid_argument(where + "input and output values overlap (values cannot be compacted in place)");
    if (ranges_overlap(a.d_values_out, value_bytes, a.d_in, item_bytes) ||
        ranges_overlap(a.d_values_out, value_bytes, a.d_out, item_bytes) ||
        ranges_overlap(a.d_values_out, value_bytes, a.d_flags, flag_bytes) ||
        ranges_overlap(a.d_values_in, value_bytes, a.d_out, item_bytes))
      throw std::invalid_argument(where + (Mode == select_mode::run_length_encode
                                               ? "run lengths overlap the items"
                                               : "values overlap the items or flags"));
  }
}

/// Blocks of select_kernel on `Tuning` resident at once on the current GPU:
/// the persistent grid, over which partition counting in its launch splits
/// its tiles. Call after ctx.acquire (which checks that a device is there).
template <select_mode Mode, class Tuning, class Item, class Value, class Selector>
unsigned select_resident_blocks() {
  const auto kernel = select_kernel<Item, Value, Selector, Mode, Tuning>;
  constexpr std::size_t smem_bytes = select_smem_bytes<Item, Tuning, side_bytes_of<Selector>>;
  // prepare_kernel also allows the > 48 KB of staged tiles.
  return current_sm_count() * unsigned(prepare_kernel(kernel, select_block_threads<Mode, Value, Tuning>, smem_bytes));
}

/// The single-pass selection (default policy). Returns the count when
/// d_count is null (synchronizing), else 0 (the count goes to *d_count).
template <select_mode Mode, class Tuning, class Item, class Value, class Selector>
std::size_t run_select_single_pass(context& ctx, const select_arrays<Item, Value>& a, Selector select, std::size_t n,
                                   std::size_t* d_count) {
  using prefix_t = std::conditional_t<Mode == select_mode::run_length_encode, run_prefix, std::uint32_t>;
  constexpr std::size_t tile = tile_items<Item, Tuning>;
  constexpr std::size_t chunk_items = select_chunk_items(tile);
  const std::size_t max_tiles = ((n < chunk_items ? n : chunk_items) + tile - 1) / tile;
  constexpr std::size_t state_bytes = (sizeof(select_state) + 255) / 256 * 256;
  const auto kernel = select_kernel<Item, Value, Selector, Mode, Tuning>;
  constexpr std::size_t smem_bytes = select_smem_bytes<Item, Tuning, side_bytes_of<Selector>>;
  constexpr int block_threads = select_block_threads<Mode, Value, Tuning>;
  ctx.acquire(0, 0);  // checks that a device is there before touching the kernel
  const unsigned sms = current_sm_count();
  const unsigned resident = select_resident_blocks<Mode, Tuning, Item, Value, Selector>();

  // Partition's count: in the selection launch itself, cooperative, on a
  // tuning that counts in the launch (select_counting_in_launch); else, or
  // when that grid cannot be resident at once, a counting pre-pass of one
  // wave of at most 4 blocks per SM (1 024 threads), so the selection
  // kernel's blocks find room beside it as soon as it lets them launch. The
  // pre-pass's block counts follow the state.
  unsigned count_blocks = 0;
  if constexpr (Mode == select_mode::partition) {
    count_blocks = grid_stride_blocks((n + 15) / 16, count_threads);
    if (count_blocks > 4 * sms) count_blocks = 4 * sms;
  }
  const std::size_t counts_bytes = (count_blocks * sizeof(std::uint64_t) + 255) / 256 * 256;
  // The in-launch counts go to status words after the tiles' (tagged, like
  // theirs, so a stale word never reads as this launch's).
  const std::size_t count_words = Tuning::count_in_launch ? resident : 0;

  select_state* d_state = nullptr;
  for (std::size_t begin = 0, chunk = 0; begin < n; begin += chunk_items, ++chunk) {
    // One acquire per launch: each launch draws its own status tag.
    const workspace_view ws = ctx.acquire(1 + tile_status<prefix_t>::words(max_tiles) + count_words,
                                          state_bytes + counts_bytes + tile_status<prefix_t>::scratch_bytes(max_tiles));
    d_state = static_cast<select_state*>(ws.d_scratch);
    select_launch<Item, Value, Selector> L{};
    L.d_in = a.d_in;
    L.d_values_in = a.d_values_in;
    L.select = select;
    L.d_out = a.d_out;
    L.d_values_out = a.d_values_out;
    L.n = n;
    L.chunk_begin = begin;
    L.chunk_items = std::uint32_t(n - begin < chunk_items ? n - begin : chunk_items);
    L.num_tiles = std::uint32_t((L.chunk_items + tile - 1) / tile);
    L.chunk = std::uint32_t(chunk);
    L.last_chunk = begin + L.chunk_items == n;
    L.bulk_loads = reinterpret_cast<std::uintptr_t>(a.d_in) % 16 == 0;
    L.d_side = a.d_flags;
    L.bulk_side = reinterpret_cast<std::uintptr_t>(a.d_flags) % 16 == 0;
    L.d_state = d_state;
    auto* const d_block_counts = reinterpret_cast<std::uint64_t*>(static_cast<unsigned char*>(ws.d_scratch) + state_bytes);
    L.d_block_counts = d_block_counts;
    L.d_count_words = ws.d_status + 1 + tile_status<prefix_t>::words(max_tiles);
    L.d_count = d_count;
    L.d_status = ws.d_status;
    L.d_status_scratch = static_cast<unsigned char*>(ws.d_scratch) + state_bytes + counts_bytes;
    // Persistent grid: as many blocks as stay resident, never more than tiles.
    const unsigned blocks = L.num_tiles < resident ? L.num_tiles : resident;
    if constexpr (Mode == select_mode::partition) {
      if (chunk == 0) {
        if constexpr (Tuning::count_in_launch) {
          if (!L.last_chunk)
            throw std::logic_error("scankit: partition counts in its launch only in a call of one launch");
          L.count_in_launch = true;
          if (try_launch_cooperative(kernel, blocks, block_threads, smem_bytes, ctx.stream(),
                                     "selection kernel launch", L))
            continue;
          L.count_in_launch = false;  // the grid cannot be resident at once: count first
        }
        // Not a dependent of the kernel before: launched as one, partition back
        // to back measured 5-41 % slower at 2^22-2^24 (docs/select.md).
        count_selected_kernel<<<count_blocks, count_threads, 0, ctx.stream()>>>(a.d_in, select, n, d_block_counts);
        throw_on_cuda_error(cudaGetLastError(), "selection count kernel launch");
      }
      L.count_blocks = count_blocks;
    }
    launch_maybe_dependent(kernel, true, blocks, block_threads, smem_bytes, ctx.stream(), "selection kernel launch", L);
  }
  if (d_count != nullptr) return 0;
  std::uint64_t count = 0;
  throw_on_cuda_error(
      cudaMemcpyAsync(&count, &d_state->count, sizeof(count), cudaMemcpyDeviceToHost, ctx.stream()), "cudaMemcpyAsync");
  throw_on_cuda_error(cudaStreamSynchronize(ctx.stream()), "cudaStreamSynchronize");
  return std::size_t(count);
}

/// Partition counting in its launch on whichever of two tunings leaves the
/// busiest block fewer items (partition_takes_smaller_tiles): `Smaller`'s
/// tiles where they leave it at least 5 % fewer, else `Larger`'s. Where the
/// two are one tuning (8-byte items without flags), it asks nothing.
template <class Smaller, class Larger, class Item, class Value, class Selector>
std::size_t run_partition_on_fewer_busiest_items(context& ctx, const select_arrays<Item, Value>& a, Selector select,
                                                 std::size_t n, std::size_t* d_count) {
  constexpr select_mode partition = select_mode::partition;
  if constexpr (std::is_same_v<Smaller, Larger>)
    return run_select_single_pass<partition, Larger>(ctx, a, select, n, d_count);
  ctx.acquire(0, 0);  // checks that a device is there before the grids are asked for
  if (partition_takes_smaller_tiles(n, tile_items<Item, Smaller>,
                                    select_resident_blocks<partition, Smaller, Item, Value, Selector>(),
                                    tile_items<Item, Larger>,
                                    select_resident_blocks<partition, Larger, Item, Value, Selector>()))
    return run_select_single_pass<partition, Smaller>(ctx, a, select, n, d_count);
  return run_select_single_pass<partition, Larger>(ctx, a, select, n, d_count);
}

// ---- textbook policies: mark, scan, scatter ---------------------------------

/// marks[i] = 1 if item i is selected, else 0.
template <class Offset, class Item, class Selector>
__global__ void mark_kernel(const Item* d_in, Selector select, std::size_t n, Offset* d_marks) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const Item one[1] = {d_in[i]};
    d_marks[i] = Offset(select.template bits<1>(one, d_in + i, i, 1) & 1u);
  }
}

/// With the marks scanned (exclusive) into offsets: every item to its slot.
/// Run-length encoding writes each run's start into its length slot here;
/// run_lengths_kernel turns starts into lengths.
template <select_mode Mode, class Offset, class Item, class Value, class Selector>
__global__ void scatter_kernel(const Item* d_in, const Value* d_values_in, Selector select, std::size_t n,
                               const Offset* d_offsets, Item* d_out, Value* d_values_out, std::uint64_t* d_count) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const Item last[1] = {d_in[n - 1]};
  const std::uint64_t total = std::uint64_t(d_offsets[n - 1]) + (select.template bits<1>(last, d_in + n - 1, n - 1, 1) & 1u);
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const Item one[1] = {d_in[i]};
    const bool selected = select.template bits<1>(one, d_in + i, i, 1) & 1u;
    const std::uint64_t slot = d_offsets[i];
    if constexpr (Mode == select_mode::partition) {
      d_out[selected ? slot : total + (i - slot)] = one[0];
    } else if (selected) {
      d_out[slot] = one[0];
      if constexpr (Mode == select_mode::run_length_encode) d_values_out[slot] = static_cast<Value>(i);
      else if constexpr (!std::is_same_v<Value, no_values>) d_values_out[slot] = d_values_in[i];
    }
    if (i == n - 1) *d_count = total;
  }
}

/// Run-length encoding: the run that ends at item i (the last item, or one
/// followed by a run head) turns its stored start into its length.
template <class Offset, class Item, class Value, class Selector>
__global__ void run_lengths_kernel(const Item* d_in, Selector select, std::size_t n, const Offset* d_offsets,
                                   Value* d_lengths) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    bool ends_run = i == n - 1;
    if (!ends_run) {
      const Item next[1] = {d_in[i + 1]};
      ends_run = select.template bits<1>(next, d_in + i + 1, i + 1, 1) & 1u;
    }
    if (ends_run) {
      const Item one[1] = {d_in[i]};
      const std::uint64_t run = std::uint64_t(d_offsets[i]) + (select.template bits<1>(one, d_in + i, i, 1) & 1u) - 1;
      d_lengths[run] = static_cast<Value>(i + 1 - std::uint64_t(d_lengths[run]));
    }
  }
}

/// Device memory from the stream-ordered pool, freed on the stream (the
/// textbook path needs n offsets; the single-pass kernel needs none).
class stream_buffer {
 public:
  stream_buffer(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    throw_on_cuda_error(cudaMallocAsync(&p_, bytes, stream), "cudaMallocAsync");
  }
  ~stream_buffer() { cudaFreeAsync(p_, stream_); }
  stream_buffer(const stream_buffer&) = delete;
  stream_buffer& operator=(const stream_buffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
  cudaStream_t stream_;
};

template <select_mode Mode, class Offset, class Item, class Value, class Selector>
std::size_t run_select_textbook(context& ctx, select_arrays<Item, Value> a, Selector select, std::size_t n,
                                std::size_t* d_count, const scan_policy& policy) {
  const cudaStream_t stream = ctx.stream();
  ctx.acquire(0, 0);  // checks that a device is there
  stream_buffer offsets(n * sizeof(Offset), stream);
  stream_buffer count(sizeof(std::uint64_t), stream);
  // Writing in place would overwrite items other threads have yet to read:
  // scatter from a copy.
  const bool in_place = static_cast<const void*>(a.d_in) == static_cast<const void*>(a.d_out);
  stream_buffer input_copy(in_place ? n * sizeof(Item) : 1, stream);
  if (in_place) {
    throw_on_cuda_error(cudaMemcpyAsync(input_copy.get(), a.d_in, n * sizeof(Item), cudaMemcpyDeviceToDevice, stream),
                        "cudaMemcpyAsync");
    a.d_in = static_cast<const Item*>(input_copy.get());
  }
  Offset* const d_offsets = static_cast<Offset*>(offsets.get());
  auto* const d_total = static_cast<std::uint64_t*>(count.get());
  const unsigned blocks = grid_stride_blocks(n, 256);
  mark_kernel<<<blocks, 256, 0, stream>>>(a.d_in, select, n, d_offsets);
  throw_on_cuda_error(cudaGetLastError(), "mark kernel launch");
  scankit::exclusive_scan(ctx, d_offsets, d_offsets, n, Offset(0), policy);  // the textbook scan under study
  scatter_kernel<Mode><<<blocks, 256, 0, stream>>>(a.d_in, a.d_values_in, select, n, d_offsets, a.d_out,
                                                   a.d_values_out, d_total);
  throw_on_cuda_error(cudaGetLastError(), "scatter kernel launch");
  if constexpr (Mode == select_mode::run_length_encode) {
    run_lengths_kernel<<<blocks, 256, 0, stream>>>(a.d_in, select, n, d_offsets, a.d_values_out);
    throw_on_cuda_error(cudaGetLastError(), "run lengths kernel launch");
  }
  std::uint64_t host_count = 0;
  throw_on_cuda_error(cudaMemcpyAsync(d_count != nullptr ? static_cast<void*>(d_count) : &host_count, d_total,
                                      sizeof(std::uint64_t),
                                      d_count != nullptr ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost, stream),
                      "cudaMemcpyAsync");
  if (d_count != nullptr) return 0;
  throw_on_cuda_error(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return std::size_t(host_count);
}

/// Runs one selection call: n == 0 writes a zero count; the default policy
/// takes the single-pass kernel, any other the textbook path. Returns the
/// count when d_count is null (and synchronizes), else 0.
template <select_mode Mode, class Item, class Value, class Selector>
std::size_t run_select(context& ctx, const select_arrays<Item, Value>& a, Selector select, std::size_t n,
                       std::size_t* d_count, const scan_policy& policy, const char* name) {
  const bool tuned = policy.grid == grid_strategy::decoupled_lookback && policy.block == block_algorithm::warp_shuffle;
  const bool wide_offsets = n > std::numeric_limits<std::uint32_t>::max();
  if (!tuned) resolve_textbook_shape(policy, wide_offsets ? 8 : 4);  // bad sizes throw before anything runs
  check_select_arguments<Mode>(a, n, name);
  if (n == 0) {
    if (d_count != nullptr)
      throw_on_cuda_error(cudaMemsetAsync(d_count, 0, sizeof(std::size_t), ctx.stream()), "cudaMemsetAsync");
    return 0;
  }
  if (tuned) {
    constexpr std::size_t side_bytes = side_bytes_of<Selector>;
    if constexpr (Mode == select_mode::partition) {
      // Partition counts in its own launch (select_counting_in_launch) when
      // the call is one launch; a call of several counts in a pre-pass first
      // (its launches need the call's count). Against the in-launch count
      // only up to 2^20 (uint32) or 2^22 (uint64) items and the pre-pass
      // above (H200, three interleaved rounds, medians of 25 calls, byte
      // flags, 10 / 50 / 90 %): uint64 −2.3 to −6.9 % from 2^23 up (−4.2 to
      // −5.2 % at 2^28–2^30), uint32 −4.8 to −5.9 % at 2^22 and 2^24, −1.9
      // to +0.1 % at 2^25–2^30, within 1 % at 2^21 and 2^23.
      // 8-byte items without flags keep the small-call tiles (512 × 4) at
      // every size: on 576 × 4 the kernel spilled (20 bytes at its cap of 56
      // registers). Others keep them past select_small_call_items where they
      // leave the busiest block at least 5 % fewer items (uint32 at 2^23 on
      // 132 SMs), and below it 4-byte items by byte flags take shorter tiles
      // on the same rule (partition_short_tiles: up to one a block, and 2^21,
      // on 132 SMs).
      constexpr bool small_call_tiles_only = side_bytes == 0 && sizeof(Item) == 8;
      using small_call_tuning = select_counting_in_launch<default_select_tuning<Item, side_bytes, true>>;
      using counting_tuning = select_counting_in_launch<default_select_tuning<Item, side_bytes, small_call_tiles_only>>;
      if (n < select_small_call_items) {
        using short_tuning = select_counting_in_launch<partition_short_tiles<Item, side_bytes>>;
        if constexpr (has_partition_short_tiles<Item, side_bytes>)
          return run_partition_on_fewer_busiest_items<short_tuning, small_call_tuning>(ctx, a, select, n, d_count);
        return run_select_single_pass<Mode, small_call_tuning>(ctx, a, select, n, d_count);
      }
      if (n <= select_chunk_items(tile_items<Item, counting_tuning>))
        return run_partition_on_fewer_busiest_items<small_call_tuning, counting_tuning>(ctx, a, select, n, d_count);
      return run_select_single_pass<Mode, default_select_tuning<Item, side_bytes>>(ctx, a, select, n, d_count);
    } else {
      if constexpr (has_small_call_select_tuning<Item, side_bytes>)
        if (n < select_small_call_items)
          return run_select_single_pass<Mode, default_select_tuning<Item, side_bytes, true>>(ctx, a, select, n,
                                                                                             d_count);
      // One block per SM for larger calls. Where the small-call tiles reach
      // up to those (8-byte items without flags, 4-byte items by byte flags),
      // no call takes the default tuning, and its kernel is not instantiated.
      using wide_tuning = default_select_tuning<Item, side_bytes, false, 1>;
      constexpr bool wide = select_wide_tiles<Mode, Value, Item, side_bytes>;
      if constexpr (wide && has_small_call_select_tuning<Item, side_bytes> &&
                    select_wide_tiles_items<Item, side_bytes> <= select_small_call_items) {
        return run_select_single_pass<Mode, wide_tuning>(ctx, a, select, n, d_count);
      } else {
        if constexpr (wide)
          if (n >= select_wide_tiles_items<Item, side_bytes>)
            return run_select_single_pass<Mode, wide_tuning>(ctx, a, select, n, d_count);
        return run_select_single_pass<Mode, default_select_tuning<Item, side_bytes>>(ctx, a, select, n, d_count);
      }
    }
  }
  if (!wide_offsets) return run_select_textbook<Mode, std::uint32_t>(ctx, a, select, n, d_count, policy);
  return run_select_textbook<Mode, std::uint64_t>(ctx, a, select, n, d_count, policy);
}

}  // namespace scankit::detail
