// tests/test_segmented_reduce.cu — segmented reduction over CSR offsets
// (scankit::segmented_reduce and scankit::device::segmented_reduce):
//
//   * host API: int32, uint32, int64, uint64, float, double × plus, min, max,
//     offsets int32 / uint32 / int64 / uint64 (rotated through the sweep, and
//     all four on a fixed set), over segment-length distributions: all empty,
//     all length 1, 4 / 256 / 65536 fixed and uniform around them, power law
//     with many empties, one giant segment among tiny ones; offsets[0] != 0
//     and num_values > offsets[num_segments] (values outside every segment
//     must be ignored); segmentations whose merge (num_segments + 1
//     boundaries + num_values values) is tile−1 / tile / tile+1 / k·tile±1
//     diagonals (tile = segmented_reduce_shape<T>::tile_diagonals, read from
//     the library: the shape is being tuned);
//   * init given, and the default identities (0; largest / +inf for min;
//     lowest / -inf for max), checked exactly on empty segments;
//   * oracles: a host reference with an explicit accumulator (int64 / __int128
//     / wrapping uint64 / compensated double for floats) and
//     thrust::reduce_by_key over per-value segment ids on the same device
//     values; floats within a tolerance from the segment's Σ|x|, and exactly
//     on small-integer data; outputs poisoned with guard bands;
//   * template API: non-commutative operators (affine maps, 2×2 matrices,
//     and a checked 4-byte type whose operator flags any value that is not a
//     real input: poison past num_values, T{} placeholders) with segments
//     crossing many tiles, against a sequential host fold;
//   * invalid offsets: no fault, nothing outside d_out written, and (checked
//     operator) no value read outside d_values;
//   * bad arguments (host test, no GPU): bitwise operators, null pointers,
//     d_out overlapping the inputs;
//   * [large]: more than 2^31 int32 values, every segment checked against a
//     host reference.
#include "support/cuda_check.hpp"
#include "support/noncommutative.cuh"
#include "support/random.hpp"
#include "support/rejection.hpp"
#include "support/reference.hpp"
#include "support/segments.hpp"

#include <scankit/detail/kernels/segmented_reduce_kernel.cuh>
#include <scankit/device/operators.cuh>
#include <scankit/device/segmented_reduce.cuh>
#include <scankit/scankit.hpp>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace segmented_reduce_tests {

using namespace sktest;
using scankit::op;

/// Merge-path diagonals (boundaries + values) per tile for T.
template <class T>
constexpr std::uint64_t sr_tile = scankit::detail::segmented_reduce_shape<T>::tile_diagonals;

constexpr op all_ops[] = {op::plus, op::min, op::max};

// ---- layouts ------------------------------------------------------------------------

/// A segmentation of num_values values: off[0] = base (maybe > 0), off.back()
/// <= num_values (the rest is a tail that belongs to no segment).
struct layout {
  std::string name;
  std::vector<std::uint64_t> off;
  std::size_t num_values;
  std::size_t num_segments() const { return off.size() - 1; }
};

layout make_layout(const segment_spec& spec, std::size_t num_segments, std::uint64_t base, std::uint64_t tail,
                   const std::string& tag) {
  const std::string name = tag + "/" + spec.name() + "/" + std::to_string(num_segments) + "/base" +
                           std::to_string(base) + "/tail" + std::to_string(tail);
  rng r(case_seed("segmented_reduce/layout/" + name));
  std::vector<std::uint64_t> off = offsets_from_lengths(make_lengths(num_segments, spec, r), base);
  const std::size_t nv = std::size_t(off.back() + tail);
  return {name, std::move(off), nv};
}

/// A layout whose merge path is exactly `diagonals` long.
layout tile_edge_layout(std::uint64_t diagonals, std::size_t num_segments, std::uint64_t base, std::uint64_t tail,
                        const std::string& tag) {
  const std::string name = tag + "/diagonals" + std::to_string(diagonals) + "/" + std::to_string(num_segments) +
                           "/base" + std::to_string(base) + "/tail" + std::to_string(tail);
  rng r(case_seed("segmented_reduce/edge/" + name));
  const std::uint64_t nv = diagonals - (num_segments + 1);
  REQUIRE(nv >= base + tail);
  std::vector<std::uint64_t> off = offsets_from_lengths(lengths_with_total(num_segments, nv - base - tail, r), base);
  return {name, std::move(off), std::size_t(nv)};
}

const std::size_t segment_counts[] = {1, 2, 31, 32, 33, 1000, 4095, 4097, 100003, std::size_t(1) << 20};

bool within_budget(const segment_spec& spec, std::size_t num_segments) {
  const double extra = spec.dist == segment_dist::giant ? double(spec.param) : 0.0;
  return spec.mean() * double(num_segments) + extra <= double(std::uint64_t(1) << 23);
}

/// The sweep: every distribution × count within the budget, base and tail
/// alternating between 0 and a few values; plus tile edges and a 2^24 case.
template <class T>
std::vector<layout> sweep_layouts(const std::string& tag) {
  std::vector<layout> all;
  std::size_t k = 0;
  for (const segment_spec& spec : standard_specs(1'000'003))
    for (std::size_t s : segment_counts) {
      if (!within_budget(spec, s)) continue;
      const std::uint64_t base = (k % 2 == 0) ? 0 : 1 + (k * 7919) % 5000;
      const std::uint64_t tail = (k % 3 == 0) ? 0 : 1 + (k * 104729) % 7000;
      all.push_back(make_layout(spec, s, base, tail, tag));
      ++k;
    }
  const std::uint64_t D = sr_tile<T>;
  for (std::uint64_t d : {D - 1, D, D + 1, 2 * D - 1, 2 * D + 1, 33 * D - 1, 33 * D + 1})
    for (std::size_t s : {std::size_t(1), std::size_t(9), std::size_t(D / 4), std::size_t(D / 2 - 1)}) {
      if (d < s + 1 + 40) continue;
      all.push_back(tile_edge_layout(d, s, 0, 0, tag));
      all.push_back(tile_edge_layout(d, s, 17, 23, tag));
    }
  all.push_back(make_layout({segment_dist::fixed, 256}, std::size_t(1) << 16, 0, 0, tag));  // 2^24 values
  return all;
}

// ---- reference --------------------------------------------------------------------------

/// The identity segmented_reduce.hpp documents for the default init.
template <class T>
T documented_identity(op o) {
  using L = std::numeric_limits<T>;
  switch (o) {
    case op::min: return L::has_infinity ? L::infinity() : L::max();
    case op::max: return L::has_infinity ? -L::infinity() : L::lowest();
    default: return T(0);
  }
}

/// Per segment: the reference init ⊕ values (ref_t<T>: double for floats), the
/// segment's Σ|x| + |init| (float tolerance) and its length.
template <class T>
struct segment_reference {
  std::vector<ref_t<T>> value;
  std::vector<double> abs_sum;
  std::vector<std::uint64_t> length;
};

/// Sequential fold of every segment from init, with an explicit accumulator:
/// int64 (int32 plus), __int128 (int64 plus; both checked never to leave the
/// type's range, so the device has no signed overflow), uint64 mod 2^64
/// (unsigned plus, then mod 2^bits), compensated double (float plus); min and
/// max exactly in T.
template <class T>
segment_reference<T> reference_segments(const std::vector<T>& values, const std::vector<std::uint64_t>& off, op o,
                                        T init) {
  const std::size_t ns = off.size() - 1;
  segment_reference<T> ref{std::vector<ref_t<T>>(ns), std::vector<double>(ns), std::vector<std::uint64_t>(ns)};
  std::size_t overflowing = 0;  // one assertion at the end (Catch assertions are slow)
  for (std::size_t s = 0; s < ns; ++s) {
    const std::uint64_t b = off[s], e = off[s + 1];
    ref.length[s] = e - b;
    double abs_sum = std::fabs(double(init));
    for (std::uint64_t i = b; i < e; ++i) abs_sum += std::fabs(double(values[i]));
    ref.abs_sum[s] = abs_sum;
    if (o == op::plus) {
      if constexpr (std::is_floating_point_v<T>) {
        compensated_sum acc;
        acc.add(double(init));
        for (std::uint64_t i = b; i < e; ++i) acc.add(double(values[i]));
        ref.value[s] = acc.value();
      } else if constexpr (std::is_signed_v<T>) {
        using acc_t = std::conditional_t<sizeof(T) <= 4, std::int64_t, __int128>;
        acc_t acc = acc_t(init), abs = init < 0 ? -acc_t(init) : acc_t(init);
        for (std::uint64_t i = b; i < e; ++i) {
          acc += acc_t(values[i]);
          abs += values[i] < 0 ? -acc_t(values[i]) : acc_t(values[i]);
        }
        overflowing += !(abs <= acc_t(std::numeric_limits<T>::max()));
        ref.value[s] = T(acc);
      } else {
        std::uint64_t acc = std::uint64_t(init);
        for (std::uint64_t i = b; i < e; ++i) acc += std::uint64_t(values[i]);
        ref.value[s] = T(acc);
      }
    } else {
      T acc = init;
      for (std::uint64_t i = b; i < e; ++i) acc = host_combine(o, acc, values[i]);
      ref.value[s] = ref_t<T>(acc);
    }
  }
  INFO("segments whose data could overflow the signed value type (the device would have UB)");
  REQUIRE(overflowing == 0);
  return ref;
}

/// Depth bound (roundings per term) of scankit's segmented sum of a segment
/// of `len` values: <= steps sequential adds in a thread, ~16 levels of block
/// scan, one add per tile the segment crosses (a crossed tile holds D values)
/// and a few for the look-back and init — far below len/1024 + 160.
inline double scankit_segment_depth(std::uint64_t len) { return double(len) / 1024.0 + 160.0; }

/// Compares device results with the reference: exact for integers and
/// min / max, within Σ|x| · (eps(T)·depth + 4·eps(double)) for float sums.
template <class T>
exact_check compare_segments(const std::vector<T>& got, const segment_reference<T>& ref, op o, bool exact_floats,
                             double extra_depth = 0) {
  exact_check c;
  std::ostringstream s;
  if (got.size() != ref.value.size()) {
    c.mismatches = 1;
    c.report = "size mismatch";
    return c;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    bool bad;
    double tolerance = 0;
    if constexpr (std::is_floating_point_v<T>) {
      if (o == op::plus && !exact_floats) {
        const double depth = scankit_segment_depth(ref.length[i]) + extra_depth;
        tolerance = ref.abs_sum[i] * (std::numeric_limits<T>::epsilon() * depth + 4 * std::numeric_limits<double>::epsilon()) *
                    (1 + 1e-6);
        bad = !(std::fabs(double(got[i]) - ref.value[i]) <= tolerance);
      } else {
        bad = !(double(got[i]) == ref.value[i]);
      }
      bad |= is_poison(got[i]) && !(double(got[i]) == ref.value[i]);
    } else {
      bad = got[i] != ref.value[i];
    }
    if (bad) {
      if (c.mismatches < 8) {
        s << "  segment " << i << " (length " << ref.length[i] << "): got " << show(got[i]) << ", expected "
          << show(ref.value[i]);
        if (tolerance > 0) s << " (tolerance " << tolerance << ")";
        s << "\n";
      }
      ++c.mismatches;
    }
  }
  if (c.mismatches != 0)
    c.report = std::to_string(c.mismatches) + " of " + std::to_string(got.size()) + " segments wrong:\n" + s.str();
  return c;
}

// ---- the Thrust oracle ----------------------------------------------------------------------

/// Per segment: init ⊕ (thrust::reduce_by_key of its values, keyed by segment
/// id), or init for an empty segment (reduce_by_key emits no run for it).
template <class T>
std::vector<T> thrust_segments(cudaStream_t stream, const T* d_values, const std::vector<std::uint64_t>& off, op o,
                               T init) {
  const std::size_t ns = off.size() - 1;
  const std::uint64_t count = off.back() - off.front();
  std::vector<T> result(ns, init);
  if (count == 0) return result;
  std::vector<std::uint32_t> keys(count);
  for (std::size_t s = 0; s < ns; ++s)
    for (std::uint64_t i = off[s]; i < off[s + 1]; ++i) keys[i - off.front()] = std::uint32_t(s);
  device_buffer<std::uint32_t> d_keys(count), d_keys_out(count);
  device_buffer<T> d_out(count);
  d_keys.upload(keys, stream);
  const T* first = d_values + off.front();
  auto run = [&](auto functor) {
    const auto ends = thrust::reduce_by_key(thrust::cuda::par.on(stream), d_keys.data(), d_keys.data() + count, first,
                                            d_keys_out.data(), d_out.data(), thrust::equal_to<std::uint32_t>{}, functor);
    return std::size_t(ends.first - d_keys_out.data());
  };
  std::size_t runs = 0;
  switch (o) {
    case op::plus: runs = run(thrust::plus<T>{}); break;
    case op::min: runs = run(thrust::minimum<T>{}); break;
    case op::max: runs = run(thrust::maximum<T>{}); break;
    default: FAIL("thrust_segments: operator not handled");
  }
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  const std::vector<std::uint32_t> seg = d_keys_out.download(stream, 0, runs);
  const std::vector<T> val = d_out.download(stream, 0, runs);
  for (std::size_t r = 0; r < runs; ++r)
    result[seg[r]] = o == op::plus ? T(init + val[r]) : host_combine(o, init, val[r]);
  return result;
}

// ---- one host API case -------------------------------------------------------------------------

enum class init_mode { given, identity };

template <class T, class Offset>
void sr_case(scankit::context& ctx, cuda_stream& stream, const layout& L, op o, init_mode im, value_kind kind,
             bool with_thrust) {
  const std::size_t ns = L.num_segments(), nv = L.num_values;
  const std::uint64_t seed = case_seed(std::string("segmented_reduce/") + type_name<T>() + "/" + type_name<Offset>() +
                                       "/" + scankit::to_string(o) + "/" + to_string(kind) + "/" +
                                       (im == init_mode::given ? "init/" : "identity/") + L.name);
  const char* op_name = scankit::to_string(o);
  const bool given = im == init_mode::given;
  CAPTURE(type_name<T>(), type_name<Offset>(), op_name, given, to_string(kind), L.name, ns, nv, seed);
  rng r(seed);
  const std::vector<T> values = make_input<T>(nv, kind, r);
  const T init = given ? make_init<T>(o, kind, r) : documented_identity<T>(o);
  INFO("init " << show(init));
  const bool exact_floats = kind == value_kind::small_integers;
  if constexpr (std::is_floating_point_v<T>) {
    if (exact_floats) {
      std::size_t inexact = 0;
      for (std::size_t s = 0; s < ns; ++s) {
        double a = std::fabs(double(init));
        for (std::uint64_t i = L.off[s]; i < L.off[s + 1]; ++i) a += std::fabs(double(values[i]));
        inexact += !(a < std::ldexp(1.0, std::numeric_limits<T>::digits));  // every partial sum exact
      }
      REQUIRE(inexact == 0);
    }
  }

  device_buffer<T> d_values(nv);
  d_values.upload(values, stream);
  device_buffer<Offset> d_offsets(ns + 1);
  d_offsets.upload(as_offsets<Offset>(L.off), stream);
  guarded_buffer<T> d_out(ns);
  d_out.poison(stream);
  SKTEST_CUDA(cudaStreamSynchronize(stream));

  if (given)
    scankit::segmented_reduce(ctx, d_values.data(), nv, d_offsets.data(), ns, d_out.data(), o, init);
  else
    scankit::segmented_reduce(ctx, d_values.data(), nv, d_offsets.data(), ns, d_out.data(), o);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());

  const segment_reference<T> ref = reference_segments(values, L.off, o, init);
  const std::vector<T> got = d_out.download(stream);
  {
    const exact_check c = compare_segments(got, ref, o, exact_floats);
    INFO("scankit vs host reference: " << c.report);
    CHECK(c.ok());
  }
  CHECK(d_out.guards_touched(stream) == 0);
  if (with_thrust) {
    const std::vector<T> oracle = thrust_segments(stream, d_values.data(), L.off, o, init);
    {
      const exact_check c = compare_segments(oracle, ref, o, exact_floats, thrust_depth_bound(nv) + 2);
      INFO("thrust::reduce_by_key vs host reference (checks the oracle): " << c.report);
      CHECK(c.ok());
    }
    if (std::is_integral_v<T> || o != op::plus || exact_floats) {
      SKTEST_CHECK_EXACT(got, oracle, same_bits_fn{}, "scankit vs thrust::reduce_by_key");
    }
  }
}

/// Runs sr_case with the offset type picked by `which` (0..3).
template <class T>
void sr_case_any_offset(int which, scankit::context& ctx, cuda_stream& stream, const layout& L, op o, init_mode im,
                        value_kind kind, bool with_thrust) {
  switch (which % 4) {
    case 0: return sr_case<T, std::int32_t>(ctx, stream, L, o, im, kind, with_thrust);
    case 1: return sr_case<T, std::uint32_t>(ctx, stream, L, o, im, kind, with_thrust);
    case 2: return sr_case<T, std::int64_t>(ctx, stream, L, o, im, kind, with_thrust);
    default: return sr_case<T, std::uint64_t>(ctx, stream, L, o, im, kind, with_thrust);
  }
}

// ---- 1. the host API sweep ---------------------------------------------------------------------

TEMPLATE_TEST_CASE("segmented_reduce equals the host reference and thrust::reduce_by_key", "[gpu][segmented_reduce]",
                   std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double) {
  using T = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  int k = 0;
  for (const layout& L : sweep_layouts<T>(std::string("sweep/") + type_name<T>()))
    for (op o : all_ops) {
      sr_case_any_offset<T>(k, ctx, stream, L, o, (k / 4) % 2 == 0 ? init_mode::given : init_mode::identity, kind_for(o),
                            true);
      ++k;
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("segmented_reduce takes every offset type", "[gpu][segmented_reduce]", std::int32_t, double) {
  using T = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::vector<layout> layouts{
      make_layout({segment_dist::uniform, 256}, 4097, 0, 0, "offsets"),
      make_layout({segment_dist::power_law, 0}, 1000, 333, 4444, "offsets"),
      make_layout({segment_dist::giant, 300'007}, 100003, 1, 1, "offsets"),
      tile_edge_layout(5 * sr_tile<T> + 1, 77, 5, 0, "offsets"),
  };
  for (const layout& L : layouts)
    for (op o : {op::plus, op::max})
      for (int which = 0; which < 4; ++which)
        for (init_mode im : {init_mode::given, init_mode::identity})
          sr_case_any_offset<T>(which, ctx, stream, L, o, im, kind_for(o), which == 0);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("floating-point segmented sums of small integers are exact", "[gpu][segmented_reduce]", float,
                   double) {
  using T = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  int k = 0;
  for (const segment_spec& spec : standard_specs(1'000'003))
    for (std::size_t s : {std::size_t(1), std::size_t(33), std::size_t(4097), std::size_t(100003)}) {
      if (!within_budget(spec, s)) continue;
      const layout L = make_layout(spec, s, k % 2 ? 0 : 11, k % 3 ? 0 : 13, std::string("exact/") + type_name<T>());
      sr_case_any_offset<T>(k, ctx, stream, L, op::plus, k % 2 ? init_mode::given : init_mode::identity,
                            value_kind::small_integers, true);
      ++k;
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 2. identities, empty segments, values outside every segment -----------------------------------

template <class T>
void identity_case(scankit::context& ctx, cuda_stream& stream) {
  CAPTURE(type_name<T>());
  // Many empty segments between a few non-empty ones, offsets[0] > 0 and a
  // tail: the values before offsets[0] and after the last offset are far from
  // the segments' ±1..4 (but small enough that no sum of all of them
  // overflows a signed type), so folding them in would show.
  const std::size_t ns = 5000;
  rng r(case_seed(std::string("segmented_reduce/identity/") + type_name<T>()));
  std::vector<std::uint64_t> len(ns, 0);
  for (int k = 0; k < 20; ++k) len[r.below(ns)] = 1 + r.below(50);
  const std::uint64_t base = 100, tail = 100;
  const std::vector<std::uint64_t> off = offsets_from_lengths(len, base);
  const std::size_t nv = std::size_t(off.back() + tail);
  std::vector<T> values = make_input<T>(nv, value_kind::small_integers, r);
  auto outside = [](std::size_t i) { return i % 2 ? T(1000003) : T(-999983); };
  for (std::size_t i = 0; i < base; ++i) values[i] = outside(i);
  for (std::size_t i = std::size_t(off.back()); i < nv; ++i) values[i] = outside(i);
  device_buffer<T> d_values(nv);
  d_values.upload(values, stream);
  device_buffer<std::uint32_t> d_offsets(ns + 1);
  d_offsets.upload(as_offsets<std::uint32_t>(off), stream);
  guarded_buffer<T> d_out(ns);
  for (op o : all_ops) {
    CAPTURE(scankit::to_string(o));
    const T identity = documented_identity<T>(o);
    d_out.poison(stream);
    scankit::segmented_reduce(ctx, d_values.data(), nv, d_offsets.data(), ns, d_out.data(), o);
    const std::vector<T> got = d_out.download(stream);
    const segment_reference<T> ref = reference_segments(values, off, o, identity);
    std::size_t empty_wrong = 0;
    for (std::size_t s = 0; s < ns; ++s)
      if (len[s] == 0) empty_wrong += !same_bits_fn{}(got[s], identity);
    CHECK(empty_wrong == 0);
    const exact_check c = compare_segments(got, ref, o, true);
    INFO(c.report);
    CHECK(c.ok());
    // A given init on empty segments is returned as is.
    const T init = T(3);
    d_out.poison(stream);
    scankit::segmented_reduce(ctx, d_values.data(), nv, d_offsets.data(), ns, d_out.data(), o, init);
    const std::vector<T> got_init = d_out.download(stream);
    std::size_t init_wrong = 0;
    for (std::size_t s = 0; s < ns; ++s)
      if (len[s] == 0) init_wrong += !same_bits_fn{}(got_init[s], init);
    CHECK(init_wrong == 0);
    CHECK(d_out.guards_touched(stream) == 0);
  }
}

TEST_CASE("segmented_reduce gives init or the documented identity for empty segments and ignores values outside",
          "[gpu][segmented_reduce]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  identity_case<std::int32_t>(ctx, stream);
  identity_case<std::uint32_t>(ctx, stream);
  identity_case<std::int64_t>(ctx, stream);
  identity_case<std::uint64_t>(ctx, stream);
  identity_case<float>(ctx, stream);
  identity_case<double>(ctx, stream);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("segmented_reduce with no segments or no values", "[gpu][segmented_reduce][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  // No segments: nothing is needed or written.
  CHECK_NOTHROW(scankit::segmented_reduce(ctx, static_cast<const float*>(nullptr), 0,
                                          static_cast<const std::int32_t*>(nullptr), 0, static_cast<float*>(nullptr),
                                          op::plus));
  guarded_buffer<double> d_out(8);
  device_buffer<double> d_values(100);
  device_buffer<std::uint64_t> d_offsets(9);
  d_offsets.upload(std::vector<std::uint64_t>(9, 0), stream);
  d_out.poison(stream);
  scankit::segmented_reduce(ctx, d_values.data(), 100, d_offsets.data(), 0, d_out.data(), op::max);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  CHECK(count_unpoisoned(download_bytes(d_out.data(), 8 * sizeof(double), stream)) == 0);
  // No values: every segment is empty and gets init (or the identity).
  scankit::segmented_reduce(ctx, static_cast<const double*>(nullptr), 0, d_offsets.data(), 8, d_out.data(), op::plus,
                            2.5);
  CHECK(d_out.download(stream) == std::vector<double>(8, 2.5));
  scankit::segmented_reduce(ctx, static_cast<const double*>(nullptr), 0, d_offsets.data(), 8, d_out.data(), op::min);
  CHECK(d_out.download(stream) == std::vector<double>(8, std::numeric_limits<double>::infinity()));
  CHECK(d_out.guards_touched(stream) == 0);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("small segmented reductions for the sanitizers", "[gpu][segmented_reduce][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::vector<layout> layouts{make_layout({segment_dist::uniform, 4}, 33, 3, 5, "sanitize"),
                                    make_layout({segment_dist::power_law, 0}, 40, 0, 0, "sanitize"),
                                    tile_edge_layout(2 * sr_tile<double> + 1, 50, 1, 2, "sanitize")};
  for (const layout& L : layouts) {
    sr_case<std::int32_t, std::int32_t>(ctx, stream, L, op::plus, init_mode::given, value_kind::sum_safe, false);
    sr_case<double, std::uint64_t>(ctx, stream, L, op::max, init_mode::identity, value_kind::full_range, false);
    sr_case<float, std::uint32_t>(ctx, stream, L, op::plus, init_mode::identity, value_kind::sum_safe, false);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("segmented reductions in which every block reuses its staging buffers, for racecheck",
          "[gpu][segmented_reduce][racecheck]") {
  // The persistent grid holds at most SMs x (2 048 / threads per block)
  // blocks; three times as many tiles gives every block several, so each
  // stage is refilled after the tile before it was reduced there (the
  // [sanitize] cases run at most a tile per block): 4-byte values with one
  // stage, 8-byte values with two. Segments of 4 values on average.
  cuda_stream stream;
  scankit::context ctx(stream);
  int device = 0, sms = 0;
  SKTEST_CUDA(cudaGetDevice(&device));
  SKTEST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  auto reusing_layout = [&](auto value, const std::string& tag) {
    using shape = scankit::detail::segmented_reduce_shape<decltype(value)>;
    const std::uint64_t tiles = 3 * std::uint64_t(sms) * (2048 / shape::threads);
    const std::uint64_t diagonals = tiles * shape::tile_diagonals + 1;
    return tile_edge_layout(diagonals, diagonals / 5, 2, 3, "racecheck/" + tag);
  };
  static_assert(scankit::detail::segmented_reduce_shape<std::int32_t>::stages == 1 &&
                scankit::detail::segmented_reduce_shape<double>::stages == 2);
  sr_case<std::int32_t, std::int32_t>(ctx, stream, reusing_layout(std::int32_t{}, "int32"), op::plus,
                                      init_mode::given, value_kind::sum_safe, false);
  sr_case<double, std::uint32_t>(ctx, stream, reusing_layout(double{}, "double"), op::max, init_mode::identity,
                                 value_kind::full_range, false);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 3. template API: non-commutative operators ---------------------------------------------------

/// init ⊕ values[off[s]] ⊕ ... ⊕ values[off[s+1]-1], strictly left to right.
template <class T, class HostOp>
std::vector<T> sequential_segments(const std::vector<T>& values, const std::vector<std::uint64_t>& off, HostOp op,
                                   const T& init) {
  std::vector<T> out(off.size() - 1);
  for (std::size_t s = 0; s + 1 < off.size(); ++s) {
    T acc = init;
    for (std::uint64_t i = off[s]; i < off[s + 1]; ++i) acc = op(acc, values[i]);
    out[s] = acc;
  }
  return out;
}

/// Template API call with values padded by `slack` poisoned items past
/// num_values (and before the array), so a read outside [0, num_values) hands
/// the operator poison. `make_op(d_error)` builds the device operator.
template <class T, class Offset, class MakeOp, class HostOp, class Gen>
void template_case(scankit::context& ctx, cuda_stream& stream, const std::string& what, const layout& L,
                   MakeOp make_op, HostOp host_op, Gen gen) {
  constexpr std::size_t slack = 1024;
  const std::size_t ns = L.num_segments(), nv = L.num_values;
  const std::uint64_t seed = case_seed("segmented_reduce/template/" + what + "/" + L.name);
  CAPTURE(what, type_name<Offset>(), L.name, ns, nv, seed);
  rng r(seed);
  std::vector<T> values(nv);
  for (auto& v : values) v = gen(r);
  const T init = gen(r);
  device_buffer<T> d_values(nv + 2 * slack);
  d_values.poison(stream);
  d_values.upload(values, stream, slack);
  device_buffer<Offset> d_offsets(ns + 1);
  d_offsets.upload(as_offsets<Offset>(L.off), stream);
  guarded_buffer<T> d_out(ns);
  d_out.poison(stream);
  device_buffer<unsigned> d_error(1);
  SKTEST_CUDA(cudaMemsetAsync(d_error.data(), 0, sizeof(unsigned), stream));

  scankit::device::segmented_reduce(ctx, static_cast<const T*>(d_values.data() + slack), nv,
                                    static_cast<const Offset*>(d_offsets.data()), ns, d_out.data(),
                                    make_op(d_error.data()), init);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());
  {
    const unsigned error = d_error.download(stream).at(0);
    INFO("the operator must only see input values and their combinations; it saw: " << describe_checked_error(error));
    CHECK(error == 0u);
  }
  SKTEST_CHECK_EXACT(d_out.download(stream), sequential_segments(values, L.off, host_op, init), same_bits_fn{},
                     what + " vs sequential host fold");
  CHECK(d_out.guards_touched(stream) == 0);
}

/// Layouts with segments crossing many tiles of T (tile = D diagonals).
std::vector<layout> crossing_layouts(std::uint64_t D, const std::string& tag) {
  return {
      make_layout({segment_dist::giant, 200 * D + 17}, 1000, 0, 0, tag),       // one segment over ~200 tiles
      make_layout({segment_dist::giant, 40 * D - 1}, 20000, 999, 3 * D, tag),  // base, tail past a tile
      make_layout({segment_dist::uniform, 3 * D}, 300, 5, 5, tag),             // every segment crosses tiles
      make_layout({segment_dist::ones, 1}, 3 * D + 1, 0, 0, tag),
      make_layout({segment_dist::power_law, 0}, 2000, 1, 0, tag),
      make_layout({segment_dist::empty, 0}, 5 * D, 0, D + 3, tag),             // values but no non-empty segment
      tile_edge_layout(D, 1, 0, 0, tag),
      tile_edge_layout(D + 1, 3, 2, 0, tag),
      tile_edge_layout(70 * D - 1, 5, 0, 1, tag),
  };
}


TEST_CASE("template API: non-commutative segmented reductions across many tiles", "[gpu][segmented_reduce][template]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (const layout& L : crossing_layouts(sr_tile<affine32>, "affine32"))
    template_case<affine32, std::uint64_t>(ctx, stream, "affine32", L, make_compose_affine32{}, compose_affine32{},
                                           random_affine32);
  for (const layout& L : crossing_layouts(sr_tile<mat2>, "mat2"))
    template_case<mat2, std::int64_t>(ctx, stream, "mat2", L, make_mat2_product{}, mat2_product{}, random_mat2);
  for (const layout& L : crossing_layouts(sr_tile<tagged_affine4>, "checked4"))
    template_case<tagged_affine4, std::int32_t>(ctx, stream, "tagged_affine4", L, make_checked<tagged_affine4>{},
                                                host_compose<tagged_affine4>{}, random_tagged_affine4);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 4. invalid offsets: no access out of bounds ------------------------------------------------------

template <class Offset>
std::vector<Offset> broken_offsets(int kind, std::size_t ns, std::uint64_t nv, rng& r) {
  std::vector<Offset> off(ns + 1);
  const auto big = std::uint64_t(std::numeric_limits<Offset>::max());
  for (std::size_t i = 0; i <= ns; ++i) {
    switch (kind) {
      case 0: off[i] = Offset(r.below(2 * nv + 1)); break;                                    // unsorted
      case 1: off[i] = Offset(nv + (ns - i)); break;                                          // decreasing, past the values
      case 2: off[i] = Offset(std::min<std::uint64_t>(big, nv + 1 + r.below(1000))); break;  // all past the values
      case 3: off[i] = r.coin() ? Offset(big) : Offset(r.below(nv + 1)); break;              // max value mixed in
      default: off[i] = Offset(Offset(0) - Offset(1 + r.below(100))); break;                  // negative (or huge)
    }
  }
  return off;
}

template <class Offset>
void broken_case(scankit::context& ctx, cuda_stream& stream, int kind, std::size_t ns, std::size_t nv) {
  constexpr std::size_t slack = 1024;
  const std::uint64_t seed = case_seed(std::string("segmented_reduce/broken/") + type_name<Offset>() + "/" +
                                       std::to_string(kind) + "/" + std::to_string(ns) + "/" + std::to_string(nv));
  CAPTURE(type_name<Offset>(), kind, ns, nv, seed);
  rng r(seed);
  device_buffer<Offset> d_offsets(ns + 1);
  d_offsets.upload(broken_offsets<Offset>(kind, ns, nv, r), stream);
  // Host API, int32 values.
  {
    device_buffer<std::int32_t> d_values(nv);
    d_values.upload(make_input<std::int32_t>(nv, value_kind::sum_safe, r), stream);
    guarded_buffer<std::int32_t> d_out(ns);
    d_out.poison(stream);
    scankit::segmented_reduce(ctx, d_values.data(), nv, d_offsets.data(), ns, d_out.data(), op::plus);
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    SKTEST_CUDA(cudaGetLastError());
    CHECK(d_out.guards_touched(stream) == 0);
  }
  // Template API with the checked operator and poison around the values:
  // reading outside [0, nv) would hand the operator poison.
  {
    std::vector<tagged_affine4> values(nv);
    for (auto& v : values) v = random_tagged_affine4(r);
    device_buffer<tagged_affine4> d_values(nv + 2 * slack);
    d_values.poison(stream);
    d_values.upload(values, stream, slack);
    guarded_buffer<tagged_affine4> d_out(ns);
    d_out.poison(stream);
    device_buffer<unsigned> d_error(1);
    SKTEST_CUDA(cudaMemsetAsync(d_error.data(), 0, sizeof(unsigned), stream));
    scankit::device::segmented_reduce(ctx, static_cast<const tagged_affine4*>(d_values.data() + slack), nv,
                                      static_cast<const Offset*>(d_offsets.data()),
                                      ns, d_out.data(), checked_compose<tagged_affine4>{d_error.data()},
                                      random_tagged_affine4(r));
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    SKTEST_CUDA(cudaGetLastError());
    const unsigned error = d_error.download(stream).at(0);
    INFO("operator inputs: " << describe_checked_error(error));
    CHECK(error == 0u);
    CHECK(d_out.guards_touched(stream) == 0);
  }
}

TEST_CASE("invalid offsets give unspecified sums but no access out of bounds", "[gpu][segmented_reduce]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (int kind = 0; kind < 5; ++kind)
    for (std::size_t ns : {std::size_t(1), std::size_t(37), std::size_t(3000)})
      for (std::size_t nv : {std::size_t(1), std::size_t(5000), std::size_t(3 * sr_tile<float> + 11)}) {
        broken_case<std::int32_t>(ctx, stream, kind, ns, nv);
        broken_case<std::uint64_t>(ctx, stream, kind, ns, nv);
      }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// The merge-path partition takes 32, 16 or 8 lanes per split by the number of
// splits, and a thread per split beyond (detail/ragged/merge_path_dispatch.cuh):
// the cases above are small (32 lanes), so this one has enough values for 16.
// 8 lanes and the thread would need 150 million values here; the partition
// alone is checked with every lane count, on these invalid offsets too, below.
TEST_CASE("invalid offsets with many tiles give no access out of bounds", "[gpu][segmented_reduce]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  int device = 0, sms = 0;
  SKTEST_CUDA(cudaGetDevice(&device));
  SKTEST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t nv = (std::size_t(sms) * 32 + 1024) * sr_tile<std::int32_t>;
  for (int kind = 0; kind < 5; ++kind) broken_case<std::int32_t>(ctx, stream, kind, 3000, nv);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

/// d_splits of the partition with `Lanes` lanes per split (1: a thread).
template <unsigned Lanes, class Offset>
std::vector<std::uint64_t> partition_splits(const device_buffer<Offset>& d_boundaries, std::uint64_t num_boundaries,
                                            std::uint64_t num_items, std::uint32_t diagonals, cuda_stream& stream) {
  const std::uint64_t tiles = scankit::detail::merge_path_tiles(num_boundaries, num_items, diagonals, "test");
  device_buffer<std::uint64_t> d_splits(tiles + 1);
  d_splits.poison(stream);
  scankit::detail::launch_merge_path_partition<Lanes>(d_boundaries.data(), num_boundaries, num_items, diagonals,
                                                      tiles, d_splits.data(), stream);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  return d_splits.download(stream);
}

/// Host reference by a sequential merge: boundaries among the first
/// t * diagonals elements of the merge (boundary k before item b when
/// B[k] <= b), for every t, and the whole merge's at the end.
std::vector<std::uint64_t> merged_splits(const std::vector<std::uint64_t>& b, std::uint64_t num_items,
                                         std::uint32_t diagonals) {
  std::vector<std::uint64_t> splits;
  std::uint64_t a = 0, i = 0;
  while (true) {
    if ((a + i) % diagonals == 0) splits.push_back(a);
    if (a == b.size() && i == num_items) break;
    if (a < b.size() && (i == num_items || b[a] <= i)) ++a;
    else ++i;
  }
  if ((a + i) % diagonals != 0) splits.push_back(a);
  return splits;
}

template <class Offset>
void partition_lanes_case(cuda_stream& stream, const std::string& name, const std::vector<std::uint64_t>& b,
                          std::uint64_t num_items, std::uint32_t diagonals, bool valid) {
  CAPTURE(type_name<Offset>(), name, b.size(), num_items, diagonals, valid);
  std::vector<Offset> raw(b.size());
  for (std::size_t k = 0; k < b.size(); ++k) raw[k] = Offset(b[k]);
  device_buffer<Offset> d_boundaries(b.size());
  d_boundaries.upload(raw, stream);
  const std::vector<std::uint64_t> by_thread = partition_splits<1>(d_boundaries, b.size(), num_items, diagonals, stream);
  const std::vector<std::vector<std::uint64_t>> by_group = {
      partition_splits<8>(d_boundaries, b.size(), num_items, diagonals, stream),
      partition_splits<16>(d_boundaries, b.size(), num_items, diagonals, stream),
      partition_splits<32>(d_boundaries, b.size(), num_items, diagonals, stream)};
  if (valid) {
    const std::vector<std::uint64_t> expected = merged_splits(b, num_items, diagonals);
    CHECK(by_thread == expected);
    for (std::size_t g = 0; g < by_group.size(); ++g) {
      CAPTURE(8u << g);
      CHECK(by_group[g] == expected);
    }
    return;
  }
  // Invalid boundaries: any split within its diagonal's range.
  const std::uint64_t total = b.size() + num_items;
  std::size_t out_of_range = 0;
  for (const std::vector<std::uint64_t>* splits : {&by_thread, &by_group[0], &by_group[1], &by_group[2]}) {
    REQUIRE(splits->size() == (total + diagonals - 1) / diagonals + 1);
    for (std::size_t t = 0; t < splits->size(); ++t) {
      const std::uint64_t d = std::min<std::uint64_t>(std::uint64_t(t) * diagonals, total);
      const std::uint64_t lo = d > num_items ? d - num_items : 0, hi = std::min<std::uint64_t>(d, b.size());
      out_of_range += (*splits)[t] < lo || (*splits)[t] > hi;
    }
  }
  CHECK(out_of_range == 0u);
}

/// Every lane count on valid layouts (short, long and empty segments, one
/// boundary, no items, a giant among short segments; int32 and uint64
/// offsets) and on the five kinds of invalid offsets; `scale` divides the
/// sizes (the sanitizers take a small copy).
void partition_lane_counts(cuda_stream& stream, std::size_t scale) {
  rng r(case_seed("segmented_reduce/partition_lanes/" + std::to_string(scale)));
  auto offsets = [&](std::size_t ns, std::uint64_t max_length) {
    std::vector<std::uint64_t> len(ns / scale);
    for (auto& l : len) l = r.below(max_length + 1);
    return offsets_from_lengths(len, r.below(50));
  };
  struct shape {
    std::string name;
    std::vector<std::uint64_t> b;
    std::uint64_t tail;
    std::uint32_t diagonals;
  };
  std::vector<shape> shapes = {
      {"short segments", offsets(300'000, 20), 37, 101},
      {"long segments", offsets(2'000, 20'000), 0, 997},
      {"empty segments only", std::vector<std::uint64_t>(50'001 / scale, 7), 13, 64},
      {"one boundary", {0}, 100'000 / scale, 33},
      {"no items", std::vector<std::uint64_t>(10'001 / scale, 0), 0, 7}};
  {
    std::vector<std::uint64_t> giant = offsets(5'000, 3);  // one long segment among short ones
    for (std::size_t k = giant.size() / 2; k < giant.size(); ++k) giant[k] += 1'000'000 / scale;
    shapes.push_back({"giant among short", giant, 5, 503});
  }
  for (const shape& s : shapes) {
    const std::uint64_t num_items = s.b.back() + s.tail;
    partition_lanes_case<std::int32_t>(stream, s.name, s.b, num_items, s.diagonals, true);
    partition_lanes_case<std::uint64_t>(stream, s.name, s.b, num_items, s.diagonals, true);
  }
  for (int kind = 0; kind < 5; ++kind) {
    const std::size_t ns = 40'000 / scale;
    const std::uint64_t nv = 400'000 / scale;
    const std::vector<std::int32_t> broken = broken_offsets<std::int32_t>(kind, ns, nv, r);
    std::vector<std::uint64_t> b(broken.size());
    for (std::size_t k = 0; k < b.size(); ++k) b[k] = scankit::detail::offset_index(broken[k]);
    partition_lanes_case<std::uint64_t>(stream, "broken " + std::to_string(kind), b, nv, 89, false);
  }
}

// 33 000 splits for the short segments: every group of a warp busy.
TEST_CASE("merge-path partition: 8, 16 and 32 lanes per split and a thread find the splits of a sequential merge",
          "[gpu][segmented_reduce]") {
  cuda_stream stream;
  partition_lane_counts(stream, 1);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// Groups of one warp that leave the search at different steps: their
// ballots name only their own lanes (synccheck), and invalid offsets stay
// in bounds (memcheck).
TEST_CASE("merge-path partition lane counts for the sanitizers", "[gpu][segmented_reduce][sanitize]") {
  cuda_stream stream;
  partition_lane_counts(stream, 50);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("invalid offsets under memcheck (no access out of bounds)", "[gpu][segmented_reduce][memcheck]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (int kind = 0; kind < 5; ++kind) {
    broken_case<std::int32_t>(ctx, stream, kind, 37, 5000);
    broken_case<std::uint64_t>(ctx, stream, kind, 300, 2 * sr_tile<float> + 11);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 5. bad arguments (host: nothing is launched) -----------------------------------------------------

/// f() must throw std::invalid_argument naming scankit::segmented_reduce.
template <class F>
void expect_rejected(F&& f) {
  expect_invalid_argument(f, "segmented_reduce");
}

template <class T, class Offset>
void sr_rejections(scankit::context& ctx) {
  CAPTURE(type_name<T>(), type_name<Offset>());
  auto* values = reinterpret_cast<T*>(std::uintptr_t(1) << 40);
  auto* offsets = reinterpret_cast<Offset*>(std::uintptr_t(2) << 40);
  auto* out = reinterpret_cast<T*>(std::uintptr_t(3) << 40);
  const T* null_values = nullptr;
  const Offset* null_offsets = nullptr;
  T* null_out = nullptr;
  const std::size_t nv = 10000, ns = 100;
  // Bitwise operators are not supported (also with valid arguments, also for integers).
  if constexpr (std::is_integral_v<T>) {
    for (op o : {op::bit_and, op::bit_or, op::bit_xor}) {
      expect_rejected([&] { scankit::segmented_reduce(ctx, values, nv, offsets, ns, out, o); });
      expect_rejected([&] { scankit::segmented_reduce(ctx, values, nv, offsets, ns, out, o, T(1)); });
    }
  } else {
    expect_rejected([&] { scankit::segmented_reduce(ctx, values, nv, offsets, ns, out, op::bit_xor); });
  }
  for (op o : all_ops) {
    CAPTURE(scankit::to_string(o));
    expect_rejected([&] { scankit::segmented_reduce(ctx, null_values, nv, offsets, ns, out, o); });
    expect_rejected([&] { scankit::segmented_reduce(ctx, values, nv, null_offsets, ns, out, o); });
    expect_rejected([&] { scankit::segmented_reduce(ctx, values, nv, offsets, ns, null_out, o); });
    expect_rejected([&] { scankit::segmented_reduce(ctx, values, nv, offsets, ns, values + 5, o); });  // out in values
    expect_rejected([&] { scankit::segmented_reduce(ctx, out + ns - 1, nv, offsets, ns, out, o); });  // values in out
    expect_rejected([&] {
      scankit::segmented_reduce(ctx, values, nv, offsets, ns, reinterpret_cast<T*>(offsets + 1), o);  // out in offsets
    });
    expect_rejected([&] { scankit::segmented_reduce(ctx, values, nv, offsets, ns, null_out, o, T(0)); });
  }
}

TEST_CASE("segmented_reduce rejects bad arguments before touching a device", "[segmented_reduce]") {
  scankit::context ctx;
  sr_rejections<std::int32_t, std::int32_t>(ctx);
  sr_rejections<std::uint32_t, std::uint64_t>(ctx);
  sr_rejections<std::int64_t, std::uint32_t>(ctx);
  sr_rejections<std::uint64_t, std::int64_t>(ctx);
  sr_rejections<float, std::int32_t>(ctx);
  sr_rejections<double, std::uint64_t>(ctx);
  // The template API checks the same pointers.
  auto* values = reinterpret_cast<affine32*>(std::uintptr_t(1) << 40);
  auto* offsets = reinterpret_cast<std::uint64_t*>(std::uintptr_t(2) << 40);
  const affine32 init{1, 0};
  expect_rejected([&] {
    scankit::device::segmented_reduce(ctx, values, 100, static_cast<const std::uint64_t*>(nullptr), 3, values + 500,
                                      compose_affine32{}, init);
  });
  expect_rejected([&] {
    scankit::device::segmented_reduce(ctx, static_cast<const affine32*>(values), 100,
                                      static_cast<const std::uint64_t*>(offsets), 3, values + 99, compose_affine32{},
                                      init);
  });
  // Values aligned to their members (4 bytes) but not to their size (8): the
  // tiles are staged by 16-byte bulk copies, which need whole elements.
  const auto* misaligned = reinterpret_cast<const affine32*>((std::uintptr_t(1) << 40) + 4);
  expect_rejected([&] {
    scankit::device::segmented_reduce(ctx, misaligned, 100, static_cast<const std::uint64_t*>(offsets), 3,
                                      values + 500, compose_affine32{}, init);
  });
}

// ---- 6. [large]: more than 2^31 values -----------------------------------------------------------

/// Value i of the large case: hash-derived, in [-3, 3] (so no segment of
/// fewer than 7·10^8 values can overflow int32), identical on host and device.
__host__ __device__ inline std::int32_t large_value(std::uint64_t seed, std::uint64_t i) {
  return std::int32_t(hash_u32(seed, i) % 7u) - 3;
}

__global__ void fill_large_values(std::int32_t* d, std::uint64_t n, std::uint64_t seed) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = large_value(seed, i);
}

TEST_CASE("segmented_reduce over more than 2^31 values, every segment checked", "[gpu][large][segmented_reduce]") {
  const std::uint64_t nv = (std::uint64_t(1) << 31) + (std::uint64_t(1) << 20) + 12345;
  const std::uint64_t base = 12345, tail = 1000;
  const std::uint64_t seed = case_seed("segmented_reduce/large");
  CAPTURE(nv, seed);
  rng r(seed);
  // 2^16 segments: a quarter empty, the rest 1 .. 2^15, three of 2^28, and
  // the last one takes what is left (about 5·10^8): offsets cross 2^31.
  const std::size_t ns = std::size_t(1) << 16;
  std::vector<std::uint64_t> len(ns);
  for (auto& l : len) l = r.below(4) == 0 ? 0 : 1 + r.below(std::uint64_t(1) << 15);
  for (int k = 0; k < 3; ++k) len[r.below(ns - 1)] = std::uint64_t(1) << 28;
  len[ns - 1] = 0;
  const std::uint64_t used = sum_of(len);
  REQUIRE(used < nv - base - tail);
  len[ns - 1] = nv - base - tail - used;
  REQUIRE(len[ns - 1] * 3 < std::uint64_t(std::numeric_limits<std::int32_t>::max()));
  const std::vector<std::uint64_t> off = offsets_from_lengths(len, base);
  REQUIRE(off.back() == nv - tail);

  // Host reference: every segment's sum and max, int64 accumulator.
  std::vector<std::int32_t> ref_sum(ns), ref_max(ns);
  for (std::size_t s = 0; s < ns; ++s) {
    std::int64_t acc = 0;
    std::int32_t mx = std::numeric_limits<std::int32_t>::lowest();
    for (std::uint64_t i = off[s]; i < off[s + 1]; ++i) {
      const std::int32_t v = large_value(seed, i);
      acc += v;
      mx = v > mx ? v : mx;
    }
    ref_sum[s] = std::int32_t(acc);  // |acc| <= 3 * length < 2^31 (checked above)
    ref_max[s] = mx;
  }

  cuda_stream stream;
  scankit::context ctx(stream);
  device_buffer<std::int32_t> d_values(nv);
  fill_large_values<<<4096, 256, 0, stream>>>(d_values.data(), nv, seed);
  SKTEST_CUDA(cudaGetLastError());
  device_buffer<std::uint32_t> d_off32(ns + 1);
  device_buffer<std::int64_t> d_off64(ns + 1);
  d_off32.upload(as_offsets<std::uint32_t>(off), stream);
  d_off64.upload(as_offsets<std::int64_t>(off), stream);
  guarded_buffer<std::int32_t> d_out(ns);

  d_out.poison(stream);
  scankit::segmented_reduce(ctx, d_values.data(), nv, d_off32.data(), ns, d_out.data(), op::plus);
  SKTEST_CHECK_EXACT(d_out.download(stream), ref_sum, same_bits_fn{}, "plus, uint32 offsets");
  d_out.poison(stream);
  scankit::segmented_reduce(ctx, d_values.data(), nv, d_off64.data(), ns, d_out.data(), op::plus);
  SKTEST_CHECK_EXACT(d_out.download(stream), ref_sum, same_bits_fn{}, "plus, int64 offsets");
  d_out.poison(stream);
  scankit::segmented_reduce(ctx, d_values.data(), nv, d_off64.data(), ns, d_out.data(), op::max);
  SKTEST_CHECK_EXACT(d_out.download(stream), ref_max, same_bits_fn{}, "max, int64 offsets");
  CHECK(d_out.guards_touched(stream) == 0);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

}  // namespace segmented_reduce_tests
