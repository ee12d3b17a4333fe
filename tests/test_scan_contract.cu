// tests/test_scan_contract.cu — the scan's contract beyond "right numbers for
// a plain call": in-place scans; misaligned pointers (scalar path) with guard
// zones around the output; adjacent vs overlapping ranges; n == 0 launches
// nothing (checked by capturing it into a graph); one context reused across
// interleaved types and growing/shrinking sizes (cached status words and
// their per-launch tags); two contexts on two streams at once; CUDA graph
// capture and replay with fresh input, also while the context grows its
// storage during capture, and storage grown under capture being ready for a
// direct call before the graph first runs; caller-provided workspaces, and too-small ones
// failing before any launch; integer results identical run to run; and one
// [large] uint32 scan past 2^31 items (64-bit indexing), checked in full.
#include "support/cuda_check.hpp"
#include "support/random.hpp"
#include "support/reference.hpp"

#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/device/operators.cuh>
#include <scankit/device/scan.cuh>
#include <scankit/scankit.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace sktest;

template <class T>
constexpr std::size_t default_tile = scankit::detail::tile_items<T, scankit::detail::default_scan_tuning<T>>;

// ---- one host API scan case: its data, its call, its check -----------------

template <class T>
struct host_case {
  scankit::op o = scankit::op::plus;
  scan_mode mode = scan_mode::inclusive;
  std::size_t n = 0;
  std::uint64_t seed = 0;
  std::vector<T> in;
  T init{};

  std::string describe() const {
    return std::string(type_name<T>()) + " " + scankit::to_string(o) + " " + to_string(mode) + " n=" +
           std::to_string(n) + " seed=" + std::to_string(seed) +
           (mode == scan_mode::exclusive ? " init=" + format_value(init) : std::string());
  }
};

/// Fresh data for one case; `key` names the test so seeds differ between tests.
template <class T>
host_case<T> make_case(scankit::op o, bool exclusive, std::size_t n, const std::string& key) {
  host_case<T> c;
  c.o = o;
  c.mode = exclusive ? scan_mode::exclusive : scan_mode::inclusive;
  c.n = n;
  c.seed = case_seed(key + "/" + type_name<T>() + "/" + scankit::to_string(o) + "/" + to_string(c.mode) + "/" +
                     std::to_string(n));
  rng r(c.seed);
  c.in = make_input<T>(n, kind_for(o), r);
  c.init = make_init<T>(o, kind_for(o), r);
  return c;
}

/// Enqueues the case's host API call on ctx.
template <class T>
void run_scan(scankit::context& ctx, const host_case<T>& c, const T* d_in, T* d_out) {
  if (c.mode == scan_mode::exclusive)
    scankit::exclusive_scan(ctx, d_in, d_out, c.n, c.init, c.o);
  else
    scankit::inclusive_scan(ctx, d_in, d_out, c.n, c.o);
}

/// CHECKs `got` against the host reference (float sums with the tolerance).
template <class T>
void expect_correct(const host_case<T>& c, const std::vector<T>& got, const std::string& what) {
  const auto ref = reference_scan(c.in, c.o, c.mode, c.init);
  const bool tolerant = std::is_floating_point_v<T> && c.o == scankit::op::plus;
  const scan_check chk = compare_scan(got, ref, c.in, c.mode, c.init, tolerant ? scankit_depth_bound<T>(c.n) : 0.0);
  INFO(what << ": " << c.describe() << "\n" << chk.report);
  CHECK(chk.ok());
}

/// One scan with its own buffers, in three steps, so that many can be in
/// flight on a stream at once.
struct scan_job {
  virtual ~scan_job() = default;
  virtual void prepare(cudaStream_t stream) = 0;      // upload input, poison output, wait
  virtual void enqueue(scankit::context& ctx) = 0;    // the scan, asynchronous
  virtual void verify(cudaStream_t stream, const std::string& what) = 0;  // download + CHECK
};

template <class T>
struct typed_scan_job final : scan_job {
  host_case<T> c;
  device_buffer<T> d_in, d_out;
  explicit typed_scan_job(host_case<T> hc) : c(std::move(hc)), d_in(c.n), d_out(c.n) {}
  void prepare(cudaStream_t stream) override {
    d_in.upload(c.in, stream);
    d_out.poison(stream);
    SKTEST_CUDA(cudaStreamSynchronize(stream));
  }
  void enqueue(scankit::context& ctx) override {
    INFO(c.describe());
    REQUIRE_NOTHROW(run_scan(ctx, c, d_in.data(), d_out.data()));
  }
  void verify(cudaStream_t stream, const std::string& what) override { expect_correct(c, d_out.download(stream), what); }
};

template <class T>
std::unique_ptr<scan_job> make_job(scankit::op o, bool exclusive, std::size_t n, const std::string& key) {
  return std::make_unique<typed_scan_job<T>>(make_case<T>(o, exclusive, n, key));
}

// ---- in place, offsets -------------------------------------------------------

template <class T>
void check_in_place(scankit::context& ctx, cudaStream_t stream, scankit::op o, bool exclusive, std::size_t n) {
  const host_case<T> c = make_case<T>(o, exclusive, n, "in_place");
  device_buffer<T> d(n);
  d.upload(c.in, stream);
  run_scan(ctx, c, d.data(), d.data());
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());
  expect_correct(c, d.download(stream), "in place (d_out == d_in)");
}

/// Scans with d_in = in_base + in_offset and d_out = out_base + guard +
/// out_offset (element offsets). The whole output allocation is poisoned
/// first: afterwards the `guard` elements before and after [d_out, d_out + n)
/// must still be poison, and the input must be unchanged.
template <class T>
void check_offsets(scankit::context& ctx, cudaStream_t stream, scankit::op o, bool exclusive, std::size_t n,
                   std::size_t in_offset, std::size_t out_offset) {
  constexpr std::size_t guard = 64;  // a multiple of 16 bytes for every T here
  CAPTURE(in_offset, out_offset);
  const host_case<T> c = make_case<T>(o, exclusive, n, "offsets/" + std::to_string(in_offset) + "/" + std::to_string(out_offset));
  device_buffer<T> in_base(in_offset + n + guard), out_base(guard + out_offset + n + guard);
  in_base.poison(stream);
  in_base.upload(c.in, stream, in_offset);
  out_base.poison(stream);
  const T* d_in = in_base.data() + in_offset;
  T* d_out = out_base.data() + guard + out_offset;
  INFO("d_in % 16 = " << reinterpret_cast<std::uintptr_t>(d_in) % 16 << ", d_out % 16 = "
                      << reinterpret_cast<std::uintptr_t>(d_out) % 16);
  run_scan(ctx, c, d_in, d_out);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());

  expect_correct(c, out_base.download(stream, guard + out_offset, n), "offset pointers");
  const std::size_t before = (guard + out_offset) * sizeof(T), after = guard * sizeof(T);
  const std::vector<unsigned char> all = download_bytes(out_base.data(), out_base.bytes(), stream);
  const std::vector<unsigned char> head(all.begin(), all.begin() + before), tail(all.end() - after, all.end());
  CHECK(count_unpoisoned(head) == 0);  // nothing written before d_out
  CHECK(count_unpoisoned(tail) == 0);  // nothing written after d_out + n
  const bool input_untouched = in_base.download(stream, in_offset, n) == c.in;
  CHECK(input_untouched);
}

// ---- graphs -------------------------------------------------------------------

/// Begins a global-mode capture of `stream`; end() returns the graph. If the
/// test fails during capture, the destructor ends it so the stream is usable.
class stream_capture {
 public:
  explicit stream_capture(cudaStream_t stream) : stream_(stream) {
    SKTEST_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
    active_ = true;
  }
  ~stream_capture() {
    if (!active_) return;
    cudaGraph_t g = nullptr;
    cudaStreamEndCapture(stream_, &g);
    if (g != nullptr) cudaGraphDestroy(g);
    cudaGetLastError();
  }
  stream_capture(const stream_capture&) = delete;
  stream_capture& operator=(const stream_capture&) = delete;

  cudaGraph_t end() {
    active_ = false;
    cudaGraph_t g = nullptr;
    SKTEST_CUDA(cudaStreamEndCapture(stream_, &g));
    REQUIRE(g != nullptr);
    return g;
  }

 private:
  cudaStream_t stream_;
  bool active_ = false;
};

struct graph {
  cudaGraph_t g = nullptr;
  ~graph() {
    if (g != nullptr) CHECK(cudaGraphDestroy(g) == cudaSuccess);
  }
  std::size_t num_nodes() const {
    std::size_t count = 0;
    SKTEST_CUDA(cudaGraphGetNodes(g, nullptr, &count));
    return count;
  }
};

struct graph_exec {
  cudaGraphExec_t e = nullptr;
  explicit graph_exec(cudaGraph_t g) { SKTEST_CUDA(cudaGraphInstantiate(&e, g, 0)); }
  ~graph_exec() {
    if (e != nullptr) CHECK(cudaGraphExecDestroy(e) == cudaSuccess);
  }
  void launch(cudaStream_t stream) const { SKTEST_CUDA(cudaGraphLaunch(e, stream)); }
};

/// The same operation with new input data: same op/mode/n/init as `c`, new values.
template <class T>
host_case<T> with_fresh_input(host_case<T> c, const std::string& key) {
  c.seed = case_seed(key);
  rng r(c.seed);
  c.in = make_input<T>(c.n, kind_for(c.o), r);
  return c;
}

// ---- the large case -------------------------------------------------------------

__global__ void fill_hash_u32(std::uint32_t* d, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) d[i] = hash_u32(seed, i);
}

}  // namespace

TEST_CASE("in-place scans are correct at multi-tile sizes", "[gpu][contract]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (bool exclusive : {false, true}) {
    for (std::size_t k : {std::size_t(5), std::size_t(100)}) {
      check_in_place<std::int32_t>(ctx, stream, scankit::op::plus, exclusive, k * default_tile<std::int32_t> + 3);
      check_in_place<float>(ctx, stream, scankit::op::plus, exclusive, k * default_tile<float> + 1);
      check_in_place<std::uint64_t>(ctx, stream, scankit::op::bit_xor, exclusive, k * default_tile<std::uint64_t> - 1);
      check_in_place<double>(ctx, stream, scankit::op::max, exclusive, k * default_tile<double> + 7);
    }
    check_in_place<std::int32_t>(ctx, stream, scankit::op::plus, exclusive, 4 * default_tile<std::int32_t>);
    check_in_place<std::int64_t>(ctx, stream, scankit::op::plus, exclusive, 4 * default_tile<std::int64_t>);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("misaligned pointers are scanned correctly and nothing outside the output is written", "[gpu][contract]") {
  // Offsets of 1 or 3 elements make a pointer not 16-byte aligned, so that
  // side takes scalar loads or stores: (1, 3) and (3, 1) scalar both ways,
  // (0, 3) 16-byte loads with scalar stores, (1, 0) the reverse, (0, 0) the
  // vector path as control. 4·tile has only full tiles, so the full-tile
  // (otherwise vectorized) code runs with each combination.
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::vector<std::pair<std::size_t, std::size_t>> offsets{{1, 3}, {0, 3}, {1, 0}, {3, 1}, {0, 0}};
  for (const auto& [in_offset, out_offset] : offsets)
    for (bool exclusive : {false, true}) {
      for (std::size_t n : {std::size_t(33), 4 * default_tile<std::uint32_t>, 4 * default_tile<std::uint32_t> + 5}) {
        check_offsets<std::uint32_t>(ctx, stream, scankit::op::plus, exclusive, n, in_offset, out_offset);
        check_offsets<float>(ctx, stream, scankit::op::max, exclusive, n, in_offset, out_offset);
      }
      for (std::size_t n : {std::size_t(33), 4 * default_tile<std::int64_t>, 4 * default_tile<std::int64_t> + 5}) {
        check_offsets<std::int64_t>(ctx, stream, scankit::op::plus, exclusive, n, in_offset, out_offset);
        check_offsets<double>(ctx, stream, scankit::op::plus, exclusive, n, in_offset, out_offset);
      }
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("adjacent input and output ranges are allowed and overlapping ones are rejected", "[gpu][contract]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::size_t n = 3 * default_tile<std::int32_t> + 11;
  for (bool exclusive : {false, true}) {
    CAPTURE(exclusive);
    const host_case<std::int32_t> c = make_case<std::int32_t>(scankit::op::plus, exclusive, n, "adjacent");
    device_buffer<std::int32_t> buffer(2 * n);
    buffer.poison(stream);
    buffer.upload(c.in, stream);

    // d_out = d_in + n: touching, not overlapping: allowed.
    run_scan(ctx, c, buffer.data(), buffer.data() + n);
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    SKTEST_CUDA(cudaGetLastError());
    expect_correct(c, buffer.download(stream, n, n), "d_out = d_in + n");
    const bool input_untouched = buffer.download(stream, 0, n) == c.in;
    CHECK(input_untouched);

    // Partial overlaps either way: std::invalid_argument, nothing launched.
    const std::vector<std::int32_t> before = buffer.download(stream);
    CHECK_THROWS_AS(run_scan(ctx, c, buffer.data(), buffer.data() + 1), std::invalid_argument);
    CHECK_THROWS_AS(run_scan(ctx, c, buffer.data() + 1, buffer.data()), std::invalid_argument);
    CHECK_THROWS_AS(run_scan(ctx, c, buffer.data(), buffer.data() + n - 1), std::invalid_argument);
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    const bool buffer_untouched = buffer.download(stream) == before;
    CHECK(buffer_untouched);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("n == 0 launches nothing and leaves the output untouched", "[gpu][contract][sanitize]") {
  cuda_stream stream;
  scankit::context fresh_ctx(stream);  // never used with n > 0: must stay untouched too
  device_buffer<std::int32_t> d_in32(64), d_out32(64);
  device_buffer<double> d_in64(64), d_out64(64);
  for (auto* b : {&d_in32, &d_out32}) b->poison(stream);
  for (auto* b : {&d_in64, &d_out64}) b->poison(stream);
  SKTEST_CUDA(cudaStreamSynchronize(stream));

  auto zero_size_calls = [&](scankit::context& ctx) {
    for (scankit::op o : {scankit::op::plus, scankit::op::min, scankit::op::max, scankit::op::bit_and,
                          scankit::op::bit_or, scankit::op::bit_xor}) {
      CAPTURE(scankit::to_string(o));
      CHECK_NOTHROW(scankit::inclusive_scan(ctx, d_in32.data(), d_out32.data(), 0, o));
      CHECK_NOTHROW(scankit::exclusive_scan(ctx, d_in32.data(), d_out32.data(), 0, 42, o));
      CHECK_NOTHROW(scankit::inclusive_scan(ctx, static_cast<const std::int32_t*>(nullptr), nullptr, 0, o));
      CHECK_NOTHROW(scankit::exclusive_scan(ctx, static_cast<const std::uint64_t*>(nullptr), nullptr, 0,
                                            std::uint64_t(7), o));
    }
    for (scankit::op o : {scankit::op::plus, scankit::op::min, scankit::op::max}) {
      CHECK_NOTHROW(scankit::inclusive_scan(ctx, d_in64.data(), d_out64.data(), 0, o));
      CHECK_NOTHROW(scankit::exclusive_scan(ctx, d_in64.data(), d_out64.data(), 0, 0.5, o));
      CHECK_NOTHROW(scankit::inclusive_scan(ctx, static_cast<const float*>(nullptr), nullptr, 0, o));
      CHECK_NOTHROW(scankit::exclusive_scan(ctx, static_cast<const double*>(nullptr), nullptr, 0, 1.0, o));
    }
    CHECK_NOTHROW(scankit::device::inclusive_scan(ctx, d_in32.data(), d_out32.data(), 0, scankit::device::plus{}));
  };

  SECTION("no node is captured into a graph") {
    graph g;
    {
      stream_capture capture(stream);
      zero_size_calls(fresh_ctx);
      g.g = capture.end();
    }
    CHECK(g.num_nodes() == 0);
  }
  SECTION("outside capture too") {
    scankit::context warm_ctx(stream);
    zero_size_calls(warm_ctx);
  }
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  CHECK(count_unpoisoned(download_bytes(d_out32.data(), d_out32.bytes(), stream)) == 0);
  CHECK(count_unpoisoned(download_bytes(d_out64.data(), d_out64.bytes(), stream)) == 0);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("one context stays correct across interleaved types and sizes", "[gpu][contract]") {
  // Every call below reuses the context's cached status words: bigger and
  // smaller launches, packed (4-byte) and paired (8-byte) layouts, the same size
  // twice in a row. All are enqueued back to back with no synchronization, so
  // only the per-launch tags keep one launch's words from another's.
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::size_t t4 = default_tile<std::int32_t>, t8 = default_tile<std::int64_t>;
  std::vector<std::unique_ptr<scan_job>> jobs;
  for (std::size_t round = 0; round < 3; ++round) {
    const std::string key = "interleaved/" + std::to_string(round);
    const std::size_t d = 17 * round;  // sizes differ a little per round
    jobs.push_back(make_job<std::int32_t>(scankit::op::plus, false, 100 * t4 + 1 + d, key));
    jobs.push_back(make_job<std::int64_t>(scankit::op::plus, true, 3 * t8 + 7 + d, key));
    jobs.push_back(make_job<float>(scankit::op::max, false, (std::size_t(1) << 20) - d, key));
    jobs.push_back(make_job<std::int32_t>(scankit::op::plus, false, 33 + d, key));  // one tile
    jobs.push_back(make_job<std::uint64_t>(scankit::op::bit_xor, false, 40 * t8 + d, key));
    jobs.push_back(make_job<double>(scankit::op::plus, true, 7 * t8 - 1 + d, key));
    jobs.push_back(make_job<std::int32_t>(scankit::op::min, true, 2 * t4 + 1 + d, key));
    jobs.push_back(make_job<std::uint32_t>(scankit::op::plus, false, (std::size_t(1) << 21) + d, key));
    jobs.push_back(make_job<std::int32_t>(scankit::op::plus, true, 5 * t4 + d, key));
    jobs.push_back(make_job<std::int32_t>(scankit::op::plus, true, 5 * t4 + d, key + "/again"));  // same size again
    jobs.push_back(make_job<std::int64_t>(scankit::op::max, false, 1000003 + d, key));
    jobs.push_back(make_job<float>(scankit::op::plus, true, 12345 + d, key));
    jobs.push_back(make_job<std::uint32_t>(scankit::op::bit_and, true, 2 * t4 - 1 + d, key));
  }
  for (auto& j : jobs) j->prepare(stream);
  for (auto& j : jobs) j->enqueue(ctx);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());
  for (auto& j : jobs) j->verify(stream, "interleaved, asynchronous");

  // Once more in reverse order, each waited for and checked before the next.
  for (auto it = jobs.rbegin(); it != jobs.rend(); ++it) {
    (*it)->prepare(stream);
    (*it)->enqueue(ctx);
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    (*it)->verify(stream, "interleaved, reverse order, one at a time");
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("two contexts on two streams run concurrently", "[gpu][contract]") {
  cuda_stream s1, s2;
  scankit::context ctx1(s1), ctx2(s2);
  std::vector<std::unique_ptr<scan_job>> jobs1, jobs2;
  for (std::size_t i = 0; i < 8; ++i) {
    const std::string key = "two_streams/" + std::to_string(i);
    const std::size_t n = (std::size_t(1) << 20) + 1000 * i + 1;
    jobs1.push_back(make_job<std::int32_t>(scankit::op::plus, i % 2 == 1, n, key + "/a"));
    if (i % 2 == 0)
      jobs2.push_back(make_job<std::int64_t>(scankit::op::plus, i % 4 == 0, n / 2, key + "/b"));
    else
      jobs2.push_back(make_job<std::uint32_t>(scankit::op::bit_xor, i % 4 == 1, 2 * n, key + "/b"));
  }
  for (auto& j : jobs1) j->prepare(s1);
  for (auto& j : jobs2) j->prepare(s2);
  for (std::size_t i = 0; i < jobs1.size(); ++i) {
    jobs1[i]->enqueue(ctx1);
    jobs2[i]->enqueue(ctx2);
  }
  s1.synchronize();
  s2.synchronize();
  SKTEST_CUDA(cudaGetLastError());
  for (auto& j : jobs1) j->verify(s1, "context 1 on stream 1");
  for (auto& j : jobs2) j->verify(s2, "context 2 on stream 2");
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("a scan captured into a CUDA graph is correct on every replay", "[gpu][contract][graph]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::size_t n = (std::size_t(1) << 20) + 5;
  host_case<std::uint32_t> incl = make_case<std::uint32_t>(scankit::op::plus, false, n, "graph/warm");
  host_case<std::uint32_t> excl = make_case<std::uint32_t>(scankit::op::plus, true, n, "graph/warm");
  device_buffer<std::uint32_t> d_in(n), d_incl(n), d_excl(n);

  // A direct call first, so the context's storage exists before capture.
  d_in.upload(incl.in, stream);
  d_incl.poison(stream);
  run_scan(ctx, incl, d_in.data(), d_incl.data());
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  expect_correct(incl, d_incl.download(stream), "direct call before capture");

  graph g;
  {
    stream_capture capture(stream);
    run_scan(ctx, incl, d_in.data(), d_incl.data());
    run_scan(ctx, excl, d_in.data(), d_excl.data());  // captured with excl.init
    g.g = capture.end();
  }
  CHECK(g.num_nodes() >= 2);
  graph_exec exec(g.g);

  for (int replay = 0; replay < 4; ++replay) {
    CAPTURE(replay);
    // New input in the same buffer, written outside the graph.
    incl = with_fresh_input(incl, "graph/warm/replay/" + std::to_string(replay));
    excl.in = incl.in;
    excl.seed = incl.seed;
    d_in.upload(incl.in, stream);
    d_incl.poison(stream);
    d_excl.poison(stream);
    exec.launch(stream);
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    SKTEST_CUDA(cudaGetLastError());
    expect_correct(incl, d_incl.download(stream), "graph replay, inclusive");
    expect_correct(excl, d_excl.download(stream), "graph replay, exclusive");

    if (replay == 1) {
      // Direct calls on the same context between replays (same status words).
      for (std::size_t m : {3 * default_tile<std::uint32_t> + 1, n + 1000}) {
        auto job = make_job<std::uint32_t>(scankit::op::plus, m % 2 == 0, m, "graph/between");
        job->prepare(stream);
        job->enqueue(ctx);
        SKTEST_CUDA(cudaStreamSynchronize(stream));
        job->verify(stream, "direct call between graph replays");
      }
    }
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("a fresh context grows its storage during graph capture", "[gpu][contract][graph]") {
  // The context has no storage when capture begins: the first captured call
  // allocates it (the library's cudaMalloc under relaxed capture mode), the
  // second, bigger one outgrows it and allocates again. Both kernels (and the
  // status resets) must replay correctly. int64 and double use the paired
  // status layout (two words per tile).
  cuda_stream stream;
  const std::size_t n1 = 3 * default_tile<std::int64_t> + 5, n2 = (std::size_t(1) << 20) + 5;
  host_case<std::int64_t> a = make_case<std::int64_t>(scankit::op::plus, false, n1, "graph/fresh/a");
  host_case<double> b = make_case<double>(scankit::op::plus, true, n2, "graph/fresh/b");
  device_buffer<std::int64_t> d_a_in(n1), d_a_out(n1);
  device_buffer<double> d_b_in(n2), d_b_out(n2);
  scankit::context ctx(stream);  // declared after the buffers the graph uses, before the graph

  graph g;
  {
    stream_capture capture(stream);
    run_scan(ctx, a, d_a_in.data(), d_a_out.data());
    run_scan(ctx, b, d_b_in.data(), d_b_out.data());
    g.g = capture.end();
  }
  graph_exec exec(g.g);

  for (int replay = 0; replay < 3; ++replay) {
    CAPTURE(replay);
    a = with_fresh_input(a, "graph/fresh/a/" + std::to_string(replay));
    b = with_fresh_input(b, "graph/fresh/b/" + std::to_string(replay));
    d_a_in.upload(a.in, stream);
    d_b_in.upload(b.in, stream);
    d_a_out.poison(stream);
    d_b_out.poison(stream);
    exec.launch(stream);
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    SKTEST_CUDA(cudaGetLastError());
    expect_correct(a, d_a_out.download(stream), "fresh-context graph replay, int64");
    expect_correct(b, d_b_out.download(stream), "fresh-context graph replay, double");
  }

  // The context keeps working directly after the graph.
  auto job = make_job<std::int64_t>(scankit::op::plus, true, n2 + 3, "graph/fresh/after");
  job->prepare(stream);
  job->enqueue(ctx);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  job->verify(stream, "direct call after graph replays");
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("storage grown during capture is ready for a direct call before the first replay", "[gpu][contract][graph]") {
  // When a context grows under capture, the library allocates (relaxed capture
  // mode) and zeroes the new status words with cudaMemsetAsync on the stream —
  // which, during capture, is only recorded into the graph, not run. A direct
  // call on the same context before the graph's first launch must still find
  // a zeroed launch counter and no word carrying its tag. To make stale
  // contents visible, poisoned memory is freed first, so the allocation made
  // during capture is likely to reuse it.
  //
  // The check looks at the status words through context::acquire (internal,
  // but exactly what every call does before its launch) instead of launching:
  // with a garbage ticket counter a launch would take tile ids past the end
  // and write status words out of bounds or spin forever.
  cuda_stream stream;
  const std::size_t n = 5 * default_tile<std::uint32_t> + 1;
  const std::size_t tiles = 6;
  const host_case<std::uint32_t> c = make_case<std::uint32_t>(scankit::op::plus, false, n, "graph/direct_first");
  device_buffer<std::uint32_t> d_in(n), d_graph_out(n), d_direct_out(n);
  d_in.upload(c.in, stream);
  d_graph_out.poison(stream);
  d_direct_out.poison(stream);
  stream.synchronize();
  {  // poison memory and free it just before the context allocates
    std::vector<device_buffer<unsigned char>> junk;
    for (std::size_t bytes : {std::size_t(56), std::size_t(64), std::size_t(512), std::size_t(4096),
                              std::size_t(1) << 16, std::size_t(1) << 21})
      for (int i = 0; i < 16; ++i) junk.emplace_back(bytes);
    for (auto& b : junk) b.poison(stream);
    stream.synchronize();
  }
  scankit::context ctx(stream);

  graph g;
  {
    stream_capture capture(stream);
    run_scan(ctx, c, d_in.data(), d_graph_out.data());
    g.g = capture.end();
  }
  graph_exec exec(g.g);

  const scankit::detail::workspace_view ws = ctx.acquire(1 + tiles, 0);  // what the next call gets
  stream.synchronize();
  REQUIRE(ws.status_words >= 1 + tiles);
  std::vector<std::uint64_t> words(1 + tiles);
  SKTEST_CUDA(cudaMemcpy(words.data(), ws.d_status, words.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  {
    INFO("launch counter word: 0x" << std::hex << words[0]
                                   << " (must be 0: the zeroing memset was only captured into the graph, not run)");
    REQUIRE(words[0] == 0);
  }
  for (std::size_t i = 1; i < words.size(); ++i) {
    CAPTURE(i, words[i]);
    REQUIRE((words[i] >> 33) != 1);  // tag 1 (the next launch's) would read as published
  }

  run_scan(ctx, c, d_in.data(), d_direct_out.data());
  stream.synchronize();
  SKTEST_CUDA(cudaGetLastError());
  expect_correct(c, d_direct_out.download(stream), "direct call before the first replay");
  exec.launch(stream);
  stream.synchronize();
  SKTEST_CUDA(cudaGetLastError());
  expect_correct(c, d_graph_out.download(stream), "first replay after a direct call");
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("a caller-provided workspace gives correct results", "[gpu][contract]") {
  cuda_stream stream;
  auto with_workspace = [&](auto type_tag, scankit::op o) {
    using T = decltype(type_tag);
    const std::size_t n = 50 * default_tile<T> + 3;
    const std::size_t bytes = scankit::scan_workspace_bytes(n, sizeof(T));
    CAPTURE(type_name<T>(), n, bytes);
    REQUIRE(bytes > 0);
    device_buffer<unsigned char> d_ws(bytes);
    d_ws.poison(stream);  // stale garbage in the scratch half must not matter
    scankit::context ctx(stream, d_ws.data(), bytes);
    // n itself, then smaller sizes on the same workspace, then n again.
    for (std::size_t m : {n, default_tile<T> + 1, std::size_t(7), 17 * default_tile<T>, n})
      for (bool exclusive : {false, true}) {
        const host_case<T> c = make_case<T>(o, exclusive, m, "workspace");
        device_buffer<T> d_in(m), d_out(m);
        d_in.upload(c.in, stream);
        d_out.poison(stream);
        REQUIRE_NOTHROW(run_scan(ctx, c, d_in.data(), d_out.data()));
        SKTEST_CUDA(cudaStreamSynchronize(stream));
        expect_correct(c, d_out.download(stream), "caller workspace");
      }
  };
  with_workspace(std::int32_t{}, scankit::op::plus);
  with_workspace(float{}, scankit::op::plus);
  with_workspace(double{}, scankit::op::max);
  with_workspace(std::uint64_t{}, scankit::op::plus);

  // A scan that fits one tile needs no workspace at all.
  scankit::context empty_ctx(stream, nullptr, 0);
  const host_case<std::int32_t> c =
      make_case<std::int32_t>(scankit::op::plus, false, default_tile<std::int32_t>, "workspace/empty");
  device_buffer<std::int32_t> d_in(c.n), d_out(c.n);
  d_in.upload(c.in, stream);
  d_out.poison(stream);
  REQUIRE(scankit::scan_workspace_bytes(c.n, sizeof(std::int32_t)) == 0);
  REQUIRE_NOTHROW(run_scan(empty_ctx, c, d_in.data(), d_out.data()));
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  expect_correct(c, d_out.download(stream), "one tile, empty workspace");
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("a too-small caller workspace throws before launching", "[gpu][contract]") {
  cuda_stream stream;
  auto too_small = [&](auto type_tag, std::size_t n, std::size_t bytes) {
    using T = decltype(type_tag);
    CAPTURE(type_name<T>(), n, bytes, scankit::scan_workspace_bytes(n, sizeof(T)));
    REQUIRE(bytes < scankit::scan_workspace_bytes(n, sizeof(T)));
    device_buffer<unsigned char> d_ws(bytes);
    scankit::context ctx(stream, d_ws.data(), bytes);
    for (bool exclusive : {false, true}) {
      const host_case<T> c = make_case<T>(scankit::op::plus, exclusive, n, "workspace/too_small");
      device_buffer<T> d_in(n), d_out(n);
      d_in.upload(c.in, stream);
      d_out.poison(stream);
      CHECK_THROWS_AS(run_scan(ctx, c, d_in.data(), d_out.data()), std::invalid_argument);
      // The message names the whole workspace the call needs.
      CHECK_THROWS_WITH(run_scan(ctx, c, d_in.data(), d_out.data()),
                        Catch::Contains("needs " + std::to_string(scankit::scan_workspace_bytes(n, sizeof(T))) +
                                        " bytes"));
      SKTEST_CUDA(cudaStreamSynchronize(stream));
      CHECK(count_unpoisoned(download_bytes(d_out.data(), d_out.bytes(), stream)) == 0);
    }
  };
  for (std::size_t k : {std::size_t(2), std::size_t(50), std::size_t(1000)}) {
    // 512 bytes short: both halves lose 256 bytes, and align_up(x) - 256 < x
    // for the larger of the two needs, so one half is too small.
    const std::size_t n4 = k * default_tile<std::int32_t> + 3, n8 = k * default_tile<double> + 3;
    too_small(std::int32_t{}, n4, scankit::scan_workspace_bytes(n4, 4) - 512);
    too_small(double{}, n8, scankit::scan_workspace_bytes(n8, 8) - 512);
    too_small(std::int64_t{}, n8, scankit::scan_workspace_bytes(n8, 8) / 4 / 256 * 256);
  }
  // No workspace at all and more than one tile.
  too_small(float{}, default_tile<float> + 1, 0);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("integer scans are bitwise identical across repeated runs", "[gpu][contract]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  auto repeat = [&](auto type_tag, scankit::op o, bool exclusive) {
    using T = decltype(type_tag);
    const host_case<T> c = make_case<T>(o, exclusive, (std::size_t(1) << 22) + 3, "deterministic");
    device_buffer<T> d_in(c.n), d_out(c.n);
    d_in.upload(c.in, stream);
    std::vector<std::vector<T>> results;
    for (int run = 0; run < 3; ++run) {
      d_out.poison(stream);
      run_scan(ctx, c, d_in.data(), d_out.data());
      SKTEST_CUDA(cudaStreamSynchronize(stream));
      results.push_back(d_out.download(stream));
    }
    INFO(c.describe());
    const bool second_identical = results[1] == results[0], third_identical = results[2] == results[0];
    CHECK(second_identical);
    CHECK(third_identical);
    expect_correct(c, results[0], "repeated runs");
  };
  repeat(std::int32_t{}, scankit::op::plus, false);
  repeat(std::int32_t{}, scankit::op::plus, true);
  repeat(std::uint64_t{}, scankit::op::bit_xor, true);
  repeat(std::int64_t{}, scankit::op::max, false);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("scan_workspace_bytes follows the default tile size of every host API type", "[contract]") {
  // Host only: the 4- and 8-byte host sizing must cover every host API type of
  // that size (their tilings and status layouts are the same).
  for (std::size_t n : {std::size_t(0), std::size_t(1), default_tile<float>, default_tile<float> + 1,
                        default_tile<double>, default_tile<double> + 1, std::size_t(1000003), std::size_t(1) << 28}) {
    CAPTURE(n);
    CHECK(scankit::scan_workspace_bytes(n, 4) == scankit::device::scan_workspace_bytes<std::int32_t>(n));
    CHECK(scankit::scan_workspace_bytes(n, 4) == scankit::device::scan_workspace_bytes<std::uint32_t>(n));
    CHECK(scankit::scan_workspace_bytes(n, 4) == scankit::device::scan_workspace_bytes<float>(n));
    CHECK(scankit::scan_workspace_bytes(n, 8) == scankit::device::scan_workspace_bytes<std::int64_t>(n));
    CHECK(scankit::scan_workspace_bytes(n, 8) == scankit::device::scan_workspace_bytes<std::uint64_t>(n));
    CHECK(scankit::scan_workspace_bytes(n, 8) == scankit::device::scan_workspace_bytes<double>(n));
  }
  CHECK(scankit::scan_workspace_bytes(default_tile<float>, 4) == 0);
  CHECK(scankit::scan_workspace_bytes(default_tile<float> + 1, 4) > 0);
  CHECK(scankit::scan_workspace_bytes(default_tile<double>, 8) == 0);
  CHECK(scankit::scan_workspace_bytes(default_tile<double> + 1, 8) > 0);
}

TEST_CASE("uint32 inclusive sum past 2^31 items is exact", "[gpu][large]") {
  // 64-bit sizes end to end: n > 2^31, so every 32-bit index would wrap. The
  // input is a counter-based hash (generated on the device, recomputed on the
  // host), so the whole output is checked against a wrapping uint32 running
  // sum without holding 2^31 inputs in host memory.
  const std::size_t n = (std::size_t(1) << 31) + 12345;
  constexpr std::size_t guard = 64;
  const std::uint64_t seed = case_seed("large/uint32/plus");
  CAPTURE(n, seed);
  REQUIRE(n > std::size_t(std::numeric_limits<std::int32_t>::max()));
  std::size_t free_bytes = 0, total_bytes = 0;
  SKTEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  INFO("device memory: " << free_bytes << " bytes free, need about " << 2 * n * sizeof(std::uint32_t));
  REQUIRE(free_bytes > 2 * (n + guard) * sizeof(std::uint32_t) + (std::size_t(256) << 20));

  cuda_stream stream;
  scankit::context ctx(stream);
  device_buffer<std::uint32_t> d_in(n), d_out(n + guard);
  fill_hash_u32<<<4096, 256, 0, stream>>>(d_in.data(), n, seed);
  SKTEST_CUDA(cudaGetLastError());
  d_out.poison(stream);
  scankit::inclusive_scan(ctx, d_in.data(), d_out.data(), n);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());

  // The exclusive check below probes these indices; it needs the reference
  // inclusive value just before each, recorded during the full check.
  const std::vector<std::size_t> probes{0, 1, (std::size_t(1) << 31) - 1, std::size_t(1) << 31,
                                        (std::size_t(1) << 31) + 1, n / 3, n - 1};
  std::vector<std::size_t> wanted;  // sorted indices whose reference we keep
  for (std::size_t p : probes)
    if (p > 0) wanted.push_back(p - 1);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::map<std::size_t, std::uint32_t> inclusive_at;

  // Stream the output back in pinned chunks and compare with a running sum.
  constexpr std::size_t chunk = std::size_t(1) << 26;
  std::uint32_t* h_chunk = nullptr;
  SKTEST_CUDA(cudaMallocHost(reinterpret_cast<void**>(&h_chunk), chunk * sizeof(std::uint32_t)));
  const std::unique_ptr<std::uint32_t, cudaError_t (*)(void*)> chunk_owner(h_chunk, cudaFreeHost);
  std::uint32_t acc = 0;
  std::size_t checked = 0, mismatches = 0, first_bad = n, next_wanted = 0;
  std::uint32_t first_got = 0, first_expected = 0;
  for (std::size_t offset = 0; offset < n; offset += chunk) {
    const std::size_t count = std::min(chunk, n - offset);
    SKTEST_CUDA(cudaMemcpyAsync(h_chunk, d_out.data() + offset, count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                stream));
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    for (std::size_t j = 0; j < count; ++j) {
      const std::size_t i = offset + j;
      acc += hash_u32(seed, i);  // uint32 arithmetic: wraps mod 2^32 like the device
      if (h_chunk[j] != acc && mismatches++ == 0) first_bad = i, first_got = h_chunk[j], first_expected = acc;
      if (next_wanted < wanted.size() && i == wanted[next_wanted]) inclusive_at[wanted[next_wanted++]] = acc;
    }
    checked += count;
  }
  {
    INFO("first mismatch at " << first_bad << ": got " << first_got << ", expected " << first_expected);
    CHECK(mismatches == 0);
  }
  REQUIRE(checked == n);  // the whole output of the size actually run
  REQUIRE(inclusive_at.size() == wanted.size());
  CHECK(count_unpoisoned(download_bytes(d_out.data() + n, guard * sizeof(std::uint32_t), stream)) == 0);

  // Exclusive scan of the same input: spot checks, including both sides of 2^31.
  const std::uint32_t init = hash_u32(seed, n) | 1u;
  CAPTURE(init);
  d_out.poison(stream);
  scankit::exclusive_scan(ctx, d_in.data(), d_out.data(), n, init);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());
  for (std::size_t p : probes) {
    CAPTURE(p);
    const std::uint32_t expected = p == 0 ? init : std::uint32_t(init + inclusive_at.at(p - 1));
    CHECK(d_out.download(stream, p, 1).at(0) == expected);
  }
  CHECK(count_unpoisoned(download_bytes(d_out.data() + n, guard * sizeof(std::uint32_t), stream)) == 0);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}
