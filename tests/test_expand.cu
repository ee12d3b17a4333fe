// tests/test_expand.cu — expand / load-balancing search, and offset
// validation:
//
//   * scankit::load_balancing_search (source and rank; also d_rank ==
//     nullptr) for int32 / uint32 / int64 / uint64 offsets, over segment
//     length distributions: all empty (total 0), all length 1, 4 / 256 /
//     65536 fixed and uniform around them, power law with many empties, one
//     giant segment among tiny ones; segment counts 1 .. 2^20, a 2^24 total,
//     and segmentations whose merge (num_segments + 1 boundaries + total
//     outputs) is exactly tile−1 / tile / tile+1 / k·tile±1 diagonals of the
//     expand kernel (tile = expand_shape::tile_diagonals, now 256·16 = 4096);
//   * scankit::interval_expand for every value type × every offset type;
//   * scankit::device::expand with a custom __device__ lambda that records
//     (segment, rank) and counts its calls per output (exactly once each);
//   * oracles: the host reference (segments walked in order) and a Thrust
//     oracle on the same device offsets: thrust::upper_bound of every output
//     index (counting iterator) in offsets[1 .. num_segments] is its segment,
//     thrust::gather by it the expanded values; outputs poisoned, with
//     poisoned guard bands that must stay untouched;
//   * scankit::validate_offsets: valid offsets pass; decreasing, negative and
//     last > limit throw std::invalid_argument naming the first bad index;
//   * invalid offsets into expand: no fault, nothing written outside the
//     outputs (guard bands), segments always < num_segments;
//   * bad arguments (host test, no GPU): total > 0 with no segments, total
//     not representable in the offset type, null pointers, overlaps;
//   * [large]: a total past 2^32 with 64-bit offsets, every output checked.
#include "support/cuda_check.hpp"
#include "support/random.hpp"
#include "support/rejection.hpp"
#include "support/segments.hpp"

#include <scankit/detail/kernels/expand_kernel.cuh>
#include <scankit/device/expand.cuh>
#include <scankit/scankit.hpp>

#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace expand_tests {

using namespace sktest;

/// Diagonals (boundaries + outputs) per tile of the expand kernel.
constexpr std::uint64_t expand_tile = scankit::detail::expand_shape::tile_diagonals;

/// Segment counts tried with every distribution (those whose total stays
/// within the budget).
const std::size_t segment_counts[] = {1, 2, 31, 32, 33, 1000, 4095, 4096, 4097, 100003, std::size_t(1) << 20};

constexpr double total_budget = double(std::uint64_t(1) << 24) + double(std::uint64_t(1) << 22);

bool within_budget(const segment_spec& spec, std::size_t num_segments) {
  const double extra = spec.dist == segment_dist::giant ? double(spec.param) : 0.0;
  const double mean_total = spec.mean() * double(num_segments) + extra;
  return mean_total <= total_budget;
}

/// A segmentation: its name (for CAPTURE) and its offsets from 0.
struct segmentation {
  std::string name;
  std::vector<std::uint64_t> off;  // num_segments + 1 entries, off[0] = 0
  std::size_t num_segments() const { return off.size() - 1; }
  std::uint64_t total() const { return off.back(); }
};

segmentation make_segmentation(const segment_spec& spec, std::size_t num_segments, const std::string& tag) {
  const std::string name = tag + "/" + spec.name() + "/" + std::to_string(num_segments);
  rng r(case_seed("expand/segments/" + name));
  return {name, offsets_from_lengths(make_lengths(num_segments, spec, r))};
}

/// Segmentations whose merge path is exactly `diagonals` long: num_segments
/// segments with random lengths adding up to diagonals - (num_segments + 1).
segmentation tile_edge_segmentation(std::uint64_t diagonals, std::size_t num_segments, const std::string& tag) {
  const std::string name = tag + "/diagonals" + std::to_string(diagonals) + "/" + std::to_string(num_segments);
  rng r(case_seed("expand/edges/" + name));
  REQUIRE(diagonals >= num_segments + 1);
  return {name, offsets_from_lengths(lengths_with_total(num_segments, diagonals - (num_segments + 1), r))};
}

/// Every segmentation of the standard sweep (plus the tile edges and a 2^24 total).
std::vector<segmentation> standard_segmentations(const std::string& tag, bool with_big) {
  std::vector<segmentation> all;
  for (const segment_spec& spec : standard_specs())
    for (std::size_t s : segment_counts)
      if (within_budget(spec, s)) all.push_back(make_segmentation(spec, s, tag));
  const std::uint64_t D = expand_tile;
  for (std::uint64_t d : {D - 1, D, D + 1, 2 * D - 1, 2 * D, 2 * D + 1, 33 * D - 1, 33 * D + 1})
    for (std::size_t s : {std::size_t(1), std::size_t(7), std::size_t(D / 2 - 1), std::size_t(D / 2)})
      if (d >= s + 1) all.push_back(tile_edge_segmentation(d, s, tag));
  if (with_big) all.push_back(make_segmentation({segment_dist::fixed, 256}, std::size_t(1) << 16, tag));  // total 2^24
  return all;
}

// ---- the Thrust oracle ------------------------------------------------------------------

/// source[j] for j in [0, total): thrust::upper_bound of j in offsets[1 .. num_segments].
template <class Offset>
std::vector<std::uint64_t> thrust_sources(cudaStream_t stream, const Offset* d_offsets, std::size_t num_segments,
                                          std::uint64_t total, device_buffer<std::uint32_t>* keep = nullptr) {
  device_buffer<std::uint32_t> d_src(total);
  if (total > 0) {
    const thrust::counting_iterator<std::uint64_t> first(0);
    thrust::upper_bound(thrust::cuda::par.on(stream), d_offsets + 1, d_offsets + 1 + num_segments, first,
                        first + total, d_src.data());
    SKTEST_CUDA(cudaStreamSynchronize(stream));
  }
  const std::vector<std::uint32_t> h = d_src.download(stream);
  if (keep != nullptr) *keep = std::move(d_src);
  return std::vector<std::uint64_t>(h.begin(), h.end());
}

std::vector<std::uint64_t> reference_ranks(const std::vector<std::uint64_t>& off, const std::vector<std::uint64_t>& src) {
  std::vector<std::uint64_t> rank(src.size());
  for (std::size_t j = 0; j < src.size(); ++j) rank[j] = j - off[src[j]];
  return rank;
}

// ---- 1. load_balancing_search -----------------------------------------------------------------

template <class Offset>
void lbs_case(scankit::context& ctx, cuda_stream& stream, const segmentation& seg, bool with_rank, bool with_thrust) {
  const std::size_t num_segments = seg.num_segments();
  const std::uint64_t total = seg.total();
  CAPTURE(type_name<Offset>(), seg.name, num_segments, total, with_rank);
  const std::vector<Offset> offsets = as_offsets<Offset>(seg.off);
  device_buffer<Offset> d_offsets(offsets.size());
  d_offsets.upload(offsets, stream);
  guarded_buffer<Offset> d_source(total), d_rank(total);
  d_source.poison(stream);
  d_rank.poison(stream);
  SKTEST_CUDA(cudaStreamSynchronize(stream));

  scankit::load_balancing_search(ctx, d_offsets.data(), num_segments, total, d_source.data(),
                                 with_rank ? d_rank.data() : nullptr);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());

  const std::vector<std::uint64_t> src = reference_sources(seg.off);
  const std::vector<Offset> got_src = d_source.download(stream);
  SKTEST_CHECK_EXACT(got_src, src, same_value_fn{}, "d_source vs host reference");
  CHECK(d_source.guards_touched(stream) == 0);
  if (with_rank) {
    SKTEST_CHECK_EXACT(d_rank.download(stream), reference_ranks(seg.off, src), same_value_fn{},
                       "d_rank vs host reference");
    CHECK(d_rank.guards_touched(stream) == 0);
  } else {
    std::size_t written = 0;
    for (const Offset& x : d_rank.download(stream)) written += !is_poison(x);
    CHECK(written == 0);  // d_rank == nullptr: no rank anywhere
  }
  if (with_thrust && total > 0) {
    const std::vector<std::uint64_t> oracle = thrust_sources(stream, d_offsets.data(), num_segments, total);
    SKTEST_CHECK_EXACT(got_src, oracle, same_value_fn{}, "d_source vs thrust::upper_bound");
    SKTEST_CHECK_EXACT(oracle, src, same_bits_fn{}, "thrust::upper_bound vs host reference (the oracle)");
  }
}

TEMPLATE_TEST_CASE("load_balancing_search equals the host reference and thrust::upper_bound", "[gpu][expand]",
                   std::int32_t, std::uint32_t, std::int64_t, std::uint64_t) {
  using Offset = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  for (const segmentation& seg : standard_segmentations(std::string("lbs/") + type_name<Offset>(), true)) {
    lbs_case<Offset>(ctx, stream, seg, true, true);
    lbs_case<Offset>(ctx, stream, seg, false, false);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 2. interval_expand ---------------------------------------------------------------------

template <class T, class Offset>
void interval_case(scankit::context& ctx, cuda_stream& stream, const segmentation& seg, bool with_thrust) {
  const std::size_t num_segments = seg.num_segments();
  const std::uint64_t total = seg.total();
  const std::uint64_t seed = case_seed(std::string("expand/interval/") + type_name<T>() + "/" + type_name<Offset>() +
                                       "/" + seg.name);
  CAPTURE(type_name<T>(), type_name<Offset>(), seg.name, num_segments, total, seed);
  rng r(seed);
  const std::vector<T> values = make_input<T>(num_segments, value_kind::full_range, r);
  device_buffer<Offset> d_offsets(num_segments + 1);
  d_offsets.upload(as_offsets<Offset>(seg.off), stream);
  device_buffer<T> d_values(num_segments);
  d_values.upload(values, stream);
  guarded_buffer<T> d_out(total);
  d_out.poison(stream);
  SKTEST_CUDA(cudaStreamSynchronize(stream));

  scankit::interval_expand(ctx, d_values.data(), d_offsets.data(), num_segments, total, d_out.data());
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());

  const std::vector<std::uint64_t> src = reference_sources(seg.off);
  std::vector<T> expected(total);
  for (std::size_t j = 0; j < total; ++j) expected[j] = values[src[j]];
  const std::vector<T> got = d_out.download(stream);
  SKTEST_CHECK_EXACT(got, expected, same_bits_fn{}, "interval_expand vs host reference");
  CHECK(d_out.guards_touched(stream) == 0);
  if (with_thrust && total > 0) {
    device_buffer<std::uint32_t> d_src;
    thrust_sources(stream, d_offsets.data(), num_segments, total, &d_src);
    device_buffer<T> d_gathered(total);
    thrust::gather(thrust::cuda::par.on(stream), d_src.data(), d_src.data() + total, d_values.data(), d_gathered.data());
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    SKTEST_CHECK_EXACT(got, d_gathered.download(stream), same_bits_fn{}, "interval_expand vs thrust::gather");
  }
}

template <class T>
void interval_sweep(scankit::context& ctx, cuda_stream& stream) {
  const std::vector<segment_spec> specs{{segment_dist::empty, 0},       {segment_dist::ones, 1},
                                        {segment_dist::uniform, 256},   {segment_dist::fixed, 65536},
                                        {segment_dist::power_law, 0},   {segment_dist::giant, 1'000'003}};
  for (const segment_spec& spec : specs)
    for (std::size_t s : {std::size_t(1), std::size_t(33), std::size_t(4097), std::size_t(100003)}) {
      if (!within_budget(spec, s)) continue;
      const segmentation seg = make_segmentation(spec, s, std::string("interval/") + type_name<T>());
      interval_case<T, std::int32_t>(ctx, stream, seg, true);
      interval_case<T, std::uint32_t>(ctx, stream, seg, false);
      interval_case<T, std::int64_t>(ctx, stream, seg, false);
      interval_case<T, std::uint64_t>(ctx, stream, seg, true);
    }
  const segmentation edge = tile_edge_segmentation(3 * expand_tile + 1, 100, std::string("interval/") + type_name<T>());
  interval_case<T, std::uint32_t>(ctx, stream, edge, true);
}

TEMPLATE_TEST_CASE("interval_expand repeats every value its segment's length, for every offset type",
                   "[gpu][expand]", std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double) {
  cuda_stream stream;
  scankit::context ctx(stream);
  interval_sweep<TestType>(ctx, stream);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 3. device::expand with a user lambda ----------------------------------------------------------

/// What the lambda records: out[j] = segment · 2^32 + rank, calls[j] counts the
/// calls for j, *d_bad counts calls with j >= total or segment >= num_segments.
template <class Offset>
void run_expand_lambda(scankit::context& ctx, const Offset* d_offsets, std::size_t num_segments, std::uint64_t total,
                       std::uint64_t* d_out, std::uint32_t* d_calls, unsigned long long* d_bad) {
  const std::uint64_t n_seg = num_segments;
  scankit::device::expand(ctx, d_offsets, num_segments, total,
                          [=] __device__(std::uint64_t j, std::uint64_t segment, std::uint64_t rank) {
                            if (j >= total || segment >= n_seg) {
                              atomicAdd(d_bad, 1ull);
                              return;
                            }
                            d_out[j] = (segment << 32) | (rank & 0xffffffffu);
                            atomicAdd(d_calls + j, 1u);
                          });
}

template <class Offset>
void expand_lambda_case(scankit::context& ctx, cuda_stream& stream, const segmentation& seg, bool with_thrust) {
  const std::size_t num_segments = seg.num_segments();
  const std::uint64_t total = seg.total();
  CAPTURE(type_name<Offset>(), seg.name, num_segments, total);
  device_buffer<Offset> d_offsets(num_segments + 1);
  d_offsets.upload(as_offsets<Offset>(seg.off), stream);
  guarded_buffer<std::uint64_t> d_out(total);
  device_buffer<std::uint32_t> d_calls(total);
  device_buffer<unsigned long long> d_bad(1);
  d_out.poison(stream);
  if (total > 0) SKTEST_CUDA(cudaMemsetAsync(d_calls.data(), 0, total * sizeof(std::uint32_t), stream));
  SKTEST_CUDA(cudaMemsetAsync(d_bad.data(), 0, sizeof(unsigned long long), stream));

  run_expand_lambda(ctx, d_offsets.data(), num_segments, total, d_out.data(), d_calls.data(), d_bad.data());
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());

  CHECK(d_bad.download(stream).at(0) == 0);
  const std::vector<std::uint64_t> src = reference_sources(seg.off);
  const std::vector<std::uint64_t> rank = reference_ranks(seg.off, src);
  std::vector<std::uint64_t> expected(total);
  for (std::size_t j = 0; j < total; ++j) expected[j] = (src[j] << 32) | rank[j];
  const std::vector<std::uint64_t> got = d_out.download(stream);
  SKTEST_CHECK_EXACT(got, expected, same_bits_fn{}, "(segment, rank) from device::expand vs host reference");
  SKTEST_CHECK_EXACT(d_calls.download(stream), std::vector<std::uint32_t>(total, 1u), same_bits_fn{},
                     "calls per output (exactly one each)");
  CHECK(d_out.guards_touched(stream) == 0);
  if (with_thrust && total > 0) {
    const std::vector<std::uint64_t> oracle = thrust_sources(stream, d_offsets.data(), num_segments, total);
    std::vector<std::uint64_t> got_segments(total);
    for (std::size_t j = 0; j < total; ++j) got_segments[j] = got[j] >> 32;
    SKTEST_CHECK_EXACT(got_segments, oracle, same_bits_fn{}, "device::expand segments vs thrust::upper_bound");
  }
}

TEST_CASE("device::expand calls a user lambda once per output with its segment and rank", "[gpu][expand]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (const segmentation& seg : standard_segmentations("lambda", true)) {
    expand_lambda_case<std::int32_t>(ctx, stream, seg, true);
    expand_lambda_case<std::uint64_t>(ctx, stream, seg, false);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("small expand calls for the sanitizers", "[gpu][expand][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::vector<segmentation> segs{make_segmentation({segment_dist::uniform, 4}, 33, "sanitize"),
                                       make_segmentation({segment_dist::power_law, 0}, 100, "sanitize"),
                                       tile_edge_segmentation(2 * expand_tile + 1, 50, "sanitize")};
  for (const segmentation& seg : segs) {
    lbs_case<std::uint32_t>(ctx, stream, seg, true, false);
    lbs_case<std::int64_t>(ctx, stream, seg, false, false);
    interval_case<double, std::int32_t>(ctx, stream, seg, false);
    expand_lambda_case<std::int32_t>(ctx, stream, seg, false);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 4. total == 0 ------------------------------------------------------------------------------

TEST_CASE("expand with total == 0 writes nothing", "[gpu][expand][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t num_segments : {std::size_t(0), std::size_t(1), std::size_t(5000)}) {
    CAPTURE(num_segments);
    device_buffer<std::uint32_t> d_offsets(num_segments + 1);
    SKTEST_CUDA(cudaMemsetAsync(d_offsets.data(), 0, (num_segments + 1) * sizeof(std::uint32_t), stream));
    guarded_buffer<std::uint32_t> d_out(16);
    d_out.poison(stream);
    device_buffer<std::uint32_t> d_values(num_segments + 1);
    CHECK_NOTHROW(scankit::load_balancing_search(ctx, d_offsets.data(), num_segments, 0, d_out.data(), d_out.data() + 8));
    CHECK_NOTHROW(scankit::load_balancing_search(ctx, d_offsets.data(), num_segments, 0,
                                                 static_cast<std::uint32_t*>(nullptr)));
    CHECK_NOTHROW(scankit::interval_expand(ctx, d_values.data(), d_offsets.data(), num_segments, 0, d_out.data()));
    CHECK_NOTHROW(scankit::interval_expand(ctx, static_cast<const std::uint32_t*>(nullptr), d_offsets.data(),
                                           num_segments, 0, static_cast<std::uint32_t*>(nullptr)));
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    std::size_t written = 0;
    for (std::uint32_t x : d_out.download(stream)) written += !is_poison(x);
    CHECK(written == 0);
    CHECK(d_out.guards_touched(stream) == 0);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 5. validate_offsets ---------------------------------------------------------------------------

/// validate_offsets must throw std::invalid_argument whose message contains
/// every string in `parts`.
template <class Offset>
void expect_invalid_offsets(scankit::context& ctx, const std::vector<Offset>& offsets, std::size_t limit,
                            const std::vector<std::string>& parts) {
  cudaStream_t stream = ctx.stream();
  device_buffer<Offset> d(offsets.size());
  d.upload(offsets, stream);
  try {
    scankit::validate_offsets(ctx, d.data(), offsets.size() - 1, limit);
    FAIL_CHECK("no exception; expected std::invalid_argument mentioning " << parts.front());
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    INFO("message: " << what);
    for (const std::string& p : parts) CHECK_THAT(what, Catch::Matchers::Contains(p));
    CHECK_THAT(what, Catch::Matchers::Contains("validate_offsets"));
  } catch (const std::exception& e) {
    FAIL_CHECK("expected std::invalid_argument, got: " << e.what());
  }
}

template <class Offset>
void validate_sweep(scankit::context& ctx, cuda_stream& stream) {
  CAPTURE(type_name<Offset>());
  for (std::size_t num_segments : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(100003),
                                   std::size_t(1) << 20}) {
    const std::uint64_t seed = case_seed(std::string("expand/validate/") + type_name<Offset>() + "/" +
                                         std::to_string(num_segments));
    CAPTURE(num_segments, seed);
    rng r(seed);
    const segment_spec spec{segment_dist::uniform, 8};
    const std::uint64_t base = r.coin() ? 0 : 1 + r.below(1000);
    const std::vector<std::uint64_t> off = offsets_from_lengths(make_lengths(num_segments, spec, r), base);
    const std::vector<Offset> good = as_offsets<Offset>(off);
    const std::uint64_t last = off.back();
    device_buffer<Offset> d(good.size());
    d.upload(good, stream);
    // Valid: limit at the last offset, and above it.
    CHECK_NOTHROW(scankit::validate_offsets(ctx, d.data(), num_segments, last));
    CHECK_NOTHROW(scankit::validate_offsets(ctx, d.data(), num_segments, last + 1000));
    // The last offset past the limit.
    if (last > 0)
      expect_invalid_offsets(ctx, good, last - 1,
                             {"offsets[" + std::to_string(num_segments) + "]", "limit " + std::to_string(last - 1)});
    if (num_segments == 0) continue;
    // Decreasing at a random index k (and at the first and the last pair).
    for (std::size_t k : {std::size_t(0), std::size_t(r.below(num_segments)), num_segments - 1}) {
      CAPTURE(k);
      std::vector<Offset> bad = good;
      bad[k] = Offset(good[k + 1] + 1);
      expect_invalid_offsets(ctx, bad, last + 10,
                             {"offsets[" + std::to_string(k) + "] = " + std::to_string(bad[k]), "decreasing"});
      // A second bad index later: the first one is named.
      if (k + 2 < num_segments) {
        bad[num_segments - 1] = Offset(bad[num_segments] + 5);
        expect_invalid_offsets(ctx, bad, last + 10, {"offsets[" + std::to_string(k) + "]"});
      }
    }
    if constexpr (std::is_signed_v<Offset>) {
      // Negative: offsets[0] = -1 (later negatives read as "decreasing" at the
      // index before them, which is also invalid).
      std::vector<Offset> bad = good;
      bad[0] = Offset(-1);
      expect_invalid_offsets(ctx, bad, last + 10, {"offsets[0] = -1", "negative"});
    }
  }
  if constexpr (std::is_signed_v<Offset>) {
    expect_invalid_offsets<Offset>(ctx, {Offset(-5)}, 10, {"offsets[0] = -5", "negative"});
    expect_invalid_offsets<Offset>(ctx, {Offset(-7), Offset(-6), Offset(-6)}, 10, {"offsets[0] = -7", "negative"});
  } else {
    expect_invalid_offsets<Offset>(ctx, {Offset(0), Offset(3), std::numeric_limits<Offset>::max()}, 100,
                                   {"offsets[2]", "limit 100"});
  }
}

TEST_CASE("validate_offsets accepts valid offsets and names the first bad index", "[gpu][expand][offsets]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  validate_sweep<std::int32_t>(ctx, stream);
  validate_sweep<std::uint32_t>(ctx, stream);
  validate_sweep<std::int64_t>(ctx, stream);
  validate_sweep<std::uint64_t>(ctx, stream);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 6. invalid offsets: unspecified results, but no access out of bounds --------------------

/// Offsets that break the contract in the ways `kind` says.
template <class Offset>
std::vector<Offset> broken_offsets(int kind, std::size_t num_segments, std::uint64_t total, rng& r) {
  std::vector<Offset> off(num_segments + 1);
  const auto big = std::uint64_t(std::numeric_limits<Offset>::max());
  for (std::size_t i = 0; i <= num_segments; ++i) {
    switch (kind) {
      case 0: off[i] = Offset(r.below(2 * total + 1)); break;                              // unsorted
      case 1: off[i] = Offset(total + (num_segments - i)); break;                           // decreasing, past total
      case 2: off[i] = Offset(std::min<std::uint64_t>(big, total + 1 + r.below(1000))); break;  // all past total
      case 3: off[i] = Offset(r.coin() ? Offset(big) : Offset(r.below(total + 1))); break;  // max value mixed in
      default: off[i] = Offset(Offset(0) - Offset(1 + r.below(100))); break;                 // negative (or huge)
    }
  }
  if (kind == 0) off[0] = Offset(1 + r.below(total));  // offsets[0] != 0
  return off;
}

template <class Offset>
void broken_case(scankit::context& ctx, cuda_stream& stream, int kind, std::size_t num_segments, std::uint64_t total) {
  const std::uint64_t seed = case_seed(std::string("expand/broken/") + type_name<Offset>() + "/" +
                                       std::to_string(kind) + "/" + std::to_string(num_segments));
  CAPTURE(type_name<Offset>(), kind, num_segments, total, seed);
  rng r(seed);
  const std::vector<Offset> off = broken_offsets<Offset>(kind, num_segments, total, r);
  device_buffer<Offset> d_offsets(off.size());
  d_offsets.upload(off, stream);
  guarded_buffer<Offset> d_source(total), d_rank(total);
  guarded_buffer<std::uint32_t> d_expanded(total);
  guarded_buffer<std::uint64_t> d_out(total);
  device_buffer<std::uint32_t> d_values(num_segments), d_calls(total);
  device_buffer<unsigned long long> d_bad(1);
  d_values.upload(make_input<std::uint32_t>(num_segments, value_kind::full_range, r), stream);
  d_source.poison(stream);
  d_rank.poison(stream);
  d_expanded.poison(stream);
  d_out.poison(stream);
  SKTEST_CUDA(cudaMemsetAsync(d_calls.data(), 0, total * sizeof(std::uint32_t), stream));
  SKTEST_CUDA(cudaMemsetAsync(d_bad.data(), 0, sizeof(unsigned long long), stream));

  scankit::load_balancing_search(ctx, d_offsets.data(), num_segments, total, d_source.data(), d_rank.data());
  scankit::interval_expand(ctx, d_values.data(), d_offsets.data(), num_segments, total, d_expanded.data());
  run_expand_lambda(ctx, d_offsets.data(), num_segments, total, d_out.data(), d_calls.data(), d_bad.data());
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());  // no fault

  CHECK(d_source.guards_touched(stream) == 0);
  CHECK(d_rank.guards_touched(stream) == 0);
  CHECK(d_expanded.guards_touched(stream) == 0);
  CHECK(d_out.guards_touched(stream) == 0);
  // device::expand's contract: the segments passed are always < num_segments
  // (and j < total) — the lambda counts violations.
  CHECK(d_bad.download(stream).at(0) == 0);
  std::size_t out_of_range = 0;
  for (const Offset& s : d_source.download(stream))
    out_of_range += !is_poison(s) && std::uint64_t(std::make_unsigned_t<Offset>(s)) >= num_segments;
  CHECK(out_of_range == 0);
}

TEST_CASE("invalid offsets give unspecified outputs but nothing outside them is touched", "[gpu][expand]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (int kind = 0; kind < 5; ++kind)
    for (std::size_t num_segments : {std::size_t(1), std::size_t(37), std::size_t(3000)})
      for (std::uint64_t total : {std::uint64_t(1), std::uint64_t(5000), 3 * expand_tile + 11}) {
        broken_case<std::int32_t>(ctx, stream, kind, num_segments, total);
        broken_case<std::uint32_t>(ctx, stream, kind, num_segments, total);
        broken_case<std::int64_t>(ctx, stream, kind, num_segments, total);
        broken_case<std::uint64_t>(ctx, stream, kind, num_segments, total);
      }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("invalid offsets under memcheck (no access out of bounds)", "[gpu][expand][memcheck]") {
  // memcheck sees what the guard bands cannot: reads out of bounds, also of
  // shared memory.
  cuda_stream stream;
  scankit::context ctx(stream);
  for (int kind = 0; kind < 5; ++kind) {
    broken_case<std::int32_t>(ctx, stream, kind, 37, 5000);
    broken_case<std::uint64_t>(ctx, stream, kind, 300, 2 * expand_tile + 11);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 7. bad arguments (host: nothing is launched) ------------------------------------------------

template <class Offset>
void expand_rejections(scankit::context& ctx) {
  CAPTURE(type_name<Offset>());
  // Fake device addresses, far apart, never dereferenced.
  auto* offsets = reinterpret_cast<Offset*>(std::uintptr_t(1) << 40);
  auto* source = reinterpret_cast<Offset*>(std::uintptr_t(2) << 40);
  auto* rank = reinterpret_cast<Offset*>(std::uintptr_t(3) << 40);
  auto* values = reinterpret_cast<double*>(std::uintptr_t(4) << 40);
  auto* out = reinterpret_cast<double*>(std::uintptr_t(5) << 40);
  const Offset* null_offsets = nullptr;
  const std::size_t segs = 1000, total = 5000;
  const char* lbs = "load_balancing_search";
  const char* ie = "interval_expand";

  // total > 0 with no segments.
  expect_invalid_argument([&] { scankit::load_balancing_search(ctx, offsets, 0, 1, source, rank); }, lbs);
  expect_invalid_argument([&] { scankit::interval_expand(ctx, values, offsets, 0, 1, out); }, ie);
  // Null pointers.
  expect_invalid_argument([&] { scankit::load_balancing_search(ctx, null_offsets, segs, total, source, rank); }, lbs);
  expect_invalid_argument([&] { scankit::load_balancing_search(ctx, null_offsets, 0, 0, source, rank); }, lbs);
  expect_invalid_argument([&] { scankit::load_balancing_search(ctx, offsets, segs, total, static_cast<Offset*>(nullptr)); }, lbs);
  expect_invalid_argument([&] { scankit::interval_expand(ctx, static_cast<const double*>(nullptr), offsets, segs, total, out); }, ie);
  expect_invalid_argument([&] { scankit::interval_expand(ctx, values, offsets, segs, total, static_cast<double*>(nullptr)); }, ie);
  expect_invalid_argument([&] { scankit::interval_expand(ctx, values, null_offsets, segs, total, out); }, ie);
  // Totals the offset type cannot represent.
  const std::size_t too_big = std::size_t(std::numeric_limits<Offset>::max()) + 1;
  if constexpr (sizeof(Offset) == 4) {
    auto* far_source = reinterpret_cast<Offset*>(std::uintptr_t(1) << 46);
    auto* far_out = reinterpret_cast<double*>(std::uintptr_t(2) << 46);
    expect_invalid_argument([&] { scankit::load_balancing_search(ctx, offsets, segs, too_big, far_source); }, lbs);
    expect_invalid_argument([&] { scankit::interval_expand(ctx, values, offsets, segs, too_big, far_out); }, ie);
    // Segment indices the offset type cannot represent (more segments than
    // its largest value + 1, most of them empty).
    expect_invalid_argument([&] { scankit::load_balancing_search(ctx, offsets, too_big + 1, 10, far_source); }, lbs);
  }
  // Overlaps: outputs with the offsets, the values, or each other.
  expect_invalid_argument([&] { scankit::load_balancing_search(ctx, offsets, segs, total, offsets + 10, rank); }, lbs);
  expect_invalid_argument([&] { scankit::load_balancing_search(ctx, offsets, segs, total, source, offsets + segs); }, lbs);
  expect_invalid_argument([&] { scankit::load_balancing_search(ctx, offsets, segs, total, source, source + total - 1); }, lbs);
  expect_invalid_argument([&] { scankit::load_balancing_search(ctx, offsets, segs, total, source, source); }, lbs);
  expect_invalid_argument([&] { scankit::interval_expand(ctx, values, offsets, segs, total, values + 1); }, ie);
  expect_invalid_argument([&] { scankit::interval_expand(ctx, values, offsets, segs, total, reinterpret_cast<double*>(offsets)); }, ie);
  expect_invalid_argument([&] { scankit::interval_expand(ctx, out + total - 1, offsets, segs, total, out); }, ie);
  // Float and uint32 values too (their own instantiations).
  auto* fvalues = reinterpret_cast<float*>(values);
  expect_invalid_argument([&] { scankit::interval_expand(ctx, fvalues, offsets, segs, total, fvalues + 3); }, ie);
  auto* uvalues = reinterpret_cast<std::uint32_t*>(values);
  expect_invalid_argument([&] { scankit::interval_expand(ctx, uvalues, offsets, 0, 7, reinterpret_cast<std::uint32_t*>(out)); }, ie);
  // The template API checks the same.
  auto noop = [] __device__(std::uint64_t, std::uint64_t, std::uint64_t) {};
  expect_invalid_argument([&] { scankit::device::expand(ctx, offsets, 0, 1, noop); }, "expand");
  expect_invalid_argument([&] { scankit::device::expand(ctx, null_offsets, segs, total, noop); }, "expand");
  // validate_offsets with null offsets.
  expect_invalid_argument([&] { scankit::validate_offsets(ctx, null_offsets, segs, total); }, "validate_offsets");
}

TEST_CASE("expand rejects bad arguments before touching a device", "[expand]") {
  scankit::context ctx;  // no device needed: every call throws before its first device access
  expand_rejections<std::int32_t>(ctx);
  expand_rejections<std::uint32_t>(ctx);
  expand_rejections<std::int64_t>(ctx);
  expand_rejections<std::uint64_t>(ctx);
}

// ---- 8. [large]: a total past 2^32 ---------------------------------------------------------------

/// Counts the outputs whose source is wrong: not a segment, or offsets[s] > j
/// or j >= offsets[s + 1]. With valid offsets that is the whole contract.
__global__ void check_sources_kernel(const std::uint64_t* d_offsets, std::uint64_t num_segments,
                                     const std::uint64_t* d_source, std::uint64_t total, unsigned long long* d_bad,
                                     unsigned long long* d_first_bad) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t j = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < total; j += stride) {
    const std::uint64_t s = d_source[j];
    const bool ok = s < num_segments && d_offsets[s] <= j && j < d_offsets[s + 1];
    if (!ok) {
      atomicAdd(d_bad, 1ull);
      atomicMin(d_first_bad, static_cast<unsigned long long>(j));
    }
  }
}

/// Counts the bytes that are not 1 in d_mark[0, n).
__global__ void count_not_one_kernel(const std::uint8_t* d_mark, std::uint64_t n, unsigned long long* d_count) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  unsigned long long c = 0;
  for (std::uint64_t j = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < n; j += stride) c += d_mark[j] != 1;
  if (c != 0) atomicAdd(d_count, c);
}

/// device::expand over the large segmentation, checked on the device: every
/// call must have j < total, a real segment, offsets[segment] + rank == j and
/// rank < the segment's length (then d_mark[j] = 1, else 2); d_calls counts
/// the calls (warp-aggregated). All total bytes 1 and total calls = each
/// output exactly once, with the right (segment, rank).
void run_large_expand(scankit::context& ctx, const std::int64_t* d_offsets, std::size_t num_segments,
                      std::uint64_t total, std::uint8_t* d_mark, unsigned long long* d_calls,
                      unsigned long long* d_bad) {
  const std::uint64_t n_seg = num_segments;
  scankit::device::expand(ctx, d_offsets, num_segments, total,
                          [=] __device__(std::uint64_t j, std::uint64_t segment, std::uint64_t rank) {
                            const unsigned mask = __activemask();
                            if ((threadIdx.x & 31u) == unsigned(__ffs(mask) - 1))
                              atomicAdd(d_calls, static_cast<unsigned long long>(__popc(mask)));
                            if (j >= total || segment >= n_seg) {
                              atomicAdd(d_bad, 1ull);
                              return;
                            }
                            const std::uint64_t begin = std::uint64_t(d_offsets[segment]);
                            const std::uint64_t end = std::uint64_t(d_offsets[segment + 1]);
                            d_mark[j] = (begin + rank == j && rank < end - begin) ? 1 : 2;
                          });
}

TEST_CASE("expand past 2^32 outputs with 64-bit offsets, every output checked", "[gpu][large][expand]") {
  // 2^20 segments of 0 .. 4096 (about 2^31 outputs), some empty runs, and one
  // giant segment of 2^31 + 2^21 + 7 outputs: a total a little past 2^32.
  const std::size_t num_segments = std::size_t(1) << 20;
  const std::uint64_t seed = case_seed("expand/large");
  CAPTURE(num_segments, seed);
  rng r(seed);
  std::vector<std::uint64_t> len = make_lengths(num_segments, {segment_dist::uniform, 2048}, r);
  for (std::size_t i = 1000; i < 1000 + 5000; ++i) len[i] = 0;  // a stretch of empties
  const std::size_t giant = num_segments / 2 + r.below(num_segments / 4);
  // The giant segment takes the total to 2^32 + 2^21 + 7 (at least 2^31 of it).
  len[giant] = 0;
  std::uint64_t others = 0;
  for (std::uint64_t l : len) others += l;
  const std::uint64_t wanted = (std::uint64_t(1) << 32) + (std::uint64_t(1) << 21) + 7;
  len[giant] = others + (std::uint64_t(1) << 31) < wanted ? wanted - others : std::uint64_t(1) << 31;
  const std::vector<std::uint64_t> off = offsets_from_lengths(len);
  const std::uint64_t total = off.back();
  CAPTURE(total, giant);
  REQUIRE(total > (std::uint64_t(1) << 32));
  REQUIRE(total < (std::uint64_t(9) << 29));  // 8-byte sources stay under ~40 GB

  cuda_stream stream;
  scankit::context ctx(stream);
  device_buffer<std::uint64_t> d_off(off.size());
  d_off.upload(off, stream);
  device_buffer<unsigned long long> d_counters(3);  // bad, first bad / calls, bad

  // (a) load_balancing_search, uint64, no rank: every source checked on the
  // device against the offsets, and windows against the host reference.
  {
    device_buffer<std::uint64_t> d_source(total);
    d_source.poison(stream);
    scankit::load_balancing_search(ctx, d_off.data(), num_segments, total, d_source.data());
    SKTEST_CUDA(cudaMemsetAsync(d_counters.data(), 0, sizeof(unsigned long long), stream));
    SKTEST_CUDA(cudaMemsetAsync(d_counters.data() + 1, 0xff, sizeof(unsigned long long), stream));
    check_sources_kernel<<<4096, 256, 0, stream>>>(d_off.data(), num_segments, d_source.data(), total,
                                                   d_counters.data(), d_counters.data() + 1);
    SKTEST_CUDA(cudaGetLastError());
    const std::vector<unsigned long long> counters = d_counters.download(stream);
    INFO("first wrong source at output " << counters[1]);
    CHECK(counters[0] == 0);
    // Windows around 2^31, 2^32, the giant segment's ends and the end.
    const std::uint64_t window = 5000;
    for (std::uint64_t at : {std::uint64_t(0), std::uint64_t(1) << 31, std::uint64_t(1) << 32, off[giant] - 2000,
                             off[giant + 1] - 2000, total - window}) {
      CAPTURE(at);
      const std::vector<std::uint64_t> got = d_source.download(stream, at, window);
      std::size_t bad = 0;
      for (std::uint64_t k = 0; k < window; ++k) {
        const std::uint64_t j = at + k;
        const std::uint64_t expected = std::uint64_t(std::upper_bound(off.begin() + 1, off.end(), j) - (off.begin() + 1));
        bad += got[k] != expected;
      }
      CHECK(bad == 0);
    }
  }
  // (b) device::expand with int64 offsets: every call checked on the device.
  {
    const std::vector<std::int64_t> off64 = as_offsets<std::int64_t>(off);
    device_buffer<std::int64_t> d_off64(off64.size());
    d_off64.upload(off64, stream);
    device_buffer<std::uint8_t> d_mark(total);
    SKTEST_CUDA(cudaMemsetAsync(d_mark.data(), 0, total, stream));
    SKTEST_CUDA(cudaMemsetAsync(d_counters.data(), 0, 3 * sizeof(unsigned long long), stream));
    run_large_expand(ctx, d_off64.data(), num_segments, total, d_mark.data(), d_counters.data(), d_counters.data() + 1);
    count_not_one_kernel<<<4096, 256, 0, stream>>>(d_mark.data(), total, d_counters.data() + 2);
    SKTEST_CUDA(cudaGetLastError());
    const std::vector<unsigned long long> counters = d_counters.download(stream);
    CHECK(counters[0] == total);  // calls
    CHECK(counters[1] == 0);      // calls with j >= total or segment >= num_segments
    CHECK(counters[2] == 0);      // outputs not called, or called with a wrong (segment, rank)
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

}  // namespace expand_tests
