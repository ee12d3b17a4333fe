// detail/block/padded_slots.cuh — shared-memory slots with one slot skipped
// after every 128 bytes, so that threads writing items a fixed stride apart
// (a thread's consecutive items, or runs a few items apart) fall in
// different banks, while consecutive slots stay consecutive for coalesced
// reads. That holds for items of 4, 8 and 16 bytes; for 1- and 2-byte items
// the skipped slot is less than a bank word (2- or 4-way conflicts remain),
// and sizes that do not divide 128 are not padded at all.
#pragma once

#include <cstddef>
#include <cstdint>

namespace scankit::detail {

/// Slot of item k in an array of T with one slot skipped per 128 bytes (no
/// padding for sizes that do not divide 128).
template <class T>
__device__ __forceinline__ std::uint32_t padded_slot(std::uint32_t k) {
  if constexpr (128 % sizeof(T) == 0)
    return k + k / std::uint32_t(128 / sizeof(T));
  else
    return k;
}

/// Slots that hold items [0, count) in that layout (host and device).
template <class T>
__host__ __device__ constexpr std::size_t padded_slots(std::size_t count) {
  return 128 % sizeof(T) == 0 ? count + count / (128 / sizeof(T)) + 1 : count;
}

}  // namespace scankit::detail
