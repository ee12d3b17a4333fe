// tests/test_host_api.cpp — PLAIN C++, compiled by the host compiler (g++),
// not nvcc: proves the host API is usable without nvcc, with nothing but
// <scankit/scankit.hpp> and the CUDA runtime API header.
//
// Host tests (run everywhere, also without a GPU): invalid arguments throw
// std::invalid_argument before any device access (so fake pointers are safe
// and no cuda_error can come first); n == 0 does nothing, even with null
// pointers; operator names; scan_workspace_bytes; numeric modes (names,
// rejected combinations, workspaces). A [nogpu] test checks, on a
// machine without a device, that a real call throws scankit::cuda_error that
// says so. [gpu] tests run int32 and double scans, and the selection
// primitives (compact, compact_if, partition_if, unique, run_length_encode),
// and one function of each ragged header (allocation_offsets,
// load_balancing_search, validate_offsets, segmented_reduce, reduce_by_key),
// from this file.
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>
#include <scankit/scankit.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using scankit::op;

const op all_ops[] = {op::plus, op::min, op::max, op::bit_and, op::bit_or, op::bit_xor};
const op arithmetic_ops[] = {op::plus, op::min, op::max};

/// A fake device pointer: validation must reject the call before using it.
template <class T>
T* fake(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

/// f() must throw std::invalid_argument whose message names `function`.
template <class F>
void expect_invalid_argument(F&& f, const char* function) {
  try {
    f();
    FAIL_CHECK("no exception; expected std::invalid_argument from " << function);
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains(function));
  } catch (const std::exception& e) {
    FAIL_CHECK("expected std::invalid_argument, got another exception: " << e.what());
  }
}

/// Every argument error for T and operator o, inclusive and exclusive.
template <class T>
void check_rejections(scankit::context& ctx, op o) {
  CAPTURE(scankit::to_string(o));
  T* a = fake<T>(0x10000000);
  T* b = fake<T>(0x40000000);  // 768 MiB after a: no overlap for n below
  const T* null_in = nullptr;
  T* null_out = nullptr;
  const std::size_t n = std::size_t(1) << 20;
  const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;  // n * sizeof(T) overflows
  const T init = T(1);
  auto incl = [&](const T* in, T* out, std::size_t m) { scankit::inclusive_scan(ctx, in, out, m, o); };
  auto excl = [&](const T* in, T* out, std::size_t m) { scankit::exclusive_scan(ctx, in, out, m, init, o); };

  expect_invalid_argument([&] { incl(null_in, b, n); }, "inclusive_scan");
  expect_invalid_argument([&] { incl(a, null_out, n); }, "inclusive_scan");
  expect_invalid_argument([&] { incl(null_in, null_out, 1); }, "inclusive_scan");
  expect_invalid_argument([&] { incl(a, a + 1, n); }, "inclusive_scan");
  expect_invalid_argument([&] { incl(a + 1, a, n); }, "inclusive_scan");
  expect_invalid_argument([&] { incl(a, a + n - 1, n); }, "inclusive_scan");
  expect_invalid_argument([&] { incl(a, b, huge); }, "inclusive_scan");
  expect_invalid_argument([&] { excl(null_in, b, n); }, "exclusive_scan");
  expect_invalid_argument([&] { excl(a, null_out, n); }, "exclusive_scan");
  expect_invalid_argument([&] { excl(a, a + 1, n); }, "exclusive_scan");
  expect_invalid_argument([&] { excl(a + 3, a, n); }, "exclusive_scan");
  expect_invalid_argument([&] { excl(a, b, huge); }, "exclusive_scan");
}

/// A bitwise operator on a floating type, with otherwise valid arguments.
template <class T>
void check_bitwise_rejected(scankit::context& ctx) {
  for (op o : {op::bit_and, op::bit_or, op::bit_xor}) {
    CAPTURE(scankit::to_string(o));
    T* a = fake<T>(0x10000000);
    T* b = fake<T>(0x40000000);
    expect_invalid_argument([&] { scankit::inclusive_scan(ctx, a, b, 1000, o); }, "inclusive_scan");
    expect_invalid_argument([&] { scankit::exclusive_scan(ctx, a, b, 1000, T(0), o); }, "exclusive_scan");
    expect_invalid_argument([&] { scankit::inclusive_scan(ctx, a, a, 1000, o); }, "inclusive_scan");
  }
}

/// n == 0: no exception, with null or fake pointers, for every valid operator.
template <class T>
void check_zero_size(scankit::context& ctx, const op* ops, std::size_t num_ops) {
  for (std::size_t k = 0; k < num_ops; ++k) {
    const op o = ops[k];
    CAPTURE(scankit::to_string(o));
    CHECK_NOTHROW(scankit::inclusive_scan(ctx, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), 0, o));
    CHECK_NOTHROW(scankit::exclusive_scan(ctx, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), 0, T(3), o));
    CHECK_NOTHROW(scankit::inclusive_scan(ctx, fake<T>(0x10000000), fake<T>(0x10000004), 0, o));
    CHECK_NOTHROW(scankit::exclusive_scan(ctx, fake<T>(0x10000000), fake<T>(0x10000000), 0, T(3), o));
  }
}

/// f() must throw scankit::cuda_error saying that there is no usable device.
template <class F>
void expect_no_device_error(F&& f) {
  try {
    f();
    FAIL_CHECK("no exception; expected scankit::cuda_error (no device)");
  } catch (const scankit::cuda_error& e) {
    INFO("what(): " << e.what());
    CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains("device", Catch::CaseSensitive::No));
    CHECK(e.code() != 0);
    CHECK_FALSE(e.call().empty());
  } catch (const std::exception& e) {
    FAIL_CHECK("expected scankit::cuda_error, got another exception: " << e.what());
  }
}

bool cuda_device_present() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) cudaGetLastError();
  return status == cudaSuccess && count > 0;
}

/// cudaMalloc'd array, freed on scope exit (plain C++, no test helpers here).
template <class T>
struct device_array {
  T* p = nullptr;
  explicit device_array(std::size_t n) { REQUIRE(cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(T)) == cudaSuccess); }
  ~device_array() { CHECK(cudaFree(p) == cudaSuccess); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
};

/// Scans `in` on the device with the host API and compares with a host loop
/// using accumulator type Acc (exact for the data used here).
template <class T, class Acc>
void check_device_scan(scankit::context& ctx, cudaStream_t stream, const std::vector<T>& in, op o, bool exclusive,
                       T init) {
  const std::size_t n = in.size();
  CAPTURE(n, scankit::to_string(o), exclusive);
  device_array<T> d_in(n), d_out(n);
  REQUIRE(cudaMemcpyAsync(d_in.p, in.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream) == cudaSuccess);
  REQUIRE(cudaMemsetAsync(d_out.p, 0xA5, n * sizeof(T), stream) == cudaSuccess);
  if (exclusive)
    scankit::exclusive_scan(ctx, d_in.p, d_out.p, n, init, o);
  else
    scankit::inclusive_scan(ctx, d_in.p, d_out.p, n, o);
  std::vector<T> got(n);
  REQUIRE(cudaMemcpyAsync(got.data(), d_out.p, n * sizeof(T), cudaMemcpyDeviceToHost, stream) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  REQUIRE(cudaGetLastError() == cudaSuccess);

  auto combine = [o](Acc a, Acc b) -> Acc {
    switch (o) {
      case op::plus: return a + b;
      case op::min: return b < a ? b : a;
      case op::max: return a < b ? b : a;
      default: return a;
    }
  };
  Acc acc = Acc(init);
  bool has = exclusive;
  std::size_t mismatches = 0, first = n;
  for (std::size_t i = 0; i < n; ++i) {
    T expected;
    if (exclusive) {
      expected = T(acc);
      acc = combine(acc, Acc(in[i]));
    } else {
      acc = has ? combine(acc, Acc(in[i])) : Acc(in[i]);
      has = true;
      expected = T(acc);
    }
    if (!(got[i] == expected) && mismatches++ == 0) first = i;
  }
  INFO("first mismatch at index " << first);
  CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("host API rejects invalid arguments before touching the device", "[host_api]") {
  // Runs without a GPU too: any device access first would throw cuda_error
  // instead of std::invalid_argument.
  scankit::context ctx;
  for (op o : all_ops) {
    check_rejections<std::int32_t>(ctx, o);
    check_rejections<std::uint32_t>(ctx, o);
    check_rejections<std::int64_t>(ctx, o);
    check_rejections<std::uint64_t>(ctx, o);
  }
  for (op o : arithmetic_ops) {
    check_rejections<float>(ctx, o);
    check_rejections<double>(ctx, o);
  }
  check_bitwise_rejected<float>(ctx);
  check_bitwise_rejected<double>(ctx);
}

TEST_CASE("host API with n == 0 does nothing even with null pointers", "[host_api]") {
  scankit::context ctx;
  check_zero_size<std::int32_t>(ctx, all_ops, 6);
  check_zero_size<std::uint32_t>(ctx, all_ops, 6);
  check_zero_size<std::int64_t>(ctx, all_ops, 6);
  check_zero_size<std::uint64_t>(ctx, all_ops, 6);
  check_zero_size<float>(ctx, arithmetic_ops, 3);
  check_zero_size<double>(ctx, arithmetic_ops, 3);
  scankit::context empty_workspace(nullptr, nullptr, 0);
  check_zero_size<std::int32_t>(empty_workspace, all_ops, 6);
}

TEST_CASE("a context moves its stream and leaves the source empty", "[host_api]") {
  // No device is touched: a context allocates nothing until a call needs it.
  const auto fake_stream = reinterpret_cast<cudaStream_t>(std::uintptr_t(0x1234));
  scankit::context a(fake_stream);
  scankit::context b(std::move(a));
  CHECK(b.stream() == fake_stream);
  CHECK(a.stream() == nullptr);  // NOLINT(bugprone-use-after-move): documented state
  scankit::context c;
  c = std::move(b);
  CHECK(c.stream() == fake_stream);
  CHECK(b.stream() == nullptr);  // NOLINT(bugprone-use-after-move)
  a = std::move(c);  // a moved-from context can be assigned to again
  CHECK(a.stream() == fake_stream);
}

TEST_CASE("to_string names every operator", "[host_api]") {
  CHECK(std::string(scankit::to_string(op::plus)) == "plus");
  CHECK(std::string(scankit::to_string(op::min)) == "min");
  CHECK(std::string(scankit::to_string(op::max)) == "max");
  CHECK(std::string(scankit::to_string(op::bit_and)) == "bit_and");
  CHECK(std::string(scankit::to_string(op::bit_or)) == "bit_or");
  CHECK(std::string(scankit::to_string(op::bit_xor)) == "bit_xor");
}

TEST_CASE("scan_workspace_bytes is zero for one tile and grows with n", "[host_api]") {
  for (std::size_t size : {std::size_t(4), std::size_t(8)}) {
    CAPTURE(size);
    CHECK(scankit::scan_workspace_bytes(0, size) == 0);
    CHECK(scankit::scan_workspace_bytes(1, size) == 0);
    CHECK(scankit::scan_workspace_bytes(32, size) == 0);
    // The one-tile threshold: 0 up to tile items, > 0 from tile + 1 on.
    std::size_t lo = 1, hi = std::size_t(1) << 24;  // bytes(lo) == 0, bytes(hi) > 0
    REQUIRE(scankit::scan_workspace_bytes(hi, size) > 0);
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (scankit::scan_workspace_bytes(mid, size) == 0 ? lo : hi) = mid;
    }
    const std::size_t tile = lo;
    CAPTURE(tile);
    CHECK(tile >= 256);  // a tile is at least one item per thread of a block
    for (std::size_t n = 1; n <= tile; n += 1 + n / 7) CHECK(scankit::scan_workspace_bytes(n, size) == 0);
    CHECK(scankit::scan_workspace_bytes(tile, size) == 0);
    // Never shrinks as n grows, and keeps growing.
    std::size_t previous = 0;
    for (std::size_t n = tile + 1; n < (std::size_t(1) << 40); n = n * 3 / 2 + 1) {
      const std::size_t bytes = scankit::scan_workspace_bytes(n, size);
      CAPTURE(n, bytes, previous);
      CHECK(bytes > 0);
      CHECK(bytes >= previous);
      previous = bytes;
    }
    CHECK(scankit::scan_workspace_bytes(std::size_t(1) << 24, size) > scankit::scan_workspace_bytes(std::size_t(1) << 20, size));
    CHECK(scankit::scan_workspace_bytes(std::size_t(1) << 30, size) > scankit::scan_workspace_bytes(std::size_t(1) << 24, size));
  }
  CHECK(scankit::scan_workspace_bytes(std::size_t(1) << 24, 8) >= scankit::scan_workspace_bytes(std::size_t(1) << 24, 4));
}

TEST_CASE("numeric modes from plain C++: names, rejected combinations, n == 0, workspaces", "[host_api]") {
  using scankit::numeric_mode;
  CHECK(std::string(scankit::to_string(numeric_mode::fast)) == "fast");
  CHECK(std::string(scankit::to_string(numeric_mode::run_to_run)) == "run_to_run");
  CHECK(std::string(scankit::to_string(numeric_mode::exact)) == "exact");
  CHECK(std::string(scankit::to_string(numeric_mode::compensated)) == "compensated");
  const scankit::scan_policy exact = scankit::with_numeric(numeric_mode::exact);
  CHECK(exact.grid == scankit::grid_strategy::decoupled_lookback);
  CHECK(exact.block == scankit::block_algorithm::warp_shuffle);
  CHECK(scankit::scan_policy{}.numeric == numeric_mode::fast);

  scankit::context ctx;
  float* a = fake<float>(0x10000000);
  float* b = fake<float>(0x40000000);
  for (numeric_mode mode : {numeric_mode::exact, numeric_mode::compensated}) {
    CAPTURE(scankit::to_string(mode));
    scankit::scan_policy p = scankit::with_numeric(mode);
    // Sums only ...
    expect_invalid_argument([&] { scankit::inclusive_scan(ctx, a, b, 1000, p, op::max); }, "inclusive_scan");
    expect_invalid_argument([&] { scankit::exclusive_scan(ctx, a, b, 1000, 0.0f, p, op::min); }, "exclusive_scan");
    // ... on the default policy only.
    p.block = scankit::block_algorithm::brent_kung;
    expect_invalid_argument([&] { scankit::inclusive_scan(ctx, a, b, 1000, p); }, "inclusive_scan");
    p = scankit::with_numeric(mode);
    p.grid = scankit::grid_strategy::reduce_then_scan;
    expect_invalid_argument([&] { scankit::exclusive_scan(ctx, a, b, 1000, 0.0f, p); }, "exclusive_scan");
    // Valid combinations with n == 0 do nothing.
    CHECK_NOTHROW(scankit::inclusive_scan(ctx, static_cast<const double*>(nullptr), nullptr, 0,
                                          scankit::with_numeric(mode)));
    // Many tiles need a workspace for their carries; one tile none.
    CHECK(scankit::scan_workspace_bytes(std::size_t(1) << 20, 4, mode) > 0);
    CHECK(scankit::scan_workspace_bytes(std::size_t(1) << 20, 8, mode) > 0);
    CHECK(scankit::scan_workspace_bytes(1, 4, mode) == 0);
  }
  CHECK_NOTHROW(scankit::inclusive_scan(ctx, static_cast<const float*>(nullptr), nullptr, 0,
                                        scankit::with_numeric(numeric_mode::run_to_run), op::max));
  CHECK(scankit::scan_workspace_bytes(std::size_t(1) << 20, 4, numeric_mode::fast) ==
        scankit::scan_workspace_bytes(std::size_t(1) << 20, 4));
}

TEST_CASE("without a device a scan throws cuda_error naming the device", "[nogpu]") {
  if (cuda_device_present()) {
    SUCCEED("a CUDA device is present: this test only checks the no-device error");
    return;
  }
  scankit::context ctx;
  const std::size_t n = std::size_t(1) << 20;
  auto* in = fake<std::int32_t>(0x10000000);
  auto* out = fake<std::int32_t>(0x40000000);
  expect_no_device_error([&] { scankit::inclusive_scan(ctx, in, out, n); });
  expect_no_device_error([&] { scankit::exclusive_scan(ctx, in, out, n, 0); });
  expect_no_device_error([&] { scankit::inclusive_scan(ctx, in, out, 1); });  // one tile: still needs a device
  expect_no_device_error([&] { scankit::inclusive_scan(ctx, fake<double>(0x10000000), fake<double>(0x40000000), n); });
  // The error is not sticky in a bad way: the same context says the same again.
  expect_no_device_error([&] { scankit::inclusive_scan(ctx, in, out, n, op::max); });
}

TEST_CASE("host API scans run from a plain C++ translation unit", "[gpu][host_api]") {
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  struct stream_guard {
    cudaStream_t s;
    ~stream_guard() { CHECK(cudaStreamDestroy(s) == cudaSuccess); }
  } guard{stream};
  scankit::context ctx(stream);

  const unsigned seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> value(1, 1000);
  auto nonzero = [&](int limit) { return (gen() & 1 ? 1 : -1) * (1 + value(gen) % limit); };
  for (std::size_t n : {std::size_t(1), std::size_t(1000), (std::size_t(1) << 20) + 3}) {
    // int32: |x| <= 100, so no partial sum overflows; int64 host accumulator.
    std::vector<std::int32_t> i32(n);
    for (auto& x : i32) x = nonzero(100);
    check_device_scan<std::int32_t, std::int64_t>(ctx, stream, i32, op::plus, false, 0);
    check_device_scan<std::int32_t, std::int64_t>(ctx, stream, i32, op::plus, true, -17);
    check_device_scan<std::int32_t, std::int64_t>(ctx, stream, i32, op::max, true, -5);
    // double: integers |x| <= 1000, so every partial sum is exact (< 2^53).
    std::vector<double> f64(n);
    for (auto& x : f64) x = nonzero(1000);
    check_device_scan<double, double>(ctx, stream, f64, op::plus, false, 0.0);
    check_device_scan<double, double>(ctx, stream, f64, op::plus, true, 2.5);
    check_device_scan<double, double>(ctx, stream, f64, op::min, false, 0.0);
  }
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("host API selection runs from a plain C++ translation unit", "[gpu][host_api]") {
  // compact (bool flags), compact_if with a builder predicate, partition,
  // unique and run_length_encode, each against a loop over the same data.
  scankit::context ctx;
  const unsigned seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937 gen(seed);
  const std::size_t n = 100003;
  std::vector<float> in(n);
  std::vector<std::uint8_t> flags(n);  // bytes of 0/1, handed over as bool
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = float(gen() % 16) - 4.0f;  // runs of equal neighbours happen
    flags[i] = gen() % 3 == 0;
  }
  float *d_in = nullptr, *d_out = nullptr;
  bool* d_flags = nullptr;
  std::uint32_t* d_lengths = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&d_in), n * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&d_out), n * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&d_flags), n) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&d_lengths), n * sizeof(std::uint32_t)) == cudaSuccess);
  REQUIRE(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(d_flags, flags.data(), n, cudaMemcpyHostToDevice) == cudaSuccess);
  auto download = [&](std::size_t count) {
    std::vector<float> h(count);
    REQUIRE(cudaMemcpy(h.data(), d_out, count * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    return h;
  };

  std::vector<float> expected;
  for (std::size_t i = 0; i < n; ++i)
    if (flags[i]) expected.push_back(in[i]);
  CHECK(download(scankit::compact(ctx, d_in, d_flags, d_out, n)) == expected);

  expected.clear();
  for (float x : in)
    if (x > 2.0f) expected.push_back(x);
  CHECK(download(scankit::compact_if(ctx, d_in, d_out, n, scankit::greater(2))) == expected);

  for (float x : in)
    if (!(x > 2.0f)) expected.push_back(x);
  CHECK(scankit::partition_if(ctx, d_in, d_out, n, scankit::greater(2.0f)) < n);
  CHECK(download(n) == expected);

  expected.clear();
  std::vector<std::uint32_t> lengths;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || in[i] != in[i - 1]) expected.push_back(in[i]), lengths.push_back(0);
    ++lengths.back();
  }
  CHECK(download(scankit::unique(ctx, d_in, d_out, n)) == expected);
  const std::size_t runs = scankit::run_length_encode(ctx, d_in, d_out, d_lengths, n);
  CHECK(download(runs) == expected);
  std::vector<std::uint32_t> got_lengths(runs);
  REQUIRE(cudaMemcpy(got_lengths.data(), d_lengths, runs * sizeof(std::uint32_t), cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  CHECK(got_lengths == lengths);
  for (void* p : {static_cast<void*>(d_in), static_cast<void*>(d_out), static_cast<void*>(d_flags),
                  static_cast<void*>(d_lengths)})
    CHECK(cudaFree(p) == cudaSuccess);
}

TEST_CASE("the ragged host API rejects invalid arguments before touching the device", "[host_api]") {
  // One call per header (allocation.hpp, expand.hpp, offsets.hpp,
  // segmented_reduce.hpp, reduce_by_key.hpp); runs without a GPU too.
  scankit::context ctx;
  auto* sizes = fake<std::uint32_t>(0x10000000);
  auto* offsets32 = fake<std::int32_t>(0x70000000);
  auto* values = fake<float>(0xA0000000);
  auto* out = fake<float>(0xD0000000);
  const std::size_t n = 1000;
  expect_invalid_argument([&] { scankit::allocation_offsets(ctx, sizes, n, static_cast<std::uint64_t*>(nullptr)); },
                          "allocation_offsets");
  expect_invalid_argument([&] { scankit::allocation_offsets(ctx, sizes, n, reinterpret_cast<std::uint64_t*>(sizes + 1)); },
                          "allocation_offsets");
  expect_invalid_argument([&] { scankit::load_balancing_search(ctx, offsets32, 0, 5, fake<std::int32_t>(0xD0000000)); },
                          "load_balancing_search");
  expect_invalid_argument(
      [&] { scankit::interval_expand(ctx, values, offsets32, n, std::size_t(1) << 31, out); }, "interval_expand");
  expect_invalid_argument([&] { scankit::validate_offsets(ctx, static_cast<const std::int64_t*>(nullptr), n, n); },
                          "validate_offsets");
  expect_invalid_argument([&] { scankit::segmented_reduce(ctx, values, n, offsets32, 10, out, op::bit_and); },
                          "segmented_reduce");
  expect_invalid_argument([&] { scankit::segmented_reduce(ctx, values, n, offsets32, 10, values + 3, op::plus); },
                          "segmented_reduce");
  expect_invalid_argument(
      [&] { scankit::reduce_by_key_async(ctx, offsets32, values, n, fake<std::int32_t>(0xD0000000), out, nullptr); },
      "reduce_by_key_async");
  expect_invalid_argument([&] { scankit::reduce_by_key(ctx, offsets32, values, n, offsets32 + 1, out); },
                          "reduce_by_key");
}

TEST_CASE("the ragged host API runs from a plain C++ translation unit", "[gpu][host_api]") {
  // allocation offsets → expand → segmented reduction → reduce-by-key on one
  // small CSR structure, each against a host loop; validate_offsets on it.
  scankit::context ctx;
  const unsigned seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937 gen(seed);
  const std::size_t segments = 20011;
  std::vector<std::uint32_t> sizes(segments);
  for (auto& s : sizes) s = gen() % 4 == 0 ? 0u : std::uint32_t(gen() % 40);
  std::vector<std::uint64_t> offsets(segments + 1, 0);
  for (std::size_t i = 0; i < segments; ++i) offsets[i + 1] = offsets[i] + sizes[i];
  const std::size_t total = offsets[segments];

  device_array<std::uint32_t> d_sizes(segments);
  device_array<std::uint64_t> d_offsets(segments + 1), d_source(total);
  device_array<std::int32_t> d_values(total), d_sums(segments), d_run_sums(total);
  device_array<std::uint64_t> d_run_keys(total);
  REQUIRE(cudaMemcpy(d_sizes.p, sizes.data(), segments * sizeof(std::uint32_t), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemset(d_offsets.p, 0xA5, (segments + 1) * sizeof(std::uint64_t)) == cudaSuccess);

  // allocation.hpp
  CHECK(scankit::allocation_offsets(ctx, d_sizes.p, segments, d_offsets.p) == total);
  std::vector<std::uint64_t> got_offsets(segments + 1);
  REQUIRE(cudaMemcpy(got_offsets.data(), d_offsets.p, (segments + 1) * sizeof(std::uint64_t), cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  CHECK(got_offsets == offsets);

  // offsets.hpp
  CHECK_NOTHROW(scankit::validate_offsets(ctx, d_offsets.p, segments, total));
  CHECK_THROWS_AS(scankit::validate_offsets(ctx, d_offsets.p, segments, total - 1), std::invalid_argument);

  // expand.hpp
  scankit::load_balancing_search(ctx, d_offsets.p, segments, total, d_source.p);
  std::vector<std::uint64_t> source(total), expected_source;
  REQUIRE(cudaMemcpy(source.data(), d_source.p, total * sizeof(std::uint64_t), cudaMemcpyDeviceToHost) == cudaSuccess);
  for (std::size_t i = 0; i < segments; ++i) expected_source.insert(expected_source.end(), sizes[i], i);
  CHECK(source == expected_source);

  // segmented_reduce.hpp: values |x| <= 100, int64 host accumulator.
  std::vector<std::int32_t> values(total);
  for (auto& v : values) v = int(gen() % 201) - 100;
  REQUIRE(cudaMemcpy(d_values.p, values.data(), total * sizeof(std::int32_t), cudaMemcpyHostToDevice) == cudaSuccess);
  scankit::segmented_reduce(ctx, d_values.p, total, d_offsets.p, segments, d_sums.p, op::plus, std::int32_t(7));
  std::vector<std::int32_t> sums(segments), expected_sums(segments);
  REQUIRE(cudaMemcpy(sums.data(), d_sums.p, segments * sizeof(std::int32_t), cudaMemcpyDeviceToHost) == cudaSuccess);
  for (std::size_t i = 0; i < segments; ++i) {
    std::int64_t acc = 7;
    for (std::uint64_t k = offsets[i]; k < offsets[i + 1]; ++k) acc += values[k];
    expected_sums[i] = std::int32_t(acc);
  }
  CHECK(sums == expected_sums);

  // reduce_by_key.hpp: the sources as keys give one run per non-empty
  // segment, reduced without init.
  const std::size_t runs = scankit::reduce_by_key(ctx, d_source.p, d_values.p, total, d_run_keys.p, d_run_sums.p);
  std::vector<std::uint64_t> run_keys(runs), expected_keys;
  std::vector<std::int32_t> run_sums(runs), expected_run_sums;
  for (std::size_t i = 0; i < segments; ++i)
    if (sizes[i] != 0) {
      expected_keys.push_back(i);
      expected_run_sums.push_back(expected_sums[i] - 7);
    }
  REQUIRE(runs == expected_keys.size());
  REQUIRE(cudaMemcpy(run_keys.data(), d_run_keys.p, runs * sizeof(std::uint64_t), cudaMemcpyDeviceToHost) == cudaSuccess);
  REQUIRE(cudaMemcpy(run_sums.data(), d_run_sums.p, runs * sizeof(std::int32_t), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(run_keys == expected_keys);
  CHECK(run_sums == expected_run_sums);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaGetLastError() == cudaSuccess);
}
