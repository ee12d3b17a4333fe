// detail/select/selectors.cuh — what the selection kernel asks of an item:
// "is it selected?", one bit per item of a thread's vector.
//
// A selector has
//   template <int Vec> unsigned bits(const Item (&v)[Vec], const Item* at, std::size_t g, unsigned valid)
// v: the items g .. g + Vec − 1 (global indices), at: where v[0] sits (at[-1]
// is the item before it, readable when g > 0 and reads_item_before is true
// for the selector: the kernel stages it only then), valid: how many of the
// Vec items exist (bits past `valid` are ignored by the caller). Bit j
// answers for item g + j. A selector that reads the item before also has
//   template <int Vec> unsigned bits_after(const Item& before, const Item (&v)[Vec], std::size_t g)
// with that item given (the kernel may take it from the lane before).
#pragma once

#include <scankit/select_predicate.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace scankit::detail {

/// Selects items whose flag is non-zero (flags[g] for item g).
template <class Flag>
struct flag_selector {
  using flag_type = Flag;
  const Flag* d_flags;

  template <int Vec, class Item>
  __device__ __forceinline__ unsigned bits(const Item (&)[Vec], const Item*, std::size_t g, unsigned valid) const {
    unsigned b = 0;
    constexpr std::size_t pack_bytes = sizeof(Flag) * Vec;
    if constexpr (pack_bytes == 2 || pack_bytes == 4 || pack_bytes == 8 || pack_bytes == 16) {
      // One load per vector when the flags are aligned for it (g is a multiple of Vec).
      if (reinterpret_cast<std::uintptr_t>(d_flags) % pack_bytes == 0 && valid >= unsigned(Vec)) {
        struct alignas(pack_bytes) pack { Flag f[Vec]; };
        const pack p = *reinterpret_cast<const pack*>(d_flags + g);
#pragma unroll
        for (int j = 0; j < Vec; ++j) b |= unsigned(static_cast<bool>(p.f[j])) << j;
        return b;
      }
    }
#pragma unroll
    for (int j = 0; j < Vec; ++j)
      if (unsigned(j) < valid) b |= unsigned(static_cast<bool>(d_flags[g + j])) << j;
    return b;
  }

  /// bits() with the vector's flags already staged in shared memory.
  template <int Vec>
  __device__ __forceinline__ unsigned bits_staged(const Flag* staged_flags) const {
    unsigned b = 0;
#pragma unroll
    for (int j = 0; j < Vec; ++j) b |= unsigned(static_cast<bool>(staged_flags[j])) << j;
    return b;
  }
};

/// Bytes per item a selector wants staged in shared memory beside the items
/// (its flags); 0: nothing.
template <class Selector>
inline constexpr std::size_t side_bytes_of = 0;
template <class Flag>
inline constexpr std::size_t side_bytes_of<flag_selector<Flag>> = sizeof(Flag);

/// Bit j set for every v[j] for which pred(v[j]) is true.
template <int Vec, class Item, class Pred>
__host__ __device__ __forceinline__ unsigned bits_where(const Pred& pred, const Item (&v)[Vec]) {
  unsigned b = 0;
#if defined(__CUDA_ARCH__)  // (a host compiler would warn of an unknown pragma)
#pragma unroll
#endif
  for (int j = 0; j < Vec; ++j) b |= unsigned(static_cast<bool>(pred(v[j]))) << j;
  return b;
}

/// Selects items for which pred(item) is true.
template <class Pred>
struct predicate_selector {
  Pred pred;

  template <int Vec, class Item>
  __device__ __forceinline__ unsigned bits(const Item (&v)[Vec], const Item*, std::size_t, unsigned) const {
    return bits_where(pred, v);
  }
};

/// Selects run heads: the first item, and every item not equal (eq) to the
/// one before it.
template <class Eq>
struct run_head_selector {
  Eq eq;

  template <int Vec, class Item>
  __device__ __forceinline__ unsigned bits(const Item (&v)[Vec], const Item* at, std::size_t g, unsigned) const {
    return heads_after_first(g == 0 || !eq(at[-1], v[0]) ? 1u : 0u, v);
  }

  /// bits() with the item before v[0] given (read only when g > 0).
  template <int Vec, class Item>
  __device__ __forceinline__ unsigned bits_after(const Item& before, const Item (&v)[Vec], std::size_t g) const {
    return heads_after_first(g == 0 || !eq(before, v[0]) ? 1u : 0u, v);
  }

 private:
  /// `first` (bit 0), with bit j set for every v[j] (j >= 1) that differs from v[j - 1].
  template <int Vec, class Item>
  __device__ __forceinline__ unsigned heads_after_first(unsigned first, const Item (&v)[Vec]) const {
    unsigned b = first;
#pragma unroll
    for (int j = 1; j < Vec; ++j) b |= unsigned(!eq(v[j - 1], v[j])) << j;
    return b;
  }
};

/// Whether a selector reads the item before a vector (at[-1]): only then
/// does the kernel stage the item before each tile.
template <class Selector>
inline constexpr bool reads_item_before = false;
template <class Eq>
inline constexpr bool reads_item_before<run_head_selector<Eq>> = true;

/// Selects items by one of the host API's predicates
/// (scankit/select_predicate.hpp) with T's own comparisons. Each predicate is
/// turned, on the host, into one range and whether to take what lies outside
/// it, so every item costs the same two comparisons and the kernel no
/// branches (a choice among the predicates per vector had made the uint32
/// selection kernels' PTX 1.6x as long, with 2.3x the branches of the
/// template form's). Integer ranges are closed (an open bound moves by
/// one); floating-point ranges keep open bounds as flags, since the value
/// next to a bound would compare differently where denormals are flushed.
template <class T>
struct predicate_selector<predicate<T>> {
  static_assert(std::is_arithmetic_v<T>, "scankit::predicate compares built-in arithmetic items");
  T lo{}, hi{};          // the range
  bool lo_open = false;  // floating point: lo < x rather than lo <= x
  bool hi_open = false;  // floating point: x < hi rather than x <= hi
  bool outside = false;  // select what lies outside the range

  predicate_selector() = default;  // a placeholder in the kernels' launch arguments, assigned before use
  /// `call` (e.g. "compact_if") names the call in the error for a predicate
  /// of an unknown kind.
  explicit predicate_selector(const predicate<T>& p, const char* call = nullptr) : lo(lowest()), hi(highest()) {
    switch (p.kind) {
      case compare::not_zero: lo = hi = T(0), outside = true; break;
      case compare::equal: lo = hi = p.a; break;
      case compare::not_equal: lo = hi = p.a, outside = true; break;
      case compare::less: hi = p.a, hi_open = true; break;
      case compare::less_equal: hi = p.a; break;
      case compare::greater: lo = p.a, lo_open = true; break;
      case compare::greater_equal: lo = p.a; break;
      case compare::in_range: lo = p.a, hi = p.b, hi_open = true; break;
      case compare::outside_range: lo = p.a, hi = p.b, hi_open = true, outside = true; break;
      default:
        throw std::invalid_argument((call ? std::string("scankit::") + call : std::string("scankit")) +
                                    ": predicate of an unknown compare kind");
    }
    if constexpr (!std::is_floating_point_v<T>) {  // close the open bounds
      if ((lo_open && lo == highest()) || (hi_open && hi == lowest())) {
        lo = highest(), hi = lowest();  // nothing inside
      } else {
        if (lo_open) lo = T(lo + 1);
        if (hi_open) hi = T(hi - 1);
      }
      lo_open = hi_open = false;
    }
  }

  /// Whether x lies in the range.
  __host__ __device__ __forceinline__ bool inside(const T& x) const {
    if constexpr (std::is_floating_point_v<T>)
      return (lo_open ? lo < x : lo <= x) && (hi_open ? x < hi : x <= hi);
    else
      return lo <= x && x <= hi;
  }

  /// Whether x is selected.
  __host__ __device__ __forceinline__ bool operator()(const T& x) const { return inside(x) != outside; }

  /// The range test per item; taking the outside flips the vector's bits
  /// once (one logic operation a vector instead of one an item). Host and
  /// device, so the host-side tests check the kernels' form.
  template <int Vec, class Item>
  __host__ __device__ __forceinline__ unsigned bits(const Item (&v)[Vec], const Item*, std::size_t, unsigned) const {
    static_assert(Vec < 32, "one bit per item of the vector");
    constexpr unsigned vector_bits = (1u << Vec) - 1;
    return bits_where([this](const T& x) { return inside(x); }, v) ^ (outside ? vector_bits : 0u);
  }

 private:
  /// The ends of T's range (floating point: the infinities, so no bound leaves one out).
  static constexpr T lowest() {
    if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
  static constexpr T highest() {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
};

/// a == b with T's operator== (so NaN != NaN and -0 == +0, as thrust::unique).
struct equal_to {
  template <class T>
  __host__ __device__ __forceinline__ bool operator()(const T& a, const T& b) const {
    return a == b;
  }
};

}  // namespace scankit::detail
