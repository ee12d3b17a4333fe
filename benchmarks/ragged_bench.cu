// benchmarks/ragged_bench.cu — scankit's ragged primitives (segmented
// reduction, reduce-by-key, load-balancing search / interval expand,
// allocation offsets) against CUB, Thrust, a read-only streaming kernel and
// cudaMemcpy device-to-device, all in the same run on the same inputs.
//
// What is measured (scankit through its host API, scankit/*.hpp; one
// scankit::context for the whole run, its workspace grown at each case's
// verification call before any timing):
//
//   segmented_reduce   scankit::segmented_reduce(ctx, values, n, offsets, S, out)
//                      int32 values, int32 offsets, sum; n = 2^24, 2^26, 2^28
//                      values; segment lengths (variant):
//                        len1 len4 len256 len65536  every segment that long
//                        powerlaw  Lomax (Pareto II) lengths floor(1.6 (u^(-1/1.1) - 1)):
//                                  ~41 % empty; at the default seed mean 11.3 / 13.4 /
//                                  13.9 values and the longest segment 1.1e6 / 4.0e6 /
//                                  3.8e7 values at 2^24 / 2^26 / 2^28
//                        giant     one segment of n/2 values (starting near n/4)
//                                  among segments of 1..15 values
//                      baselines: cub  = cub::DeviceSegmentedReduce::Sum(values, out, S,
//                                        offsets, offsets + 1)
//                                 read_only_stream = a streaming kernel (int4 loads,
//                                        sum, one value per block) reading the bytes the
//                                        reduction must move: values, offsets and the
//                                        output array (read, not written). Its row's
//                                        speedup_vs_baseline = read_only_ms / scankit_ms
//                                        is the fraction of the read-only speed of
//                                        light (target >= 0.7 for every distribution;
//                                        >= 100x CUB at len4).
//   reduce_by_key      scankit::reduce_by_key_async(ctx, keys, values, n, unique, sums, d_count)
//                      int32 keys / int32 values and uint64 keys / double values
//                      (--no-wide: int32 only), sum; n = 2^24, 2^26, 2^28; run
//                      lengths run1 (all 1), run4 (uniform 1..7), run256 (1..511),
//                      run65536 (1..131071); neighbouring runs have different keys.
//                      baselines: cub    = cub::DeviceReduce::ReduceByKey (int num_items)
//                                 thrust = thrust::reduce_by_key(thrust::cuda::par.on(stream))
//   load_balancing_search  scankit::load_balancing_search(ctx, offsets, S, total, source, rank)
//                      uint32 offsets at totals 2^24, 2^26, 2^28, and uint64 offsets at
//                      the largest total (--no-wide: not); segment lengths uniform4
//                      (1..7), uniform256 (1..511), powerlaw (as above).
//                      baseline thrust = thrust::upper_bound(offsets + 1, offsets + 1 + S,
//                                 counting(0), counting(total), source), then
//                                 thrust::transform(counting(0), counting(total), source,
//                                 rank, j - offsets[source[j]])
//   interval_expand    scankit::interval_expand(ctx, values, offsets, S, total, out), int32
//                      values, uint32 offsets, same totals and lengths.
//                      baseline thrust = the same thrust::upper_bound into a source
//                                 array (preallocated, outside the timed region), then
//                                 thrust::gather(source, source + total, values, out)
//   allocation_offsets scankit::allocation_offsets_async(ctx, sizes, n, offsets, nullptr,
//                      event, timing): uint32 sizes (0..15) into uint32 and into uint64
//                      offsets (n + 1 entries), n = 2^20, 2^24, 2^28; variants
//                        with_offsets         total_timing::with_offsets
//                        first                total_timing::first (the total_ready event given)
//                        first:time_to_total  the same calls, timed from the call's start to
//                                             its total_ready event (when the caller could
//                                             allocate the next buffer)
//                      baselines: cub = cub::DeviceScan::ExclusiveSum(sizes, offsets, int n)
//                                 (n offsets, no total; NB for uint64 offsets CUB's
//                                 ExclusiveSum accumulates in the INPUT type, uint32, so
//                                 its offsets wrap past 2^32; the totals here stay below)
//                                 cub_u64 (uint64 offsets only) = cub::DeviceScan::
//                                 ExclusiveScan(sizes, offsets, plus, uint64_t{0}, int n),
//                                 the CUB call that keeps 64-bit totals exact.
//
// % of copy. copy_ms is the median cudaMemcpyAsync D2D of n·sizeof(T) bytes
// (it moves twice that), T = the value type (segmented_reduce,
// reduce_by_key), the output item (load_balancing_search: the offset type;
// interval_expand: int32) or the size type (allocation_offsets), measured in
// the same run. Each case is credited with the bytes it must move at the
// least (S = segments, R = runs, O = sizeof offset, K / V = sizeof key / value):
//   segmented_reduce       4n + 4(S + 1) + 4S
//   reduce_by_key          n(K + V) + R(K + V) + 8 (the count)
//   load_balancing_search  O(S + 1) + 2·O·total        (source and rank out)
//   interval_expand        4S + O(S + 1) + 4·total
//   allocation_offsets     4n + O(n + 1); first:time_to_total 4n (one read of the sizes)
// and pct_of_copy = copy_ms × (bytes ÷ (2·n·sizeof(T))) ÷ scankit_ms × 100.
//
// Inputs: counter-based hashes of (seed, i), so the host regenerates any
// element without copying the input back. Values are bench_common's digits
// (nonzero integers in [-16, 16]; double = digit / 16, exact in any order).
// Keys of run r: a bijective hash of r. Random segmentations are built from
// hashed lengths, an exclusive scan (CUB), and a cut at n. Inputs of 2^24
// (64 MiB of int32) and below are rotated: enough sets that consecutive calls
// read inputs that are not in the L2 (bench::rotation_pairs), for every
// contender alike.
//
// Correctness, for every case before it is timed: outputs poisoned; the
// baseline runs first and is checked against an independent reference
// (segmented_reduce, reduce_by_key: the host regenerates the values of ~1000
// sampled segments / runs, within a budget of 2^--host-check-log values, and
// sums them; reduce_by_key: the count equals the number of generated runs and
// each unique key its run's key; expand: a device kernel that recomputes every
// output's segment by its own binary search; allocation: exact host prefix
// sums at ~1000 sampled indices and the total); scankit must then equal the
// baseline element for element (and count, and total) — and Thrust equals CUB
// for reduce_by_key. After scankit's timed calls every output set and count
// they wrote is compared again. Any mismatch, CUDA error, scankit exception or
// hang exits non-zero with a "FATAL: wrong result: ..." line.
//
// Timing (bench_common.cuh): the legacy default stream; CUDA events around
// every single call; a spin kernel gets the clocks up before each case; per
// contender one probe call (timed, the first warm-up), then --warmup - 1
// warm-up calls and the median of --reps timed calls. Slow contenders (CUB's
// segmented reduction puts one block on every segment: ~0.4 s per call for
// 2^28 segments of 1) get a time budget instead: when probe × (warm-ups +
// reps) would pass --slow-budget-ms, no more warm-ups and budget ÷ probe
// timed calls (at least --slow-min-reps); stdout marks those rows with '~'
// and gives their number of calls; the summary line counts them.
//
// Expected wall time on an H200 (estimated, not yet measured: CUB's
// segmented reductions of len1 / len4 / giant ~7 s under the slow budget
// (~0.4 s a call for 2^28 segments of 1, from the 98 ms design.md measured
// for 2^26 segments of 4), Thrust's upper_bound expansions up to ~5 s, the
// other timed calls ~5 s, generation, checks and allocation ~10-15 s): full
// ~30-45 s, --quick ~8-12 s; the summary line gives the measured time. Device
// memory: at most ~20 GiB (reduce_by_key uint64/double at 2^28).
//
// Output: one stdout line per case and baseline, a summary table (largest
// size of each case), a 'summary ragged_bench:' line and 'headline ragged
// ...' lines (scripts/gpu-check greps for both); --csv=path (or --out path)
// writes the docs/benchmarks.md schema, primitive = the names above, variant
// = the length distribution / timing, policy = the scankit algorithm
// (merge_path+lookback, single_pass_lookback, merge_path, default_scan),
// type = int32 (segmented_reduce), <key>/<value> (reduce_by_key), the
// offset type (load_balancing_search), <value>/<offset> (interval_expand),
// <size>/<offset> (allocation_offsets); one row per baseline.
//
//   ragged_bench [--prims=segmented_reduce,reduce_by_key,load_balancing_search,interval_expand,allocation_offsets]
//                [--variants=len4,run4,...] [--min-log=0] [--max-log=28] [--no-wide]
//                [--slow-budget-ms=600] [--slow-min-reps=5] [--host-check-log=26]
//                [--reps=25] [--warmup=3] [--max-pairs=16] [--timeout-s=20] [--seed=N]
//                [--csv=path | --out path] [--commit=sha] [--quick]
#include "bench_common.cuh"

#include <scankit/allocation.hpp>
#include <scankit/context.hpp>
#include <scankit/expand.hpp>
#include <scankit/reduce_by_key.hpp>
#include <scankit/segmented_reduce.hpp>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>

#include <cmath>
#include <exception>
#include <map>
#include <utility>

namespace {

using bench::device_buffer;

const cudaStream_t stream = 0;  // the legacy default stream (as the other drivers)

// ---------------------------------------------------------------- options --

const char* const prim_segreduce = "segmented_reduce";
const char* const prim_rbk = "reduce_by_key";
const char* const prim_lbs = "load_balancing_search";
const char* const prim_interval = "interval_expand";
const char* const prim_alloc = "allocation_offsets";

const std::string usage =
    "usage: ragged_bench [options]\n"
    "  --prims=segmented_reduce,reduce_by_key,load_balancing_search,interval_expand,allocation_offsets\n"
    "                                  primitives (default: all; 'expand' = both expand primitives)\n"
    "  --variants=len4,run4,...        only these variants: segmented_reduce len1,len4,len256,len65536,\n"
    "                                  powerlaw,giant; reduce_by_key run1,run4,run256,run65536; expand\n"
    "                                  uniform4,uniform256,powerlaw; allocation with_offsets,first\n"
    "  --min-log=0 --max-log=28        sizes within 2^min-log .. 2^max-log (max-log <= 30) of each\n"
    "                                  primitive's list (2^24, 2^26, 2^28; allocation 2^20, 2^24, 2^28)\n"
    "  --no-wide                       skip uint64/double reduce_by_key and uint64 load_balancing_search\n"
    "  --slow-budget-ms=600            a contender whose calls would take longer gets fewer (see header)\n"
    "  --slow-min-reps=5               ... but at least this many timed calls\n"
    "  --host-check-log=26             host reference: at most 2^N regenerated values per check\n" +
    bench::run_options_usage(34) +
    "  --out path                      same as --csv=path\n"
    "  --quick                         max-log 26, 10 reps, 2 warm-ups, slow budget 300 ms / 3 reps\n"
    "                                  (later options override)\n";

struct options : bench::run_options {
  std::vector<std::string> prims{prim_segreduce, prim_rbk, prim_lbs, prim_interval, prim_alloc};
  std::vector<std::string> variants;  // empty: all
  int min_log = 0, max_log = 28, host_check_log = 26, slow_min_reps = 5;
  double slow_budget_ms = 600;
  bool wide = true;

  bool runs(const char* prim) const { return std::find(prims.begin(), prims.end(), prim) != prims.end(); }
  bool wants(const std::string& variant) const {
    return variants.empty() || std::find(variants.begin(), variants.end(), variant) != variants.end();
  }
  bool in_range(int lg) const { return lg >= min_log && lg <= max_log; }
};

options parse_options(int argc, char** argv) {
  options o;
  if (bench::has_flag(argc, argv, "--quick"))
    o.max_log = 26, o.reps = 10, o.warmup = 2, o.slow_budget_ms = 300, o.slow_min_reps = 3;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    std::string v;
    if (arg == "--quick") continue;
    bench::handle_help(arg, usage);
    if (arg == "--no-wide" || arg == "--wide") {
      o.wide = arg == "--wide";
    } else if (arg == "--out") {
      if (a + 1 >= argc) bench::die(2, "--out needs a path\n" + usage);
      o.csv = argv[++a];
    } else if (bench::option_value(arg, "out", v)) {
      o.csv = v;
    } else if (bench::option_value(arg, "prims", v)) {
      const auto chosen = bench::parse_choices(v, "prims",
                                               {prim_segreduce, prim_rbk, prim_lbs, prim_interval, prim_alloc,
                                                "expand", "allocation"},
                                               usage);
      o.prims.clear();
      for (const auto& c : chosen) {
        if (c == "expand") {
          o.prims.push_back(prim_lbs);
          o.prims.push_back(prim_interval);
        } else if (c == "allocation") {
          o.prims.push_back(prim_alloc);
        } else {
          o.prims.push_back(c);
        }
      }
    } else if (bench::option_value(arg, "variants", v)) {
      o.variants = bench::parse_choices(v, "variants",
                                        {"len1", "len4", "len256", "len65536", "powerlaw", "giant", "run1", "run4",
                                         "run256", "run65536", "uniform4", "uniform256", "with_offsets", "first"},
                                        usage);
    } else if (bench::option_value(arg, "min-log", v)) {
      o.min_log = int(bench::parse_int(v, "min-log", 0, 30));
    } else if (bench::option_value(arg, "max-log", v)) {
      o.max_log = int(bench::parse_int(v, "max-log", 0, 30));  // int32 offsets and CUB's int num_items
    } else if (bench::option_value(arg, "host-check-log", v)) {
      o.host_check_log = int(bench::parse_int(v, "host-check-log", 10, 34));
    } else if (bench::option_value(arg, "slow-budget-ms", v)) {
      o.slow_budget_ms = bench::parse_double(v, "slow-budget-ms", 1, 1e6);
    } else if (bench::option_value(arg, "slow-min-reps", v)) {
      o.slow_min_reps = int(bench::parse_int(v, "slow-min-reps", 1, 100000));
    } else if (!bench::parse_run_option(arg, o)) {
      bench::die(2, "unknown option '" + arg + "'\n" + usage);
    }
  }
  if (o.min_log > o.max_log) bench::die(2, "--min-log is larger than --max-log");
  bench::note_reps(o.reps);
  return o;
}

/// The sizes (log2) of a primitive's list within --min-log .. --max-log.
std::vector<int> sizes_of(const options& o, std::initializer_list<int> list) {
  std::vector<int> logs;
  for (int lg : list)
    if (o.in_range(lg)) logs.push_back(lg);
  return logs;
}

// ------------------------------------------------------------ host helpers --

/// Runs fn(i) for i in [0, count) on all cores.
template <class Fn>
void parallel_for(std::size_t count, Fn&& fn) {
  const std::size_t workers =
      std::min<std::size_t>(count, std::max(1u, std::min(32u, std::thread::hardware_concurrency())));
  if (workers <= 1) {
    for (std::size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      for (std::size_t i = w; i < count; i += workers) fn(i);
    });
  for (auto& t : pool) t.join();
}

/// ~count + 1 evenly spaced indices in [0, n), with 0 and n - 1 (sorted, unique).
std::vector<std::uint64_t> sample_indices(std::uint64_t n, int count = 1000) {
  std::vector<std::uint64_t> idx;
  if (n == 0) return idx;
  for (int k = 0; k <= count; ++k) idx.push_back(std::uint64_t((unsigned __int128)(n - 1) * k / count));
  idx.push_back(std::min<std::uint64_t>(1, n - 1));
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

/// d_src[idx[j]] for every j, copied to the host.
template <class T>
std::vector<T> gather_to_host(const T* d_src, const std::vector<std::uint64_t>& idx, double timeout_s,
                              const std::string& what) {
  const std::size_t m = idx.size();
  std::vector<T> host(m);
  if (m == 0) return host;
  device_buffer d_index(m * sizeof(std::uint64_t)), d_values(m * sizeof(T));
  BENCH_CUDA(cudaMemcpyAsync(d_index.get(), idx.data(), m * sizeof(std::uint64_t), cudaMemcpyHostToDevice, stream));
  bench::gather_kernel<T><<<unsigned((m + 255) / 256), 256, 0, stream>>>(d_src, d_index.as<std::uint64_t>(), m,
                                                                          d_values.as<T>());
  BENCH_CHECK_LAUNCH("gather_kernel");
  BENCH_CUDA(cudaMemcpyAsync(host.data(), d_values.get(), m * sizeof(T), cudaMemcpyDeviceToHost, stream));
  bench::sync_stream(stream, what + " (gathering samples)", timeout_s);
  return host;
}

template <class T>
T read_one(const T* d_src, double timeout_s, const std::string& what) {
  T v{};
  BENCH_CUDA(cudaMemcpyAsync(&v, d_src, sizeof(T), cudaMemcpyDeviceToHost, stream));
  bench::sync_stream(stream, what, timeout_s);
  return v;
}

std::string pct_text(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, pct >= 1 ? "%.1f%%" : "%.2f%%", pct);
  return buf;
}

std::string x_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x >= 10 ? "%.0fx" : "%.2fx", x);
  return buf;
}

// ----------------------------------------------------------------- inputs --

// Independent hash streams of (seed, i).
constexpr std::uint64_t length_stream = 0x510E527FADE682D1ull, value_stream = 0x9B05688C2B3E6C1Full,
                        size_stream = 0x1F83D9ABFB41BD6Bull;

__host__ __device__ inline std::uint64_t hash_of(std::uint64_t seed, std::uint64_t stream_id, std::uint64_t i) {
  return bench::splitmix64((seed ^ stream_id) * 0x2545F4914F6CDD1Dull + i);
}

/// Key of run r: a bijection of r (lowbias32 for 32-bit keys, the splitmix64
/// finaliser for 64-bit), so neighbouring runs always differ.
template <class K>
__host__ __device__ inline K key_of(std::uint64_t r) {
  if constexpr (sizeof(K) == 8) {
    return K(bench::splitmix64(r));
  } else {
    std::uint32_t x = std::uint32_t(r);  // r < 2^32
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return K(x);
  }
}

/// interval_expand's value of segment s.
__host__ __device__ inline std::int32_t expand_value(std::uint64_t seed, std::uint64_t s) {
  return std::int32_t(std::uint32_t(hash_of(seed, value_stream, s) >> 32));
}

/// allocation_offsets' size of producer i: 0 .. 15.
__host__ __device__ inline std::uint32_t size_of(std::uint64_t seed, std::uint64_t i) {
  return std::uint32_t(hash_of(seed, size_stream, i) >> 60);
}

/// How segment (or run) lengths are drawn.
enum class shape { fixed, uniform, power_law, giant };

struct dist {
  const char* name;  // the CSV variant
  shape kind;
  std::uint64_t lo, hi;  // fixed: the length (lo); uniform and giant's small segments: [lo, hi]
  const char* text;
};

// Power law: Lomax (Pareto II) lengths floor(pl_scale · (u^(-1/pl_alpha) - 1)),
// u uniform in (0, 1]: P(empty) = 1 - (1 + 1/pl_scale)^(-pl_alpha) ≈ 41 %,
// nominal mean pl_scale / (pl_alpha - 1) = 16, infinite variance (the
// realised mean of the segments cut at n is 11-14).
constexpr double pl_alpha = 1.1, pl_scale = 1.6, pl_mean = 16;

const dist segreduce_dists[] = {
    {"len1", shape::fixed, 1, 1, "every segment 1 value"},
    {"len4", shape::fixed, 4, 4, "every segment 4 values"},
    {"len256", shape::fixed, 256, 256, "every segment 256 values"},
    {"len65536", shape::fixed, 65536, 65536, "every segment 65536 values"},
    {"powerlaw", shape::power_law, 0, 0, "power law (Lomax, alpha 1.1): ~41% empty, mean ~11-14"},
    {"giant", shape::giant, 1, 15, "one segment of n/2 values among segments of 1..15"},
};
const dist run_dists[] = {
    {"run1", shape::fixed, 1, 1, "every run 1 key"},
    {"run4", shape::uniform, 1, 7, "runs of 1..7 keys (mean 4)"},
    {"run256", shape::uniform, 1, 511, "runs of 1..511 keys (mean 256)"},
    {"run65536", shape::uniform, 1, 131071, "runs of 1..131071 keys (mean 65536)"},
};
const dist expand_dists[] = {
    {"uniform4", shape::uniform, 1, 7, "segments of 1..7 outputs (mean 4)"},
    {"uniform256", shape::uniform, 1, 511, "segments of 1..511 outputs (mean 256)"},
    {"powerlaw", shape::power_law, 0, 0, "power law (Lomax, alpha 1.1): ~41% empty, mean ~11-14"},
};

__device__ inline std::uint64_t segment_length(shape kind, std::uint64_t lo, std::uint64_t hi, std::uint64_t i,
                                               std::uint64_t n, std::uint64_t seed, std::uint64_t giant_index) {
  const std::uint64_t h = hash_of(seed, length_stream, i);
  switch (kind) {
    case shape::fixed: return lo;
    case shape::uniform: return lo + h % (hi - lo + 1);
    case shape::power_law: {
      const double u = double((h >> 11) + 1) * 0x1.0p-53;  // (0, 1]
      const double w = pl_scale * (pow(u, -1.0 / pl_alpha) - 1.0);
      return w >= double(n) ? n : std::uint64_t(w);
    }
    case shape::giant: return i == giant_index ? n / 2 : lo + h % (hi - lo + 1);
  }
  return 0;
}

/// d_len[i] = length of candidate segment i for i < count; d_len[count] = 0
/// (so the exclusive scan of count + 1 entries ends with the sum).
__global__ void lengths_kernel(std::uint64_t* d_len, std::uint64_t count, shape kind, std::uint64_t lo,
                               std::uint64_t hi, std::uint64_t n, std::uint64_t seed, std::uint64_t giant_index) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i <= count;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    d_len[i] = i < count ? segment_length(kind, lo, hi, i, n, seed, giant_index) : 0;
}

/// d_p[i] = min(i · len, n) for i = 0 .. count.
__global__ void fixed_offsets_kernel(std::uint64_t* d_p, std::uint64_t count, std::uint64_t len, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i <= count;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    d_p[i] = i * len < n ? i * len : n;
}

/// *d_cut = the k in [1, count] with d_p[k-1] < n <= d_p[k] (d_p non-decreasing).
__global__ void cut_kernel(const std::uint64_t* d_p, std::uint64_t count, std::uint64_t n, std::uint64_t* d_cut) {
  for (std::uint64_t k = 1 + blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; k <= count;
       k += std::uint64_t(gridDim.x) * blockDim.x)
    if (d_p[k - 1] < n && d_p[k] >= n) *d_cut = k;
}

/// d_out[i] = O(d_p[i]), i = 0 .. count.
template <class O>
__global__ void narrow_offsets_kernel(const std::uint64_t* d_p, std::uint64_t count, O* d_out) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i <= count;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    d_out[i] = O(d_p[i]);
}

/// The segment of item j: the largest r with p[r] <= j (p[0] = 0 <= j <
/// p[count]), i.e. the non-empty segment that holds j.
__device__ inline std::uint64_t segment_of(const std::uint64_t* d_p, std::uint64_t count, std::uint64_t j) {
  std::uint64_t lo = 0, hi = count;  // p[lo] <= j < p[hi]
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (d_p[mid] <= j) lo = mid;
    else hi = mid;
  }
  return lo;
}

/// A segmentation of n items: count segments, offsets p[0 .. count] (uint64,
/// p[0] = 0, p[count] = n).
struct segmentation {
  std::size_t count = 0;
  std::uint64_t fixed_len = 0;  // every segment's length for shape::fixed (the last may be shorter)
  device_buffer p;
};

/// Builds the segmentation of n items for `d`: fixed lengths directly; random
/// ones as hashed lengths of enough candidate segments, their exclusive sum
/// (CUB), and a cut where it reaches n (the last segment shortened to end there).
segmentation make_segmentation(const dist& d, std::size_t n, std::uint64_t seed, int sms, double timeout_s,
                               const std::string& what) {
  segmentation seg;
  if (d.kind == shape::fixed) {
    seg.fixed_len = d.lo;
    seg.count = (n + d.lo - 1) / d.lo;
    seg.p = device_buffer((seg.count + 1) * sizeof(std::uint64_t));
    fixed_offsets_kernel<<<bench::grid_for(seg.count + 1, sms), 256, 0, stream>>>(seg.p.as<std::uint64_t>(), seg.count,
                                                                                 d.lo, n);
    BENCH_CHECK_LAUNCH("fixed_offsets_kernel");
    return seg;
  }
  std::uint64_t candidates = 0, giant_index = 0;
  switch (d.kind) {
    case shape::uniform: candidates = 2 * n / std::max<std::uint64_t>(1, (d.lo + d.hi) / 2) + 1024; break;
    case shape::power_law: candidates = std::uint64_t(4 * double(n) / pl_mean) + 1024; break;  // heavy tail: 4x
    case shape::giant:
      candidates = n / 8 + 1024;  // n/2 in small segments of mean 8, twice over
      giant_index = n / 32;       // ~n/4 values before it
      break;
    case shape::fixed: break;
  }
  device_buffer p((candidates + 1) * sizeof(std::uint64_t));
  std::uint64_t* const d_p = p.as<std::uint64_t>();
  lengths_kernel<<<bench::grid_for(candidates + 1, sms), 256, 0, stream>>>(d_p, candidates, d.kind, d.lo, d.hi, n,
                                                                          seed, giant_index);
  BENCH_CHECK_LAUNCH("lengths_kernel");
  std::size_t temp_bytes = 0;
  BENCH_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_p, std::int64_t(candidates + 1), stream));
  {
    device_buffer temp(temp_bytes);
    BENCH_CUDA(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, d_p, std::int64_t(candidates + 1), stream));
    device_buffer d_cut(sizeof(std::uint64_t));
    BENCH_CUDA(cudaMemsetAsync(d_cut.get(), 0, sizeof(std::uint64_t), stream));
    cut_kernel<<<bench::grid_for(candidates, sms), 256, 0, stream>>>(d_p, candidates, n, d_cut.as<std::uint64_t>());
    BENCH_CHECK_LAUNCH("cut_kernel");
    seg.count = std::size_t(read_one(d_cut.as<std::uint64_t>(), timeout_s, what + " segmentation"));
  }
  if (seg.count == 0) {
    std::ostringstream s;
    s << what << ": " << candidates << " candidate segments of '" << d.name << "' hold fewer than " << n
      << " items (try another --seed)";
    bench::die(1, s.str());
  }
  const std::uint64_t end = n;
  BENCH_CUDA(cudaMemcpyAsync(d_p + seg.count, &end, sizeof end, cudaMemcpyHostToDevice, stream));
  bench::sync_stream(stream, what + " segmentation", timeout_s);  // `end` is on this stack
  seg.p = std::move(p);
  return seg;
}

/// The segmentation's offsets as O (count + 1 entries) into d_out.
template <class O>
void narrow_offsets(const segmentation& seg, O* d_out, int sms) {
  narrow_offsets_kernel<O><<<bench::grid_for(seg.count + 1, sms), 256, 0, stream>>>(seg.p.as<std::uint64_t>(),
                                                                                    seg.count, d_out);
  BENCH_CHECK_LAUNCH("narrow_offsets_kernel");
}

template <class K>
__global__ void fill_keys_kernel(K* d_keys, std::uint64_t n, const std::uint64_t* d_p, std::uint64_t runs,
                                 std::uint64_t fixed_len) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    d_keys[i] = key_of<K>(fixed_len ? i / fixed_len : segment_of(d_p, runs, i));
}

__global__ void fill_expand_values_kernel(std::int32_t* d_values, std::uint64_t count, std::uint64_t seed) {
  for (std::uint64_t s = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; s < count;
       s += std::uint64_t(gridDim.x) * blockDim.x)
    d_values[s] = expand_value(seed, s);
}

__global__ void fill_sizes_kernel(std::uint32_t* d_sizes, std::uint64_t n, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    d_sizes[i] = size_of(seed, i);
}

/// Independent check of an expansion: for every output j, its segment r by a
/// binary search of d_p; d_source[j] == r, d_rank[j] == j - p[r], d_out[j] ==
/// expand_value(seed, r) (each where its pointer is not null).
template <class O>
__global__ void check_expand_kernel(const std::uint64_t* d_p, std::uint64_t segments, std::uint64_t total,
                                    const O* d_source, const O* d_rank, const std::int32_t* d_out, std::uint64_t seed,
                                    bench::compare_result* d_result) {
  unsigned long long local = 0, first = ~0ull;
  for (std::uint64_t j = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; j < total;
       j += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t r = segment_of(d_p, segments, j);
    const bool ok = (d_source == nullptr || d_source[j] == O(r)) && (d_rank == nullptr || d_rank[j] == O(j - d_p[r])) &&
                    (d_out == nullptr || d_out[j] == expand_value(seed, r));
    if (!ok) {
      ++local;
      if (j < first) first = j;
    }
  }
  if (local) {
    atomicAdd(&d_result->mismatches, local);
    atomicMin(&d_result->first, first);
  }
}

// ------------------------------------------------ read-only speed of light --

struct byte_range {
  const void* ptr;
  std::size_t bytes;  // a multiple of 4
};
struct read_ranges {
  byte_range r[3];
  int count;
};

constexpr int read_only_threads = 256;

/// Reads every byte of the ranges once (int4 loads, four in flight per
/// thread; 4-byte words for the tails), sums them and writes one value per
/// block: the read-only streaming bound of a reduction over those bytes.
__global__ void __launch_bounds__(read_only_threads) read_only_kernel(read_ranges R, unsigned* d_sink) {
  unsigned acc = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t tid = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int q = 0; q < R.count; ++q) {
    const uint4* p = static_cast<const uint4*>(R.r[q].ptr);
    const std::size_t n16 = R.r[q].bytes / 16;
    std::size_t i = tid;
    for (; i + 3 * stride < n16; i += 4 * stride) {  // four 16-byte loads in flight
      const uint4 a = __ldcs(p + i), b = __ldcs(p + i + stride), c = __ldcs(p + i + 2 * stride),
                  d = __ldcs(p + i + 3 * stride);
      acc += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) + (d.x + d.y + d.z + d.w);
    }
    for (; i < n16; i += stride) {
      const uint4 a = __ldcs(p + i);
      acc += a.x + a.y + a.z + a.w;
    }
    const unsigned* w = static_cast<const unsigned*>(R.r[q].ptr);  // the tail words
    for (std::size_t k = n16 * 4 + tid; k < R.r[q].bytes / 4; k += stride) acc += w[k];
  }
  for (int d = 16; d > 0; d /= 2) acc += __shfl_xor_sync(0xFFFFFFFFu, acc, d);
  __shared__ unsigned warp_sums[read_only_threads / 32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned s = 0;
    for (int k = 0; k < read_only_threads / 32; ++k) s += warp_sums[k];
    d_sink[blockIdx.x] = s;
  }
}

// ----------------------------------------------------------------- timing --

/// One contender's timing (bench::time_with_budget under --slow-budget-ms).
using timing = bench::budget_timing;
template <class Call>
timing time_contender(const options& o, bench::event_timer& timer, const std::string& what, Call&& call) {
  return bench::time_with_budget(o, o.slow_budget_ms, o.slow_min_reps, timer, what, std::forward<Call>(call));
}

/// cudaMemcpy D2D medians by byte count, each measured once per run on its
/// own rotated buffers (the same method as the other drivers' copy column).
class copy_cache {
 public:
  double get(std::size_t bytes, const options& o, const bench::device_info& dev, bench::event_timer& timer) {
    const auto it = ms_.find(bytes);
    if (it != ms_.end()) return it->second;
    const int pairs = bench::rotation_pairs(bytes, dev.l2_bytes, o.max_pairs);
    const std::string what = "cudaMemcpy D2D of " + std::to_string(bytes) + " bytes";
    bench::require_free_memory(2 * std::size_t(pairs) * bytes, what);
    std::vector<device_buffer> src, dst;
    for (int p = 0; p < pairs; ++p) {
      src.emplace_back(bytes);
      dst.emplace_back(bytes);
      BENCH_CUDA(cudaMemsetAsync(src.back().get(), 0x5A, bytes, stream));
    }
    bench::warm_gpu(10, dev.sms, stream, o.timeout_s);
    const double ms = bench::median(timer.run(
        o.warmup,
        [&](int k) {
          BENCH_CUDA(cudaMemcpyAsync(dst[std::size_t(k % pairs)].get(), src[std::size_t(k % pairs)].get(), bytes,
                                     cudaMemcpyDeviceToDevice, stream));
        },
        o.timeout_s, what));
    std::printf("# copy %.1f MiB: %.2f us (%.0f GB/s moved; %d set(s))\n", bytes / 1048576.0, ms * 1e3,
                2.0 * double(bytes) / (ms * 1e-3) / 1e9, pairs);
    ms_[bytes] = ms;
    return ms;
  }

 private:
  std::map<std::size_t, double> ms_;
};

// ---------------------------------------------------------------- results --

struct baseline_result {
  std::string name;
  timing t;
};

struct case_result {
  std::string primitive, variant, policy, type;
  int lg;
  std::size_t n, segments;  // segments: segments, runs, or 0 (allocation)
  double bytes_ratio;       // bytes moved ÷ bytes the copy moved
  double copy_ms;
  timing sk;
  std::vector<baseline_result> baselines;
  double pct(double ms) const { return copy_ms * bytes_ratio / ms * 100; }
  const baseline_result* find(const std::string& name) const {
    for (const auto& b : baselines)
      if (b.name == name) return &b;
    return nullptr;
  }
};

struct run_log {
  std::vector<case_result> results;
  int reduced = 0;  // contender timings with fewer than --reps calls
};

void print_case_header(const char* title) {
  std::printf("\n# %s\n", title);
  std::printf("%-22s %-20s %-13s %-5s %11s %11s %8s %6s %5s | %-17s %11s %8s %9s %6s\n", "primitive", "variant", "type",
              "n", "segments", "scankit_us", "sk%copy", "iqr%", "reps", "baseline", "base_us", "b%copy", "speedup",
              "reps");
}

/// One '#' line per distribution that will run: its name and what it is.
template <std::size_t N>
void print_legend(const options& o, const dist (&dists)[N]) {
  for (const dist& d : dists)
    if (o.wants(d.name)) std::printf("#   %-11s %s\n", d.name, d.text);
}

/// Prints a case (a line per baseline), writes its CSV rows and keeps it.
void report(const case_result& r, bench::csv_writer& csv, run_log& log, bool count_reduced = true) {
  char segs[32] = "-";
  if (r.segments) std::snprintf(segs, sizeof segs, "%zu", r.segments);
  char sk_reps[16];
  std::snprintf(sk_reps, sizeof sk_reps, "%s%d", r.sk.reduced ? "~" : "", r.sk.reps);
  if (count_reduced) log.reduced += r.sk.reduced;
  bool first = true;
  for (const auto& b : r.baselines) {
    char b_reps[16];
    std::snprintf(b_reps, sizeof b_reps, "%s%d", b.t.reduced ? "~" : "", b.t.reps);
    if (count_reduced) log.reduced += b.t.reduced;
    const double speedup = b.t.ms / r.sk.ms;
    std::string sp = x_text(speedup);
    if (b.name == "read_only_stream") sp = pct_text(speedup * 100) + "RO";
    if (first) {
      std::printf("%-22s %-20s %-13s 2^%-3d %11s %11.2f %8s %6.1f %5s | %-17s %11.2f %8s %9s %6s\n", r.primitive.c_str(),
                  r.variant.c_str(), r.type.c_str(), r.lg, segs, r.sk.ms * 1e3, pct_text(r.pct(r.sk.ms)).c_str(),
                  r.sk.spread, sk_reps, b.name.c_str(), b.t.ms * 1e3, pct_text(r.pct(b.t.ms)).c_str(), sp.c_str(),
                  b_reps);
    } else {
      std::printf("%-22s %-20s %-13s %-5s %11s %11s %8s %6s %5s | %-17s %11.2f %8s %9s %6s\n", "", "", "", "", "", "",
                  "", "", "", b.name.c_str(), b.t.ms * 1e3, pct_text(r.pct(b.t.ms)).c_str(), sp.c_str(), b_reps);
    }
    first = false;
    csv.row(r.primitive.c_str(), r.variant, r.policy, r.type.c_str(), r.n, r.sk.ms, b.name.c_str(), b.t.ms, r.copy_ms,
            r.bytes_ratio);
  }
  std::fflush(stdout);
  log.results.push_back(r);
}

/// Everything the cases share.
struct env {
  const options& o;
  const bench::device_info& dev;
  scankit::context& ctx;
  bench::csv_writer& csv;
  copy_cache& copies;
  bench::event_timer& timer;
  run_log& log;
};

/// Rethrows nothing: a scankit (or any) exception ends the run naming the case.
template <class Fn>
void guarded(const std::string& what, Fn&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    bench::die(1, what + ": exception: " + e.what());
  }
}

/// Sums of the digits of values [begin[j], end[j]) on the host, for the
/// segments whose lengths fit the budget (others: checked[j] = false).
struct host_sums {
  std::vector<std::int64_t> sum;
  std::vector<bool> checked;
  std::size_t count = 0;
};

host_sums digit_sums(std::uint64_t seed, const std::vector<std::uint64_t>& begin, const std::vector<std::uint64_t>& end,
                     std::uint64_t budget) {
  host_sums h;
  h.sum.assign(begin.size(), 0);
  h.checked.assign(begin.size(), false);
  std::uint64_t used = 0;
  for (std::size_t j = 0; j < begin.size(); ++j) {
    const std::uint64_t len = end[j] > begin[j] ? end[j] - begin[j] : 0;
    if (used + len > budget) continue;
    used += len;
    h.checked[j] = true;
    ++h.count;
  }
  std::vector<std::int64_t>& sum = h.sum;
  const std::vector<bool> checked = h.checked;
  parallel_for(begin.size(), [&](std::size_t j) {
    if (!checked[j]) return;
    std::int64_t s = 0;
    for (std::uint64_t i = begin[j]; i < end[j]; ++i) s += bench::input_digit(seed, i);
    sum[j] = s;
  });
  return h;
}

// ------------------------------------------------------- segmented_reduce --

void run_segmented_reduce(const env& e) {
  using V = std::int32_t;
  using O = std::int32_t;
  const options& o = e.o;
  const int sms = e.dev.sms;
  bool any = false;
  for (const dist& d : segreduce_dists) any = any || o.wants(d.name);
  const std::vector<int> logs = sizes_of(o, {24, 26, 28});
  if (!any || logs.empty()) return;
  print_case_header("segmented_reduce: int32 sum, int32 offsets; baselines cub (DeviceSegmentedReduce::Sum), "
                    "read_only_stream (speedup = fraction of the read-only speed of light)");
  print_legend(o, segreduce_dists);
  for (int lg : logs) {
    const std::size_t n = std::size_t(1) << lg;
    const std::uint64_t seed = o.seed + std::uint64_t(lg);
    const int pairs = bench::rotation_pairs(n * sizeof(V), e.dev.l2_bytes, o.max_pairs);
    const std::string where = std::string(prim_segreduce) + " n=2^" + std::to_string(lg);
    bench::require_free_memory(std::size_t(pairs) * 3 * n * sizeof(V) + 3 * n * sizeof(std::uint64_t), where);
    std::vector<device_buffer> values;
    for (int p = 0; p < pairs; ++p) {
      values.emplace_back(n * sizeof(V));
      bench::fill_input<V>(values.back().as<V>(), n, seed, sms, stream);
    }
    const double copy_ms = e.copies.get(n * sizeof(V), o, e.dev, e.timer);
    for (const dist& d : segreduce_dists) {
      if (!o.wants(d.name)) continue;
      const std::string what = where + " " + d.name;
      guarded(what, [&] {
        std::vector<device_buffer> offsets, out;
        std::size_t S = 0;
        {
          const segmentation seg = make_segmentation(d, n, seed, sms, o.timeout_s, what);
          S = seg.count;
          for (int p = 0; p < pairs; ++p) {
            offsets.emplace_back((S + 1) * sizeof(O));
            out.emplace_back(S * sizeof(V));
          }
          narrow_offsets<O>(seg, offsets[0].as<O>(), sms);
          for (int p = 1; p < pairs; ++p)
            BENCH_CUDA(cudaMemcpyAsync(offsets[p].get(), offsets[0].get(), (S + 1) * sizeof(O),
                                       cudaMemcpyDeviceToDevice, stream));
        }
        auto v = [&](int k) { return values[std::size_t(k % pairs)].as<V>(); };
        auto off = [&](int k) { return offsets[std::size_t(k % pairs)].as<O>(); };
        auto outp = [&](int k) { return out[std::size_t(k % pairs)].as<V>(); };
        device_buffer ref(S * sizeof(V));

        // CUB first; its result, checked against the host, is what scankit must equal.
        std::size_t temp_bytes = 0;
        BENCH_CUDA(cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, v(0), ref.as<V>(), std::int64_t(S), off(0),
                                                   off(0) + 1, stream));
        device_buffer temp(temp_bytes);
        auto cub_call = [&](int k, V* d_out) {
          std::size_t have = temp.bytes();
          BENCH_CUDA(cub::DeviceSegmentedReduce::Sum(temp.get(), have, v(k), d_out, std::int64_t(S), off(k),
                                                     off(k) + 1, stream));
        };
        bench::poison(ref.get(), S * sizeof(V), stream);
        cub_call(0, ref.as<V>());
        bench::sync_stream(stream, what + " CUB verification run", o.timeout_s);
        {
          const std::vector<std::uint64_t> segs = sample_indices(S);
          std::vector<std::uint64_t> next(segs.size());
          for (std::size_t j = 0; j < segs.size(); ++j) next[j] = segs[j] + 1;
          const std::vector<O> b = gather_to_host(off(0), segs, o.timeout_s, what);
          const std::vector<O> en = gather_to_host(off(0), next, o.timeout_s, what);
          const std::vector<V> got = gather_to_host(ref.as<V>(), segs, o.timeout_s, what);
          std::vector<std::uint64_t> b64(b.begin(), b.end()), e64(en.begin(), en.end());
          const host_sums h = digit_sums(seed, b64, e64, std::uint64_t(1) << o.host_check_log);
          for (std::size_t j = 0; j < segs.size(); ++j)
            if (h.checked[j] && got[j] != V(h.sum[j])) {
              std::ostringstream s;
              s << "wrong result: " << what << ": CUB's sum of segment " << segs[j] << " (values " << b[j] << " .. "
                << en[j] << ") is " << got[j] << ", the host reference " << h.sum[j];
              bench::die(1, s.str());
            }
          if (h.count == 0) bench::die(1, what + ": no sampled segment fits --host-check-log");
        }

        // scankit: equal to CUB element for element. (Also grows the context's workspace.)
        auto sk_call = [&](int k) { scankit::segmented_reduce(e.ctx, v(k), n, off(k), S, outp(k)); };
        bench::poison(outp(0), S * sizeof(V), stream);
        sk_call(0);
        BENCH_CUDA(cudaGetLastError());
        bench::check_equal<V>(outp(0), "scankit", ref.as<V>(), "CUB", S, sms, stream, o.timeout_s, what);

        // Timing; then every output set scankit wrote is compared again.
        for (int p = 0; p < pairs; ++p) bench::poison(outp(p), S * sizeof(V), stream);
        bench::warm_gpu(10, sms, stream, o.timeout_s);
        case_result r{prim_segreduce, d.name, "merge_path+lookback", "int32", lg, n, S,
                      double(4 * n + 4 * (S + 1) + 4 * S) / (2.0 * n * sizeof(V)), copy_ms, {}, {}};
        r.sk = time_contender(o, e.timer, what + " scankit", sk_call);
        for (int p = 0; p < std::min(pairs, r.sk.indices()); ++p)
          bench::check_equal<V>(outp(p), "scankit (after its timed calls)", ref.as<V>(), "CUB", S, sms, stream,
                                o.timeout_s, what + " set " + std::to_string(p));
        r.baselines.push_back({"cub", time_contender(o, e.timer, what + " CUB", [&](int k) { cub_call(k, outp(k)); })});
        const unsigned ro_grid = unsigned(sms) * (2048 / read_only_threads);
        device_buffer sink(ro_grid * sizeof(unsigned));
        auto ro_call = [&](int k) {
          const read_ranges R{{{v(k), n * sizeof(V)}, {off(k), (S + 1) * sizeof(O)}, {outp(k), S * sizeof(V)}}, 3};
          read_only_kernel<<<ro_grid, read_only_threads, 0, stream>>>(R, sink.as<unsigned>());
        };
        r.baselines.push_back({"read_only_stream", time_contender(o, e.timer, what + " read-only stream", ro_call)});
        BENCH_CHECK_LAUNCH("read_only_kernel");
        report(r, e.csv, e.log);
      });
    }
    bench::sync_stream(stream, where + " end", o.timeout_s);
  }
}

// ----------------------------------------------------------- reduce_by_key --

template <class K, class V>
void run_rbk_size(const env& e, int lg, const char* type_name) {
  const options& o = e.o;
  const int sms = e.dev.sms;
  const std::size_t n = std::size_t(1) << lg;
  const std::uint64_t seed = o.seed + std::uint64_t(lg);
  const int pairs = bench::rotation_pairs(n * (sizeof(K) + sizeof(V)), e.dev.l2_bytes, o.max_pairs);
  const std::string where = std::string(prim_rbk) + " " + type_name + " n=2^" + std::to_string(lg);
  bench::require_free_memory(std::size_t(pairs + 1) * 2 * n * (sizeof(K) + sizeof(V)) + 2 * n * sizeof(std::uint64_t),
                             where);
  // Values (the same for every run length) and the output sets.
  std::vector<device_buffer> keys, values, ukeys, sums;
  for (int p = 0; p < pairs; ++p) {
    keys.emplace_back(n * sizeof(K));
    values.emplace_back(n * sizeof(V));
    ukeys.emplace_back(n * sizeof(K));
    sums.emplace_back(n * sizeof(V));
    bench::fill_input<V>(values.back().as<V>(), n, seed, sms, stream);
  }
  device_buffer ref_keys(n * sizeof(K)), ref_sums(n * sizeof(V));
  const int slots = o.warmup + o.reps + 2;
  device_buffer counts((std::size_t(slots) + 1) * sizeof(std::size_t));  // slot `slots`: CUB's
  std::size_t* const d_counts = counts.as<std::size_t>();
  std::size_t* const d_cub_count = d_counts + slots;
  const double copy_ms = e.copies.get(n * sizeof(V), o, e.dev, e.timer);
  auto kp = [&](int k) { return keys[std::size_t(k % pairs)].template as<K>(); };
  auto vp = [&](int k) { return values[std::size_t(k % pairs)].template as<V>(); };
  auto up = [&](int k) { return ukeys[std::size_t(k % pairs)].template as<K>(); };
  auto sp = [&](int k) { return sums[std::size_t(k % pairs)].template as<V>(); };

  for (const dist& d : run_dists) {
    if (!o.wants(d.name)) continue;
    const std::string what = where + " " + d.name;
    guarded(what, [&] {
      const segmentation seg = make_segmentation(d, n, seed, sms, o.timeout_s, what);
      const std::size_t R = seg.count;
      for (int p = 0; p < pairs; ++p) {
        fill_keys_kernel<K><<<bench::grid_for(n, sms), 256, 0, stream>>>(kp(p), n, seg.p.as<std::uint64_t>(), R,
                                                                         seg.fixed_len);
        BENCH_CHECK_LAUNCH("fill_keys_kernel");
      }

      // CUB first, checked against the generation (count, keys) and the host (sums).
      std::size_t temp_bytes = 0;
      BENCH_CUDA(cub::DeviceReduce::ReduceByKey(nullptr, temp_bytes, kp(0), ref_keys.as<K>(), vp(0), ref_sums.as<V>(),
                                                d_cub_count, ::cuda::std::plus<>{}, int(n), stream));
      device_buffer temp(temp_bytes);
      auto cub_call = [&](int k, K* d_uk, V* d_sums) {
        std::size_t have = temp.bytes();
        BENCH_CUDA(cub::DeviceReduce::ReduceByKey(temp.get(), have, kp(k), d_uk, vp(k), d_sums, d_cub_count,
                                                  ::cuda::std::plus<>{}, int(n), stream));
      };
      bench::poison(ref_keys.get(), n * sizeof(K), stream);
      bench::poison(ref_sums.get(), n * sizeof(V), stream);
      BENCH_CUDA(cudaMemsetAsync(counts.get(), 0xFF, counts.bytes(), stream));
      cub_call(0, ref_keys.as<K>(), ref_sums.as<V>());
      const std::size_t cub_runs = read_one(d_cub_count, o.timeout_s, what + " CUB verification run");
      if (cub_runs != R) {
        std::ostringstream s;
        s << "wrong result: " << what << ": CUB ReduceByKey found " << cub_runs << " runs, the input has " << R;
        bench::die(1, s.str());
      }
      {
        const std::vector<std::uint64_t> runs = sample_indices(R);
        std::vector<std::uint64_t> next(runs.size());
        for (std::size_t j = 0; j < runs.size(); ++j) next[j] = runs[j] + 1;
        const std::vector<std::uint64_t> b = gather_to_host(seg.p.as<std::uint64_t>(), runs, o.timeout_s, what);
        const std::vector<std::uint64_t> en = gather_to_host(seg.p.as<std::uint64_t>(), next, o.timeout_s, what);
        const std::vector<K> got_keys = gather_to_host(ref_keys.as<K>(), runs, o.timeout_s, what);
        const std::vector<V> got_sums = gather_to_host(ref_sums.as<V>(), runs, o.timeout_s, what);
        const host_sums h = digit_sums(seed, b, en, std::uint64_t(1) << o.host_check_log);
        for (std::size_t j = 0; j < runs.size(); ++j) {
          const bool key_ok = got_keys[j] == key_of<K>(runs[j]);
          const bool sum_ok = !h.checked[j] || got_sums[j] == bench::value_of<V>(h.sum[j]);
          if (!key_ok || !sum_ok) {
            std::ostringstream s;
            s << "wrong result: " << what << ": CUB's run " << runs[j] << " (keys " << b[j] << " .. " << en[j]
              << ") has key " << bench::format_value(got_keys[j]) << " (expected "
              << bench::format_value(key_of<K>(runs[j])) << ") and sum " << bench::format_value(got_sums[j])
              << " (host reference " << bench::format_value(bench::value_of<V>(h.sum[j])) << ")";
            bench::die(1, s.str());
          }
        }
      }

      // scankit and Thrust: equal to CUB (count, keys, sums).
      auto sk_call = [&](int k) {
        scankit::reduce_by_key_async(e.ctx, kp(k), vp(k), n, up(k), sp(k), d_counts + (k % slots));
      };
      auto check_against_cub = [&](int k, const char* name, const std::string& at) {
        bench::check_equal<K>(up(k), name, ref_keys.as<K>(), "CUB", R, sms, stream, o.timeout_s, at + " (keys)");
        bench::check_equal<V>(sp(k), name, ref_sums.as<V>(), "CUB", R, sms, stream, o.timeout_s, at + " (sums)");
      };
      bench::poison(up(0), n * sizeof(K), stream);
      bench::poison(sp(0), n * sizeof(V), stream);
      sk_call(0);
      BENCH_CUDA(cudaGetLastError());
      const std::size_t sk_runs = read_one(d_counts, o.timeout_s, what + " scankit verification run");
      if (sk_runs != R) {
        std::ostringstream s;
        s << "wrong result: " << what << ": scankit counted " << sk_runs << " runs, CUB and the input " << R;
        bench::die(1, s.str());
      }
      check_against_cub(0, "scankit", what);
      auto thrust_call = [&](int k) -> std::size_t {
        const auto ends =
            thrust::reduce_by_key(thrust::cuda::par.on(stream), kp(k), kp(k) + n, vp(k), up(k), sp(k));
        return std::size_t(ends.first - up(k));
      };
      bench::poison(up(0), n * sizeof(K), stream);
      bench::poison(sp(0), n * sizeof(V), stream);
      const std::size_t thrust_runs = thrust_call(0);
      if (thrust_runs != R) {
        std::ostringstream s;
        s << "wrong result: " << what << ": thrust::reduce_by_key found " << thrust_runs << " runs, CUB " << R;
        bench::die(1, s.str());
      }
      check_against_cub(0, "Thrust", what);

      // Timing; scankit's counts and output sets compared again afterwards.
      for (int p = 0; p < pairs; ++p) {
        bench::poison(up(p), R * sizeof(K), stream);
        bench::poison(sp(p), R * sizeof(V), stream);
      }
      BENCH_CUDA(cudaMemsetAsync(counts.get(), 0xFF, counts.bytes(), stream));
      bench::warm_gpu(10, sms, stream, o.timeout_s);
      case_result r{prim_rbk, d.name, "single_pass_lookback", type_name, lg, n, R,
                    (double(n + R) * double(sizeof(K) + sizeof(V)) + 8) / (2.0 * n * sizeof(V)), copy_ms, {}, {}};
      r.sk = time_contender(o, e.timer, what + " scankit", sk_call);
      std::vector<std::size_t> got(std::size_t(slots), 0);
      BENCH_CUDA(cudaMemcpy(got.data(), d_counts, got.size() * sizeof(std::size_t), cudaMemcpyDeviceToHost));
      for (int c = 0; c < std::min(slots, r.sk.indices()); ++c)
        if (got[std::size_t(c)] != R) {
          std::ostringstream s;
          s << "wrong result: " << what << ": a timed scankit call wrote the count " << got[std::size_t(c)]
            << " (slot " << c << "), the input has " << R << " runs";
          bench::die(1, s.str());
        }
      for (int p = 0; p < std::min(pairs, r.sk.indices()); ++p)
        check_against_cub(p, "scankit (after its timed calls)", what + " set " + std::to_string(p));
      r.baselines.push_back(
          {"cub", time_contender(o, e.timer, what + " CUB", [&](int k) { cub_call(k, up(k), sp(k)); })});
      r.baselines.push_back(
          {"thrust", time_contender(o, e.timer, what + " Thrust", [&](int k) { (void)thrust_call(k); })});
      report(r, e.csv, e.log);
    });
  }
  bench::sync_stream(stream, where + " end", o.timeout_s);
}

void run_reduce_by_key(const env& e) {
  bool any = false;
  for (const dist& d : run_dists) any = any || e.o.wants(d.name);
  const std::vector<int> logs = sizes_of(e.o, {24, 26, 28});
  if (!any || logs.empty()) return;
  print_case_header("reduce_by_key: sum; baselines cub (DeviceReduce::ReduceByKey), thrust (reduce_by_key)");
  print_legend(e.o, run_dists);
  for (int lg : logs) {
    run_rbk_size<std::int32_t, std::int32_t>(e, lg, "int32/int32");
    if (e.o.wide) run_rbk_size<std::uint64_t, double>(e, lg, "uint64/double");
  }
}

// ------------------------------------------------------------------ expand --

/// Thrust's rank: j - offsets[source[j]].
template <class O>
struct rank_of {
  const O* d_offsets;
  __host__ __device__ O operator()(O j, O s) const { return O(j - d_offsets[s]); }
};

/// Runs check_expand_kernel; exits 1 describing the first mismatch.
template <class O>
void check_expand(const segmentation& seg, std::size_t total, const O* d_source, const O* d_rank,
                  const std::int32_t* d_out, std::uint64_t seed, int sms, double timeout_s, const std::string& what) {
  device_buffer d_result(sizeof(bench::compare_result));
  BENCH_CUDA(cudaMemsetAsync(d_result.get(), 0, sizeof(unsigned long long), stream));
  BENCH_CUDA(cudaMemsetAsync(d_result.as<char>() + sizeof(unsigned long long), 0xFF, sizeof(unsigned long long), stream));
  check_expand_kernel<O><<<bench::grid_for(total, sms), 256, 0, stream>>>(
      seg.p.as<std::uint64_t>(), seg.count, total, d_source, d_rank, d_out, seed, d_result.as<bench::compare_result>());
  BENCH_CHECK_LAUNCH("check_expand_kernel");
  const bench::compare_result r = read_one(d_result.as<bench::compare_result>(), timeout_s, what + " (check)");
  if (r.mismatches == 0) return;
  std::ostringstream s;
  s << "wrong result: " << what << ": " << r.mismatches << " of " << total
    << " outputs differ from the independent binary-search reference; first at output " << r.first;
  if (d_source) s << ": source " << read_one(d_source + r.first, timeout_s, what);
  if (d_rank) s << ", rank " << read_one(d_rank + r.first, timeout_s, what);
  if (d_out) s << ", value " << read_one(d_out + r.first, timeout_s, what);
  s << " (0x7F bytes are the poison: never written)";
  bench::die(1, s.str());
}

template <class O>
void run_lbs_case(const env& e, const dist& d, const segmentation& seg, int lg, std::uint64_t seed,
                  const char* type_name) {
  const options& o = e.o;
  const int sms = e.dev.sms;
  const std::size_t total = std::size_t(1) << lg, S = seg.count;
  const int pairs = bench::rotation_pairs(total * sizeof(O), e.dev.l2_bytes, o.max_pairs);
  const std::string what = std::string(prim_lbs) + " " + type_name + " total=2^" + std::to_string(lg) + " " + d.name;
  bench::require_free_memory(std::size_t(pairs + 1) * (2 * total + S + 1) * sizeof(O), what);
  guarded(what, [&] {
    std::vector<device_buffer> offsets, source, rank;
    for (int p = 0; p < pairs; ++p) {
      offsets.emplace_back((S + 1) * sizeof(O));
      source.emplace_back(total * sizeof(O));
      rank.emplace_back(total * sizeof(O));
      narrow_offsets<O>(seg, offsets.back().template as<O>(), sms);
    }
    device_buffer ref_source(total * sizeof(O)), ref_rank(total * sizeof(O));
    auto off = [&](int k) { return offsets[std::size_t(k % pairs)].template as<O>(); };
    auto src = [&](int k) { return source[std::size_t(k % pairs)].template as<O>(); };
    auto rnk = [&](int k) { return rank[std::size_t(k % pairs)].template as<O>(); };
    const double copy_ms = e.copies.get(total * sizeof(O), o, e.dev, e.timer);

    // Thrust first, checked by the independent device reference.
    auto thrust_call = [&](int k, O* d_source, O* d_rank) {
      const auto policy = thrust::cuda::par.on(stream);
      thrust::upper_bound(policy, off(k) + 1, off(k) + 1 + S, thrust::counting_iterator<O>(0),
                          thrust::counting_iterator<O>(O(total)), d_source);
      thrust::transform(policy, thrust::counting_iterator<O>(0), thrust::counting_iterator<O>(O(total)), d_source,
                        d_rank, rank_of<O>{off(k)});
    };
    bench::poison(ref_source.get(), total * sizeof(O), stream);
    bench::poison(ref_rank.get(), total * sizeof(O), stream);
    thrust_call(0, ref_source.as<O>(), ref_rank.as<O>());
    bench::sync_stream(stream, what + " Thrust verification run", o.timeout_s);
    check_expand<O>(seg, total, ref_source.as<O>(), ref_rank.as<O>(), nullptr, seed, sms, o.timeout_s,
                    what + " Thrust");

    auto sk_call = [&](int k) { scankit::load_balancing_search(e.ctx, off(k), S, total, src(k), rnk(k)); };
    auto check_sk = [&](int k, const std::string& at) {
      bench::check_equal<O>(src(k), "scankit", ref_source.as<O>(), "Thrust", total, sms, stream, o.timeout_s,
                            at + " (source)");
      bench::check_equal<O>(rnk(k), "scankit", ref_rank.as<O>(), "Thrust", total, sms, stream, o.timeout_s,
                            at + " (rank)");
    };
    bench::poison(src(0), total * sizeof(O), stream);
    bench::poison(rnk(0), total * sizeof(O), stream);
    sk_call(0);
    BENCH_CUDA(cudaGetLastError());
    check_sk(0, what);

    for (int p = 0; p < pairs; ++p) {
      bench::poison(src(p), total * sizeof(O), stream);
      bench::poison(rnk(p), total * sizeof(O), stream);
    }
    bench::warm_gpu(10, sms, stream, o.timeout_s);
    case_result r{prim_lbs, d.name, "merge_path", type_name, lg, total, S,
                  double(sizeof(O)) * double(S + 1 + 2 * total) / (2.0 * total * sizeof(O)), copy_ms, {}, {}};
    r.sk = time_contender(o, e.timer, what + " scankit", sk_call);
    for (int p = 0; p < std::min(pairs, r.sk.indices()); ++p) check_sk(p, what + " set " + std::to_string(p));
    r.baselines.push_back(
        {"thrust", time_contender(o, e.timer, what + " Thrust", [&](int k) { thrust_call(k, src(k), rnk(k)); })});
    report(r, e.csv, e.log);
  });
}

void run_interval_case(const env& e, const dist& d, const segmentation& seg, int lg, std::uint64_t seed) {
  using O = std::uint32_t;
  using T = std::int32_t;
  const options& o = e.o;
  const int sms = e.dev.sms;
  const std::size_t total = std::size_t(1) << lg, S = seg.count;
  const int pairs = bench::rotation_pairs(total * sizeof(T), e.dev.l2_bytes, o.max_pairs);
  const std::string what = std::string(prim_interval) + " int32/uint32 total=2^" + std::to_string(lg) + " " + d.name;
  bench::require_free_memory(std::size_t(pairs + 2) * (total + 2 * S + 1) * sizeof(T), what);
  guarded(what, [&] {
    std::vector<device_buffer> offsets, values, out;
    for (int p = 0; p < pairs; ++p) {
      offsets.emplace_back((S + 1) * sizeof(O));
      values.emplace_back(S * sizeof(T));
      out.emplace_back(total * sizeof(T));
      narrow_offsets<O>(seg, offsets.back().as<O>(), sms);
      fill_expand_values_kernel<<<bench::grid_for(S, sms), 256, 0, stream>>>(values.back().as<T>(), S, seed);
      BENCH_CHECK_LAUNCH("fill_expand_values_kernel");
    }
    device_buffer ref(total * sizeof(T)), thrust_source(total * sizeof(O));
    auto off = [&](int k) { return offsets[std::size_t(k % pairs)].as<O>(); };
    auto val = [&](int k) { return values[std::size_t(k % pairs)].as<T>(); };
    auto outp = [&](int k) { return out[std::size_t(k % pairs)].as<T>(); };
    const double copy_ms = e.copies.get(total * sizeof(T), o, e.dev, e.timer);

    auto thrust_call = [&](int k, T* d_out) {
      const auto policy = thrust::cuda::par.on(stream);
      O* const s = thrust_source.as<O>();
      thrust::upper_bound(policy, off(k) + 1, off(k) + 1 + S, thrust::counting_iterator<O>(0),
                          thrust::counting_iterator<O>(O(total)), s);
      thrust::gather(policy, s, s + total, val(k), d_out);
    };
    bench::poison(ref.get(), total * sizeof(T), stream);
    thrust_call(0, ref.as<T>());
    bench::sync_stream(stream, what + " Thrust verification run", o.timeout_s);
    check_expand<O>(seg, total, nullptr, nullptr, ref.as<T>(), seed, sms, o.timeout_s, what + " Thrust");

    auto sk_call = [&](int k) { scankit::interval_expand(e.ctx, val(k), off(k), S, total, outp(k)); };
    bench::poison(outp(0), total * sizeof(T), stream);
    sk_call(0);
    BENCH_CUDA(cudaGetLastError());
    bench::check_equal<T>(outp(0), "scankit", ref.as<T>(), "Thrust", total, sms, stream, o.timeout_s, what);

    for (int p = 0; p < pairs; ++p) bench::poison(outp(p), total * sizeof(T), stream);
    bench::warm_gpu(10, sms, stream, o.timeout_s);
    case_result r{prim_interval, d.name, "merge_path", "int32/uint32", lg, total, S,
                  double(4 * S + sizeof(O) * (S + 1) + 4 * total) / (2.0 * total * sizeof(T)), copy_ms, {}, {}};
    r.sk = time_contender(o, e.timer, what + " scankit", sk_call);
    for (int p = 0; p < std::min(pairs, r.sk.indices()); ++p)
      bench::check_equal<T>(outp(p), "scankit (after its timed calls)", ref.as<T>(), "Thrust", total, sms, stream,
                            o.timeout_s, what + " set " + std::to_string(p));
    r.baselines.push_back(
        {"thrust", time_contender(o, e.timer, what + " Thrust", [&](int k) { thrust_call(k, outp(k)); })});
    report(r, e.csv, e.log);
  });
}

void run_expand(const env& e) {
  const options& o = e.o;
  const bool lbs = o.runs(prim_lbs), interval = o.runs(prim_interval);
  bool any = false;
  for (const dist& d : expand_dists) any = any || o.wants(d.name);
  const std::vector<int> logs = sizes_of(o, {24, 26, 28});
  if (!any || logs.empty() || (!lbs && !interval)) return;
  print_case_header("expand: load_balancing_search (source + rank) and interval_expand (int32 values); baseline "
                    "thrust (upper_bound + transform / gather)");
  print_legend(o, expand_dists);
  const int largest = logs.back();
  for (int lg : logs) {
    const std::size_t total = std::size_t(1) << lg;
    const std::uint64_t seed = o.seed + std::uint64_t(lg);
    for (const dist& d : expand_dists) {
      if (!o.wants(d.name)) continue;
      const std::string what = "expand total=2^" + std::to_string(lg) + " " + d.name;
      const segmentation seg = make_segmentation(d, total, seed, e.dev.sms, o.timeout_s, what);
      if (lbs) run_lbs_case<std::uint32_t>(e, d, seg, lg, seed, "uint32");
      if (lbs && o.wide && lg == largest) run_lbs_case<std::uint64_t>(e, d, seg, lg, seed, "uint64");
      if (interval) run_interval_case(e, d, seg, lg, seed);
    }
    bench::sync_stream(stream, "expand total=2^" + std::to_string(lg) + " end", o.timeout_s);
  }
}

// ------------------------------------------------------- allocation_offsets --

/// Exact exclusive prefix sums of the sizes at sampled indices, and the total.
struct size_reference {
  std::vector<std::uint64_t> index, prefix;
  std::uint64_t total = 0;
};

size_reference make_size_reference(std::size_t n, std::uint64_t seed) {
  size_reference ref;
  ref.index = sample_indices(n);
  std::vector<std::uint64_t> bounds = ref.index;  // chunk j = [bounds[j-1], bounds[j]); the last chunk ends at n
  bounds.push_back(n);
  std::vector<std::uint64_t> chunk(bounds.size(), 0);
  parallel_for(bounds.size(), [&](std::size_t j) {
    const std::uint64_t begin = j == 0 ? 0 : bounds[j - 1];
    std::uint64_t s = 0;
    for (std::uint64_t i = begin; i < bounds[j]; ++i) s += size_of(seed, i);
    chunk[j] = s;
  });
  std::uint64_t running = 0;
  for (std::size_t j = 0; j < bounds.size(); ++j) {
    running += chunk[j];
    if (j < ref.index.size()) ref.prefix.push_back(running);  // sizes[0 .. index[j])
  }
  ref.total = running;
  return ref;
}

template <class O>
void run_allocation_type(const env& e, int lg, const std::vector<device_buffer>& sizes, const size_reference& host,
                         const char* type_name) {
  using Size = std::uint32_t;
  const options& o = e.o;
  const int sms = e.dev.sms;
  const std::size_t n = std::size_t(1) << lg;
  const int pairs = int(sizes.size());
  const std::string where = std::string(prim_alloc) + " " + type_name + " n=2^" + std::to_string(lg);
  bench::require_free_memory(std::size_t(pairs + 2) * (n + 1) * sizeof(O), where);
  guarded(where, [&] {
    std::vector<device_buffer> offsets;
    for (int p = 0; p < pairs; ++p) offsets.emplace_back((n + 1) * sizeof(O));
    device_buffer ref(n * sizeof(O));
    auto sz = [&](int k) { return sizes[std::size_t(k % pairs)].as<Size>(); };
    auto off = [&](int k) { return offsets[std::size_t(k % pairs)].as<O>(); };
    const double copy_ms = e.copies.get(n * sizeof(Size), o, e.dev, e.timer);
    constexpr bool wide = sizeof(O) == 8;

    // CUB ExclusiveSum first (n offsets), checked against the host.
    std::size_t temp_bytes = 0, temp_bytes_u64 = 0;
    BENCH_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, sz(0), ref.as<O>(), int(n), stream));
    if (wide)
      BENCH_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, temp_bytes_u64, sz(0), ref.as<O>(), ::cuda::std::plus<>{},
                                                O(0), int(n), stream));
    device_buffer temp(std::max(temp_bytes, temp_bytes_u64));
    auto cub_call = [&](int k, O* d_out) {
      std::size_t have = temp.bytes();
      BENCH_CUDA(cub::DeviceScan::ExclusiveSum(temp.get(), have, sz(k), d_out, int(n), stream));
    };
    auto cub_u64_call = [&](int k, O* d_out) {
      std::size_t have = temp.bytes();
      BENCH_CUDA(
          cub::DeviceScan::ExclusiveScan(temp.get(), have, sz(k), d_out, ::cuda::std::plus<>{}, O(0), int(n), stream));
    };
    auto check_host = [&](const O* d_result, const char* name, const std::string& at) {
      const std::vector<O> got = gather_to_host(d_result, host.index, o.timeout_s, at);
      for (std::size_t j = 0; j < got.size(); ++j)
        if (got[j] != O(host.prefix[j])) {
          std::ostringstream s;
          s << "wrong result: " << at << ": " << name << " offset " << host.index[j] << " is " << got[j]
            << ", the exact host prefix sum " << O(host.prefix[j]);
          bench::die(1, s.str());
        }
    };
    bench::poison(ref.get(), n * sizeof(O), stream);
    cub_call(0, ref.as<O>());
    bench::sync_stream(stream, where + " CUB verification run", o.timeout_s);
    check_host(ref.as<O>(), "CUB ExclusiveSum", where);

    cudaEvent_t ready_probe;
    BENCH_CUDA(cudaEventCreate(&ready_probe));
    for (const char* variant : {"with_offsets", "first"}) {
      if (!o.wants(variant)) continue;
      const bool first = std::string(variant) == "first";
      const scankit::total_timing tt = first ? scankit::total_timing::first : scankit::total_timing::with_offsets;
      const std::string what = where + " " + variant;
      auto sk_call_with = [&](int k, cudaEvent_t ready) {
        scankit::allocation_offsets_async(e.ctx, sz(k), n, off(k), static_cast<O*>(nullptr), ready, tt);
      };
      auto check_sk = [&](int k, const char* name, const std::string& at) {
        bench::check_equal<O>(off(k), name, ref.as<O>(), "CUB ExclusiveSum", n, sms, stream, o.timeout_s, at);
        const O t = read_one(off(k) + n, o.timeout_s, at + " (total)");
        if (t != O(host.total)) {
          std::ostringstream s;
          s << "wrong result: " << at << ": " << name << " total (offsets[n]) is " << t << ", the exact host total "
            << O(host.total);
          bench::die(1, s.str());
        }
      };
      bench::poison(off(0), (n + 1) * sizeof(O), stream);
      sk_call_with(0, first ? ready_probe : nullptr);
      BENCH_CUDA(cudaGetLastError());
      check_sk(0, "scankit", what);

      for (int p = 0; p < pairs; ++p) bench::poison(off(p), (n + 1) * sizeof(O), stream);
      bench::warm_gpu(10, sms, stream, o.timeout_s);
      const double bytes_ratio = double(n * sizeof(Size) + (n + 1) * sizeof(O)) / (2.0 * n * sizeof(Size));
      case_result r{prim_alloc, variant, "default_scan", type_name, lg, n, 0, bytes_ratio, copy_ms, {}, {}};
      case_result to_total = r;
      if (!first) {
        r.sk = time_contender(o, e.timer, what + " scankit", [&](int k) { sk_call_with(k, nullptr); });
      } else {
        // Each timed call: start event, the call (its total_ready event), stop event;
        // full time = start → stop, time to total = start → total_ready.
        guarded(what, [&] {
          const int reps = o.reps, warmup = o.warmup;
          std::vector<cudaEvent_t> start, ready, stop;
          for (int q = 0; q < 3 * reps; ++q) {
            cudaEvent_t ev = nullptr;
            BENCH_CUDA(cudaEventCreate(&ev));
            (q < reps ? start : q < 2 * reps ? ready : stop).push_back(ev);
          }
          int k = 0;
          for (int w = 0; w < warmup; ++w) sk_call_with(k++, ready_probe);
          bench::sync_stream(stream, what + " scankit (warm-up)", o.timeout_s);
          for (int q = 0; q < reps; ++q) {
            BENCH_CUDA(cudaEventRecord(start[static_cast<std::size_t>(q)], stream));
            sk_call_with(k++, ready[static_cast<std::size_t>(q)]);
            BENCH_CUDA(cudaEventRecord(stop[static_cast<std::size_t>(q)], stream));
          }
          bench::wait_event(stop[static_cast<std::size_t>(reps - 1)], what + " scankit (timed calls)", o.timeout_s);
          std::vector<double> full(static_cast<std::size_t>(reps)), early(static_cast<std::size_t>(reps));
          for (int q = 0; q < reps; ++q) {
            float a = 0, b = 0;
            BENCH_CUDA(cudaEventElapsedTime(&a, start[static_cast<std::size_t>(q)], stop[static_cast<std::size_t>(q)]));
            BENCH_CUDA(cudaEventElapsedTime(&b, start[static_cast<std::size_t>(q)], ready[static_cast<std::size_t>(q)]));
            full[static_cast<std::size_t>(q)] = a, early[static_cast<std::size_t>(q)] = b;
          }
          for (int q = 0; q < reps; ++q) {
            cudaEventDestroy(start[static_cast<std::size_t>(q)]);
            cudaEventDestroy(ready[static_cast<std::size_t>(q)]);
            cudaEventDestroy(stop[static_cast<std::size_t>(q)]);
          }
          r.sk.ms = bench::median(full), r.sk.spread = bench::spread_pct(full);
          to_total.sk.ms = bench::median(early), to_total.sk.spread = bench::spread_pct(early);
          r.sk.reps = to_total.sk.reps = reps;
          r.sk.warmup = to_total.sk.warmup = warmup;
        });
      }
      for (int p = 0; p < std::min(pairs, r.sk.indices()); ++p)
        check_sk(p, "scankit (after its timed calls)", what + " set " + std::to_string(p));
      r.baselines.push_back(
          {"cub", time_contender(o, e.timer, what + " CUB ExclusiveSum", [&](int k) { cub_call(k, off(k)); })});
      if (wide) {
        // Equal to ExclusiveSum's verified result (the totals stay below 2^32), then timed.
        bench::poison(off(0), n * sizeof(O), stream);
        cub_u64_call(0, off(0));
        bench::check_equal<O>(off(0), "CUB ExclusiveScan(uint64 init)", ref.as<O>(), "CUB ExclusiveSum", n, sms,
                              stream, o.timeout_s, what);
        r.baselines.push_back({"cub_u64", time_contender(o, e.timer, what + " CUB ExclusiveScan(uint64 init)",
                                                         [&](int k) { cub_u64_call(k, off(k)); })});
      }
      report(r, e.csv, e.log);
      if (first) {
        to_total.variant = "first:time_to_total";
        to_total.bytes_ratio = 0.5;  // one read of the sizes: n·4 of the copy's 2·n·4
        to_total.baselines = r.baselines;
        report(to_total, e.csv, e.log, false);  // the same calls as the row above
      }
    }
    BENCH_CUDA(cudaEventDestroy(ready_probe));
  });
}

void run_allocation(const env& e) {
  const options& o = e.o;
  const std::vector<int> logs = sizes_of(o, {20, 24, 28});
  if (logs.empty() || (!o.wants("with_offsets") && !o.wants("first"))) return;
  print_case_header("allocation_offsets: uint32 sizes (0..15); baselines cub (DeviceScan::ExclusiveSum), cub_u64 "
                    "(ExclusiveScan with a uint64 init; uint64 offsets); first:time_to_total = call start -> "
                    "total_ready event");
  for (int lg : logs) {
    const std::size_t n = std::size_t(1) << lg;
    const std::uint64_t seed = o.seed + std::uint64_t(lg);
    const int pairs = bench::rotation_pairs(n * sizeof(std::uint32_t), e.dev.l2_bytes, o.max_pairs);
    std::vector<device_buffer> sizes;
    for (int p = 0; p < pairs; ++p) {
      sizes.emplace_back(n * sizeof(std::uint32_t));
      fill_sizes_kernel<<<bench::grid_for(n, e.dev.sms), 256, 0, stream>>>(sizes.back().as<std::uint32_t>(), n, seed);
      BENCH_CHECK_LAUNCH("fill_sizes_kernel");
    }
    const size_reference host = make_size_reference(n, seed);
    run_allocation_type<std::uint32_t>(e, lg, sizes, host, "uint32/uint32");
    run_allocation_type<std::uint64_t>(e, lg, sizes, host, "uint32/uint64");
    bench::sync_stream(stream, std::string(prim_alloc) + " n=2^" + std::to_string(lg) + " end", o.timeout_s);
  }
}

// ---------------------------------------------------------------- summary --

/// The result of (primitive, variant, type) at its largest n.
std::vector<const case_result*> largest_of_each(const std::vector<case_result>& results) {
  std::vector<const case_result*> picked;
  for (const auto& r : results) {
    bool seen = false;
    for (auto& p : picked)
      if (p->primitive == r.primitive && p->variant == r.variant && p->type == r.type) {
        seen = true;
        if (r.n > p->n) p = &r;
      }
    if (!seen) picked.push_back(&r);
  }
  return picked;
}

void print_summary_table(const std::vector<case_result>& results) {
  std::printf("\n# summary table: each case at its largest n; %% copy credits the bytes each must move (header); "
              "RO = %% of the read-only stream's speed; vs = baseline time / scankit time\n");
  std::printf("%-22s %-20s %-13s %-5s %9s %8s %9s %9s %9s\n", "primitive", "variant", "type", "n", "sk%copy", "RO%SOL",
              "vs_CUB", "vs_Thrust", "vs_cubu64");
  for (const case_result* r : largest_of_each(results)) {
    const baseline_result* ro = r->find("read_only_stream");
    const baseline_result* cub = r->find("cub");
    const baseline_result* thr = r->find("thrust");
    const baseline_result* c64 = r->find("cub_u64");
    std::printf("%-22s %-20s %-13s 2^%-3d %9s %8s %9s %9s %9s\n", r->primitive.c_str(), r->variant.c_str(),
                r->type.c_str(), r->lg, pct_text(r->pct(r->sk.ms)).c_str(),
                ro ? pct_text(ro->t.ms / r->sk.ms * 100).c_str() : "-", cub ? x_text(cub->t.ms / r->sk.ms).c_str() : "-",
                thr ? x_text(thr->t.ms / r->sk.ms).c_str() : "-", c64 ? x_text(c64->t.ms / r->sk.ms).c_str() : "-");
  }
}

/// headline lines: segmented_reduce (% of the read-only speed of light, vs
/// CUB) and one line for the others, at the largest size run.
void print_headlines(const std::vector<case_result>& results) {
  char buf[256];
  {
    int lg = -1;
    for (const auto& r : results)
      if (r.primitive == prim_segreduce) lg = std::max(lg, r.lg);
    std::string line = "headline ragged segmented_reduce i32";
    if (lg < 0) {
      std::printf("%s: not run\n", line.c_str());
    } else {
      line += " 2^" + std::to_string(lg) + ": % of read-only SOL (target >= 70%) / vs CUB:";
      double worst = 1e9;
      std::string worst_name;
      for (const auto& r : results) {
        if (r.primitive != prim_segreduce || r.lg != lg) continue;
        const baseline_result* ro = r.find("read_only_stream");
        const baseline_result* cub = r.find("cub");
        const double ro_pct = ro ? ro->t.ms / r.sk.ms * 100 : 0;
        std::snprintf(buf, sizeof buf, " %s %s / %s%s;", r.variant.c_str(), pct_text(ro_pct).c_str(),
                      cub ? x_text(cub->t.ms / r.sk.ms).c_str() : "-",
                      r.variant == "len4" ? " (target >= 100x)" : "");
        line += buf;
        if (ro_pct < worst) worst = ro_pct, worst_name = r.variant;
      }
      line += " lowest " + worst_name + " " + pct_text(worst);
      std::printf("%s\n", line.c_str());
    }
  }
  {
    std::string line = "headline ragged others:";
    bool any = false;
    auto add = [&](const char* prim, const char* variant, const char* type, const char* label) {
      const case_result* best = nullptr;
      for (const auto& r : results)
        if (r.primitive == prim && r.variant == variant && r.type == type && (!best || r.n > best->n)) best = &r;
      if (!best) return;
      std::snprintf(buf, sizeof buf, "%s %s 2^%d %s copy", any ? ";" : "", label, best->lg,
                    pct_text(best->pct(best->sk.ms)).c_str());
      line += buf;
      for (const char* b : {"cub", "thrust"})
        if (const baseline_result* x = best->find(b)) {
          std::snprintf(buf, sizeof buf, ", %s %s", x_text(x->t.ms / best->sk.ms).c_str(),
                        std::string(b) == "cub" ? "CUB" : "Thrust");
          line += buf;
        }
      any = true;
    };
    add(prim_rbk, "run4", "int32/int32", "reduce_by_key i32 run4");
    add(prim_lbs, "uniform4", "uint32", "load_balancing_search u32 uniform4");
    add(prim_interval, "uniform4", "int32/uint32", "interval_expand uniform4");
    add(prim_alloc, "with_offsets", "uint32/uint64", "allocation_offsets u32->u64");
    add(prim_alloc, "first:time_to_total", "uint32/uint64", "time to total (first)");
    if (!any) line += " not run";
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const options o = parse_options(argc, argv);
  try {
    const bench::run_identity run = bench::begin_run(
        "ragged_bench", o.commit,
        bench::format("reps %d (median), warm-up %d, slow budget %.0f ms (>= %d reps), seed %llu", o.reps, o.warmup,
                      o.slow_budget_ms, o.slow_min_reps, (unsigned long long)o.seed));
    const bench::device_info& dev = run.dev;
    std::printf("# %% copy credits the bytes each primitive must move (ragged_bench.cu header); '~' before reps: "
                "fewer timed calls under the slow budget\n");
    bench::csv_writer csv;
    run.open(csv, o.csv);
    scankit::context ctx{stream};
    bench::event_timer timer(stream, o.reps);
    copy_cache copies;
    run_log log;
    const env e{o, dev, ctx, csv, copies, timer, log};
    bench::warm_gpu(300, dev.sms, stream, o.timeout_s);
    if (o.runs(prim_segreduce)) run_segmented_reduce(e);
    if (o.runs(prim_rbk)) run_reduce_by_key(e);
    run_expand(e);
    if (o.runs(prim_alloc)) run_allocation(e);
    bench::sync_stream(stream, "the end of the run", o.timeout_s);
    if (!csv.path().empty()) std::printf("# wrote %s\n", csv.path().c_str());
    print_summary_table(log.results);
    std::printf("summary ragged_bench: all %zu cases verified (scankit == CUB / Thrust exactly, counts and totals too; "
                "baselines checked against host sums of sampled segments / runs, exact host prefix sums, or an "
                "independent device search); %d contender timing(s) under the slow budget (fewer than %d calls); "
                "%.1f s\n",
                log.results.size(), log.reduced, o.reps,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    print_headlines(log.results);
  } catch (const std::exception& ex) {
    bench::die(1, std::string("exception: ") + ex.what());
  }
  std::fflush(nullptr);
  return 0;
}
