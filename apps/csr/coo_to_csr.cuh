// apps/csr/coo_to_csr.cuh — a sparse matrix from coordinate (COO) entries
// to compressed sparse rows (CSR), on scankit's public API only:
//
//   1. pack     — each (row, column) into one 64-bit key, row above column,
//                 over ⌈log2 rows⌉ + ⌈log2 cols⌉ bits (every index checked);
//   2. sort     — scankit::radix_sort_pairs of the keys with the values, over
//                 those bits only (2^22 × 2^22: 44 bits, 6 passes of 8);
//   3. combine  — scankit::reduce_by_key sums the values of repeated
//                 positions (the sort is stable: repeats meet in input order);
//   4. unpack   — columns from the unique keys, and at the end of each row's
//                 entries a marker: row_pointers[row + 1] = entries so far;
//   5. fill     — scankit::inclusive_scan with op::max over the markers (0
//                 elsewhere) carries each row's end over the empty rows after
//                 it: row_pointers[r] = entries in rows before r.
// Steps 4-5 alone are row_pointers(), cusparseXcoo2csr's job.
#pragma once

#include <scankit/scankit.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace csr {

/// Where coo_to_csr writes a CSR matrix (device memory the caller owns):
/// row_pointers: rows + 1 entries; columns and values: room for nnz entries
/// (the CSR's entries come first; the rest is left as it was).
template <class Value, class Pointer>
struct csr_arrays {
  Pointer* d_row_pointers;
  std::int32_t* d_columns;
  Value* d_values;
};

/// Device buffers coo_to_csr reuses from call to call (they grow, never
/// shrink). One per stream of work, like a scankit::context.
class scratch {
 public:
  scratch() = default;
  ~scratch() {
    if (p_ != nullptr) cudaFree(p_);
  }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;

  /// At least `bytes` of device memory (the old contents are not kept).
  void* get(std::size_t bytes) {
    if (bytes > bytes_) {
      cudaFree(p_);
      p_ = nullptr;
      bytes_ = 0;
      const cudaError_t status = cudaMalloc(&p_, bytes);
      if (status != cudaSuccess) throw scankit::cuda_error("cudaMalloc", int(status), cudaGetErrorString(status));
      bytes_ = bytes;
    }
    return p_;
  }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

namespace detail {

inline void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw scankit::cuda_error(call, int(status), cudaGetErrorString(status));
}

/// Bits that hold every index below `count` (0 for count 1).
inline int index_bits(std::uint64_t count) {
  int bits = 0;
  while (bits < 63 && (std::uint64_t(1) << bits) < count) ++bits;
  return bits;
}

inline unsigned blocks_for(std::size_t items) {
  const std::size_t blocks = (items + 255) / 256;
  return unsigned(blocks < 65536 ? blocks : 65536);
}

/// keys[i] = row << column_bits | column; the first entry out of range goes
/// to *d_first_bad (atomicMin; ~0 when none).
template <class Index>
__global__ void pack_keys(const Index* d_rows, const Index* d_cols, std::size_t nnz, Index rows, Index cols,
                          int column_bits, std::uint64_t* d_keys, unsigned long long* d_first_bad) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nnz; i += stride) {
    const Index r = d_rows[i], c = d_cols[i];
    if (r < 0 || r >= rows || c < 0 || c >= cols) atomicMin(d_first_bad, (unsigned long long)i);
    d_keys[i] = (std::uint64_t(std::uint32_t(r)) << column_bits) | std::uint32_t(c);
  }
}

/// At the end of each row's entries (rows of `count` entries, sorted, the
/// row of entry i being row_of(i)): d_row_pointers[row + 1] = i + 1. Rows
/// outside [0, rows) are skipped (nothing is written outside the array).
template <class Pointer, class RowOf>
__device__ void mark_row_ends(std::size_t count, std::int32_t rows, RowOf row_of, Pointer* d_row_pointers) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const std::int64_t row = row_of(i);
    if (row < 0 || row >= rows) continue;
    if (i + 1 == count || row_of(i + 1) != row) d_row_pointers[row + 1] = Pointer(i + 1);
  }
}

/// The row of entry i: from sorted row indices, or from sorted keys.
struct row_of_index {
  const std::int32_t* d_rows;
  __device__ std::int64_t operator()(std::size_t i) const { return d_rows[i]; }
};
struct row_of_key {
  const std::uint64_t* d_keys;
  int column_bits;
  __device__ std::int64_t operator()(std::size_t i) const { return std::int64_t(d_keys[i] >> column_bits); }
};

template <class Pointer>
__global__ void mark_sorted_row_ends(const std::int32_t* d_sorted_rows, std::size_t count, std::int32_t rows,
                                     Pointer* d_row_pointers) {
  mark_row_ends(count, rows, row_of_index{d_sorted_rows}, d_row_pointers);
}

/// Columns from the unique keys, and the row ends as above.
template <class Pointer>
__global__ void unpack_keys(const std::uint64_t* d_keys, std::size_t count, std::int32_t rows, int column_bits,
                            std::int32_t* d_columns, Pointer* d_row_pointers) {
  const std::uint64_t column_mask = (std::uint64_t(1) << column_bits) - 1;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    d_columns[i] = std::int32_t(d_keys[i] & column_mask);
  mark_row_ends(count, rows, row_of_key{d_keys, column_bits}, d_row_pointers);
}

/// Zeroes the pointers, lets `mark` set the row ends (a kernel launch, or
/// nothing), then fills the empty rows by a running maximum.
template <class Pointer, class Mark>
void fill_row_pointers(scankit::context& ctx, std::int32_t rows, Pointer* d_row_pointers, Mark mark) {
  check(cudaMemsetAsync(d_row_pointers, 0, (std::size_t(rows) + 1) * sizeof(Pointer), ctx.stream()), "cudaMemsetAsync");
  mark();
  scankit::inclusive_scan(ctx, d_row_pointers, d_row_pointers, std::size_t(rows) + 1, scankit::op::max);
}

template <class Pointer>
void check_pointer_type(std::size_t nnz, const char* name) {
  static_assert(std::is_same_v<Pointer, std::int32_t> || std::is_same_v<Pointer, std::int64_t>,
                "row pointers are int32 or int64");
  if (nnz > std::size_t(std::numeric_limits<Pointer>::max()))
    throw std::invalid_argument(std::string(name) + ": more entries than the row-pointer type holds");
}

}  // namespace detail

/// CSR row pointers of entries whose rows are sorted (cusparseXcoo2csr's
/// job): d_row_pointers[r] = the entries in rows before r, for r = 0 ..
/// rows. Asynchronous on ctx.stream(). Rows must be sorted and within
/// [0, rows); otherwise the pointers are unspecified, but nothing is written
/// outside d_row_pointers.
template <class Pointer>
void row_pointers(scankit::context& ctx, const std::int32_t* d_sorted_rows, std::size_t nnz, std::int32_t rows,
                  Pointer* d_row_pointers) {
  detail::check_pointer_type<Pointer>(nnz, "csr::row_pointers");
  if (rows < 0) throw std::invalid_argument("csr::row_pointers: rows < 0");
  if (d_row_pointers == nullptr || (nnz > 0 && d_sorted_rows == nullptr))
    throw std::invalid_argument("csr::row_pointers: null device pointer");
  detail::fill_row_pointers(ctx, rows, d_row_pointers, [&] {
    if (nnz == 0) return;
    detail::mark_sorted_row_ends<<<detail::blocks_for(nnz), 256, 0, ctx.stream()>>>(d_sorted_rows, nnz, rows,
                                                                                    d_row_pointers);
    detail::check(cudaGetLastError(), "csr row-end kernel launch");
  });
}

/// Converts nnz entries (d_rows[i], d_cols[i], d_values[i]) of a rows × cols
/// matrix, in any order and with repeated positions, to CSR: each row's
/// entries sorted by column, the values of a repeated position summed (by
/// scankit::reduce_by_key: grouped as it groups them, so floating-point sums
/// may differ in the last bits from a left-to-right sum). Returns the CSR's
/// number of entries and synchronizes ctx.stream(): the CSR is complete on
/// return. An index outside its range throws std::invalid_argument (naming
/// the entry) before anything is written. Values: float or double; at most
/// 2^32 - 1 entries (and, with int32 row pointers, 2^31 - 1). A failure
/// after the indices are checked (a CUDA error, a caller workspace in ctx
/// too small) throws with the outputs possibly part written.
template <class Value, class Pointer>
std::size_t coo_to_csr(scankit::context& ctx, scratch& buffers, std::int32_t rows, std::int32_t cols,
                       const std::int32_t* d_rows, const std::int32_t* d_cols, const Value* d_values, std::size_t nnz,
                       const csr_arrays<Value, Pointer>& out) {
  static_assert(std::is_same_v<Value, float> || std::is_same_v<Value, double>, "values: float or double");
  detail::check_pointer_type<Pointer>(nnz, "csr::coo_to_csr");
  if (rows <= 0 || cols <= 0) throw std::invalid_argument("csr::coo_to_csr: rows and cols must be positive");
  if (nnz > std::numeric_limits<std::uint32_t>::max())  // scankit::reduce_by_key's limit
    throw std::invalid_argument("csr::coo_to_csr: at most 2^32 - 1 entries");
  if (out.d_row_pointers == nullptr || (nnz > 0 && (d_rows == nullptr || d_cols == nullptr || d_values == nullptr ||
                                                    out.d_columns == nullptr || out.d_values == nullptr)))
    throw std::invalid_argument("csr::coo_to_csr: null device pointer");
  const cudaStream_t stream = ctx.stream();
  if (nnz == 0) {
    detail::fill_row_pointers(ctx, rows, out.d_row_pointers, [] {});
    detail::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return 0;
  }

  // Scratch: packed keys (later the unique keys), sorted keys, sorted values,
  // and the first bad entry.
  const int column_bits = detail::index_bits(std::uint64_t(cols)), key_bits = column_bits + detail::index_bits(rows);
  const std::size_t key_bytes = (nnz * sizeof(std::uint64_t) + 255) / 256 * 256;
  const std::size_t value_bytes = (nnz * sizeof(Value) + 255) / 256 * 256;
  auto* const base = static_cast<unsigned char*>(buffers.get(2 * key_bytes + value_bytes + 256));
  auto* const d_keys = reinterpret_cast<std::uint64_t*>(base);
  auto* const d_sorted_keys = reinterpret_cast<std::uint64_t*>(base + key_bytes);
  auto* const d_sorted_values = reinterpret_cast<Value*>(base + 2 * key_bytes);
  auto* const d_first_bad = reinterpret_cast<unsigned long long*>(base + 2 * key_bytes + value_bytes);

  // 1. Pack, checking every index first: nothing is written before that.
  detail::check(cudaMemsetAsync(d_first_bad, 0xff, sizeof(unsigned long long), stream), "cudaMemsetAsync");
  detail::pack_keys<<<detail::blocks_for(nnz), 256, 0, stream>>>(d_rows, d_cols, nnz, rows, cols, column_bits, d_keys,
                                                                 d_first_bad);
  detail::check(cudaGetLastError(), "csr pack kernel launch");
  unsigned long long first_bad = 0;
  detail::check(cudaMemcpyAsync(&first_bad, d_first_bad, sizeof first_bad, cudaMemcpyDeviceToHost, stream),
                "cudaMemcpyAsync");
  detail::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (first_bad != ~0ull)
    throw std::invalid_argument("csr::coo_to_csr: entry " + std::to_string(first_bad) +
                                " has a row or column outside the matrix");

  // 2-3. Sort by (row, column) over the key's bits; sum repeated positions.
  scankit::radix_sort_pairs(ctx, d_keys, d_sorted_keys, d_values, d_sorted_values, nnz, scankit::sort_order::ascending,
                            0, key_bits);
  const std::size_t count = scankit::reduce_by_key(ctx, d_sorted_keys, d_sorted_values, nnz, d_keys, out.d_values);

  // 4-5. Columns and row pointers.
  detail::fill_row_pointers(ctx, rows, out.d_row_pointers, [&] {
    detail::unpack_keys<<<detail::blocks_for(count), 256, 0, stream>>>(d_keys, count, rows, column_bits, out.d_columns,
                                                                       out.d_row_pointers);
    detail::check(cudaGetLastError(), "csr unpack kernel launch");
  });
  detail::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return count;
}

}  // namespace csr
