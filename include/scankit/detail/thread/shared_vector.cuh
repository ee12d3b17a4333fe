// detail/thread/shared_vector.cuh — one thread's 16-byte vector of items from
// a staged tile in shared memory.
#pragma once

#include <cstring>

namespace scankit::detail {

/// v = p[0, Vec): one 16-byte shared-memory load when Vec > 1 (p 16-byte
/// aligned), else one item.
template <class T, int Vec>
__device__ __forceinline__ void load_shared_vector(const T* p, T (&v)[Vec]) {
  if constexpr (Vec > 1) {
    const uint4 raw = *reinterpret_cast<const uint4*>(p);
    memcpy(v, &raw, sizeof(raw));
  } else {
    v[0] = p[0];
  }
}

}  // namespace scankit::detail
