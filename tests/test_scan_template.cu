// tests/test_scan_template.cu — the template API (scankit::device::
// inclusive_scan / inclusive_scan_init / exclusive_scan) with user types and
// operators:
//   * non-commutative operators: affine maps over uint32 (8 bytes) and 2×2
//     uint32 matrix products (16 bytes), compared with a sequential host fold,
//     so any reordering of operands (not just of association) is caught;
//   * a 12-byte type (does not divide 16: scalar path) and a 4-byte type
//     (vector path, packed status word) whose operator flags, in device memory,
//     any input that is not a real value: poisoned output, poisoned input past
//     n, poisoned workspace scratch — the operator must never see them, also
//     with a partial last tile;
//   * custom tunings: 96 threads × 3 rounds (3 warps: not a power of two) and
//     32 threads × 1 round (one warp, tiny tiles, many tiles);
//   * host-only checks: the test operators really are associative and not
//     commutative; invalid arguments are rejected before any device access.
#include "support/cuda_check.hpp"
#include "support/noncommutative.cuh"
#include "support/random.hpp"
#include "support/reference.hpp"

#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/device/operators.cuh>
#include <scankit/device/scan.cuh>
#include <scankit/scankit.hpp>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace sktest;
using scankit::detail::scan_tuning;

template <class T, class Tuning = scankit::detail::default_scan_tuning<T>>
constexpr std::size_t tile_of = scankit::detail::tile_items<T, Tuning>;

/// Sizes around a tile of `tile` items, including > 32 tiles (look-back
/// windows) and partial last tiles.
std::vector<std::size_t> sizes_around(std::size_t tile, bool large = true) {
  std::vector<std::size_t> s{1, 2, 31, 33, tile - 1, tile, tile + 1, 2 * tile + 1, 33 * tile - 1, 33 * tile + 1, 70 * tile + 17};
  if (large) s.push_back((std::size_t(1) << 20) + 3);
  return s;
}

constexpr scan_mode all_modes[] = {scan_mode::inclusive, scan_mode::inclusive_init, scan_mode::exclusive};

/// Enqueues the template API call for `mode` with tuning `Tuning` (void: default).
template <class Tuning, class T, class Op>
void run_template(scankit::context& ctx, scan_mode mode, const T* d_in, T* d_out, std::size_t n, const T& init, Op op) {
  switch (mode) {
    case scan_mode::inclusive: scankit::device::inclusive_scan<Tuning>(ctx, d_in, d_out, n, op); break;
    case scan_mode::inclusive_init: scankit::device::inclusive_scan_init<Tuning>(ctx, d_in, d_out, n, init, op); break;
    case scan_mode::exclusive: scankit::device::exclusive_scan<Tuning>(ctx, d_in, d_out, n, init, op); break;
  }
}

/// CHECKs got == ref element by element (exact), listing the first mismatches.
template <class T>
void expect_equal_scan(const std::vector<T>& got, const std::vector<T>& ref, const std::string& what) {
  std::size_t mismatches = 0;
  std::ostringstream report;
  if (got.size() != ref.size()) {
    mismatches = 1;
    report << "size " << got.size() << " vs " << ref.size();
  } else {
    for (std::size_t i = 0; i < ref.size(); ++i) {
      if (got[i] == ref[i]) continue;
      if (mismatches < 8)
        report << "  [" << i << "] got " << got[i] << (is_poison(got[i]) ? " [POISON: never written]" : "")
               << ", expected " << ref[i] << "\n";
      ++mismatches;
    }
  }
  INFO(what << ": " << mismatches << " of " << ref.size() << " elements wrong\n" << report.str());
  CHECK(mismatches == 0);
}

/// n random values from gen(rng&), and an init value the same way.
template <class T, class Gen>
std::vector<T> random_values(std::size_t n, rng& r, Gen gen) {
  std::vector<T> v(n);
  for (auto& x : v) x = gen(r);
  return v;
}

/// One template API scan of fresh random data, against the sequential fold.
template <class Tuning = void, class T, class Op, class HostOp, class Gen>
void check_template_scan(scankit::context& ctx, cudaStream_t stream, const std::string& what, std::size_t n,
                         scan_mode mode, Op op, HostOp host_op, Gen gen) {
  const std::uint64_t seed = case_seed("template/" + what + "/" + to_string(mode) + "/" + std::to_string(n));
  const char* mode_name = to_string(mode);
  CAPTURE(what, mode_name, n, seed);
  rng r(seed);
  const std::vector<T> in = random_values<T>(n, r, gen);
  const T init = gen(r);
  device_buffer<T> d_in(n), d_out(n);
  d_in.upload(in, stream);
  d_out.poison(stream);
  run_template<Tuning>(ctx, mode, d_in.data(), d_out.data(), n, init, op);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());
  expect_equal_scan(d_out.download(stream), sequential_fold(in, host_op, mode, init), what);
}

/// A checked scan: the operator flags any input without the magic field.
/// Poisoned (0xA5) memory lacks it, so poison is placed wherever the scan must
/// never read a value: the output, `slack` input items past n, and — with
/// use_workspace — the caller workspace's scratch half (tile values of earlier
/// launches would live there).
template <class T, class Gen>
void check_checked_scan(scankit::context* shared_ctx, cudaStream_t stream, const std::string& what, std::size_t n,
                        scan_mode mode, Gen gen) {
  constexpr std::size_t slack = 1024;
  const std::uint64_t seed = case_seed("checked/" + what + "/" + to_string(mode) + "/" + std::to_string(n));
  const char* mode_name = to_string(mode);
  const bool use_workspace = shared_ctx == nullptr;
  CAPTURE(what, mode_name, n, seed, use_workspace);
  rng r(seed);
  const std::vector<T> in = random_values<T>(n, r, gen);
  const T init = gen(r);

  device_buffer<T> d_in(n + slack), d_out(n + slack);
  device_buffer<unsigned> d_error(1);
  d_in.poison(stream);
  d_in.upload(in, stream);
  d_out.poison(stream);
  SKTEST_CUDA(cudaMemsetAsync(d_error.data(), 0, sizeof(unsigned), stream));

  const std::size_t ws_bytes = use_workspace ? scankit::device::scan_workspace_bytes<T>(n) : 0;
  device_buffer<unsigned char> d_ws(ws_bytes);
  d_ws.poison(stream);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  scankit::context ws_ctx(stream, d_ws.data(), ws_bytes);  // clears the status half only
  scankit::context& ctx = use_workspace ? ws_ctx : *shared_ctx;

  run_template<void>(ctx, mode, d_in.data(), d_out.data(), n, init, checked_compose<T>{d_error.data()});
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());

  {
    const unsigned error = d_error.download(stream).at(0);
    INFO("the operator must only see input values and their combinations; it saw: " << describe_checked_error(error));
    CHECK(error == 0u);
  }
  expect_equal_scan(d_out.download(stream, 0, n), sequential_fold(in, host_compose<T>{}, mode, init), what);
  CHECK(count_unpoisoned(download_bytes(d_out.data() + n, slack * sizeof(T), stream)) == 0);
}

/// The checked scans of T over sizes with (mostly) partial last tiles.
template <class T, class Gen>
void checked_sweep(cudaStream_t stream, const std::string& what, const std::vector<std::size_t>& sizes, Gen gen) {
  scankit::context shared_ctx(stream);
  for (std::size_t n : sizes)
    for (scan_mode mode : all_modes) {
      check_checked_scan<T>(nullptr, stream, what + "/workspace", n, mode, gen);
      check_checked_scan<T>(&shared_ctx, stream, what + "/cached", n, mode, gen);
    }
}

std::uint32_t random_u32(rng& r) { return std::uint32_t(r.next()); }

/// uint32 wrapping sum and affine maps with tuning `Tuning`.
template <class Tuning>
void check_tuning(cudaStream_t stream, const std::string& name, bool large) {
  scankit::context ctx(stream);
  auto host_plus = [](std::uint32_t a, std::uint32_t b) { return std::uint32_t(a + b); };
  for (std::size_t n : sizes_around(tile_of<std::uint32_t, Tuning>, large))
    for (scan_mode mode : all_modes)
      check_template_scan<Tuning, std::uint32_t>(ctx, stream, name + "/uint32_plus", n, mode, scankit::device::plus{},
                                                 host_plus, random_u32);
  for (std::size_t n : sizes_around(tile_of<affine32, Tuning>, large))
    for (scan_mode mode : all_modes)
      check_template_scan<Tuning, affine32>(ctx, stream, name + "/affine32", n, mode, compose_affine32{},
                                            compose_affine32{}, random_affine32);
}

/// Host-side algebra check of a test operator on random values.
template <class T, class Op, class Gen>
void check_algebra(const char* name, Op op, Gen gen) {
  CAPTURE(name);
  rng r(case_seed(std::string("algebra/") + name));
  std::size_t non_commuting = 0;
  for (int i = 0; i < 1000; ++i) {
    const T a = gen(r), b = gen(r), c = gen(r);
    REQUIRE(op(op(a, b), c) == op(a, op(b, c)));  // associative
    non_commuting += !(op(a, b) == op(b, a));
  }
  CHECK(non_commuting > 900);  // almost never commute
}

}  // namespace

TEST_CASE("affine maps over uint32 compose in order", "[gpu][template]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : sizes_around(tile_of<affine32>))
    for (scan_mode mode : all_modes)
      check_template_scan<void, affine32>(ctx, stream, "affine32", n, mode, compose_affine32{}, compose_affine32{},
                                          random_affine32);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("2x2 uint32 matrix products are taken in order", "[gpu][template]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : sizes_around(tile_of<mat2>))
    for (scan_mode mode : all_modes)
      check_template_scan<void, mat2>(ctx, stream, "mat2", n, mode, mat2_product{}, mat2_product{}, random_mat2);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("a 12-byte type is scanned in order and the operator never sees invalid values", "[gpu][template]") {
  static_assert(sizeof(tagged_affine12) == 12 && scankit::detail::vector_items<tagged_affine12> == 1);
  cuda_stream stream;
  const std::size_t t = tile_of<tagged_affine12>;
  checked_sweep<tagged_affine12>(stream, "tagged_affine12",
                                 {1, 5, t - 1, t + 1, 2 * t - 1, 4 * t, 33 * t + 5, 100 * t + 7}, random_tagged_affine12);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("a 4-byte packed type is scanned in order and the operator never sees invalid values", "[gpu][template]") {
  static_assert(sizeof(tagged_affine4) == 4 && scankit::detail::vector_items<tagged_affine4> == 4);
  cuda_stream stream;
  const std::size_t t = tile_of<tagged_affine4>;
  checked_sweep<tagged_affine4>(stream, "tagged_affine4",
                                {1, 5, t - 1, t + 1, 2 * t - 1, 4 * t, 33 * t + 5, 100 * t + 7}, random_tagged_affine4);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("custom tunings: 96 and 32 threads per block, explicit items per vector", "[gpu][template]") {
  cuda_stream stream;
  check_tuning<scan_tuning<96, 3>>(stream, "tuning_96x3", true);
  check_tuning<scan_tuning<32, 1>>(stream, "tuning_32x1", true);
  // Vectors of 8 items (uint32: 32 bytes, affine32: 64 bytes; item-wise
  // shared loads and global stores) and of 2 (8- and 16-byte stores).
  check_tuning<scan_tuning<64, 3, 8>>(stream, "tuning_64x3x8", true);
  check_tuning<scan_tuning<128, 2, 2>>(stream, "tuning_128x2x2", true);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("small template API scans for the sanitizers", "[gpu][template][sanitize]") {
  cuda_stream stream;
  const std::size_t t12 = tile_of<tagged_affine12>, t4 = tile_of<tagged_affine4>;
  checked_sweep<tagged_affine12>(stream, "tagged_affine12", {1, t12 + 1, 3 * t12 - 1}, random_tagged_affine12);
  checked_sweep<tagged_affine4>(stream, "tagged_affine4", {1, t4 + 1, 3 * t4 - 1}, random_tagged_affine4);
  scankit::context ctx(stream);
  for (std::size_t n : {std::size_t(33), 2 * tile_of<mat2> + 1})
    for (scan_mode mode : all_modes)
      check_template_scan<void, mat2>(ctx, stream, "mat2", n, mode, mat2_product{}, mat2_product{}, random_mat2);
  check_tuning<scan_tuning<96, 3>>(stream, "tuning_96x3", false);
  check_tuning<scan_tuning<64, 3, 8>>(stream, "tuning_64x3x8", false);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("the test operators are associative and not commutative", "[template]") {
  check_algebra<affine32>("affine32", compose_affine32{}, random_affine32);
  check_algebra<mat2>("mat2", mat2_product{}, random_mat2);
  check_algebra<tagged_affine12>("tagged_affine12", host_compose<tagged_affine12>{}, random_tagged_affine12);
  check_algebra<tagged_affine4>("tagged_affine4", host_compose<tagged_affine4>{}, random_tagged_affine4);
}

TEST_CASE("template API rejects invalid arguments before launching", "[template]") {
  // Host only: validation happens before any device access, so fake (never
  // dereferenced) pointers are fine, and without a GPU nothing else would work.
  scankit::context ctx;
  auto* fake = reinterpret_cast<affine32*>(std::uintptr_t(1) << 20);
  const affine32 init{1, 0};
  const compose_affine32 op{};
  const std::size_t n = 1000;
  CHECK_THROWS_AS(scankit::device::inclusive_scan(ctx, static_cast<const affine32*>(nullptr), fake, n, op),
                  std::invalid_argument);
  CHECK_THROWS_AS(scankit::device::inclusive_scan(ctx, fake, static_cast<affine32*>(nullptr), n, op),
                  std::invalid_argument);
  CHECK_THROWS_AS(scankit::device::exclusive_scan(ctx, static_cast<const affine32*>(nullptr), fake, n, init, op),
                  std::invalid_argument);
  CHECK_THROWS_AS(scankit::device::inclusive_scan_init(ctx, fake, fake + 1, n, init, op), std::invalid_argument);
  CHECK_THROWS_AS(scankit::device::exclusive_scan(ctx, fake + 1, fake, n, init, op), std::invalid_argument);
  CHECK_THROWS_AS(scankit::device::inclusive_scan(ctx, fake, fake + n - 1, n, op), std::invalid_argument);
  CHECK_NOTHROW(scankit::device::inclusive_scan(ctx, static_cast<const affine32*>(nullptr), static_cast<affine32*>(nullptr), 0, op));
  CHECK_NOTHROW(scankit::device::exclusive_scan(ctx, static_cast<const affine32*>(nullptr), static_cast<affine32*>(nullptr), 0, init, op));
}
