// scankit/offsets.hpp — checking CSR-style offsets (num_segments + 1
// non-decreasing entries) before handing them to expand or segmented_reduce.
// Host API, plain C++; link scankit::scankit.
#pragma once

#include <scankit/context.hpp>
#include <scankit/error.hpp>

#include <cstddef>
#include <cstdint>

namespace scankit {

#define SCANKIT_DECLARE_VALIDATE_OFFSETS(Offset)                                                                  \
  /** Checks d_offsets[0 .. num_segments]: offsets[0] >= 0, offsets[i] <= offsets[i+1], and                  \
      offsets[num_segments] <= limit (the number of values segmented_reduce reads, or the total expand       \
      writes). Throws std::invalid_argument naming the first bad index and its values; returns normally      \
      otherwise. Synchronizes ctx.stream(). The primitives themselves never read or write out of bounds with \
      bad offsets, but their results are then unspecified. */                                                 \
  void validate_offsets(context& ctx, const Offset* d_offsets, std::size_t num_segments, std::size_t limit);

SCANKIT_DECLARE_VALIDATE_OFFSETS(std::int32_t)
SCANKIT_DECLARE_VALIDATE_OFFSETS(std::uint32_t)
SCANKIT_DECLARE_VALIDATE_OFFSETS(std::int64_t)
SCANKIT_DECLARE_VALIDATE_OFFSETS(std::uint64_t)
#undef SCANKIT_DECLARE_VALIDATE_OFFSETS

}  // namespace scankit
