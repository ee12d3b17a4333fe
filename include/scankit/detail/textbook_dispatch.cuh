// detail/textbook_dispatch.cuh — host side of the textbook scan policies:
// resolves a scan_policy to a block shape, sizes the workspace, and launches
// the grid strategy's kernels (textbook_scan.cuh) on the context's stream.
#pragma once

#include <scankit/context.hpp>
#include <scankit/detail/kernels/textbook_scan.cuh>
#include <scankit/error.hpp>
#include <scankit/policy.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace scankit::detail {

/// A textbook block shape: threads per block, items per thread, tile items.
struct textbook_shape {
  unsigned threads, items, tile_items;
  std::size_t smem_bytes;  // tile (padded where the algorithm pads) + scratch (threads + 32 items)
};

inline unsigned fixed_items_of(block_algorithm b) {
  switch (b) {
    case block_algorithm::kogge_stone:
    case block_algorithm::kogge_stone_double_buffer: return 1;
    case block_algorithm::brent_kung: return 2;
    default: return 0;
  }
}

/// Checks the policy's sizes (std::invalid_argument) and fills in defaults.
inline textbook_shape resolve_textbook_shape(const scan_policy& p, std::size_t item_bytes) {
  const std::string where = std::string("scankit: policy ") + to_string(p.grid) + "/" + to_string(p.block) + ": ";
  const unsigned fixed = fixed_items_of(p.block);
  textbook_shape s{};
  s.threads = p.threads != 0 ? p.threads : (fixed != 0 ? 512u : 256u);
  if (s.threads > 1024) throw std::invalid_argument(where + "threads must be 1 to 1024");
  if (fixed != 0) {
    if (p.items_per_thread != 0 && p.items_per_thread != fixed)
      throw std::invalid_argument(where + "this block algorithm takes " + std::to_string(fixed) + " item(s) per thread");
    s.items = fixed;
  } else {
    s.items = p.items_per_thread != 0 ? p.items_per_thread : 8u;
    if (s.items > 64) throw std::invalid_argument(where + "items_per_thread must be 1 to 64");
  }
  s.tile_items = s.threads * s.items;
  if (p.grid == grid_strategy::decoupled_lookback && s.threads < warp_threads)
    throw std::invalid_argument(where + "decoupled look-back needs at least 32 threads (a warp looks back)");
  if ((p.grid == grid_strategy::reduce_then_scan || p.grid == grid_strategy::scan_then_propagate) && s.tile_items < 2)
    throw std::invalid_argument(where + "multi-pass strategies need at least 2 items per tile");
  s.smem_bytes = (smem_tile_slots(s.tile_items, item_bytes, pads_tile(p.block)) + s.threads + warp_threads) * item_bytes;
  if (s.smem_bytes > 48 * 1024)
    throw std::invalid_argument(where + "tile and scratch need " + std::to_string(s.smem_bytes) +
                                " bytes of shared memory (at most 49152)");
  return s;
}

/// Scratch bytes the multi-pass strategies need for their tile totals, all
/// recursion levels together.
template <class T>
std::size_t totals_bytes(std::size_t n, unsigned tile_items) {
  std::size_t bytes = 0;
  for (std::size_t tiles = (n + tile_items - 1) / tile_items; tiles > 1; tiles = (tiles + tile_items - 1) / tile_items)
    bytes += (tiles * sizeof(T) + 255) / 256 * 256;
  return bytes;
}

template <class T, class Op, block_algorithm Algorithm>
class textbook_scanner {
 public:
  /// `order`: how the decoupled look-back combines (fixed for run_to_run).
  textbook_scanner(context& ctx, const textbook_shape& shape, Op op, look_back_order order)
      : ctx_(ctx), shape_(shape), op_(op), order_(order) {}

  /// Scans n items with the grid strategy `grid`.
  void run(grid_strategy grid, const T* d_in, T* d_out, std::size_t n, maybe<T> initial, bool exclusive) {
    const std::size_t tiles = (n + shape_.tile_items - 1) / shape_.tile_items;
    if (tiles > std::size_t(std::numeric_limits<std::int32_t>::max()))
      throw std::invalid_argument("scankit: n too large for this policy (more than 2^31 - 1 tiles)");
    if (grid == grid_strategy::decoupled_lookback || grid == grid_strategy::chained || tiles == 1) {
      textbook_launch<T> L = launch_for(n, initial, exclusive);
      if (tiles > 1) {
        const workspace_view ws = ctx_.acquire(1 + tile_status<T>::words(tiles), tile_status<T>::scratch_bytes(tiles));
        L.d_status = ws.d_status;
        L.d_status_scratch = ws.d_scratch;
      } else {
        ctx_.acquire(0, 0);
      }
      if (grid == grid_strategy::chained)
        kernel_launch(textbook_single_pass_kernel<T, Op, Algorithm, true>, unsigned(tiles), d_in, d_out, L);
      else
        kernel_launch(textbook_single_pass_kernel<T, Op, Algorithm, false>, unsigned(tiles), d_in, d_out, L);
      return;
    }
    const workspace_view ws = ctx_.acquire(0, totals_bytes<T>(n, shape_.tile_items));
    multi_pass(grid, d_in, d_out, n, initial, exclusive, static_cast<T*>(ws.d_scratch));
  }

 private:
  textbook_launch<T> launch_for(std::size_t n, maybe<T> initial, bool exclusive) const {
    textbook_launch<T> L{};
    L.n = n;
    L.tile_items = shape_.tile_items;
    L.items_per_thread = shape_.items;
    L.num_tiles = std::uint32_t((n + shape_.tile_items - 1) / shape_.tile_items);
    L.exclusive = exclusive;
    L.initial = initial;
    L.order = order_;
    return L;
  }

  // Reduce-then-scan / scan-then-propagate on n items; `totals` holds this
  // level's tile totals followed by the deeper levels'.
  void multi_pass(grid_strategy grid, const T* d_in, T* d_out, std::size_t n, maybe<T> initial, bool exclusive,
                  T* totals) {
    textbook_launch<T> L = launch_for(n, initial, exclusive);
    if (L.num_tiles == 1) {
      kernel_launch(textbook_single_pass_kernel<T, Op, Algorithm, false>, 1, d_in, d_out, L);
      return;
    }
    L.d_totals = totals;
    T* const deeper = totals + (std::size_t(L.num_tiles) * sizeof(T) + 255) / 256 * 256 / sizeof(T);
    const bool propagate = grid == grid_strategy::scan_then_propagate;
    // Pass 1: tile totals (scan-then-propagate: and the partial results).
    if (propagate) {
      kernel_launch(textbook_tile_scan_kernel<T, Op, Algorithm>, L.num_tiles, d_in, d_out, L);
    } else {
      set_smem_limit(textbook_tile_reduce_kernel<T, Op, Algorithm>);
      textbook_tile_reduce_kernel<T, Op, Algorithm><<<L.num_tiles, shape_.threads, shape_.smem_bytes, ctx_.stream()>>>(d_in, op_, L);
      throw_on_cuda_error(cudaGetLastError(), "textbook scan: tile reduce kernel launch");
    }
    // Pass 2: inclusive scan of the totals, in place, same policy.
    multi_pass(grid, totals, totals, L.num_tiles, maybe<T>{T{}, false}, false, deeper);
    // Pass 3: rescan each tile with its prefix, or add the carries.
    if (propagate) {
      textbook_propagate_kernel<T, Op><<<L.num_tiles, shape_.threads, 0, ctx_.stream()>>>(d_out, op_, L);
      throw_on_cuda_error(cudaGetLastError(), "textbook scan: propagate kernel launch");
    } else {
      kernel_launch(textbook_rescan_kernel<T, Op, Algorithm>, L.num_tiles, d_in, d_out, L);
    }
  }

  // Static shared memory comes on top of the (up to 48 KB) dynamic tile.
  template <class Kernel>
  void set_smem_limit(Kernel kernel) {
    throw_on_cuda_error(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shape_.smem_bytes)),
        "cudaFuncSetAttribute");
  }

  template <class Kernel>
  void kernel_launch(Kernel kernel, unsigned grid, const T* d_in, T* d_out, const textbook_launch<T>& L) {
    set_smem_limit(kernel);
    kernel<<<grid, shape_.threads, shape_.smem_bytes, ctx_.stream()>>>(d_in, d_out, op_, L);
    throw_on_cuda_error(cudaGetLastError(), "textbook scan: kernel launch");
  }

  context& ctx_;
  textbook_shape shape_;
  Op op_;
  look_back_order order_;
};

}  // namespace scankit::detail
