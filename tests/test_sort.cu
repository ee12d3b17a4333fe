// tests/test_sort.cu — radix sort, host and template APIs, against a host
// reference (std::stable_sort by the documented key order) and Thrust
// (thrust::stable_sort_by_key on the same device data): every key type and
// order, stability (values are the input positions), special floats, bit
// ranges with partial digits, in place, several portions, graph capture,
// caller workspace, [large] past 2^32, bad arguments.
#include "support/cuda_check.hpp"
#include "support/random.hpp"
#include "support/rejection.hpp"
#include <scankit/device/sort.cuh>
#include <scankit/scankit.hpp>

#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/sort.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

using namespace sktest;
using scankit::sort_order;

namespace {

// ---- the documented key order, written independently of the library -------

template <class K>
using key_bits = std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>;

/// The key's bits in ascending order: unsigned as is, signed with the sign
/// bit flipped, floating point with -0.0 read as +0.0, negatives flipped
/// whole and the rest with the sign bit flipped.
template <class K>
key_bits<K> ascending_bits(K key) {
  using B = key_bits<K>;
  B b;
  std::memcpy(&b, &key, sizeof(B));
  constexpr B high = B(1) << (sizeof(B) * 8 - 1);
  if constexpr (std::is_floating_point_v<K>) {
    if (b == high) b = 0;
    return (b & high) ? B(~b) : B(b | high);
  } else if constexpr (std::is_signed_v<K>) {
    return B(b ^ high);
  } else {
    return b;
  }
}

/// What the sort compares: bits [begin_bit, end_bit) of ascending_bits.
template <class K>
key_bits<K> sort_field(K key, int begin_bit, int end_bit) {
  using B = key_bits<K>;
  const int width = end_bit - begin_bit;
  if (width == 0) return 0;
  const B mask = width == int(sizeof(B) * 8) ? B(~B(0)) : B((B(1) << width) - 1);
  return B(ascending_bits(key) >> begin_bit) & mask;
}

/// The input positions in sorted order: a stable sort by the field.
template <class K>
std::vector<std::uint32_t> reference_order(const std::vector<K>& keys, sort_order order, int begin_bit, int end_bit) {
  std::vector<std::uint32_t> positions(keys.size());
  std::iota(positions.begin(), positions.end(), 0u);
  std::stable_sort(positions.begin(), positions.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto fa = sort_field(keys[a], begin_bit, end_bit), fb = sort_field(keys[b], begin_bit, end_bit);
    return order == sort_order::ascending ? fa < fb : fa > fb;
  });
  return positions;
}

template <class K>
bool same_bits(K a, K b) {
  return std::memcmp(&a, &b, sizeof(K)) == 0;
}

/// Index of the first key whose bits differ, or their common size.
template <class K>
std::size_t first_difference(const std::vector<K>& a, const std::vector<K>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i], b[i])) return i;
  return a.size();
}

// ---- inputs ----------------------------------------------------------------

/// n random keys of K: full-range integers (or, with `distinct` > 0, one of
/// `distinct` values), finite floats of both signs and many magnitudes.
template <class K>
std::vector<K> random_keys(std::size_t n, rng& r, std::uint64_t distinct = 0) {
  std::vector<K> keys(n);
  std::vector<K> pool;
  for (std::uint64_t i = 0; i < distinct; ++i) pool.push_back(K(0));
  auto draw = [&]() -> K {
    if constexpr (std::is_floating_point_v<K>) {
      const K magnitude = std::ldexp(K(1 + r.below(1u << 20)), int(r.below(80)) - 60);
      return r.coin() ? -magnitude : magnitude;
    } else {
      return K(key_bits<K>(r.next()));
    }
  };
  for (auto& p : pool) p = draw();
  for (auto& k : keys) k = distinct > 0 ? pool[r.below(distinct)] : draw();
  return keys;
}

/// Floats with every special value: ±0, ±inf, NaNs of both signs and two
/// payloads, the smallest subnormals, the largest finite values, mixed with
/// ordinary ones.
template <class K>
std::vector<K> special_float_keys(std::size_t n, rng& r) {
  using B = key_bits<K>;
  constexpr B high = B(1) << (sizeof(B) * 8 - 1);
  std::vector<K> specials = {K(0.0),
                             -K(0.0),
                             std::numeric_limits<K>::infinity(),
                             -std::numeric_limits<K>::infinity(),
                             std::numeric_limits<K>::denorm_min(),
                             -std::numeric_limits<K>::denorm_min(),
                             std::numeric_limits<K>::max(),
                             std::numeric_limits<K>::lowest(),
                             K(1),
                             K(-1)};
  for (B payload : {B(1), B(12345)}) {
    B quiet;
    const K nan = std::numeric_limits<K>::quiet_NaN();
    std::memcpy(&quiet, &nan, sizeof(B));
    for (B sign : {B(0), high}) {
      const B bits = (quiet | payload) | sign;
      K k;
      std::memcpy(&k, &bits, sizeof(K));
      specials.push_back(k);
    }
  }
  std::vector<K> keys = random_keys<K>(n, r);
  for (auto& k : keys)
    if (r.below(3) == 0) k = specials[r.below(specials.size())];
  return keys;
}

// ---- running one sort and checking it --------------------------------------

enum class api { host, device };

/// Sorts keys (with their positions as values when `pairs`) through the
/// host or template API into poisoned outputs with guard words after them,
/// then checks keys and values against the host reference, that the guard
/// words and (when not in place) the inputs are untouched.
template <class K, class V = std::uint32_t>
void check_sort(scankit::context& ctx, cudaStream_t stream, const std::vector<K>& keys, bool pairs, sort_order order,
                int begin_bit, int end_bit, api which, bool in_place_keys = false, bool in_place_values = false) {
  const std::size_t n = keys.size(), guard = 37;
  CAPTURE(n, pairs, int(order), begin_bit, end_bit, int(which), in_place_keys, in_place_values);
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = V(i);
  device_buffer<K> d_keys_in(n + guard), d_keys_out(n + guard);
  device_buffer<V> d_values_in(n + guard), d_values_out(n + guard);
  d_keys_in.poison(stream);
  d_keys_out.poison(stream);
  d_values_in.poison(stream);
  d_values_out.poison(stream);
  d_keys_in.upload(keys, stream);
  d_values_in.upload(values, stream);
  K* const keys_out = in_place_keys ? d_keys_in.data() : d_keys_out.data();
  V* const values_out = in_place_values ? d_values_in.data() : d_values_out.data();
  if (which == api::host) {
    if (pairs)
      scankit::radix_sort_pairs(ctx, d_keys_in.data(), keys_out, d_values_in.data(), values_out, n, order, begin_bit,
                                end_bit);
    else
      scankit::radix_sort_keys(ctx, d_keys_in.data(), keys_out, n, order, begin_bit, end_bit);
  } else {
    if (pairs)
      scankit::device::radix_sort_pairs(ctx, d_keys_in.data(), keys_out, d_values_in.data(), values_out, n, order,
                                        begin_bit, end_bit);
    else
      scankit::device::radix_sort_keys(ctx, d_keys_in.data(), keys_out, n, order, begin_bit, end_bit);
  }
  SKTEST_CUDA(cudaStreamSynchronize(stream));

  const std::vector<std::uint32_t> expected_positions = reference_order(keys, order, begin_bit, end_bit);
  std::vector<K> expected_keys(n);
  for (std::size_t i = 0; i < n; ++i) expected_keys[i] = keys[expected_positions[i]];
  const std::vector<K> got_keys = (in_place_keys ? d_keys_in : d_keys_out).download(stream);
  const std::size_t bad_key = first_difference(std::vector<K>(got_keys.begin(), got_keys.begin() + n), expected_keys);
  CAPTURE(bad_key);
  CHECK(bad_key == n);
  for (std::size_t i = n; i < n + guard; ++i) REQUIRE(is_poison(got_keys[i]));
  if (pairs) {
    const std::vector<V> got_values = (in_place_values ? d_values_in : d_values_out).download(stream);
    std::size_t bad_value = n;
    for (std::size_t i = 0; i < n && bad_value == n; ++i)
      if (got_values[i] != V(expected_positions[i])) bad_value = i;
    CAPTURE(bad_value);
    CHECK(bad_value == n);
    for (std::size_t i = n; i < n + guard; ++i) REQUIRE(is_poison(got_values[i]));
  }
  if (!in_place_keys) {
    const std::vector<K> after = d_keys_in.download(stream, 0, n);
    CHECK(first_difference(after, keys) == n);
  }
  if (pairs && !in_place_values) CHECK(d_values_in.download(stream, 0, n) == values);
}

/// The sizes every key type runs: the edges of a warp, of a tile (of keys
/// alone and of keys with 4-byte values; scankit::detail::onesweep_shape)
/// and of several tiles, a prime, a random size (Thrust's comparison below
/// runs 2^20 and more).
template <class K>
std::vector<std::size_t> sort_sizes(rng& r) {
  std::vector<std::size_t> sizes = {1, 2, 31, 32, 33, 100003};
  for (std::size_t tile : {std::size_t(scankit::detail::onesweep_shape<K, scankit::detail::no_values>::tile),
                           std::size_t(scankit::detail::onesweep_shape<K, std::uint32_t>::tile)})
    for (std::size_t n : {tile - 1, tile, tile + 1, 7 * tile - 1, 7 * tile + 1}) sizes.push_back(n);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  sizes.push_back(1 + r.below(300000));
  return sizes;
}

template <class K>
void every_order_and_size(api which) {
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed(std::string("sort/") + type_name<K>() + (which == api::host ? "/host" : "/device")));
  for (std::size_t n : sort_sizes<K>(r))
    for (sort_order order : {sort_order::ascending, sort_order::descending})
      for (bool pairs : {false, true}) {
        // Distinct keys, and few distinct keys (long runs of equal keys).
        check_sort(ctx, stream, random_keys<K>(n, r), pairs, order, 0, int(sizeof(K) * 8), which);
        check_sort(ctx, stream, random_keys<K>(n, r, 3), pairs, order, 0, int(sizeof(K) * 8), which);
      }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

}  // namespace

// ---- correctness -----------------------------------------------------------

TEMPLATE_TEST_CASE("radix sort matches the stable host reference for every key type, order and size",
                   "[gpu][sort]", std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double) {
  every_order_and_size<TestType>(api::host);
}

TEST_CASE("radix sort on small inputs (for the sanitizers)", "[gpu][sort][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed("sort/sanitize"));
  const std::size_t tiles_and_more = 3 * scankit::detail::onesweep_shape<std::uint32_t, std::uint32_t>::tile + 5;
  for (std::size_t n : {std::size_t(33), tiles_and_more})
    for (sort_order order : {sort_order::ascending, sort_order::descending}) {
      check_sort(ctx, stream, random_keys<std::uint32_t>(n, r), true, order, 0, 32, api::host);
      check_sort<double, std::uint64_t>(ctx, stream, random_keys<double>(n, r, 5), true, order, 0, 64, api::host);
      check_sort<float, std::uint64_t>(ctx, stream, random_keys<float>(n, r), true, order, 0, 32, api::host);
      check_sort(ctx, stream, random_keys<std::int32_t>(n, r), false, order, 0, 8, api::host, true);
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("the template API's radix sort matches the host reference", "[gpu][sort]", std::uint32_t,
                   std::int64_t, float, long long) {
  every_order_and_size<TestType>(api::device);
}

TEMPLATE_TEST_CASE("radix sort matches Thrust's stable_sort_by_key", "[gpu][sort]", std::int32_t, std::uint64_t, float,
                   double) {
  using K = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed(std::string("sort/thrust/") + type_name<K>()));
  for (std::size_t n : {std::size_t(1000), std::size_t(1) << 20, std::size_t(3000017)})
    for (sort_order order : {sort_order::ascending, sort_order::descending}) {
      CAPTURE(n, int(order));
      const std::vector<K> keys = random_keys<K>(n, r, n / 7);  // many equal keys: stability shows
      std::vector<std::uint32_t> values(n);
      std::iota(values.begin(), values.end(), 0u);
      device_buffer<K> d_keys(n), d_sorted(n), d_thrust_keys(n);
      device_buffer<std::uint32_t> d_values(n), d_sorted_values(n), d_thrust_values(n);
      d_keys.upload(keys, stream);
      d_thrust_keys.upload(keys, stream);
      d_values.upload(values, stream);
      d_thrust_values.upload(values, stream);
      d_sorted.poison(stream);
      d_sorted_values.poison(stream);
      scankit::radix_sort_pairs(ctx, d_keys.data(), d_sorted.data(), d_values.data(), d_sorted_values.data(), n,
                                order);
      const auto tk = thrust::device_pointer_cast(d_thrust_keys.data());
      const auto tv = thrust::device_pointer_cast(d_thrust_values.data());
      if (order == sort_order::ascending)
        thrust::stable_sort_by_key(thrust::cuda::par.on(stream), tk, tk + n, tv);
      else
        thrust::stable_sort_by_key(thrust::cuda::par.on(stream), tk, tk + n, tv, thrust::greater<K>());
      CHECK(first_difference(d_sorted.download(stream), d_thrust_keys.download(stream)) == n);
      CHECK(d_sorted_values.download(stream) == d_thrust_values.download(stream));
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("special floats sort as CUB's radix sort: -0 equals +0, NaNs by their bits", "[gpu][sort]", float,
                   double) {
  using K = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed(std::string("sort/special/") + type_name<K>()));
  for (std::size_t n : {std::size_t(500), std::size_t(70001)})
    for (sort_order order : {sort_order::ascending, sort_order::descending}) {
      const std::vector<K> keys = special_float_keys<K>(n, r);
      check_sort(ctx, stream, keys, true, order, 0, int(sizeof(K) * 8), api::host);
      // And bit for bit as Thrust's stable_sort_by_key, which runs CUB's radix sort.
      std::vector<std::uint32_t> positions(n);
      std::iota(positions.begin(), positions.end(), 0u);
      device_buffer<K> d_keys(n), d_sorted(n);
      device_buffer<std::uint32_t> d_positions(n), d_moved(n);
      d_keys.upload(keys, stream);
      d_positions.upload(positions, stream);
      scankit::radix_sort_pairs(ctx, d_keys.data(), d_sorted.data(), d_positions.data(), d_moved.data(), n, order);
      const auto tk = thrust::device_pointer_cast(d_keys.data());
      const auto tv = thrust::device_pointer_cast(d_positions.data());
      if (order == sort_order::ascending)
        thrust::stable_sort_by_key(thrust::cuda::par.on(stream), tk, tk + n, tv);
      else
        thrust::stable_sort_by_key(thrust::cuda::par.on(stream), tk, tk + n, tv, thrust::greater<K>());
      CAPTURE(n, int(order));
      CHECK(first_difference(d_sorted.download(stream), d_keys.download(stream)) == n);
      CHECK(d_moved.download(stream) == d_positions.download(stream));
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("bit ranges compare only their bits, partial digits included", "[gpu][sort]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed("sort/bits"));
  const std::size_t n = 50000;
  const std::pair<int, int> ranges32[] = {{0, 1}, {0, 8}, {0, 12}, {4, 20}, {3, 32}, {31, 32}, {0, 31}, {16, 16}};
  for (auto [begin_bit, end_bit] : ranges32)
    for (sort_order order : {sort_order::ascending, sort_order::descending}) {
      check_sort(ctx, stream, random_keys<std::int32_t>(n, r), true, order, begin_bit, end_bit, api::host);
      check_sort(ctx, stream, random_keys<float>(n, r), false, order, begin_bit, end_bit, api::host);
    }
  const std::pair<int, int> ranges64[] = {{0, 64}, {3, 64}, {32, 64}, {5, 47}, {63, 64}, {0, 0}};
  for (auto [begin_bit, end_bit] : ranges64)
    for (sort_order order : {sort_order::ascending, sort_order::descending}) {
      check_sort(ctx, stream, random_keys<std::uint64_t>(n, r), true, order, begin_bit, end_bit, api::host);
      check_sort(ctx, stream, random_keys<double>(n, r), true, order, begin_bit, end_bit, api::device);
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("radix sort in place: keys, values or both, with odd and even pass counts", "[gpu][sort]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed("sort/in_place"));
  const std::pair<bool, bool> in_place_kinds[] = {{true, false}, {false, true}, {true, true}};
  for (std::size_t n : {std::size_t(1), std::size_t(5000), std::size_t(300007)})
    for (int end_bit : {8, 16, 24, 32})  // 1, 2, 3, 4 passes
      for (auto [keys_in_place, values_in_place] : in_place_kinds) {
        check_sort(ctx, stream, random_keys<std::uint32_t>(n, r), true, sort_order::ascending, 0, end_bit, api::host,
                   keys_in_place, values_in_place);
        check_sort<std::int64_t, std::uint64_t>(ctx, stream, random_keys<std::int64_t>(n, r), true,
                                                sort_order::descending, 0, end_bit + 32, api::host, keys_in_place,
                                                values_in_place);
        check_sort<std::int32_t, double>(ctx, stream, random_keys<std::int32_t>(n, r), true, sort_order::descending,
                                         0, end_bit, api::host, keys_in_place, values_in_place);
      }
  for (int end_bit : {8, 16})
    check_sort(ctx, stream, random_keys<std::uint32_t>(4097, r), false, sort_order::ascending, 0, end_bit, api::host,
               true);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

namespace {
struct point {  // 12 bytes
  float x, y, z;
};
struct wide {  // 16 bytes
  std::uint64_t a, b;
};
}  // namespace

TEST_CASE("the template API moves values of any trivially copyable type", "[gpu][sort]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed("sort/values"));
  const std::size_t n = 123457;
  const std::vector<std::int32_t> keys = random_keys<std::int32_t>(n, r, 1000);
  std::vector<point> points(n);
  std::vector<wide> wides(n);
  for (std::size_t i = 0; i < n; ++i) {
    points[i] = {float(i), -float(i), 0.5f};
    wides[i] = {i, ~std::uint64_t(i)};
  }
  device_buffer<std::int32_t> d_keys(n), d_sorted(n);
  device_buffer<point> d_points(n), d_sorted_points(n);
  device_buffer<wide> d_wides(n), d_sorted_wides(n);
  d_keys.upload(keys, stream);
  d_points.upload(points, stream);
  d_wides.upload(wides, stream);
  const std::vector<std::uint32_t> positions = reference_order(keys, sort_order::descending, 0, 32);
  scankit::device::radix_sort_pairs(ctx, d_keys.data(), d_sorted.data(), d_points.data(), d_sorted_points.data(), n,
                                    sort_order::descending);
  const std::vector<point> got_points = d_sorted_points.download(stream);
  scankit::device::radix_sort_pairs(ctx, d_keys.data(), d_sorted.data(), d_wides.data(), d_sorted_wides.data(), n,
                                    sort_order::descending);
  const std::vector<wide> got_wides = d_sorted_wides.download(stream);
  std::size_t bad = n;
  for (std::size_t i = 0; i < n && bad == n; ++i) {
    const std::uint32_t p = positions[i];
    if (got_points[i].x != float(p) || got_points[i].y != -float(p) || got_points[i].z != 0.5f ||
        got_wides[i].a != p || got_wides[i].b != ~std::uint64_t(p))
      bad = i;
  }
  CAPTURE(bad);
  CHECK(bad == n);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("radix sort over several portions carries each digit's start from portion to portion", "[gpu][sort]") {
  // Three passes over four portions (of 2^26 - 6 400 4-byte keys with
  // 4-byte values, whole tiles): after the first pass every portion holds
  // keys from all input portions. Checked in linear time:
  // keys[i] == input[values[i]], values a permutation, and each neighbour
  // pair in order (ties by position: stable).
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed("sort/portions"));
  const std::size_t n = 3 * (std::size_t(1) << 26) + 99;
  const int end_bit = 24;
  std::vector<std::uint32_t> keys(n), positions(n);
  for (auto& k : keys) k = std::uint32_t(r.next());
  std::iota(positions.begin(), positions.end(), 0u);
  device_buffer<std::uint32_t> d_keys(n), d_values(n), d_sorted(n), d_sorted_values(n);
  d_keys.upload(keys, stream);
  d_values.upload(positions, stream);
  d_sorted.poison(stream);
  d_sorted_values.poison(stream);
  scankit::radix_sort_pairs(ctx, d_keys.data(), d_sorted.data(), d_values.data(), d_sorted_values.data(), n,
                            sort_order::ascending, 0, end_bit);
  const std::vector<std::uint32_t> sorted = d_sorted.download(stream), from = d_sorted_values.download(stream);
  std::vector<bool> seen(n, false);
  std::size_t bad = n;
  const std::uint32_t mask = (1u << end_bit) - 1;
  for (std::size_t i = 0; i < n && bad == n; ++i) {
    const std::uint32_t p = from[i];
    if (p >= n || seen[p] || sorted[i] != keys[p]) {
      bad = i;
      break;
    }
    seen[p] = true;
    if (i > 0) {
      const std::uint32_t a = sorted[i - 1] & mask, b = sorted[i] & mask;
      if (a > b || (a == b && from[i - 1] > p)) bad = i;
    }
  }
  CAPTURE(n, bad);
  CHECK(bad == n);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("radix sort over several portions: descending, keys only, in place with one pass", "[gpu][sort]") {
  // 2^26 + 12345 keys over two portions, sorted in place by bits [4, 12)
  // descending: one pass, so the input is first copied to the storage.
  // Checked in linear time: the field in order, and the same keys (as a
  // multiset: count and a sum of hashes).
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed("sort/portions_descending"));
  const std::size_t n = (std::size_t(1) << 26) + 12345;
  std::vector<std::uint32_t> keys(n);
  for (auto& k : keys) k = std::uint32_t(r.next());
  auto fingerprint = [](const std::vector<std::uint32_t>& v) {
    std::uint64_t sum = 0;
    for (std::uint32_t k : v) sum += mix64(k);
    return sum;
  };
  const std::uint64_t before = fingerprint(keys);
  device_buffer<std::uint32_t> d_keys(n);
  d_keys.upload(keys, stream);
  scankit::radix_sort_keys(ctx, d_keys.data(), d_keys.data(), n, sort_order::descending, 4, 12);
  const std::vector<std::uint32_t> sorted = d_keys.download(stream);
  std::size_t bad = n;
  for (std::size_t i = 1; i < n && bad == n; ++i)
    if (((sorted[i - 1] >> 4) & 255u) < ((sorted[i] >> 4) & 255u)) bad = i;
  CAPTURE(n, bad);
  CHECK(bad == n);
  CHECK(fingerprint(sorted) == before);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("a radix sort captured into a CUDA graph sorts new data on every replay", "[gpu][sort][graph]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed("sort/graph"));
  const std::size_t n = 200003;
  device_buffer<std::uint64_t> d_keys(n), d_sorted(n);
  device_buffer<std::uint32_t> d_values(n), d_sorted_values(n);
  cudaGraph_t graph = nullptr;
  SKTEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  scankit::radix_sort_pairs(ctx, d_keys.data(), d_sorted.data(), d_values.data(), d_sorted_values.data(), n,
                            sort_order::ascending, 0, 40);
  SKTEST_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  SKTEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    CAPTURE(replay);
    const std::vector<std::uint64_t> keys = random_keys<std::uint64_t>(n, r, replay == 1 ? 50 : 0);
    std::vector<std::uint32_t> positions(n);
    std::iota(positions.begin(), positions.end(), 0u);
    d_keys.upload(keys, stream);
    d_values.upload(positions, stream);
    d_sorted.poison(stream);
    SKTEST_CUDA(cudaGraphLaunch(exec, stream));
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    const std::vector<std::uint32_t> expected = reference_order(keys, sort_order::ascending, 0, 40);
    CHECK(d_sorted_values.download(stream) == expected);
    const std::vector<std::uint64_t> sorted = d_sorted.download(stream);
    std::size_t bad = n;
    for (std::size_t i = 0; i < n && bad == n; ++i)
      if (sorted[i] != keys[expected[i]]) bad = i;
    CAPTURE(bad);
    CHECK(bad == n);
  }
  SKTEST_CUDA(cudaGraphExecDestroy(exec));
  SKTEST_CUDA(cudaGraphDestroy(graph));
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("radix sort on a caller workspace: enough works, too little throws and writes nothing", "[gpu][sort]") {
  cuda_stream stream;
  rng r(case_seed("sort/workspace"));
  const std::size_t n = 100000;
  const std::size_t bytes = scankit::radix_sort_workspace_bytes(n, 8, 4);
  REQUIRE(bytes == scankit::device::radix_sort_workspace_bytes<double, float>(n));
  REQUIRE(scankit::radix_sort_workspace_bytes(n, 4) == scankit::device::radix_sort_workspace_bytes<float>(n));
  device_buffer<unsigned char> d_ws(bytes);
  d_ws.poison(stream);
  {
    scankit::context ctx(stream, d_ws.data(), bytes);
    check_sort<double, float>(ctx, stream, random_keys<double>(n, r), true, sort_order::ascending, 0, 64, api::host);
    check_sort<double, float>(ctx, stream, random_keys<double>(n / 3, r), true, sort_order::descending, 0, 64,
                              api::host);
  }
  scankit::context small(stream, d_ws.data(), bytes / 2);
  device_buffer<double> d_keys(n), d_sorted(n);
  d_sorted.poison(stream);
  CHECK_THROWS_AS(scankit::radix_sort_keys(small, d_keys.data(), d_sorted.data(), n), std::invalid_argument);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  CHECK(count_unpoisoned(download_bytes(d_sorted.data(), d_sorted.bytes(), stream)) == 0);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("uint32 radix sort past 2^32 keys, in place", "[gpu][large]") {
  // 2^32 + 4321 keys of 16 random bits, sorted in place by their low 8 bits
  // (one pass: the input is copied to the storage first), so output
  // positions pass 2^32. Checked in linear time: the low bytes in order, and
  // every key as often as in the input.
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed("sort/large"));
  const std::size_t n = (std::size_t(1) << 32) + 4321;
  std::vector<std::uint32_t> keys(n);
  std::vector<std::uint64_t> input_counts(1 << 16, 0);
  for (auto& k : keys) {
    k = std::uint32_t(r.next()) >> 16;
    ++input_counts[k];
  }
  device_buffer<std::uint32_t> d_keys(n);
  d_keys.upload(keys, stream);
  scankit::radix_sort_keys(ctx, d_keys.data(), d_keys.data(), n, sort_order::ascending, 0, 8);
  keys = d_keys.download(stream);
  std::size_t unordered = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (keys[i] >= (1u << 16) || (i > 0 && (keys[i - 1] & 255u) > (keys[i] & 255u))) {
      ++unordered;
      continue;
    }
    --input_counts[keys[i]];
  }
  CAPTURE(n);
  CHECK(unordered == 0);
  CHECK(std::all_of(input_counts.begin(), input_counts.end(), [](std::uint64_t c) { return c == 0; }));
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- bad arguments (checked before anything touches a device) -------------

TEST_CASE("radix sort rejects bad arguments before any launch", "[sort]") {
  scankit::context ctx;  // no device is touched: every call below throws first
  auto* keys = reinterpret_cast<std::uint32_t*>(std::uintptr_t(1) << 40);
  auto* other = reinterpret_cast<std::uint32_t*>((std::uintptr_t(1) << 40) + (std::uintptr_t(1) << 30));
  auto* values = reinterpret_cast<std::uint64_t*>((std::uintptr_t(1) << 41));
  auto* values_out = reinterpret_cast<std::uint64_t*>((std::uintptr_t(1) << 41) + (std::uintptr_t(1) << 32));
  const std::size_t n = 1000;
  // Bit ranges.
  const std::pair<int, int> bad_ranges[] = {{-1, 8}, {9, 8}, {0, 33}, {40, 40}};
  for (const auto& range : bad_ranges)
    expect_invalid_argument(
        [&] { scankit::radix_sort_keys(ctx, keys, other, n, sort_order::ascending, range.first, range.second); },
        "radix_sort_keys");
  auto* double_keys = reinterpret_cast<double*>(keys);
  expect_invalid_argument(
      [&] { scankit::radix_sort_keys(ctx, double_keys, double_keys + n, n, sort_order::ascending, 0, 65); },
      "radix_sort_keys");
  // Null pointers with n > 0.
  expect_invalid_argument([&] { scankit::radix_sort_keys(ctx, keys, static_cast<std::uint32_t*>(nullptr), n); },
                          "radix_sort_keys");
  expect_invalid_argument(
      [&] { scankit::radix_sort_pairs(ctx, keys, other, static_cast<const std::uint64_t*>(nullptr), values_out, n); },
      "radix_sort_pairs");
  // Overlaps: keys partly over keys, values over keys, values partly over values.
  expect_invalid_argument([&] { scankit::radix_sort_keys(ctx, keys, keys + 1, n); }, "radix_sort_keys");
  expect_invalid_argument(
      [&] { scankit::radix_sort_pairs(ctx, keys, other, reinterpret_cast<std::uint64_t*>(other + 2), values_out, n); },
      "radix_sort_pairs");
  expect_invalid_argument([&] { scankit::radix_sort_pairs(ctx, keys, other, values, values + 1, n); },
                          "radix_sort_pairs");
  // 8-byte values not aligned to 8 bytes.
  auto* misaligned = reinterpret_cast<std::uint64_t*>(reinterpret_cast<char*>(values_out) + 4);
  expect_invalid_argument([&] { scankit::radix_sort_pairs(ctx, keys, other, values, misaligned, n); },
                          "radix_sort_pairs");
  // n == 0 does nothing, whatever the pointers.
  CHECK_NOTHROW(scankit::radix_sort_keys(ctx, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 0));
  CHECK_NOTHROW(scankit::device::radix_sort_pairs(ctx, static_cast<const long long*>(nullptr),
                                                  static_cast<long long*>(nullptr), static_cast<const char*>(nullptr),
                                                  static_cast<char*>(nullptr), 0));
  // Workspace sizing of unsupported sizes.
  CHECK_THROWS_AS(scankit::radix_sort_workspace_bytes(n, 2, 0), std::invalid_argument);
  CHECK_THROWS_AS(scankit::radix_sort_workspace_bytes(n, 4, 16), std::invalid_argument);
  CHECK(scankit::radix_sort_workspace_bytes(0, 4, 4) == 0);
}
