// detail/warp/shuffle.cuh — warp shuffles for any trivially copyable T, and the
// two warp-level combines the scan needs (inclusive scan, ordered reduction).
#pragma once

#include <cstring>
#include <type_traits>

namespace scankit::detail {

constexpr unsigned full_warp_mask = 0xffffffffu;
constexpr int warp_threads = 32;

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x) & 31; }

// Shuffles T as a sequence of 32-bit words; `shfl` is one of the __shfl_*_sync.
template <class T, class Shuffle>
__device__ __forceinline__ T shuffle_words(const T& value, Shuffle shfl) {
  static_assert(std::is_trivially_copyable_v<T>, "scankit values must be trivially copyable");
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned buffer[words];
  memcpy(buffer, &value, sizeof(T));
#pragma unroll
  for (int w = 0; w < words; ++w) buffer[w] = shfl(buffer[w]);
  T result;
  memcpy(&result, buffer, sizeof(T));
  return result;
}

template <class T>
__device__ __forceinline__ T shfl_up(const T& v, int delta) {
  return shuffle_words(v, [delta](unsigned w) { return __shfl_up_sync(full_warp_mask, w, delta); });
}
template <class T>
__device__ __forceinline__ T shfl_down(const T& v, int delta) {
  return shuffle_words(v, [delta](unsigned w) { return __shfl_down_sync(full_warp_mask, w, delta); });
}
template <class T>
__device__ __forceinline__ T shfl_xor(const T& v, int lane_mask) {
  return shuffle_words(v, [lane_mask](unsigned w) { return __shfl_xor_sync(full_warp_mask, w, lane_mask); });
}
template <class T>
__device__ __forceinline__ T shfl_idx(const T& v, int src_lane) {
  return shuffle_words(v, [src_lane](unsigned w) { return __shfl_sync(full_warp_mask, w, src_lane); });
}

// Inclusive scan across the first `count` lanes of a warp (Kogge-Stone over
// shuffles): lane l < count ends with x_0 ⊕ ... ⊕ x_l, combined left to right.
// Lanes at or past `count` are never combined, so their values may be anything.
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T x, Op op, int count = warp_threads) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < warp_threads; offset <<= 1) {
    T left = shfl_up(x, offset);
    if (lane >= offset && lane < count) x = op(left, x);
  }
  return x;
}

// Ordered reduction of lanes [0, count): lane 0 ends with
// x_0 ⊕ x_1 ⊕ ... ⊕ x_{count-1}. Lanes at or past `count` are never
// combined, so their values may be anything.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T x, int count, Op op) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < warp_threads; offset <<= 1) {
    T later = shfl_down(x, offset);
    if (lane + offset < count) x = op(x, later);
  }
  return x;
}

// Ordered reduction of lanes [0, count) where HIGHER lanes hold EARLIER
// elements: lane 0 ends with x_{count-1} ⊕ ... ⊕ x_1 ⊕ x_0. Lanes at or past
// `count` are never combined, so their values may be anything.
template <class T, class Op>
__device__ __forceinline__ T warp_reverse_reduce(T x, int count, Op op) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < warp_threads; offset <<= 1) {
    T earlier = shfl_down(x, offset);
    if (lane + offset < count) x = op(earlier, x);
  }
  return x;
}

}  // namespace scankit::detail
