// tests/test_devices.cu — scankit on every GPU of the machine: each primitive
// whose kernels need per-device settings (a dynamic shared-memory limit above
// 48 KB, resident blocks per SM) runs on each device in turn, checked against a
// host reference; a context refuses a device its storage is not on; a caller
// workspace must be device memory.
#include "support/cuda_check.hpp"
#include "support/random.hpp"
#include <scankit/scankit.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sktest;

namespace {

int device_count() {
  int count = 0;
  SKTEST_CUDA(cudaGetDeviceCount(&count));
  return count;
}

/// Makes `device` current for the scope, then the one before it again.
class current_device_scope {
 public:
  explicit current_device_scope(int device) {
    SKTEST_CUDA(cudaGetDevice(&before_));
    SKTEST_CUDA(cudaSetDevice(device));
  }
  ~current_device_scope() { CHECK(cudaSetDevice(before_) == cudaSuccess); }
  current_device_scope(const current_device_scope&) = delete;
  current_device_scope& operator=(const current_device_scope&) = delete;

 private:
  int before_ = 0;
};

/// Every primitive with per-device kernel settings once on the current
/// device, each against a host reference. Sizes reach the kernels with tiles
/// above 48 KB of shared memory (scan, compaction by byte flags, run-length
/// encoding) and several tiles of the others.
void run_every_primitive(int device) {
  CAPTURE(device);
  cuda_stream stream;
  scankit::context ctx(stream);
  rng r(case_seed("devices/" + std::to_string(device)));

  // Inclusive scan, multi-tile.
  const std::size_t n = (std::size_t(1) << 22) + 12345;
  std::vector<std::uint32_t> in(n);
  for (auto& v : in) v = std::uint32_t(r.below(1000));
  device_buffer<std::uint32_t> d_in(n), d_out(n);
  d_in.upload(in, stream);
  d_out.poison(stream);
  scankit::inclusive_scan(ctx, d_in.data(), d_out.data(), n);
  std::vector<std::uint32_t> expected(n);
  std::inclusive_scan(in.begin(), in.end(), expected.begin());
  CHECK(d_out.download(stream) == expected);

  // Compaction by byte flags (the 72 KB tiles of one block per SM).
  std::vector<std::uint8_t> flags(n);
  for (auto& f : flags) f = std::uint8_t(r.below(2));
  device_buffer<std::uint8_t> d_flags(n);
  d_flags.upload(flags, stream);
  d_out.poison(stream);
  const std::size_t kept = scankit::compact(ctx, d_in.data(), d_flags.data(), d_out.data(), n);
  expected.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (flags[i]) expected.push_back(in[i]);
  REQUIRE(kept == expected.size());
  CHECK(d_out.download(stream, 0, kept) == expected);

  // Run-length encoding (runs of 1 to 8 equal values).
  std::vector<std::uint32_t> runs_in(n);
  for (std::size_t i = 0; i < n;) {
    const std::size_t length = 1 + r.below(8);
    const std::uint32_t value = std::uint32_t(r.next());
    for (std::size_t k = 0; k < length && i < n; ++k) runs_in[i++] = value;
  }
  std::vector<std::uint32_t> unique_expected, lengths_expected;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || runs_in[i] != runs_in[i - 1]) {
      unique_expected.push_back(runs_in[i]);
      lengths_expected.push_back(0);
    }
    ++lengths_expected.back();
  }
  d_in.upload(runs_in, stream);
  d_out.poison(stream);
  device_buffer<std::uint32_t> d_lengths(n);
  d_lengths.poison(stream);
  const std::size_t runs = scankit::run_length_encode(ctx, d_in.data(), d_out.data(), d_lengths.data(), n);
  REQUIRE(runs == unique_expected.size());
  CHECK(d_out.download(stream, 0, runs) == unique_expected);
  CHECK(d_lengths.download(stream, 0, runs) == lengths_expected);

  // Reduce by key over the same runs: sums of the values 1.
  const std::vector<std::uint32_t> ones(n, 1);
  device_buffer<std::uint32_t> d_ones(n), d_sums(n);
  d_ones.upload(ones, stream);
  d_out.poison(stream);
  d_sums.poison(stream);
  const std::size_t keys = scankit::reduce_by_key(ctx, d_in.data(), d_ones.data(), n, d_out.data(), d_sums.data());
  REQUIRE(keys == unique_expected.size());
  CHECK(d_out.download(stream, 0, keys) == unique_expected);
  CHECK(d_sums.download(stream, 0, keys) == lengths_expected);

  // Segmented reduction and interval expansion over segments of 0 to 63
  // (about 31.5 items each: 100 000 of them fill about 3.15M of the n items).
  const std::size_t segments = 100000;
  std::vector<std::uint64_t> offsets(segments + 1, 0);
  for (std::size_t s = 0; s < segments; ++s) offsets[s + 1] = offsets[s] + r.below(64);
  const std::size_t total = offsets.back();
  REQUIRE(total <= n);
  device_buffer<std::uint64_t> d_offsets(segments + 1);
  d_offsets.upload(offsets, stream);
  d_in.upload(in, stream);
  device_buffer<std::uint32_t> d_segment_sums(segments);
  d_segment_sums.poison(stream);
  scankit::segmented_reduce(ctx, d_in.data(), total, d_offsets.data(), segments, d_segment_sums.data());
  std::vector<std::uint32_t> sums_expected(segments), expanded_expected(total);
  for (std::size_t s = 0; s < segments; ++s) {
    sums_expected[s] = std::accumulate(in.begin() + offsets[s], in.begin() + offsets[s + 1], std::uint32_t(0));
    std::fill(expanded_expected.begin() + offsets[s], expanded_expected.begin() + offsets[s + 1], in[s]);
  }
  CHECK(d_segment_sums.download(stream) == sums_expected);
  d_out.poison(stream);
  scankit::interval_expand(ctx, d_in.data(), d_offsets.data(), segments, total, d_out.data());
  CHECK(d_out.download(stream, 0, total) == expanded_expected);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

}  // namespace

TEST_CASE("every primitive runs on every device in turn", "[gpu][devices]") {
  const int devices = device_count();
  // Twice round: the second visit to a device reuses what the first set.
  for (int round = 0; round < 2; ++round)
    for (int device = 0; device < devices; ++device) {
      CAPTURE(round);
      current_device_scope on(device);
      run_every_primitive(device);
    }
}

TEST_CASE("a context refuses a device its storage is not on", "[gpu][devices]") {
  if (device_count() < 2) {
    WARN("one GPU: the refusal needs a second device to be tested");
    return;
  }
  const std::size_t n = std::size_t(1) << 20;
  std::vector<std::int32_t> in(n, 1);
  std::vector<std::int32_t> expected(n);
  std::iota(expected.begin(), expected.end(), 1);
  current_device_scope on_first(0);
  cuda_stream stream0;
  scankit::context ctx(stream0);
  device_buffer<std::int32_t> d_in0(n), d_out0(n);
  d_in0.upload(in, stream0);
  scankit::inclusive_scan(ctx, d_in0.data(), d_out0.data(), n);  // storage now on device 0
  CHECK(d_out0.download(stream0) == expected);
  {
    current_device_scope on_second(1);
    cuda_stream stream1;
    device_buffer<std::int32_t> d_in1(n), d_out1(n);
    d_in1.upload(in, stream1);
    d_out1.poison(stream1);
    CHECK_THROWS_AS(scankit::inclusive_scan(ctx, d_in1.data(), d_out1.data(), n), std::invalid_argument);
    CHECK_THROWS_WITH(scankit::inclusive_scan(ctx, d_in1.data(), d_out1.data(), n),
                      Catch::Contains("storage is on device 0") && Catch::Contains("device 1 is current"));
    CHECK(count_unpoisoned(download_bytes(d_out1.data(), d_out1.bytes(), stream1)) == 0);
    // A context of its own on the second device works.
    scankit::context ctx1(stream1);
    scankit::inclusive_scan(ctx1, d_in1.data(), d_out1.data(), n);
    CHECK(d_out1.download(stream1) == expected);
    SKTEST_REQUIRE_DEVICE_CLEAN();
  }
  // Back on its device, the first context still works.
  d_out0.poison(stream0);
  scankit::inclusive_scan(ctx, d_in0.data(), d_out0.data(), n);
  CHECK(d_out0.download(stream0) == expected);

  // A caller workspace on device 1 belongs to that device.
  {
    current_device_scope on_second(1);
    cuda_stream stream1;
    const std::size_t bytes = scankit::scan_workspace_bytes(n, sizeof(std::int32_t));
    device_buffer<unsigned char> d_ws1(bytes);
    scankit::context on_workspace(stream1, d_ws1.data(), bytes);
    current_device_scope back_on_first(0);
    CHECK_THROWS_AS(scankit::inclusive_scan(on_workspace, d_in0.data(), d_out0.data(), n), std::invalid_argument);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("a caller workspace must be device memory", "[gpu][devices][contract]") {
  constexpr std::size_t bytes = 1 << 16;
  // Pageable host memory, 256-byte aligned as the context asks.
  std::unique_ptr<void, decltype(&std::free)> host(std::aligned_alloc(256, bytes), &std::free);
  REQUIRE(host != nullptr);
  CHECK_THROWS_WITH(scankit::context(nullptr, host.get(), bytes), Catch::Contains("must be device memory"));
  // Pinned host memory.
  void* pinned = nullptr;
  SKTEST_CUDA(cudaMallocHost(&pinned, bytes));
  CHECK_THROWS_AS(scankit::context(nullptr, pinned, bytes), std::invalid_argument);
  SKTEST_CUDA(cudaFreeHost(pinned));
  // Managed memory is accepted, and works.
  void* managed = nullptr;
  SKTEST_CUDA(cudaMallocManaged(&managed, bytes));
  {
    scankit::context ctx(nullptr, managed, bytes);
    const std::size_t n = 100000;
    REQUIRE(scankit::scan_workspace_bytes(n, sizeof(std::int32_t)) <= bytes);
    device_buffer<std::int32_t> d_in(n), d_out(n);
    d_in.upload(std::vector<std::int32_t>(n, 2), nullptr);
    scankit::inclusive_scan(ctx, d_in.data(), d_out.data(), n);
    const std::vector<std::int32_t> out = d_out.download(nullptr);
    CHECK(out.front() == 2);
    CHECK(out.back() == std::int32_t(2 * n));
  }
  SKTEST_CUDA(cudaFree(managed));
  SKTEST_REQUIRE_DEVICE_CLEAN();
}
