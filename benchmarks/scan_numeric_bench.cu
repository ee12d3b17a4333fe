// benchmarks/scan_numeric_bench.cu — the numeric modes of scankit's float and
// double inclusive sum (scankit::numeric_mode, scankit/policy.hpp) against
// CUB and cudaMemcpy device-to-device, all in the same run on the same input:
// their speed, and their error against the exact prefix sums.
//
// What is measured, for float and double at n = 2^20, 2^24, 2^28 (--logs):
//   fast, run_to_run, exact, compensated
//            scankit::inclusive_scan(ctx, d_in, d_out, n, scankit::with_numeric(mode))
//            (host API, op::plus, the default policy; one scankit::context for
//            the whole run, its workspace grown at each verification call);
//   cub      cub::DeviceScan::InclusiveSum (int num_items, temp storage
//            allocated once, outside the timed region);
//   copy     cudaMemcpyAsync D2D of n * sizeof(T) bytes (it moves 2 n sizeof(T),
//            as a scan must): % of copy = copy_ms / ms * 100,
//            GB/s = 2 n sizeof(T) / ms.
// Ratios: vs CUB = cub_ms / mode_ms; vs fast = fast_ms / mode_ms (> 1: faster
// than fast mode).
//
// Input: x_i uniform in [-1, 1) from a counter-based hash of (seed + log2 n, i)
// (bench::splitmix64), on the grid of 2^-23 (float: 24 random bits) or 2^-52
// (double: 53 bits); the host regenerates any x_i without copying it back.
// Prefix sums of such values are NOT exact in F, so the modes differ.
//
// Exact reference S_i: the exact prefix sum x_0 + ... + x_i rounded once to F
// (round to nearest even), computed on the host with
// scankit::detail::exact_accumulator<F> on all cores: each thread sums its
// chunk exactly, the chunk sums are combined into exact chunk prefixes
// (operator+, exact), then each thread walks its chunk again from its prefix
// and rounds every output. Its wall time is printed (the 2^28 double
// reference is the slowest part of the run: ~0.5 us per item on one core).
//
// Error of a contender's output out_i, over all i (on the device, from its
// verification call; columns of the accuracy CSV):
//   max_abs_err      max_i |out_i − S_i| (the difference formed in double:
//                    exact for float, within half an ulp of itself for double);
//   max_ulp_err      max_i |ord(out_i) − ord(S_i)|, ord(x) = the position of x
//                    among the values of F in order (±0 the same position):
//                    the number of ulps of F between out_i and S_i (within one
//                    binade: |out_i − S_i| / ulp(S_i)); 0 iff out_i == S_i.
//                    Large near the prefix sums' zero crossings, where any
//                    absolute error is many ulps of the tiny S_i;
//   inexact_outputs  the number of i with out_i != S_i (bits);
//   sum_abs          Σ|x_i| over the whole input (host, double), the scale of
//                    summation error bounds: report.py shows
//                    max_abs_err / (u Σ|x|), u = 2^-24 (float) or 2^-53 (double).
//
// Correctness (before any timing of a contender; outputs poisoned first):
//   exact        every output equals S_i bit for bit (also the outputs of its
//                timed calls and of its repeat runs, by hash);
//   run_to_run   a second call gives the same bits as the first (and so does
//                every timed call's output and every repeat run);
//   fast, compensated, CUB
//                every output finite and within the order-free sanity bound
//                |out_i − S_i| <= eps(F) (n / 256 + 256) Σ|x| (tests/support/
//                reference.hpp's bound for CUB's depth; loose: it catches
//                unwritten (poisoned) and garbage outputs), after the
//                verification call and on the outputs of the timed calls.
// Any violation, CUDA error, scankit exception or hang exits non-zero.
// Repeat runs (--runs, default 10, untimed, after the timed calls): the output
// of each call (poisoned first) is hashed on the device; distinct_outputs =
// the number of different hashes among them (informational for fast,
// compensated and CUB; must be 1 for run_to_run and exact).
//
// Timing (bench_common.cuh): the legacy default stream; CUDA events around
// every single call; a spin kernel gets the clocks up before each case; per
// contender one probe call (timed: the first warm-up), --warmup - 1 more
// warm-ups and the median of --reps (25) timed calls. A contender whose calls
// would pass --slow-budget-ms (600; the exact double scan runs at a few % of
// copy) gets no more warm-ups and budget ÷ probe timed calls (at least
// --slow-min-reps, 5), and as many repeat runs (at least 2); stdout marks it
// with '~'. Inputs smaller than twice the L2 are rotated (bench::rotation_pairs).
//
// Output: a stdout table, then 'summary' and 'headline' lines (scripts/gpu-check
// greps for them). --csv=path writes the docs/benchmarks.md schema: primitive
// scan_numeric, variant inclusive, policy = the numeric mode, one row with
// baseline cub and (modes other than fast) one with baseline fast; the error
// columns, which that schema has no room for, go to --accuracy-csv (default:
// the CSV's name with _accuracy before .csv), one row per type, n and
// contender (modes and cub):
//   type,n,contender,max_abs_err,max_ulp_err,inexact_outputs,sum_abs,distinct_outputs,runs,gpu,date,commit
// report.py reads both (scan_numeric.md: a table per type).
//
// Expected wall time on an H200 (estimated, not yet measured): host references
// ~10 s with 16 cores (2^28 doubles ~8 s of it), GPU calls ~5-10 s, fills,
// uploads and checks ~5 s: ~20-30 s; device memory ~8 GiB (2^28 doubles).
//
//   scan_numeric_bench [--types=float,double] [--logs=20,24,28]
//                      [--modes=fast,run_to_run,exact,compensated] [--runs=10]
//                      [--slow-budget-ms=600] [--slow-min-reps=5] [--reps=25] [--warmup=3]
//                      [--max-pairs=16] [--timeout-s=20] [--seed=N] [--csv=path]
//                      [--accuracy-csv=path] [--commit=sha] [--quick]
#include "bench_common.cuh"

#include <scankit/detail/numeric/exact_accumulator.cuh>
#include <scankit/scankit.hpp>

#include <cub/device/device_scan.cuh>

#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <set>
#include <utility>

namespace {

using bench::device_buffer;

const cudaStream_t stream = 0;  // the legacy default stream, as in the other drivers

const std::string usage =
    "usage: scan_numeric_bench [options]\n"
    "  --types=float,double                    element types (default: both)\n"
    "  --logs=20,24,28                         log2 sizes (<= 30)\n"
    "  --modes=fast,run_to_run,exact,compensated  numeric modes (default: all; CUB always runs)\n"
    "  --runs=10                               untimed repeat calls hashed for distinct outputs\n"
    "  --slow-budget-ms=600                    a contender whose calls would take longer gets fewer\n"
    "  --slow-min-reps=5                       ... but at least this many timed calls\n" +
    bench::run_options_usage(42) +
    "  --accuracy-csv=path                     error columns (default: <csv>_accuracy.csv)\n"
    "  --quick                                 n = 2^20, 2^24, 10 reps, 2 warm-ups, 4 runs\n"
    "                                          (later options override)\n";

const std::vector<std::string> all_modes{"fast", "run_to_run", "exact", "compensated"};

struct options : bench::run_options {
  std::vector<std::string> types{"float", "double"};
  std::vector<int> logs{20, 24, 28};
  std::vector<std::string> modes = all_modes;
  int runs = 10, slow_min_reps = 5;
  double slow_budget_ms = 600;
  std::string accuracy_csv;
};

options parse_options(int argc, char** argv) {
  options o;
  if (bench::has_flag(argc, argv, "--quick")) o.logs = {20, 24}, o.reps = 10, o.warmup = 2, o.runs = 4;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    std::string v;
    if (arg == "--quick") continue;
    bench::handle_help(arg, usage);
    if (bench::option_value(arg, "types", v)) {
      o.types = bench::parse_choices(v, "types", {"float", "double"}, usage);
    } else if (bench::option_value(arg, "logs", v)) {
      o.logs = bench::parse_logs(v, "logs", 30);  // CUB is called with int num_items
    } else if (bench::option_value(arg, "modes", v)) {
      o.modes = bench::parse_choices(v, "modes", all_modes, usage);
    } else if (bench::option_value(arg, "runs", v)) {
      o.runs = int(bench::parse_int(v, "runs", 1, 10000));
    } else if (bench::option_value(arg, "slow-budget-ms", v)) {
      o.slow_budget_ms = bench::parse_double(v, "slow-budget-ms", 1, 1e6);
    } else if (bench::option_value(arg, "slow-min-reps", v)) {
      o.slow_min_reps = int(bench::parse_int(v, "slow-min-reps", 1, 100000));
    } else if (bench::option_value(arg, "accuracy-csv", v)) {
      o.accuracy_csv = v;
    } else if (!bench::parse_run_option(arg, o)) {
      bench::die(2, "unknown option '" + arg + "'\n" + usage);
    }
  }
  if (o.accuracy_csv.empty() && !o.csv.empty()) {
    const std::string ext = ".csv";
    const bool has_ext = o.csv.size() > ext.size() && o.csv.compare(o.csv.size() - ext.size(), ext.size(), ext) == 0;
    o.accuracy_csv = (has_ext ? o.csv.substr(0, o.csv.size() - ext.size()) : o.csv) + "_accuracy.csv";
  }
  bench::note_reps(o.reps);
  return o;
}

scankit::numeric_mode mode_of(const std::string& name) {
  if (name == "run_to_run") return scankit::numeric_mode::run_to_run;
  if (name == "exact") return scankit::numeric_mode::exact;
  if (name == "compensated") return scankit::numeric_mode::compensated;
  return scankit::numeric_mode::fast;
}

// ------------------------------------------------------------------ input --

template <class F>
using bits_of = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;

/// x_i: uniform in [-1, 1) on the grid 2^-23 (float) / 2^-52 (double). Every
/// step is exact (k < 2^24 or 2^53; k · 2^-p − 1 is a multiple of 2^-p of
/// magnitude <= 1), so host and device agree bit for bit.
template <class F>
__host__ __device__ inline F uniform_value(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t h = bench::splitmix64(seed * 0x2545F4914F6CDD1Dull + i);
  if constexpr (sizeof(F) == 4)
    return float(std::uint32_t(h >> 40)) * 0x1p-23f - 1.0f;
  else
    return double(h >> 11) * 0x1p-52 - 1.0;
}

template <class F>
__global__ void fill_uniform_kernel(F* d_out, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    d_out[i] = uniform_value<F>(seed, i);
}

// -------------------------------------------------------- host reference --

/// The exact prefix sums rounded to F, and Σ|x|.
template <class F>
struct exact_reference {
  std::unique_ptr<F[]> sums;
  double sum_abs = 0, seconds = 0;
  unsigned threads = 0;
};

/// Chunked over all cores: exact chunk sums, exact exclusive chunk prefixes,
/// then every prefix rounded (see the header comment).
template <class F>
exact_reference<F> make_exact_reference(std::size_t n, std::uint64_t seed) {
  using acc_t = scankit::detail::exact_accumulator<F>;
  const auto t0 = std::chrono::steady_clock::now();
  exact_reference<F> ref;
  ref.sums.reset(new F[n]);  // no zero fill: every element is written below
  const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), n));
  ref.threads = unsigned(chunks);
  auto begin = [&](std::size_t c) { return n * c / chunks; };
  auto parallel = [&](auto&& fn) {
    std::vector<std::thread> pool;
    for (std::size_t c = 0; c < chunks; ++c) pool.emplace_back([&fn, c] { fn(c); });
    for (auto& t : pool) t.join();
  };

  // Pass 1: each chunk's exact sum (and Σ|x|).
  std::vector<acc_t> prefix(chunks);
  std::vector<double> abs_sum(chunks, 0.0);
  parallel([&](std::size_t c) {
    acc_t acc = acc_t::zero();
    double a = 0;
    for (std::size_t i = begin(c); i < begin(c + 1); ++i) {
      const F x = uniform_value<F>(seed, i);
      acc.add(x);
      a += std::fabs(double(x));
    }
    prefix[c] = acc;
    abs_sum[c] = a;
  });
  // Exclusive chunk prefixes (exact).
  acc_t running = acc_t::zero();
  for (std::size_t c = 0; c < chunks; ++c) {
    const acc_t sum = prefix[c];
    prefix[c] = running;
    running = running + sum;
    ref.sum_abs += abs_sum[c];
  }
  // Pass 2: each output, rounded once from its exact prefix.
  F* sums = ref.sums.get();
  parallel([&](std::size_t c) {
    acc_t acc = prefix[c];
    for (std::size_t i = begin(c); i < begin(c + 1); ++i) {
      acc.add(uniform_value<F>(seed, i));
      sums[i] = acc.rounded();
    }
  });
  ref.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return ref;
}

// ------------------------------------------------------ device comparison --

/// Full-array comparison of a result a with b (the reference, or an earlier
/// result). Atomically combined by compare_kernel.
struct compare_stats {
  unsigned long long max_abs_bits;  // the bits of max |a_i − b_i| (a double >= 0: its bits order as integers)
  unsigned long long max_ulps;      // max |ord(a_i) − ord(b_i)|
  unsigned long long mismatches;    // i with different bits
  unsigned long long first;         // the smallest such i (~0: none)
  unsigned long long nonfinite;     // i with a_i inf or NaN
  double max_abs() const {
    double d;
    std::memcpy(&d, &max_abs_bits, sizeof d);
    return d;
  }
};

/// Position of x among the values of F in order (±0 -> 0).
template <class F>
__device__ inline long long ordinal(F x) {
  bits_of<F> b;
  memcpy(&b, &x, sizeof b);
  constexpr bits_of<F> sign = bits_of<F>(1) << (8 * sizeof(F) - 1);
  const long long magnitude = static_cast<long long>(b & ~sign);
  return (b & sign) ? -magnitude : magnitude;
}

template <class F>
__global__ void compare_kernel(const F* d_a, const F* d_b, std::size_t n, compare_stats* d_stats) {
  double max_abs = 0;
  unsigned long long max_ulps = 0, mismatches = 0, first = ~0ull, nonfinite = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const F a = d_a[i], b = d_b[i];
    bits_of<F> ab, bb;
    memcpy(&ab, &a, sizeof ab);
    memcpy(&bb, &b, sizeof bb);
    if (ab != bb) {
      ++mismatches;
      first = first < i ? first : i;
    }
    if (!isfinite(a)) ++nonfinite;
    const double d = fabs(double(a) - double(b));
    if (!(d <= max_abs) && max_abs == max_abs) max_abs = d;  // a NaN difference sticks (counted as nonfinite too)
    const long long oa = ordinal(a), ob = ordinal(b);
    const unsigned long long u = oa >= ob ? (unsigned long long)oa - (unsigned long long)ob
                                          : (unsigned long long)ob - (unsigned long long)oa;
    max_ulps = u > max_ulps ? u : max_ulps;
  }
  unsigned long long abs_bits = (unsigned long long)__double_as_longlong(max_abs);
  for (int s = 16; s > 0; s >>= 1) {
    const unsigned long long ab = __shfl_xor_sync(0xffffffffu, abs_bits, s);
    const unsigned long long ul = __shfl_xor_sync(0xffffffffu, max_ulps, s);
    const unsigned long long fi = __shfl_xor_sync(0xffffffffu, first, s);
    abs_bits = ab > abs_bits ? ab : abs_bits;
    max_ulps = ul > max_ulps ? ul : max_ulps;
    first = fi < first ? fi : first;
    mismatches += __shfl_xor_sync(0xffffffffu, mismatches, s);
    nonfinite += __shfl_xor_sync(0xffffffffu, nonfinite, s);
  }
  if (threadIdx.x % 32 == 0) {
    atomicMax(&d_stats->max_abs_bits, abs_bits);
    atomicMax(&d_stats->max_ulps, max_ulps);
    if (mismatches) {
      atomicAdd(&d_stats->mismatches, mismatches);
      atomicMin(&d_stats->first, first);
    }
    if (nonfinite) atomicAdd(&d_stats->nonfinite, nonfinite);
  }
}

/// Compares d_a with d_b on the device (blocks of 256: whole warps).
template <class F>
compare_stats compare(const F* d_a, const F* d_b, std::size_t n, int sms, double timeout_s, const std::string& what) {
  bench::sync_stream(stream, what, timeout_s);  // the work that wrote d_a, with the hang timeout
  compare_stats h{0, 0, 0, ~0ull, 0};
  device_buffer d_stats(sizeof h);
  BENCH_CUDA(cudaMemcpyAsync(d_stats.get(), &h, sizeof h, cudaMemcpyHostToDevice, stream));
  compare_kernel<F><<<bench::grid_for(n, sms), 256, 0, stream>>>(d_a, d_b, n, d_stats.as<compare_stats>());
  BENCH_CHECK_LAUNCH("compare_kernel");
  BENCH_CUDA(cudaMemcpyAsync(&h, d_stats.get(), sizeof h, cudaMemcpyDeviceToHost, stream));
  bench::sync_stream(stream, what + " (comparison)", timeout_s);
  return h;
}

/// An order-independent 64-bit hash of an array's bits (sum of hashed (bits, i)).
template <class F>
__global__ void hash_kernel(const F* d_in, std::size_t n, unsigned long long* d_hash) {
  unsigned long long h = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    bits_of<F> b;
    const F x = d_in[i];
    memcpy(&b, &x, sizeof b);
    h += bench::splitmix64(std::uint64_t(b) ^ (std::uint64_t(i) * 0xD1B54A32D192ED03ull));
  }
  for (int s = 16; s > 0; s >>= 1) h += __shfl_xor_sync(0xffffffffu, h, s);
  if (threadIdx.x % 32 == 0) atomicAdd(d_hash, h);
}

template <class F>
std::uint64_t hash_of(const F* d_in, std::size_t n, int sms, double timeout_s, const std::string& what) {
  device_buffer d_hash(sizeof(unsigned long long));
  BENCH_CUDA(cudaMemsetAsync(d_hash.get(), 0, sizeof(unsigned long long), stream));
  hash_kernel<F><<<bench::grid_for(n, sms), 256, 0, stream>>>(d_in, n, d_hash.as<unsigned long long>());
  BENCH_CHECK_LAUNCH("hash_kernel");
  unsigned long long h = 0;
  BENCH_CUDA(cudaMemcpyAsync(&h, d_hash.get(), sizeof h, cudaMemcpyDeviceToHost, stream));
  bench::sync_stream(stream, what + " (hash)", timeout_s);
  return h;
}

template <class F>
F read_element(const F* d_ptr, std::size_t i, double timeout_s) {
  F v{};
  BENCH_CUDA(cudaMemcpyAsync(&v, d_ptr + i, sizeof v, cudaMemcpyDeviceToHost, stream));
  bench::sync_stream(stream, "reading one element", timeout_s);
  return v;
}

// ----------------------------------------------------------------- timing --

/// One contender's timing (bench::time_with_budget under --slow-budget-ms).
using timing = bench::budget_timing;
template <class Call>
timing time_contender(const options& o, bench::event_timer& timer, const std::string& what, Call&& call) {
  return bench::time_with_budget(o, o.slow_budget_ms, o.slow_min_reps, timer, what, std::forward<Call>(call));
}

// ------------------------------------------------------------------ cases --

/// A contender's results for one type and size.
struct contender_result {
  std::string name;  // a numeric mode, or "cub"
  timing t;
  compare_stats err{};  // against the exact reference, from the verification call
  int distinct = 0, runs = 0;
};

struct case_result {
  std::string type;
  std::size_t n = 0, elem_bytes = 0;
  double copy_ms = 0, sum_abs = 0, host_ref_s = 0;
  std::vector<contender_result> contenders;
  const contender_result* find(const std::string& name) const {
    for (const auto& c : contenders)
      if (c.name == name) return &c;
    return nullptr;
  }
};

/// The error columns (see the header comment).
class accuracy_writer {
 public:
  void open(const std::string& path, const std::string& gpu, const std::string& date, const std::string& commit) {
    if (path.empty()) return;
    file_ = std::fopen(path.c_str(), "w");
    if (!file_) bench::die(1, "cannot open --accuracy-csv=" + path + " for writing");
    path_ = path, gpu_ = gpu, date_ = date, commit_ = commit;
    std::fprintf(file_, "type,n,contender,max_abs_err,max_ulp_err,inexact_outputs,sum_abs,distinct_outputs,runs,gpu,"
                        "date,commit\n");
    std::fflush(file_);
  }
  ~accuracy_writer() {
    if (file_) std::fclose(file_);
  }
  void row(const case_result& r, const contender_result& c) {
    if (!file_) return;
    std::fprintf(file_, "%s,%zu,%s,%.17g,%llu,%llu,%.17g,%d,%d,%s,%s,%s\n", r.type.c_str(), r.n, c.name.c_str(),
                 c.err.max_abs(), c.err.max_ulps, c.err.mismatches, r.sum_abs, c.distinct, c.runs, gpu_.c_str(),
                 date_.c_str(), commit_.c_str());
    if (std::fflush(file_) != 0) bench::die(1, "write to " + path_ + " failed");
  }
  const std::string& path() const { return path_; }

 private:
  std::FILE* file_ = nullptr;
  std::string path_, gpu_, date_, commit_;
};

void print_table_header() {
  std::printf("%-6s %-5s %-12s %10s %8s %7s %7s %7s %12s %11s %11s %9s %5s\n", "type", "n", "contender", "ms", "GB/s",
              "%copy", "vs_cub", "vs_fast", "max_ulp_err", "max_abs_err", "inexact", "distinct", "reps");
}

void print_row(const case_result& r, const contender_result& c) {
  const contender_result* cub = r.find("cub");
  const contender_result* fast = r.find("fast");
  const double gbs = 2.0 * double(r.n) * double(r.elem_bytes) / (c.t.ms * 1e-3) / 1e9;
  char vs_cub[16] = "-", vs_fast[16] = "-", reps[16];
  if (cub && c.name != "cub") std::snprintf(vs_cub, sizeof vs_cub, "%.3fx", cub->t.ms / c.t.ms);
  if (fast && c.name != "fast" && c.name != "cub") std::snprintf(vs_fast, sizeof vs_fast, "%.3fx", fast->t.ms / c.t.ms);
  std::snprintf(reps, sizeof reps, "%s%d", c.t.reduced ? "~" : "", c.t.reps);
  std::printf("%-6s 2^%-3d %-12s %10.4f %8.1f %6.1f%% %7s %7s %12llu %11.3g %11llu %4d/%-4d %5s\n", r.type.c_str(),
              bench::log2_exact(r.n), c.name.c_str(), c.t.ms, gbs, r.copy_ms / c.t.ms * 100, vs_cub, vs_fast,
              c.err.max_ulps, c.err.max_abs(), c.err.mismatches, c.distinct, c.runs, reps);
  std::fflush(stdout);
}

/// Everything for one type and size: reference, buffers, copy, contenders.
template <class F>
case_result run_case(const char* type_name, int lg, const options& o, const bench::device_info& dev,
                     scankit::context& ctx, bench::event_timer& timer) {
  const std::size_t n = std::size_t(1) << lg;
  const std::size_t bytes = n * sizeof(F);
  const std::uint64_t seed = o.seed + std::uint64_t(lg);
  const int pairs = bench::rotation_pairs(bytes, dev.l2_bytes, o.max_pairs);
  const std::string where = std::string(type_name) + " n=2^" + std::to_string(lg);
  case_result r;
  r.type = type_name, r.n = n, r.elem_bytes = sizeof(F);

  // Buffers: `pairs` input/output pairs (the same input in each), the
  // reference and one kept result (run_to_run's first call).
  bench::require_free_memory((2 * std::size_t(pairs) + 2) * bytes, where);

  // ---- exact reference on the host, uploaded ----
  const exact_reference<F> ref = make_exact_reference<F>(n, seed);
  r.sum_abs = ref.sum_abs, r.host_ref_s = ref.seconds;
  std::printf("# %s: host exact reference %.2f s (%u threads), sum|x| %.6g, S_n-1 = %s; %d buffer pair(s) of %.1f MiB\n",
              where.c_str(), ref.seconds, ref.threads, ref.sum_abs, bench::format_value(ref.sums[n - 1]).c_str(), pairs,
              bytes / 1048576.0);
  std::fflush(stdout);

  std::vector<device_buffer> in, out;
  for (int p = 0; p < pairs; ++p) {
    in.emplace_back(bytes);
    out.emplace_back(bytes);
    fill_uniform_kernel<F><<<bench::grid_for(n, dev.sms), 256, 0, stream>>>(in.back().as<F>(), n, seed);
    BENCH_CHECK_LAUNCH("fill_uniform_kernel");
  }
  auto d_in = [&](int k) { return static_cast<const F*>(in[std::size_t(k % pairs)].as<F>()); };
  auto d_out = [&](int k) { return out[std::size_t(k % pairs)].as<F>(); };
  device_buffer d_ref(bytes), d_keep(bytes);
  BENCH_CUDA(cudaMemcpyAsync(d_ref.get(), ref.sums.get(), bytes, cudaMemcpyHostToDevice, stream));
  bench::sync_stream(stream, where + " input fill and reference upload", o.timeout_s);
  const std::uint64_t ref_hash = hash_of(d_ref.as<F>(), n, dev.sms, o.timeout_s, where + " reference");

  bench::warm_gpu(20, dev.sms, stream, o.timeout_s);  // clocks up after the host work above
  r.copy_ms = bench::median(timer.run(
      o.warmup,
      [&](int k) { BENCH_CUDA(cudaMemcpyAsync(d_out(k), d_in(k), bytes, cudaMemcpyDeviceToDevice, stream)); },
      o.timeout_s, where + " cudaMemcpy D2D"));

  const bench::cub_inclusive_sum<F> cub(n, stream);
  const double sanity_bound =
      double(std::numeric_limits<F>::epsilon()) * (double(n) / 256.0 + 256.0) * ref.sum_abs;

  std::vector<std::string> names = o.modes;
  names.push_back("cub");
  for (const std::string& name : names) {
    const bool is_cub = name == "cub";
    const scankit::numeric_mode mode = mode_of(name);
    const bool exact = !is_cub && mode == scankit::numeric_mode::exact;
    const bool r2r = !is_cub && mode == scankit::numeric_mode::run_to_run;
    const std::string what = where + " " + name;
    auto call = [&](const F* x, F* y) {
      if (is_cub)
        cub(x, y);
      else
        scankit::inclusive_scan(ctx, x, y, n, scankit::with_numeric(mode));
    };
    auto fail = [&](const std::string& why, const F* d_got, const F* d_want, const char* want_name,
                    const compare_stats& s) {
      std::ostringstream m;
      m << "wrong result: " << what << ": " << why;
      if (s.first != ~0ull)
        m << "; " << s.mismatches << " of " << n << " elements differ from the " << want_name << ", first at index "
          << s.first << ": " << bench::format_value(read_element(d_got, s.first, o.timeout_s)) << " vs "
          << bench::format_value(read_element(d_want, s.first, o.timeout_s));
      m << " (max |error| " << s.max_abs() << ", " << s.nonfinite
        << " non-finite; a value of 0x7F bytes is the poison: never written)";
      bench::die(1, m.str());
    };
    // The check every output of this contender must pass (see the header comment).
    const F* d_expected = exact ? d_ref.as<F>() : r2r ? d_keep.as<F>() : nullptr;
    auto check = [&](const F* d_got, const std::string& which) {
      if (d_expected) {
        const compare_stats s = compare(d_got, d_expected, n, dev.sms, o.timeout_s, what + which);
        if (s.mismatches)
          fail(exact ? which + " is not the correctly rounded exact prefix sum"
                     : which + " differs from its first call (not run to run reproducible)",
               d_got, d_expected, exact ? "host exact reference" : "first call's result", s);
        return s;
      }
      const compare_stats s = compare(d_got, d_ref.as<F>(), n, dev.sms, o.timeout_s, what + which);
      if (s.nonfinite || !(s.max_abs() <= sanity_bound))
        fail(which + " breaks the sanity bound " + bench::format_value(sanity_bound) + " or is not finite", d_got,
             d_ref.as<F>(), "host exact reference", s);
      return s;
    };

    // ---- correctness, on pair 0, before any timing of this contender ----
    contender_result c;
    c.name = name;
    bench::poison(d_out(0), bytes, stream);
    call(d_in(0), d_out(0));
    BENCH_CUDA(cudaGetLastError());
    if (r2r) {  // the first call is the result every later call must equal
      bench::sync_stream(stream, what + " verification call", o.timeout_s);
      BENCH_CUDA(cudaMemcpyAsync(d_keep.get(), d_out(0), bytes, cudaMemcpyDeviceToDevice, stream));
      bench::poison(d_out(0), bytes, stream);
      call(d_in(0), d_out(0));
      BENCH_CUDA(cudaGetLastError());
      check(d_out(0), " second call");
    }
    c.err = compare(d_out(0), d_ref.as<F>(), n, dev.sms, o.timeout_s, what + " error vs the exact reference");
    check(d_out(0), " verification call");

    // ---- timing, then the outputs of the timed calls ----
    for (int p = 0; p < pairs; ++p) bench::poison(d_out(p), bytes, stream);
    c.t = time_contender(o, timer, what, [&](int k) { call(d_in(k), d_out(k)); });
    for (int p = 0; p < std::min(pairs, std::max(1, c.t.warmup + c.t.reps)); ++p)
      check(d_out(p), " output of the timed calls, pair " + std::to_string(p));

    // ---- repeat runs: distinct outputs ----
    c.runs = o.runs;
    if (c.t.probe_ms * o.runs > o.slow_budget_ms)
      c.runs = std::min(o.runs, std::max(2, int(o.slow_budget_ms / std::max(1e-3, c.t.probe_ms))));
    const std::uint64_t keep_hash = r2r ? hash_of(d_keep.as<F>(), n, dev.sms, o.timeout_s, what + " first call") : 0;
    std::set<std::uint64_t> hashes;
    for (int k = 0; k < c.runs; ++k) {
      bench::poison(d_out(0), bytes, stream);
      call(d_in(0), d_out(0));
      BENCH_CUDA(cudaGetLastError());
      const std::uint64_t h = hash_of(d_out(0), n, dev.sms, o.timeout_s, what + " repeat run");
      if ((exact && h != ref_hash) || (r2r && h != keep_hash))
        check(d_out(0), " repeat run " + std::to_string(k));  // dies with the first differing element
      hashes.insert(h);
    }
    c.distinct = int(hashes.size());
    r.contenders.push_back(c);
  }
  return r;
}

/// CSV rows and stdout lines of a finished case.
void report_case(const case_result& r, bench::csv_writer& csv, accuracy_writer& acc) {
  const contender_result* cub = r.find("cub");
  const contender_result* fast = r.find("fast");
  for (const contender_result& c : r.contenders) {
    print_row(r, c);
    acc.row(r, c);
    if (c.name == "cub") continue;
    csv.row("scan_numeric", "inclusive", c.name, r.type.c_str(), r.n, c.t.ms, "cub", cub->t.ms, r.copy_ms);
    if (fast && c.name != "fast")
      csv.row("scan_numeric", "inclusive", c.name, r.type.c_str(), r.n, c.t.ms, "fast", fast->t.ms, r.copy_ms);
  }
}

/// The headline: each mode at the largest size run, % of copy and vs fast;
/// design.md: the reproducible mode within 10 % of fast's speed.
void print_headline(const std::vector<case_result>& results) {
  std::size_t largest = 0;
  for (const auto& r : results) largest = std::max(largest, r.n);
  std::string line = "headline scan_numeric inclusive sum at 2^" + std::to_string(bench::log2_exact(largest)) +
                     " (% of copy, vs fast, max ulp error):";
  char buf[256];
  for (const auto& r : results) {
    if (r.n != largest) continue;
    line += " " + r.type + ":";
    const contender_result* fast = r.find("fast");
    for (const auto& c : r.contenders) {
      std::snprintf(buf, sizeof buf, " %s %.1f%%", c.name.c_str(), r.copy_ms / c.t.ms * 100);
      line += buf;
      if (fast && c.name != "fast" && c.name != "cub") {
        std::snprintf(buf, sizeof buf, " %.2fx", fast->t.ms / c.t.ms);
        line += buf;
        if (c.name == "run_to_run") line += fast->t.ms / c.t.ms >= 0.9 ? " [>=0.90x: met]" : " [>=0.90x: MISSED]";
      }
      std::snprintf(buf, sizeof buf, " %llu ulp%s;", c.err.max_ulps, c.distinct > 1 ? " (nondeterministic)" : "");
      line += buf;
    }
  }
  std::printf("%s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const options o = parse_options(argc, argv);
  try {
    const bench::run_identity run =
        bench::begin_run("scan_numeric_bench", o.commit,
                         bench::format("reps %d (median), warm-up %d, slow budget %.0f ms (>= %d reps), %d repeat "
                                       "runs, seed %llu, %u host threads",
                                       o.reps, o.warmup, o.slow_budget_ms, o.slow_min_reps, o.runs,
                                       (unsigned long long)o.seed, std::thread::hardware_concurrency()));
    const bench::device_info& dev = run.dev;
    std::printf("# errors vs the exact prefix sums rounded to the type (header comment); '~' before reps: fewer timed "
                "calls under the slow budget; distinct = different outputs over the repeat runs\n");
    bench::csv_writer csv;
    run.open(csv, o.csv);
    accuracy_writer acc;
    run.open(acc, o.accuracy_csv);

    scankit::context ctx{stream};
    bench::event_timer timer(stream, o.reps);
    std::vector<case_result> results;
    bench::warm_gpu(300, dev.sms, stream, o.timeout_s);
    for (const std::string& t : o.types)
      for (int lg : o.logs) {
        results.push_back(t == "float" ? run_case<float>("float", lg, o, dev, ctx, timer)
                                       : run_case<double>("double", lg, o, dev, ctx, timer));
        if (results.size() == 1) print_table_header();
        report_case(results.back(), csv, acc);
      }
    bench::sync_stream(stream, "the end of the run", o.timeout_s);
    if (!csv.path().empty()) std::printf("# wrote %s\n", csv.path().c_str());
    if (!acc.path().empty()) std::printf("# wrote %s\n", acc.path().c_str());
    double host_s = 0;
    int reduced = 0;
    for (const auto& r : results) {
      host_s += r.host_ref_s;
      for (const auto& c : r.contenders) reduced += c.t.reduced ? 1 : 0;
    }
    std::printf("summary scan_numeric_bench: all %zu cases verified (exact == the host exact reference bit for bit, "
                "run_to_run identical on every call, fast / compensated / CUB finite and within the sanity bound); "
                "%d contender timing(s) under the slow budget; host references %.1f s; %.1f s\n",
                results.size(), reduced, host_s,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    print_headline(results);
  } catch (const std::exception& e) {
    bench::die(1, std::string("exception: ") + e.what());
  }
  std::fflush(nullptr);
  return 0;
}
