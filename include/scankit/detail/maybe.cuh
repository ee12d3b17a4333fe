// detail/maybe.cuh — a value that may be absent. Scans need no identity
// element: "no prefix yet" is represented explicitly, so the user's operator
// is only ever applied to real values.
#pragma once

namespace scankit::detail {

template <class T>
struct maybe {
  T value;
  bool has;
};

/// a ⊕ b where either side may be absent.
template <class T, class Op>
__host__ __device__ __forceinline__ maybe<T> combine(const maybe<T>& a, const maybe<T>& b, Op op) {
  if (!a.has) return b;
  if (!b.has) return a;
  return {op(a.value, b.value), true};
}

/// prefix ⊕ x, or x when there is no prefix.
template <class T, class Op>
__host__ __device__ __forceinline__ T apply_prefix(const maybe<T>& prefix, const T& x, Op op) {
  return prefix.has ? op(prefix.value, x) : x;
}

}  // namespace scankit::detail
