// scankit/expand.hpp — expand (load-balancing search): from CSR-style offsets
// back to one entry per output. Host API, plain C++; link scankit::scankit.
//
//   // offsets: num_segments + 1 entries, offsets[0] = 0, offsets[num_segments] = total
//   scankit::load_balancing_search(ctx, d_offsets, num_segments, total, d_source, d_rank);
//   //   d_source[j] = i with offsets[i] <= j < offsets[i+1], d_rank[j] = j - offsets[i]
//   scankit::interval_expand(ctx, d_values, d_offsets, num_segments, total, d_out);
//   //   d_out[j] = d_values[d_source[j]]: values[i] repeated sizes[i] times
//
// Work is split by merge path over (segment boundaries, outputs), so every
// block does the same work whatever the sizes: empty segments and one huge
// segment both run at full speed. Totals past 2^32 need 64-bit offsets.
// Asynchronous on ctx.stream(). Errors: std::invalid_argument before any
// launch (null pointers where needed, num_segments + 1 offsets or total not
// representable in the offset type, outputs overlapping inputs or each
// other), scankit::cuda_error if CUDA fails. Offsets that are not valid
// (check with scankit::validate_offsets) give unspecified outputs but no
// access out of bounds.
#pragma once

#include <scankit/context.hpp>
#include <scankit/error.hpp>

#include <cstddef>
#include <cstdint>

namespace scankit {

#define SCANKIT_DECLARE_LOAD_BALANCING_SEARCH(Offset)                                                             \
  /** For every output j in [0, total): d_source[j] = the segment i with offsets[i] <= j < offsets[i+1]     \
      (empty segments own no output) and, if d_rank is not null, d_rank[j] = j - offsets[i]. */               \
  void load_balancing_search(context& ctx, const Offset* d_offsets, std::size_t num_segments,                \
                             std::size_t total, Offset* d_source, Offset* d_rank = nullptr);

#define SCANKIT_DECLARE_INTERVAL_EXPAND(T, Offset)                                                                \
  /** d_out[j] = d_values[i] for offsets[i] <= j < offsets[i+1], j in [0, total). */                           \
  void interval_expand(context& ctx, const T* d_values, const Offset* d_offsets, std::size_t num_segments,   \
                       std::size_t total, T* d_out);

#define SCANKIT_DECLARE_EXPAND(Offset)                 \
  SCANKIT_DECLARE_LOAD_BALANCING_SEARCH(Offset)        \
  SCANKIT_DECLARE_INTERVAL_EXPAND(std::int32_t, Offset)  \
  SCANKIT_DECLARE_INTERVAL_EXPAND(std::uint32_t, Offset) \
  SCANKIT_DECLARE_INTERVAL_EXPAND(std::int64_t, Offset)  \
  SCANKIT_DECLARE_INTERVAL_EXPAND(std::uint64_t, Offset) \
  SCANKIT_DECLARE_INTERVAL_EXPAND(float, Offset)         \
  SCANKIT_DECLARE_INTERVAL_EXPAND(double, Offset)

SCANKIT_DECLARE_EXPAND(std::int32_t)
SCANKIT_DECLARE_EXPAND(std::uint32_t)
SCANKIT_DECLARE_EXPAND(std::int64_t)
SCANKIT_DECLARE_EXPAND(std::uint64_t)
#undef SCANKIT_DECLARE_EXPAND
#undef SCANKIT_DECLARE_INTERVAL_EXPAND
#undef SCANKIT_DECLARE_LOAD_BALANCING_SEARCH

}  // namespace scankit
