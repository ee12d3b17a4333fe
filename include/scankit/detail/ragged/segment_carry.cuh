// detail/ragged/segment_carry.cuh — what a piece of a segmented sequence
// passes to the pieces after it: whether (or how many) segment boundaries it
// holds, and the reduction of its last, still open, segment. Combining two
// pieces is associative, so segmented reduction rides on the ordinary block
// scan and decoupled look-back:
//
//   (c1, p1) ⊕ (c2, p2) = (c1 + c2, c2 > 0 ? p2 : p1 ⊕ p2)
//
// (Blelloch's segmented-scan operator; reduce-by-key counts the boundaries —
// run heads — to learn each run's output index, segmented reduction only
// needs to know whether there is one.) Every piece that takes part in a
// combine holds a real partial: a piece either has values, or its boundaries
// give it a fresh partial (init), so the user's operator only sees real
// values. The carry is 8 bytes for 4-byte T, so the look-back publishes it in
// one paired status word (detail/lookback/tile_status.cuh).
#pragma once

#include <scankit/detail/maybe.cuh>

#include <cstdint>

namespace scankit::detail {

template <class T>
struct segment_carry {
  std::uint32_t boundaries;  // boundaries (run heads) in the piece; reduce-by-key: their count
  T partial;                 // reduction of the open segment's values in the piece
};

/// The operator above. Counting: boundaries add (reduce-by-key, fewer than
/// 2^32 in all); otherwise only "any" matters and they are or-ed, which
/// never overflows.
template <class T, class Op, bool Counting>
struct segment_carry_op {
  Op op;
  __device__ __forceinline__ segment_carry<T> operator()(const segment_carry<T>& x, const segment_carry<T>& y) const {
    segment_carry<T> r;
    r.boundaries = Counting ? x.boundaries + y.boundaries : (x.boundaries | y.boundaries);
    r.partial = y.boundaries > 0 ? y.partial : op(x.partial, y.partial);
    return r;
  }
};

/// acc ⊕ v, or v when acc is empty.
template <class T, class Op>
__device__ __forceinline__ void fold_into(maybe<T>& acc, const T& v, Op op) {
  acc.value = acc.has ? op(acc.value, v) : v;
  acc.has = true;
}

}  // namespace scankit::detail
