// detail/thread/consecutive_vectors.cuh — a thread loads its own run of
// consecutive items straight into registers by 16-byte loads (no staging in
// shared memory).
#pragma once

#include <cstdint>
#include <cstring>

namespace scankit::detail {

/// src[0, N) into out by N * sizeof(T) / 16 loads of 16 bytes; src 16-byte
/// aligned.
template <class T, int N>
__device__ __forceinline__ void load_consecutive_vectors(const T* src, T (&out)[N]) {
  static_assert(N * sizeof(T) % 16 == 0, "load_consecutive_vectors: whole 16-byte vectors only");
  constexpr int vectors = int(N * sizeof(T) / 16);
  uint4 v[vectors];
  const uint4* const from = reinterpret_cast<const uint4*>(src);
#pragma unroll
  for (int j = 0; j < vectors; ++j) v[j] = from[j];
  memcpy(out, v, sizeof(out));
}

}  // namespace scankit::detail
