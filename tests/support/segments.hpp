// tests/support/segments.hpp — segmentations for the ragged primitives
// (expand, segmented reduction, allocation offsets): segment-length
// distributions, CSR offsets built from lengths, exact element-wise
// comparison with a report, and device buffers with poisoned guard bands on
// both sides (to prove that nothing is written outside an output).
// Plain C++: shared by nvcc-compiled tests.
#pragma once

#include "support/cuda_check.hpp"
#include "support/random.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace sktest {

// ---- segment-length distributions ---------------------------------------------

enum class segment_dist {
  empty,     // every segment empty (total 0)
  ones,      // every segment of length 1
  fixed,     // every segment of length `param`
  uniform,   // lengths uniform in [0, 2·param]
  power_law, // half empty, the rest 2^(16u) - 1 for u uniform in [0, 1): heavy tail, many empties
  giant,     // lengths 0..2, and one segment of length `param` at a random index
};

struct segment_spec {
  segment_dist dist;
  std::uint64_t param;

  std::string name() const {
    switch (dist) {
      case segment_dist::empty: return "empty";
      case segment_dist::ones: return "ones";
      case segment_dist::fixed: return "fixed" + std::to_string(param);
      case segment_dist::uniform: return "uniform" + std::to_string(param);
      case segment_dist::power_law: return "power_law";
      case segment_dist::giant: return "giant" + std::to_string(param);
    }
    return "?";
  }

  /// Mean length (for budgeting the number of segments).
  double mean() const {
    switch (dist) {
      case segment_dist::empty: return 0;
      case segment_dist::ones: return 1;
      case segment_dist::fixed:
      case segment_dist::uniform: return double(param);
      case segment_dist::power_law: return 0.5 * (65535.0 / (16 * std::log(2.0)) - 1);  // about 2955
      case segment_dist::giant: return 1;
    }
    return 1;
  }
};

/// The distributions of the brief: all empty, all 1, 4 / 256 / 65536 (fixed and
/// uniform around them), power law with many empties, one giant among tiny.
inline std::vector<segment_spec> standard_specs(std::uint64_t giant_length = 3'000'017) {
  return {{segment_dist::empty, 0},     {segment_dist::ones, 1},         {segment_dist::fixed, 4},
          {segment_dist::fixed, 256},   {segment_dist::fixed, 65536},    {segment_dist::uniform, 4},
          {segment_dist::uniform, 256}, {segment_dist::uniform, 65536},  {segment_dist::power_law, 0},
          {segment_dist::giant, giant_length}};
}

/// num_segments lengths drawn from `spec`.
inline std::vector<std::uint64_t> make_lengths(std::size_t num_segments, const segment_spec& spec, rng& r) {
  std::vector<std::uint64_t> len(num_segments);
  for (auto& l : len) {
    switch (spec.dist) {
      case segment_dist::empty: l = 0; break;
      case segment_dist::ones: l = 1; break;
      case segment_dist::fixed: l = spec.param; break;
      case segment_dist::uniform: l = r.below(2 * spec.param + 1); break;
      case segment_dist::power_law: {
        if (r.coin()) {
          l = 0;
        } else {
          const double u = double(r.next() >> 11) * 0x1.0p-53;
          l = std::uint64_t(std::floor(std::exp2(16.0 * u))) - 1;
        }
        break;
      }
      case segment_dist::giant: l = r.below(3); break;
    }
  }
  if (spec.dist == segment_dist::giant && num_segments > 0) len[r.below(num_segments)] = spec.param;
  return len;
}

/// num_segments random lengths that add up to exactly `total` (about equal,
/// with random jitter; some empty when total < num_segments).
inline std::vector<std::uint64_t> lengths_with_total(std::size_t num_segments, std::uint64_t total, rng& r) {
  std::vector<std::uint64_t> len(num_segments, 0);
  if (num_segments == 0) return len;
  std::uint64_t left = total;
  const std::uint64_t mean = total / num_segments;
  for (std::size_t i = 0; i + 1 < num_segments; ++i) {
    const std::uint64_t want = r.below(2 * mean + 2);
    len[i] = std::min(want, left);
    left -= len[i];
  }
  len[num_segments - 1] = left;
  return len;
}

inline std::uint64_t sum_of(const std::vector<std::uint64_t>& v) {
  std::uint64_t s = 0;
  for (std::uint64_t x : v) s += x;
  return s;
}

/// CSR offsets (num_segments + 1 entries) of the lengths, starting at `base`,
/// as uint64 (the reference form; convert with as_offsets).
inline std::vector<std::uint64_t> offsets_from_lengths(const std::vector<std::uint64_t>& len, std::uint64_t base = 0) {
  std::vector<std::uint64_t> off(len.size() + 1);
  std::uint64_t acc = base;  // explicit 64-bit accumulator: every test total is < 2^63
  for (std::size_t i = 0; i < len.size(); ++i) {
    off[i] = acc;
    acc += len[i];
  }
  off[len.size()] = acc;
  return off;
}

/// The offsets as Offset (REQUIREs that every one is representable).
template <class Offset>
std::vector<Offset> as_offsets(const std::vector<std::uint64_t>& off) {
  std::vector<Offset> out(off.size());
  std::size_t too_big = 0;  // one assertion for the whole array (Catch assertions are slow)
  for (std::size_t i = 0; i < off.size(); ++i) {
    too_big += off[i] > std::uint64_t(std::numeric_limits<Offset>::max());
    out[i] = Offset(off[i]);
  }
  INFO("offsets that do not fit the offset type");
  REQUIRE(too_big == 0);
  return out;
}

/// The segment of every output j of a segmentation (host reference of the
/// load-balancing search): source[j] = i with off[i] - off[0] <= j < off[i+1] - off[0].
inline std::vector<std::uint64_t> reference_sources(const std::vector<std::uint64_t>& off) {
  std::vector<std::uint64_t> src;
  if (off.empty()) return src;
  src.reserve(off.back() - off.front());
  for (std::size_t i = 0; i + 1 < off.size(); ++i)
    for (std::uint64_t k = off[i]; k < off[i + 1]; ++k) src.push_back(i);
  return src;
}

// ---- exact comparison -------------------------------------------------------------

template <class T>
std::string show(const T& v) {
  std::ostringstream s;
  if constexpr (std::is_floating_point_v<T>) {
    s.precision(17);
    s << v;
  } else if constexpr (std::is_integral_v<T>) {
    s << +v;
  } else {
    s << v;
  }
  if (is_poison(v)) s << " [POISON: never written]";
  return s.str();
}

/// Element-wise comparison; `same(got, expected)` decides, mismatches are
/// counted and the first 8 listed.
struct exact_check {
  std::size_t mismatches = 0;
  std::string report;
  bool ok() const { return mismatches == 0; }
};

template <class G, class E, class Same>
exact_check compare_with(const std::vector<G>& got, const std::vector<E>& expected, Same same) {
  exact_check c;
  std::ostringstream s;
  if (got.size() != expected.size()) {
    c.mismatches = 1;
    c.report = "size " + std::to_string(got.size()) + ", expected " + std::to_string(expected.size());
    return c;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (same(got[i], expected[i])) continue;
    if (c.mismatches < 8) s << "  [" << i << "] got " << show(got[i]) << ", expected " << show(expected[i]) << "\n";
    ++c.mismatches;
  }
  if (c.mismatches != 0)
    c.report = std::to_string(c.mismatches) + " of " + std::to_string(got.size()) + " wrong:\n" + s.str();
  return c;
}

/// Bitwise equality of two values of one type.
struct same_bits_fn {
  template <class T>
  bool operator()(const T& a, const T& b) const {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  }
};

/// got[i] == expected[i] after converting expected to G (integers).
struct same_value_fn {
  template <class G, class E>
  bool operator()(const G& g, const E& e) const {
    return std::uint64_t(std::make_unsigned_t<G>(g)) == std::uint64_t(e);
  }
};

#define SKTEST_CHECK_EXACT(got, expected, same, what)                   \
  do {                                                                  \
    const ::sktest::exact_check sktest_c_ = ::sktest::compare_with((got), (expected), (same)); \
    INFO(what << ": " << sktest_c_.report);                             \
    CHECK(sktest_c_.ok());                                              \
  } while (false)

// ---- guarded outputs ----------------------------------------------------------------

/// n elements of T in device memory with `guard` poisoned elements before and
/// after; data() is the first of the n. poison() poisons everything;
/// guards_touched() counts guard bytes that are no longer the poison byte.
template <class T>
class guarded_buffer {
 public:
  static constexpr std::size_t guard = (4096 + sizeof(T) - 1) / sizeof(T);  // 4 KiB: keeps 4- and 8-byte data 16-byte aligned
  explicit guarded_buffer(std::size_t n) : n_(n), all_(n + 2 * guard) {}
  T* data() const noexcept { return all_.data() + guard; }
  std::size_t size() const noexcept { return n_; }
  void poison(cudaStream_t stream) { all_.poison(stream); }
  std::vector<T> download(cudaStream_t stream) const { return all_.download(stream, guard, n_); }
  std::size_t guards_touched(cudaStream_t stream) const {
    return count_unpoisoned(download_bytes(all_.data(), guard * sizeof(T), stream)) +
           count_unpoisoned(download_bytes(all_.data() + guard + n_, guard * sizeof(T), stream));
  }

 private:
  std::size_t n_;
  device_buffer<T> all_;
};

}  // namespace sktest
