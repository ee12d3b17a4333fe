// detail/sort/sort_dispatch.cuh — host side of the radix sort: checks the
// arguments, lays out the storage, then runs the histogram of every pass, the
// digit starts, and one onesweep launch per portion and pass. The passes
// alternate between the output and a copy in the context's storage, arranged
// so that the last pass writes the output and the input is never written
// (unless it is the output).
#pragma once

#include <scankit/context.hpp>
#include <scankit/detail/kernel_settings.hpp>
#include <scankit/detail/kernels/onesweep_kernel.cuh>
#include <scankit/detail/kernels/radix_histogram_kernel.cuh>
#include <scankit/detail/launch_shape.cuh>
#include <scankit/detail/lookback/tile_status.cuh>
#include <scankit/detail/memory_ranges.hpp>
#include <scankit/detail/no_values.hpp>
#include <scankit/detail/sort/radix_key.cuh>
#include <scankit/error.hpp>
#include <scankit/sort.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace scankit::detail {

/// Where one sort's storage lies: status words for one portion's tiles, and
/// in scratch (byte offsets) the copy of the keys and of the values, the
/// digit counts and starts of every pass, and two arrays of portion starts.
template <class Bits, class Value>
struct radix_sort_storage {
  static constexpr std::size_t value_size = std::is_same_v<Value, no_values> ? 0 : sizeof(Value);
  static constexpr std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }
  static constexpr std::size_t digit_table_bytes = radix_digits * sizeof(unsigned long long);

  std::size_t status_words, keys_copy = 0, values_copy, counts, starts, portion_starts, scratch_bytes;

  explicit radix_sort_storage(std::size_t n) {
    using shape = onesweep_shape<Bits, Value>;
    const std::size_t portion = n < shape::portion_items ? n : shape::portion_items;
    status_words = 1 + tile_status<std::uint32_t>::words((portion + shape::tile - 1) / shape::tile * radix_digits);
    values_copy = aligned(n * sizeof(Bits));
    counts = values_copy + aligned(n * value_size);
    starts = counts + radix_max_passes * digit_table_bytes;
    portion_starts = starts + radix_max_passes * digit_table_bytes;
    scratch_bytes = portion_starts + 2 * digit_table_bytes;
  }
};

/// std::invalid_argument for a bit range outside the key, null pointers with
/// n > 0, sizes that overflow, misaligned values, and overlaps other than an
/// output that is its input.
template <class Bits, class Value>
void check_radix_sort_arguments(const Bits* d_keys_in, const Bits* d_keys_out, const Value* d_values_in,
                                const Value* d_values_out, std::size_t n, int begin_bit, int end_bit,
                                const char* name) {
  const std::string where = std::string("scankit::") + name + ": ";
  constexpr int key_bits = int(sizeof(Bits) * 8);
  if (begin_bit < 0 || begin_bit > end_bit || end_bit > key_bits)
    throw std::invalid_argument(where + "bits [" + std::to_string(begin_bit) + ", " + std::to_string(end_bit) +
                                ") are not within the key's " + std::to_string(key_bits) + " bits");
  if (n == 0) return;
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  if (d_keys_in == nullptr || d_keys_out == nullptr ||
      (has_values && (d_values_in == nullptr || d_values_out == nullptr)))
    throw std::invalid_argument(where + "null device pointer with n > 0");
  constexpr std::size_t value_size = radix_sort_storage<Bits, Value>::value_size;
  if (n > std::numeric_limits<std::size_t>::max() / 4 / (sizeof(Bits) + value_size))
    throw std::invalid_argument(where + "n too large");
  if (has_values && (reinterpret_cast<std::uintptr_t>(d_values_in) % alignof(Value) != 0 ||
                     reinterpret_cast<std::uintptr_t>(d_values_out) % alignof(Value) != 0))
    throw std::invalid_argument(where + "values must be aligned to " + std::to_string(alignof(Value)) + " bytes");
  const std::size_t key_bytes = n * sizeof(Bits), value_bytes = n * value_size;
  if (d_keys_in != d_keys_out && ranges_overlap(d_keys_in, key_bytes, d_keys_out, key_bytes))
    throw std::invalid_argument(where + "input and output keys overlap (only the same array is allowed)");
  if (!has_values) return;
  if (d_values_in != d_values_out && ranges_overlap(d_values_in, value_bytes, d_values_out, value_bytes))
    throw std::invalid_argument(where + "input and output values overlap (only the same array is allowed)");
  for (const void* keys : {static_cast<const void*>(d_keys_in), static_cast<const void*>(d_keys_out)})
    for (const void* values : {static_cast<const void*>(d_values_in), static_cast<const void*>(d_values_out)})
      if (ranges_overlap(keys, key_bytes, values, value_bytes))
        throw std::invalid_argument(where + "keys and values overlap");
}

/// The arrays one pass reads and writes, for keys or for values: the passes
/// alternate between `out` and `copy` so that the last one writes `out`.
/// An input that is also the output and would be written by the first pass
/// is copied first.
template <class T>
struct radix_pass_buffers {
  const T* source;
  T* out;
  T* copy;
  int passes;

  T* destination(int pass) const { return (passes - 1 - pass) % 2 == 0 ? out : copy; }

  radix_pass_buffers(const T* in, T* out_, T* copy_, int passes_, std::size_t n, cudaStream_t stream)
      : source(in), out(out_), copy(copy_), passes(passes_) {
    if (n > 0 && static_cast<const void*>(in) == static_cast<const void*>(out) && destination(0) == out) {
      throw_on_cuda_error(cudaMemcpyAsync(copy, in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream),
                          "cudaMemcpyAsync");
      source = copy;
    }
  }
};

/// Sorts n keys (their bits as Bits; of `kind`) with values of Value
/// (no_values: keys only) by bits [begin_bit, end_bit). Asynchronous.
template <class Bits, class Value>
void radix_sort_bits(context& ctx, const Bits* d_keys_in, Bits* d_keys_out, const Value* d_values_in,
                     Value* d_values_out, std::size_t n, radix_key_kind kind, sort_order order, int begin_bit,
                     int end_bit, const char* name) {
  check_radix_sort_arguments(d_keys_in, d_keys_out, d_values_in, d_values_out, n, begin_bit, end_bit, name);
  if (n == 0) return;
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  const cudaStream_t stream = ctx.stream();
  const int passes = (end_bit - begin_bit + radix_digit_bits - 1) / radix_digit_bits;
  if (passes == 0) {  // nothing to compare: the input, unchanged
    ctx.acquire(0, 0);  // checks that a device is there
    if (d_keys_out != d_keys_in)
      throw_on_cuda_error(cudaMemcpyAsync(d_keys_out, d_keys_in, n * sizeof(Bits), cudaMemcpyDeviceToDevice, stream),
                          "cudaMemcpyAsync");
    if constexpr (has_values)
      if (d_values_out != d_values_in)
        throw_on_cuda_error(
            cudaMemcpyAsync(d_values_out, d_values_in, n * sizeof(Value), cudaMemcpyDeviceToDevice, stream),
            "cudaMemcpyAsync");
    return;
  }
  using shape = onesweep_shape<Bits, Value>;
  const std::size_t portions = (n + shape::portion_items - 1) / shape::portion_items;
  const radix_sort_storage<Bits, Value> storage(n);
  const workspace_view ws = ctx.acquire(storage.status_words, storage.scratch_bytes, unsigned(passes * portions));
  unsigned char* const scratch = static_cast<unsigned char*>(ws.d_scratch);
  auto* const d_counts = reinterpret_cast<unsigned long long*>(scratch + storage.counts);
  auto* const d_starts = reinterpret_cast<unsigned long long*>(scratch + storage.starts);
  auto* const d_portion_starts = reinterpret_cast<unsigned long long*>(scratch + storage.portion_starts);
  const bool descending = order == sort_order::descending;

  const auto kernel = onesweep_kernel<Bits, Value>;
  prepare_kernel(kernel, shape::threads, shape::staged_bytes);  // first: a device that cannot run it throws here

  // Every pass's digit counts in one read of the keys, then the digits' starts.
  throw_on_cuda_error(cudaMemsetAsync(d_counts, 0, std::size_t(passes) * radix_digits * sizeof(unsigned long long),
                                      stream),
                      "cudaMemsetAsync");
  const unsigned histogram_blocks =
      std::max(grid_stride_blocks(n, radix_histogram_threads), unsigned((n >> 31) + 1));  // < 2^32 keys a block
  radix_histogram_kernel<Bits><<<histogram_blocks, radix_histogram_threads, 0, stream>>>(
      d_keys_in, n, radix_passes{kind, descending, begin_bit, end_bit, passes}, d_counts);
  throw_on_cuda_error(cudaGetLastError(), "radix histogram kernel launch");
  radix_digit_starts_kernel<<<unsigned(passes), radix_digits, 0, stream>>>(d_counts, d_starts);
  throw_on_cuda_error(cudaGetLastError(), "radix digit starts kernel launch");

  // The passes: one onesweep launch per portion.
  radix_pass_buffers<Bits> keys(d_keys_in, d_keys_out, reinterpret_cast<Bits*>(scratch + storage.keys_copy), passes,
                                n, stream);
  radix_pass_buffers<Value> values(d_values_in, d_values_out,
                                   reinterpret_cast<Value*>(scratch + storage.values_copy), passes,
                                   has_values ? n : 0, stream);
  for (int pass = 0; pass < passes; ++pass) {
    Bits* const keys_out = keys.destination(pass);
    Value* const values_out = values.destination(pass);
    const radix_digit digit = radix_digit::of_pass(kind, descending, begin_bit, end_bit, pass);
    for (std::size_t portion = 0; portion < portions; ++portion) {
      const std::size_t begin = portion * shape::portion_items;
      const std::size_t items = n - begin < shape::portion_items ? n - begin : shape::portion_items;
      onesweep_launch<Bits, Value> L{};
      L.d_keys_in = keys.source + begin;
      L.d_keys_out = keys_out;
      if constexpr (has_values) {
        L.d_values_in = values.source + begin;
        L.d_values_out = values_out;
      }
      L.items = std::uint32_t(items);
      L.num_tiles = std::uint32_t((items + shape::tile - 1) / shape::tile);
      L.digit = digit;
      // Portion 0 starts each digit where the histogram says; each portion's
      // last tile says where the next one starts (two arrays, taken in turn).
      L.d_portion_starts = portion == 0 ? d_starts + std::size_t(pass) * radix_digits
                                        : d_portion_starts + (portion % 2) * radix_digits;
      L.d_next_portion_starts = d_portion_starts + ((portion + 1) % 2) * radix_digits;
      L.d_status = ws.d_status;
      kernel<<<L.num_tiles, shape::threads, shape::staged_bytes, stream>>>(L);
      throw_on_cuda_error(cudaGetLastError(), "onesweep kernel launch");
    }
    keys.source = keys_out;
    values.source = values_out;
  }
}

/// Bytes of a caller workspace for radix_sort_bits on n keys.
template <class Bits, class Value>
std::size_t radix_sort_workspace_bytes_for(std::size_t n) {
  if (n == 0) return 0;
  const radix_sort_storage<Bits, Value> storage(n);
  return context::workspace_bytes_for(storage.status_words, storage.scratch_bytes);
}

}  // namespace scankit::detail
