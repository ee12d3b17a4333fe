// scankit/device/operators.cuh — the built-in operators as device functors,
// for use with the template API (or as models for your own).
#pragma once

namespace scankit::device {

struct plus {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a + b; }
};
struct minimum {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
struct maximum {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct bit_and {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a & b; }
};
struct bit_or {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a | b; }
};
struct bit_xor {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a ^ b; }
};

}  // namespace scankit::device
