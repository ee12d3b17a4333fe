// scankit/select_predicate.hpp — the predicates of the host API's compact_if
// and partition_if: plain values, no device code, so a .cpp caller can say
//
//   scankit::compact_if(ctx, d_in, d_out, n, scankit::greater(0.5f));
//   scankit::compact_if(ctx, d_ids, d_out, n, scankit::in_range(100, 200));  // 100 <= x < 200
//
// The value's type converts to the array's element type (so greater(5) works
// for a float array). Comparisons are the element type's own: a NaN item
// fails every predicate except not_zero, not_equal and outside_range. Items
// are built-in arithmetic types; in the template API (scankit/device/select.cuh)
// other item types take a device functor instead.
#pragma once

namespace scankit {

/// How an item is compared: x != 0; x == a, x != a, x < a, x <= a, x > a,
/// x >= a; a <= x < b; not (a <= x < b).
enum class compare { not_zero, equal, not_equal, less, less_equal, greater, greater_equal, in_range, outside_range };

/// A predicate over items of type T.
template <class T>
struct predicate {
  compare kind = compare::not_zero;
  T a{};
  T b{};
};

/// A predicate whose bounds convert to any element type.
template <class U>
struct predicate_of {
  compare kind;
  U a, b;
  template <class T>
  operator predicate<T>() const {
    return predicate<T>{kind, static_cast<T>(a), static_cast<T>(b)};
  }
};

inline predicate_of<int> not_zero() { return {compare::not_zero, 0, 0}; }
template <class U> predicate_of<U> equal(U a) { return {compare::equal, a, a}; }
template <class U> predicate_of<U> not_equal(U a) { return {compare::not_equal, a, a}; }
template <class U> predicate_of<U> less(U a) { return {compare::less, a, a}; }
template <class U> predicate_of<U> less_equal(U a) { return {compare::less_equal, a, a}; }
template <class U> predicate_of<U> greater(U a) { return {compare::greater, a, a}; }
template <class U> predicate_of<U> greater_equal(U a) { return {compare::greater_equal, a, a}; }
/// lo <= x < hi.
template <class U> predicate_of<U> in_range(U lo, U hi) { return {compare::in_range, lo, hi}; }
/// Not (lo <= x < hi).
template <class U> predicate_of<U> outside_range(U lo, U hi) { return {compare::outside_range, lo, hi}; }

}  // namespace scankit
