// detail/memory_ranges.hpp — the overlap test the argument checks of every
// primitive share.
#pragma once

#include <cstddef>
#include <cstdint>

namespace scankit::detail {

/// True when [a, a + a_bytes) and [b, b + b_bytes) share a byte (never for a
/// null pointer or an empty range).
inline bool ranges_overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x != 0 && y != 0 && a_bytes != 0 && b_bytes != 0 && x < y + b_bytes && y < x + a_bytes;
}

}  // namespace scankit::detail
