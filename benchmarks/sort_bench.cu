// benchmarks/sort_bench.cu — scankit's radix sort against CUB, Thrust and
// cudaMemcpy device-to-device, all in the same run on the same inputs.
//
// What is measured, for each case and n = 2^20, 2^22, ..., 2^28:
//   keys   uint32 / uint64 keys
//          scankit::device::radix_sort_keys(ctx, in, out, n)
//                             vs cub::DeviceRadixSort::SortKeys and thrust::sort
//   pairs  uint32 keys with uint32 values
//          scankit::device::radix_sort_pairs(ctx, keys, keys_out, values, values_out, n)
//                             vs cub::DeviceRadixSort::SortPairs and thrust::sort_by_key
// Every key bit is sorted (4 or 8 passes of 8 bits). Inputs: random bits (a
// counter-based hash of (seed, i)); with --key-bits=b only the low b bits are
// random and the rest zero, so the upper passes meet one digit (variant
// keys_lowb / pairs_lowb); values: the input positions. scankit: one
// context for the run, grown at the verification call before any timing.
// CUB: temp storage allocated once per case outside the timed region,
// num_items an int (as most CUB users call it: CUB's 32-bit offsets). Thrust:
// called as its users call it (thrust::cuda::par.on(stream)), so its per-call
// temp allocation is part of its time; it sorts in place, so each call first
// restores its input with a copy whose measured time (the copy below) is
// taken off. scankit and CUB sort out of place from the same input, so every
// call does the same work.
//
// Verification, before timing and again after it: scankit's keys (and
// values) equal CUB's bit for bit (both are stable, so the values too), and
// Thrust's equal CUB's; CUB's keys are checked in order on the device.
//
// Timing (bench_common.cuh): the legacy default stream, CUDA events around
// each single call, --warmup calls first, median of --reps calls. The copy is
// cudaMemcpyAsync D2D of the keys and values (n·(K+V) bytes), timed in the
// same run; pct_of_copy = copy_ms ÷ scankit_ms × 100: a sort must read and
// write every key and value at least once, as the copy does. Gkeys/s (or
// Gpairs/s) = n ÷ time. The CSV (docs/benchmarks.md schema): primitive sort,
// variant keys/pairs, policy onesweep, type uint32, uint64 or uint32+uint32,
// one row per baseline (cub, thrust).
//
//   sort_bench [--cases=keys32,keys64,pairs32] [--min-log=20] [--max-log=28] [--step-log=2] [--key-bits=b]
//              [--reps=25] [--warmup=3] [--timeout-s=20] [--seed=N] [--csv=path] [--commit=sha] [--quick]
#include "bench_common.cuh"

#include <scankit/device/sort.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr cudaStream_t stream = nullptr;  // the legacy default stream (bench_common.cuh)

struct options : bench::run_options {
  std::vector<std::string> cases = {"keys32", "keys64", "pairs32"};
  int min_log = 20, max_log = 28, step_log = 2;
  int key_bits = 64;  // random low bits of each key (the rest zero)
};

const std::string usage =
    "usage: sort_bench [options]\n"
    "  --cases=keys32,keys64,pairs32            uint32 keys, uint64 keys, uint32 keys + uint32 values\n"
    "  --min-log=20 --max-log=28                n = 2^min-log ... 2^max-log (max-log <= 30)\n"
    "  --step-log=2                             step between log2 sizes\n"
    "  --key-bits=b                             only the low b bits of a key random (default: all)\n"
    "  --quick                                  n = 2^20, 2^24, 2^28, 10 reps, 2 warm-ups\n" +
    bench::run_options_usage(43);

options parse_options(int argc, char** argv) {
  options o;
  if (bench::has_flag(argc, argv, "--quick")) o.step_log = 4, o.reps = 10, o.warmup = 2;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    bench::handle_help(arg, usage);
    std::string v;
    if (arg == "--quick") continue;
    if (bench::option_value(arg, "cases", v))
      o.cases = bench::parse_choices(v, "cases", {"keys32", "keys64", "pairs32"}, usage);
    else if (bench::option_value(arg, "min-log", v))
      o.min_log = int(bench::parse_int(v, "min-log", 0, 30));
    else if (bench::option_value(arg, "max-log", v))
      o.max_log = int(bench::parse_int(v, "max-log", 0, 30));  // CUB's num_items is an int here
    else if (bench::option_value(arg, "step-log", v))
      o.step_log = int(bench::parse_int(v, "step-log", 1, 30));
    else if (bench::option_value(arg, "key-bits", v))
      o.key_bits = int(bench::parse_int(v, "key-bits", 1, 64));
    else if (!bench::parse_run_option(arg, o))
      bench::die(2, "unknown option " + arg + "\n" + usage);
  }
  if (o.min_log > o.max_log) bench::die(2, "--min-log is larger than --max-log");
  bench::note_reps(o.reps);
  return o;
}

/// d_out[i] = random bits of (seed, i), those of `mask`.
template <class K>
__global__ void fill_random(K* d_out, std::size_t n, std::uint64_t seed, std::uint64_t mask) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::uint64_t x = seed + i * 0x9e3779b97f4a7c15ull;  // SplitMix64 of the index
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    d_out[i] = K((x ^ (x >> 31)) & mask);
  }
}

__global__ void fill_positions(std::uint32_t* d_out, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    d_out[i] = std::uint32_t(i);
}

/// *d_unordered = how many neighbours d[i - 1] > d[i] (zeroed before).
template <class K>
__global__ void count_unordered(const K* d, std::size_t n, unsigned long long* d_unordered) {
  for (std::size_t i = 1 + std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    if (d[i - 1] > d[i]) atomicAdd(d_unordered, 1ull);
}

struct case_result {
  std::string name;
  std::size_t n;
  double scankit_ms, cub_ms, thrust_ms, copy_ms;
};

/// One case: K keys with V values (void: keys only).
template <class K, class V>
case_result run_case(const char* name, const char* type, std::size_t n, const options& o, const bench::device_info& dev,
                     scankit::context& ctx, bench::event_timer& timer, bench::csv_writer& csv) {
  constexpr bool pairs = !std::is_void_v<V>;
  using Value = std::conditional_t<pairs, V, std::uint32_t>;  // (unused without values)
  const std::size_t key_bytes = n * sizeof(K), value_bytes = pairs ? n * sizeof(Value) : 0;
  bench::require_free_memory(5 * (key_bytes + value_bytes) + scankit::device::radix_sort_workspace_bytes<K, V>(n),
                             std::string(name) + " at n = " + std::to_string(n));
  bench::device_buffer keys(key_bytes), values(value_bytes + 4), sorted(key_bytes), sorted_values(value_bytes + 4),
      cub_sorted(key_bytes), cub_values(value_bytes + 4), thrust_keys(key_bytes), thrust_values(value_bytes + 4),
      unordered(sizeof(unsigned long long));
  const unsigned grid = bench::grid_for(n, dev.sms);
  const std::uint64_t mask = o.key_bits >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << o.key_bits) - 1;
  fill_random<<<grid, 256, 0, stream>>>(static_cast<K*>(keys.get()), n, o.seed, mask);
  if (pairs) fill_positions<<<grid, 256, 0, stream>>>(static_cast<std::uint32_t*>(values.get()), n);
  BENCH_CHECK_LAUNCH("sort_bench inputs");

  const K* d_keys = static_cast<const K*>(keys.get());
  const Value* d_values = static_cast<const Value*>(values.get());
  auto scankit_call = [&](int) {
    if constexpr (pairs)
      scankit::device::radix_sort_pairs(ctx, d_keys, static_cast<K*>(sorted.get()), d_values,
                                        static_cast<Value*>(sorted_values.get()), n);
    else
      scankit::device::radix_sort_keys(ctx, d_keys, static_cast<K*>(sorted.get()), n);
  };
  std::size_t temp_bytes = 0;
  auto cub_sort = [&](void* temp) {
    if constexpr (pairs)
      BENCH_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, d_keys, static_cast<K*>(cub_sorted.get()), d_values,
                                                 static_cast<Value*>(cub_values.get()), int(n), 0, int(sizeof(K) * 8),
                                                 stream));
    else
      BENCH_CUDA(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, d_keys, static_cast<K*>(cub_sorted.get()), int(n),
                                                0, int(sizeof(K) * 8), stream));
  };
  cub_sort(nullptr);
  bench::device_buffer cub_temp(temp_bytes);
  auto cub_call = [&](int) { cub_sort(cub_temp.get()); };
  auto thrust_call = [&](int) {
    BENCH_CUDA(cudaMemcpyAsync(thrust_keys.get(), d_keys, key_bytes, cudaMemcpyDeviceToDevice, stream));
    const auto k = thrust::device_pointer_cast(static_cast<K*>(thrust_keys.get()));
    if constexpr (pairs) {
      BENCH_CUDA(cudaMemcpyAsync(thrust_values.get(), d_values, value_bytes, cudaMemcpyDeviceToDevice, stream));
      thrust::sort_by_key(thrust::cuda::par.on(stream), k, k + n,
                          thrust::device_pointer_cast(static_cast<Value*>(thrust_values.get())));
    } else {
      thrust::sort(thrust::cuda::par.on(stream), k, k + n);
    }
  };
  auto copy_call = [&](int) {
    BENCH_CUDA(cudaMemcpyAsync(sorted.get(), d_keys, key_bytes, cudaMemcpyDeviceToDevice, stream));
    if (pairs)
      BENCH_CUDA(cudaMemcpyAsync(sorted_values.get(), d_values, value_bytes, cudaMemcpyDeviceToDevice, stream));
  };

  // Correctness: CUB's keys in order; scankit == CUB == Thrust.
  const std::string what = std::string(name) + " n=" + std::to_string(n);
  auto verify = [&](const char* when) {
    cub_call(0);
    BENCH_CUDA(cudaMemsetAsync(unordered.get(), 0, sizeof(unsigned long long), stream));
    count_unordered<<<grid, 256, 0, stream>>>(static_cast<const K*>(cub_sorted.get()), n,
                                              static_cast<unsigned long long*>(unordered.get()));
    BENCH_CHECK_LAUNCH("count_unordered");
    unsigned long long bad = 0;
    BENCH_CUDA(cudaMemcpy(&bad, unordered.get(), sizeof bad, cudaMemcpyDeviceToHost));
    if (bad != 0) bench::die(1, what + ": CUB's keys are not in order");
    bench::check_equal(static_cast<const K*>(sorted.get()), "scankit", static_cast<const K*>(cub_sorted.get()), "CUB",
                       n, dev.sms, stream, o.timeout_s, what + " keys (" + when + ")");
    if (pairs)
      bench::check_equal(static_cast<const Value*>(sorted_values.get()), "scankit",
                         static_cast<const Value*>(cub_values.get()), "CUB", n, dev.sms, stream, o.timeout_s,
                         what + " values (" + when + ")");
  };
  bench::poison(sorted.get(), key_bytes, stream);
  scankit_call(0);
  thrust_call(0);
  verify("before timing");
  bench::check_equal(static_cast<const K*>(thrust_keys.get()), "Thrust", static_cast<const K*>(cub_sorted.get()),
                     "CUB", n, dev.sms, stream, o.timeout_s, what + " keys");
  if (pairs)
    bench::check_equal(static_cast<const Value*>(thrust_values.get()), "Thrust",
                       static_cast<const Value*>(cub_values.get()), "CUB", n, dev.sms, stream, o.timeout_s,
                       what + " values");

  // Timing; scankit's output poisoned first and checked again after.
  bench::poison(sorted.get(), key_bytes, stream);
  if (pairs) bench::poison(sorted_values.get(), value_bytes, stream);
  const double scankit_ms = bench::median(timer.run(o.warmup, scankit_call, o.timeout_s, what + " scankit"));
  verify("after timing");
  const double cub_ms = bench::median(timer.run(o.warmup, cub_call, o.timeout_s, what + " CUB"));
  const double copy_ms = bench::median(timer.run(o.warmup, copy_call, o.timeout_s, what + " copy"));
  // Thrust sorts in place: each call first restores its input, a copy of the
  // same bytes as the copy's, taken off its time.
  const double thrust_ms =
      bench::median(timer.run(o.warmup, thrust_call, o.timeout_s, what + " Thrust")) - copy_ms;

  const std::string variant = std::string(pairs ? "pairs" : "keys") +
                              (o.key_bits < int(8 * sizeof(K)) ? "_low" + std::to_string(o.key_bits) : "");
  csv.row("sort", variant, "onesweep", type, n, scankit_ms, "cub", cub_ms, copy_ms);
  csv.row("sort", variant, "onesweep", type, n, scankit_ms, "thrust", thrust_ms, copy_ms);
  std::printf("%-8s %-15s 2^%-3d %10.1f %10.1f %10.1f %8.2f %8.2f %7.1f %7.3f %7.3f\n", name, type,
              bench::log2_exact(n), scankit_ms * 1e3, cub_ms * 1e3, thrust_ms * 1e3, n / scankit_ms / 1e6,
              n / cub_ms / 1e6, copy_ms / scankit_ms * 100, cub_ms / scankit_ms, thrust_ms / scankit_ms);
  return {name, n, scankit_ms, cub_ms, thrust_ms, copy_ms};
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const options o = parse_options(argc, argv);
  try {
    const bench::run_identity run = bench::begin_run("sort_bench", o);
    const bench::device_info& dev = run.dev;
    bench::csv_writer csv;
    run.open(csv, o.csv);
    scankit::context ctx{stream};
    bench::event_timer timer(stream, o.reps);
    bench::warm_gpu(300, dev.sms, stream, o.timeout_s);
    std::printf("%-8s %-15s %-5s %10s %10s %10s %8s %8s %7s %7s %7s\n", "case", "type", "n", "scankit_us", "cub_us",
                "thrust_us", "Gk/s", "cub_Gk/s", "%copy", "vs_cub", "vs_thr");
    std::vector<case_result> results;
    for (const std::string& c : o.cases)
      for (int lg = o.min_log; lg <= o.max_log; lg += o.step_log) {
        const std::size_t n = std::size_t(1) << lg;
        if (c == "keys32")
          results.push_back(run_case<std::uint32_t, void>("keys32", "uint32", n, o, dev, ctx, timer, csv));
        if (c == "keys64")
          results.push_back(run_case<std::uint64_t, void>("keys64", "uint64", n, o, dev, ctx, timer, csv));
        if (c == "pairs32")
          results.push_back(
              run_case<std::uint32_t, std::uint32_t>("pairs32", "uint32+uint32", n, o, dev, ctx, timer, csv));
      }
    bench::sync_stream(stream, "the end of the run", o.timeout_s);
    if (!csv.path().empty()) std::printf("# wrote %s\n", csv.path().c_str());
    int slower = 0;
    for (const auto& r : results) slower += r.cub_ms < r.scankit_ms;
    std::printf("summary sort_bench: all %zu cases verified (scankit == CUB bit for bit, keys and values; Thrust == "
                "CUB; CUB's keys in order); %d below 1.0x CUB; %.1f s\n",
                results.size(), slower,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    for (const auto& r : results)
      if (r.n == (std::size_t(1) << 28)) {
        const char* unit = r.name.rfind("pairs", 0) == 0 ? "Gpairs/s" : "Gkeys/s";
        std::printf("headline sort_bench %s 2^28: scankit %.2f %s, CUB %.2f %s (%.3fx CUB; target 1.05x)\n",
                    r.name.c_str(), r.n / r.scankit_ms / 1e6, unit, r.n / r.cub_ms / 1e6, unit,
                    r.cub_ms / r.scankit_ms);
      }
  } catch (const std::exception& e) {
    bench::die(1, std::string("exception: ") + e.what());
  }
  std::fflush(nullptr);
  return 0;
}
