// detail/thread/tile_vectors.cuh — a block stages a tile from global to
// shared memory in 16-byte vectors that its threads load into registers
// first: a block can issue the loads of several arrays before it stores any,
// so all of them are in flight together.
#pragma once

#include <cstdint>

namespace scankit::detail {

/// One thread's share of a Bytes-long tile (Bytes a multiple of 16) that
/// Threads threads move in 16-byte vectors: vector threadIdx.x + r * Threads
/// in v[r].
template <int Threads, std::uint32_t Bytes>
struct tile_vectors {
  static_assert(Bytes % 16 == 0, "tile_vectors: the tile must be a whole number of 16-byte vectors");
  static constexpr int count = int(Bytes / 16);
  static constexpr int rounds = (count + Threads - 1) / Threads;
  uint4 v[rounds];

  /// Loads this thread's vectors of src (16-byte aligned, read-only for the
  /// kernel's lifetime).
  __device__ __forceinline__ void load(const void* src) {
    const uint4* const from = static_cast<const uint4*>(src);
#pragma unroll
    for (int r = 0; r < rounds; ++r)
      if (mine(r)) v[r] = __ldg(from + threadIdx.x + r * Threads);
  }

  /// Stores them to dst (shared memory, 16-byte aligned); the block's
  /// threads need a __syncthreads() before reading each other's.
  __device__ __forceinline__ void store(void* dst) const {
    uint4* const to = static_cast<uint4*>(dst);
#pragma unroll
    for (int r = 0; r < rounds; ++r)
      if (mine(r)) to[threadIdx.x + r * Threads] = v[r];
  }

 private:
  /// Whether round r holds a vector of the tile for this thread.
  __device__ __forceinline__ static bool mine(int r) {
    return count % Threads == 0 || int(threadIdx.x) + r * Threads < count;
  }
};

}  // namespace scankit::detail
