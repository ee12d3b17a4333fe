// detail/numeric/compensated.cuh — the scanned type of the compensated
// floating-point scan: a sum and the running error term, combined with
// Knuth's TwoSum (Neumaier-style, branch-free), so every output is the sum
// rounded once from about twice the working precision.
//
// Combining (s1, c1) and (s2, c2): s = fl(s1 + s2), e = the exact rounding
// error of that addition (TwoSum, six flops), c = fl(c1 + c2 + e). The output
// is fl(s + c). Every output of a scan is one such tree of combines over its
// prefix x_0 ... x_i, whatever the tree's shape. The argument of Ogita, Rump
// and Oishi's bound for Sum2 ("Accurate sum and dot product", 2005: TwoSum
// captures every rounding error of the sums exactly; only the errors' own
// summation and the final addition round) carries over from their sequential
// cascade to any tree, with d its depth:
//
//   |out_i - S_i| <= u |S_i| + gamma(d)^2 * sum_j |x_j|,   gamma(d) = d u / (1 - d u)
//
// with u the unit roundoff (2^-24 float, 2^-53 double), S_i the exact prefix
// sum and d the depth of the combining tree, at most i + 1 (the scan's tree is
// far shallower: items per thread + warp and block levels + the tiles looked
// back over). Fast mode's bound is gamma(d) * sum |x_j|: compensation squares
// the condition-dependent term. Valid while nothing overflows; where the plain
// sum is infinite or NaN the output is the plain sum, as IEEE addition gives.
#pragma once

#include <cmath>

namespace scankit::detail {

template <class F>
struct compensated {
  F sum;
  F error;  // the accumulated rounding errors of `sum`

  compensated() = default;
  /// A single input value (exact: no error yet).
  __host__ __device__ __forceinline__ explicit compensated(F x) : sum(x), error(F(0)) {}
  __host__ __device__ __forceinline__ compensated(F s, F e) : sum(s), error(e) {}

  /// The compensated value: the sum with its error folded in, rounded once.
  /// Where the plain sum is infinite or NaN the error term is meaningless
  /// (inf − inf) and the plain sum is the IEEE result; a zero error leaves the
  /// sum as it is (so −0 stays −0).
  __host__ __device__ __forceinline__ explicit operator F() const {
    return isfinite(sum) && error != F(0) ? sum + error : sum;
  }
};

/// The combine of the compensated scan: TwoSum of the sums, errors added.
struct compensated_plus {
  template <class F>
  __host__ __device__ __forceinline__ compensated<F> operator()(const compensated<F>& a,
                                                               const compensated<F>& b) const {
    const F s = a.sum + b.sum;
    // TwoSum (Knuth): the exact rounding error of a.sum + b.sum, branch-free.
    const F b_virtual = s - a.sum;
    const F a_virtual = s - b_virtual;
    const F rounding_error = (a.sum - a_virtual) + (b.sum - b_virtual);
    return compensated<F>(s, (a.error + b.error) + rounding_error);
  }
};

}  // namespace scankit::detail
