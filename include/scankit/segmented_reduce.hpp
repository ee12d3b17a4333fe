// scankit/segmented_reduce.hpp — reduction of every segment of a CSR-style
// segmentation. Host API, plain C++; link scankit::scankit.
//
//   // d_offsets: num_segments + 1 entries; segment i is values[offsets[i] .. offsets[i+1])
//   scankit::segmented_reduce(ctx, d_values, num_values, d_offsets, num_segments, d_sums);
//   scankit::segmented_reduce(ctx, d_values, num_values, d_offsets, num_segments, d_maxima, scankit::op::max);
//
// Load-balanced: every block reduces a fixed number of (values + segment
// boundaries), split by merge path; segments that cross blocks are joined by
// a scan of the blocks' carries and a small fix-up. A million segments of length 1 and
// one segment of 2^30 values run at the same bandwidth. Values: int32,
// uint32, int64, uint64, float, double; operators plus, min, max; offsets
// int32, uint32, int64, uint64 (indices into d_values, which has num_values
// entries; offsets[0] need not be 0).
//
// Asynchronous on ctx.stream(). Errors: std::invalid_argument before any
// launch (null pointers where needed, d_out overlapping the inputs, a
// bitwise operator, d_values not aligned to its type), scankit::cuda_error if CUDA fails. Offsets that are not
// valid (check with scankit::validate_offsets) give unspecified sums but no
// access out of bounds.
#pragma once

#include <scankit/context.hpp>
#include <scankit/error.hpp>
#include <scankit/scan.hpp>  // scankit::op

#include <cstddef>
#include <cstdint>

namespace scankit {

#define SCANKIT_DECLARE_SEGMENTED_REDUCE_OFFSET(T, Offset)                                                       \
  /** d_out[i] = init ⊕ values[offsets[i]] ⊕ ... ⊕ values[offsets[i+1] - 1], in that order, for i in          \
      [0, num_segments); an empty segment gives init. */                                                    \
  void segmented_reduce(context& ctx, const T* d_values, std::size_t num_values, const Offset* d_offsets,   \
                        std::size_t num_segments, T* d_out, op o, T init);                                  \
  /** As above with init = the operator's identity (0 for plus, the largest value for min, the smallest     \
      (lowest; -inf for floating point) for max). */                                                         \
  void segmented_reduce(context& ctx, const T* d_values, std::size_t num_values, const Offset* d_offsets,   \
                        std::size_t num_segments, T* d_out, op o = op::plus);

#define SCANKIT_DECLARE_SEGMENTED_REDUCE(T)                       \
  SCANKIT_DECLARE_SEGMENTED_REDUCE_OFFSET(T, std::int32_t)        \
  SCANKIT_DECLARE_SEGMENTED_REDUCE_OFFSET(T, std::uint32_t)       \
  SCANKIT_DECLARE_SEGMENTED_REDUCE_OFFSET(T, std::int64_t)        \
  SCANKIT_DECLARE_SEGMENTED_REDUCE_OFFSET(T, std::uint64_t)

SCANKIT_DECLARE_SEGMENTED_REDUCE(std::int32_t)
SCANKIT_DECLARE_SEGMENTED_REDUCE(std::uint32_t)
SCANKIT_DECLARE_SEGMENTED_REDUCE(std::int64_t)
SCANKIT_DECLARE_SEGMENTED_REDUCE(std::uint64_t)
SCANKIT_DECLARE_SEGMENTED_REDUCE(float)
SCANKIT_DECLARE_SEGMENTED_REDUCE(double)
#undef SCANKIT_DECLARE_SEGMENTED_REDUCE
#undef SCANKIT_DECLARE_SEGMENTED_REDUCE_OFFSET

}  // namespace scankit
