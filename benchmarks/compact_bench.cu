// benchmarks/compact_bench.cu — scankit's selection primitives (stream
// compaction, partition, unique, run-length encoding) against CUB, Thrust and
// cudaMemcpy device-to-device, all in the same run on the same inputs.
//
// What is measured, for each type (uint32, uint64), n = 2^20, 2^22, ..., 2^30
// and selection rate (10, 50, 90 %):
//   flagged    scankit::device::compact_async(ctx, in, flags, out, n, d_count)
//              with uint8_t flags      vs cub::DeviceSelect::Flagged
//   if         scankit::device::compact_if_async(..., x < bound, d_count), the
//              bound chosen to select the rate's fraction of the random items
//                                      vs cub::DeviceSelect::If and
//                                         thrust::copy_if(thrust::cuda::par.on(stream))
//   if_host    scankit::compact_if_async(..., scankit::less(bound), d_count):
//              the same selection through the host API (libscankit.a, the
//              call a g++-only caller makes; its predicate a runtime value)
//                                      vs cub::DeviceSelect::If
//   partition  scankit::device::partition_async(..., flags, ...)
//                                      vs cub::DevicePartition::Flagged
//   unique     scankit::device::unique_async
//                                      vs cub::DeviceSelect::Unique
//   rle        scankit::device::run_length_encode_async, uint32_t lengths
//                                      vs cub::DeviceRunLengthEncode::Encode
// scankit runs the template API (if_host: the host API) with the default
// policy (single-pass decoupled look-back; policy
// "decoupled_lookback/warp_shuffle" in the CSV),
// one scankit::context for the whole run, whose workspace has grown at the
// verification call before any timing. The count goes to device memory (the
// _async twins): no host synchronization inside the timed region. CUB: temp
// storage allocated once per size (grown to the largest need), outside the
// timed region; num_items is int64 where CUB fixes it (DeviceSelect), int
// where it is the caller's choice (DevicePartition: the 32-bit offset path,
// as most CUB users call it) and int for RunLengthEncode::Encode; the count
// goes to device memory. Thrust: called as its users call it, so its per-call
// temp allocation and the synchronization that returns the end iterator are
// part of its time.
//
// Inputs (counter-based hashes of (seed, i): the host regenerates any element
// without copying the input back). Items of flagged / if / partition: random
// bits. Flags: 1 with probability rate, independent of the items. compact_if
// selects x < bound with bound = rate × 2^bits(T). unique / rle: item i starts
// a new run with probability rate (item 0 always does), so run lengths are
// geometric with mean 1 / rate; every item of a run holds a bijective hash of
// the index where the run starts, so neighbouring runs always differ and the
// number of runs is exactly the number of run starts. k = selected items (or
// runs), so k / n is close to the rate.
//
// % of copy. The copy is cudaMemcpyAsync D2D of n × sizeof(T) bytes (it moves
// 2·n·sizeof(T) bytes), timed at every size in the same run; each primitive
// is credited with the bytes it must move at the least:
//   flagged    n·(sizeof(T) + 1) + k·sizeof(T)     items and flags in, selected out
//   if         n·sizeof(T) + k·sizeof(T)               (if_host the same)
//   partition  n·(sizeof(T) + 1) + n·sizeof(T)     every item goes out
//   unique     n·sizeof(T) + k·sizeof(T)
//   rle        n·sizeof(T) + k·(sizeof(T) + 4)     run heads and uint32 lengths out
// and pct_of_copy = copy_ms × (bytes moved ÷ (2·n·sizeof(T))) ÷ primitive_ms
// × 100, i.e. the primitive's effective bandwidth as a percentage of the
// copy's. The CSV's copy_ms is the measured copy of n × sizeof(T) bytes; its
// pct_of_copy carries the byte ratio (docs/benchmarks.md).
//
// Method as scan_bench.cu (bench_common.cuh): the legacy default stream, CUDA
// events around each single call, warm-up calls first, median of --reps (25)
// timed calls (--big-reps = 20 at n >= 2^30, where a call takes 2-6 ms and
// these cases are most of the run; the header and summary lines say so), a
// spin kernel to get the clocks up before the copy and before each case, and
// enough input/flag/output sets rotated that consecutive calls read inputs
// that are not in the L2. Held timing: scankit's, CUB's and the copy's timed
// calls are queued behind a kernel that holds the stream until the host has
// queued them all, so each window is the call's GPU time, not the host's
// launch pace (which moved CUB's medians at 2^20 by up to 29 % between runs,
// docs/select.md). --unheld times the calls as they are issued; Thrust, which
// synchronizes inside its call, is always timed so.
//
// Correctness, for every case before it is timed: outputs poisoned; scankit
// and CUB run on the same input; scankit's count must equal CUB's and the
// host's, and its output CUB's element for element (partition: CUB writes the
// rejected items in reverse order at the back, scankit in input order, so
// CUB's back part is reversed on the device before the comparison; rle: run
// heads and lengths); Thrust's copy_if count and output must equal them too.
// scankit's output is then checked against an independent host computation
// (the expected output regenerated from the input definition, not from any
// scan): fully for n <= 2^--full-check-log (2^24), else in 16 sampled chunks
// of 65536 input items (the first, the last and 14 evenly spaced ones: every
// output item, rejected item and run length they produce). After scankit's
// timed calls, the count every call wrote (one slot per call) and every
// output set they wrote are compared again. Any mismatch, CUDA error, scankit
// exception or hang exits non-zero.
//
// Memory: one set of buffers per type and size, reused by every operation and
// rate: per rotated set the items, the flags, the output and the run lengths,
// plus CUB's output and lengths: 33 GiB for uint64 at 2^30 (an H200 has 141).
// Expected wall time at the defaults on an H200: ~20-40 s (estimated, not yet
// measured: ~10-15 s of timed calls, from the copy bandwidth the scan
// benchmark measured, most of it at 2^30; ~5 s of host reference passes, each
// ~0.2 s at 2^30 on 16 cores; warm-ups, fills and checks); the summary line
// gives the measured time.
//
// Scan-policy sweep (--policies, the default; --no-policies skips it). After
// the cases above: compact_async(ctx, in, uint8 flags, out, n, d_count,
// policy) for uint32 items, 50 % selected, n = 2^24 and 2^28 (those within
// --min-log .. --max-log; uint32 must be in --types), for every policy of
// scankit::all_scan_policies(). The default policy (decoupled_lookback/
// warp_shuffle, marked '*') is the single-pass kernel timed above; every
// other policy runs the textbook mark -> exclusive scan of the marks (uint32
// offsets, with that policy) -> scatter, whose n offsets come from the
// stream-ordered pool on each call (cudaMallocAsync / cudaFreeAsync inside
// scankit, so part of its time, as for any caller). Same inputs as the
// flagged 50 % case (same seed and flags), so the copy, CUB Flagged and the
// default policy's times of the main sweep are reused where it ran that case
// (no second CSV row for the default); otherwise they are measured here.
// Chained policies serialize their tiles (~0.5 us per tile: 4-17 ms per call
// at 2^24, ~70-270 ms at 2^28): they are timed at 2^24 only, with at most 3
// timed calls after the verification call and no warm-up; stdout says so.
// Correctness: CUB's Flagged output is checked against the host reference
// (as above) and every policy must equal it exactly, count and items, before
// its timing; after its timed calls every count and output set is compared
// again. Added time on an H200 (estimated from scan_policies.csv, not yet
// measured): ~2-4 s, most of it the 14 textbook policies at 2^28 (~2-7 ms a
// call, 29 calls each).
//
// Back to back (n <= 2^24, --back-to-back-max-log): each case is timed
// again, scankit and CUB, as five batches of --reps calls queued with no
// event between them (per-call time = a batch's time / its calls; median of
// the five). There a kernel launched as the programmatic dependent of the one
// before it can start while that one ends; an event between calls, as in the
// main timing, stops that overlap. scankit's counts and outputs are checked
// after its batches; a line per case follows the case's table row, and
// --back-to-back-csv=path writes the rows (primitive compact_back_to_back,
// baseline cub, the schema below; copy_ms the copy timed back to back too).
//
// Output: stdout table, then a 'summary compact_bench:' line, a 'summary
// compact policies:' line (best and worst policy at each size, % of copy)
// and a 'headline compact' line (uint32, 2^28, 50 %; scripts/gpu-check greps
// for the summary and headline lines); --csv=path writes the
// docs/benchmarks.md schema: primitive=compact, variant=<operation>_<rate>
// (flagged_50, if_10, if_host_10, partition_90, unique_50, rle_50), policy=
// decoupled_lookback/warp_shuffle, baseline=cub (the matching CUB call) and,
// for if, baseline=thrust; the policy sweep adds variant=flagged_50,
// type=uint32 rows with policy=<grid>/<block> (e.g.
// reduce_then_scan/three_phase), baseline=cub.
//
//   compact_bench [--types=uint32,uint64] [--ops=flagged,if,if_host,partition,unique,rle] [--rates=10,50,90]
//                 [--min-log=20] [--max-log=30] [--step-log=2] [--big-reps=20] [--full-check-log=24]
//                 [--policies | --no-policies] [--reps=25] [--warmup=3] [--max-pairs=16] [--timeout-s=20]
//                 [--seed=N] [--csv=path] [--commit=sha] [--quick]
#include "bench_common.cuh"

#include <scankit/context.hpp>
#include <scankit/device/select.cuh>
#include <scankit/select.hpp>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>

#include <exception>

namespace {

using bench::device_buffer;

const std::string usage =
    "usage: compact_bench [options]\n"
    "  --types=uint32,uint64                    item types (default: both)\n"
    "  --ops=flagged,if,if_host,partition,unique,rle\n"
    "                                           operations (default: all six)\n"
    "  --rates=10,50,90                         selection rates in % (1-99); unique/rle: % of items\n"
    "                                           that start a run (mean run length 100/rate)\n"
    "  --min-log=20 --max-log=30                n = 2^min-log ... 2^max-log (max-log <= 30)\n"
    "  --step-log=2                             step between log2 sizes\n"
    "  --big-reps=20                            timed calls at n >= 2^30 (0: as --reps)\n"
    "  --full-check-log=24                      host check of every output item up to this size,\n"
    "                                           sampled chunks above\n"
    "  --policies / --no-policies               scan-policy sweep after the cases above (default: on):\n"
    "                                           uint32 flagged 50 % at n = 2^24, 2^28 (within --min-log,\n"
    "                                           --max-log), every scan policy; chained at 2^24 only\n"
    "  --back-to-back-max-log=24                time back to back up to this size (-1: never)\n"
    "  --back-to-back-csv=path                  write the back-to-back rows (compact_back_to_back)\n"
    "  --unheld                                 per-call timing as the calls are issued (default: queued\n"
    "                                           behind a hold and released together, GPU time only)\n" +
    bench::run_options_usage(43) +
    "  --quick                                  n = 2^20, 2^24, 2^28, 10 reps, 2 warm-ups\n"
    "                                           (later options override)\n";

const char* const policy_name = "decoupled_lookback/warp_shuffle";  // the default scan_policy{}

enum class op { flagged, if_, if_host, partition, unique, rle };
const op all_ops[] = {op::flagged, op::if_, op::if_host, op::partition, op::unique, op::rle};

const char* op_name(op o) {
  switch (o) {
    case op::flagged: return "flagged";
    case op::if_: return "if";
    case op::if_host: return "if_host";
    case op::partition: return "partition";
    case op::unique: return "unique";
    case op::rle: return "rle";
  }
  return "?";
}

/// The CUB call an operation is compared with (headline and table).
const char* cub_name(op o) {
  switch (o) {
    case op::flagged: return "Flagged";
    case op::if_:
    case op::if_host: return "If";
    case op::partition: return "Partition";
    case op::unique: return "Unique";
    case op::rle: return "RLE";
  }
  return "?";
}

bool is_run_op(op o) { return o == op::unique || o == op::rle; }

struct options : bench::run_options {
  std::vector<std::string> types{"uint32", "uint64"};
  std::vector<op> ops = std::vector<op>(std::begin(all_ops), std::end(all_ops));
  std::vector<int> rates{10, 50, 90};
  int min_log = 20, max_log = 30, step_log = 2, big_reps = 20, full_check_log = 24;
  int back_to_back_max_log = 24;  // back-to-back timing up to this size
  std::string back_to_back_csv;
  bool policies = true;  // the scan-policy sweep
  bool held = true;      // per-call timing of scankit, CUB and the copy queued behind a hold (event_timer::run)
};

options parse_options(int argc, char** argv) {
  options o;
  if (bench::has_flag(argc, argv, "--quick")) o.min_log = 20, o.max_log = 28, o.step_log = 4, o.reps = 10, o.warmup = 2;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    std::string v;
    if (arg == "--quick") continue;
    bench::handle_help(arg, usage);
    if (arg == "--policies" || arg == "--no-policies") {
      o.policies = arg == "--policies";
    } else if (arg == "--unheld") {
      o.held = false;
    } else if (bench::option_value(arg, "types", v)) {
      o.types = bench::parse_choices(v, "types", {"uint32", "uint64"}, usage);
    } else if (bench::option_value(arg, "ops", v)) {
      o.ops.clear();
      const auto names =
          bench::parse_choices(v, "ops", {"flagged", "if", "if_host", "partition", "unique", "rle"}, usage);
      for (op x : all_ops)  // run order: flagged, if, if_host, partition, unique, rle
        if (std::find(names.begin(), names.end(), op_name(x)) != names.end()) o.ops.push_back(x);
    } else if (bench::option_value(arg, "rates", v)) {
      o.rates.clear();
      for (const auto& s : bench::split_list(v)) o.rates.push_back(int(bench::parse_int(s, "rates", 1, 99)));
      if (o.rates.empty()) bench::die(2, "empty --rates");
    } else if (bench::option_value(arg, "min-log", v)) {
      o.min_log = int(bench::parse_int(v, "min-log", 0, 30));
    } else if (bench::option_value(arg, "max-log", v)) {
      o.max_log = int(bench::parse_int(v, "max-log", 0, 30));  // RunLengthEncode::Encode takes int num_items
    } else if (bench::option_value(arg, "step-log", v)) {
      o.step_log = int(bench::parse_int(v, "step-log", 1, 30));
    } else if (bench::option_value(arg, "big-reps", v)) {
      o.big_reps = int(bench::parse_int(v, "big-reps", 0, 100000));
    } else if (bench::option_value(arg, "full-check-log", v)) {
      o.full_check_log = int(bench::parse_int(v, "full-check-log", 0, 30));
    } else if (bench::option_value(arg, "back-to-back-max-log", v)) {
      o.back_to_back_max_log = int(bench::parse_int(v, "back-to-back-max-log", -1, 30));
    } else if (bench::option_value(arg, "back-to-back-csv", v)) {
      o.back_to_back_csv = v;
    } else if (!bench::parse_run_option(arg, o)) {
      bench::die(2, "unknown option '" + arg + "'\n" + usage);
    }
  }
  if (o.min_log > o.max_log) bench::die(2, "--min-log is larger than --max-log");
  if (o.big_reps == 0 || o.big_reps > o.reps) o.big_reps = o.reps;
  bench::note_reps(o.reps);
  if (o.max_log >= 30 && o.big_reps < 20)
    std::printf("# note: --big-reps=%d is below the >= 20 timed runs docs/benchmarks.md asks for\n", o.big_reps);
  return o;
}

const cudaStream_t stream = 0;  // the legacy default stream (as scan_bench)
constexpr int back_to_back_batches = 5;  // batches of --reps calls per back-to-back timing (median taken)

// ----------------------------------------------------------------- inputs --

// Independent hash streams of (seed, i).
constexpr std::uint64_t item_stream = 0x6A09E667F3BCC908ull, flag_stream = 0xBB67AE8584CAA73Bull,
                        head_stream = 0x3C6EF372FE94F82Bull;

__host__ __device__ inline std::uint64_t hash_of(std::uint64_t seed, std::uint64_t stream_id, std::uint64_t i) {
  return bench::splitmix64((seed ^ stream_id) * 0x2545F4914F6CDD1Dull + i);
}

/// Item i of flagged / if / partition: random bits (the high half for 32-bit items).
template <class T>
__host__ __device__ inline T random_item(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t h = hash_of(seed, item_stream, i);
  return sizeof(T) == 8 ? T(h) : T(h >> 32);
}

/// The 32-bit threshold of a rate in %: a hash's high half below it has
/// probability rate / 100.
inline std::uint64_t rate_threshold(int rate) { return (std::uint64_t(rate) << 32) / 100; }

__host__ __device__ inline bool flag_of(std::uint64_t seed, std::uint64_t i, std::uint64_t threshold) {
  return (hash_of(seed, flag_stream, i) >> 32) < threshold;
}

__host__ __device__ inline bool run_head(std::uint64_t seed, std::uint64_t i, std::uint64_t threshold) {
  return i == 0 || (hash_of(seed, head_stream, i) >> 32) < threshold;
}

/// The value of every item of the run starting at `start`: a bijection of
/// start (lowbias32 for 32-bit items, the splitmix64 finaliser for 64-bit),
/// so neighbouring runs always differ.
template <class T>
__host__ __device__ inline T run_value(std::uint64_t start) {
  if constexpr (sizeof(T) == 8) {
    return T(bench::splitmix64(start));
  } else {
    std::uint32_t x = std::uint32_t(start);  // start < n <= 2^30
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return T(x);
  }
}

/// compact_if's predicate: x < bound.
template <class T>
struct below {
  T bound;
  __host__ __device__ __forceinline__ bool operator()(const T& x) const { return x < bound; }
};

/// The bound that selects rate % of uniformly random items.
template <class T>
T bound_for_rate(int rate) {
  if constexpr (sizeof(T) == 8)
    return T(((unsigned __int128)rate << 64) / 100);
  else
    return T((std::uint64_t(rate) << 32) / 100);
}

template <class T>
__global__ void fill_items_kernel(T* d_out, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    d_out[i] = random_item<T>(seed, i);
}

__global__ void fill_flags_kernel(std::uint8_t* d_out, std::size_t n, std::uint64_t seed, std::uint64_t threshold) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    d_out[i] = flag_of(seed, i, threshold) ? 1 : 0;
}

/// Item i = run_value(start of its run): each thread walks back to the run
/// start (1 / rate steps on average).
template <class T>
__global__ void fill_runs_kernel(T* d_out, std::size_t n, std::uint64_t seed, std::uint64_t threshold) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::size_t start = i;
    while (!run_head(seed, start, threshold)) --start;
    d_out[i] = run_value<T>(start);
  }
}

/// Reverses d[begin, end) in place: CUB's partition writes the rejected items
/// in reverse order, scankit's in input order.
template <class T>
__global__ void reverse_kernel(T* d, std::size_t begin, std::size_t end) {
  const std::size_t half = (end - begin) / 2;
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < half; j += std::size_t(gridDim.x) * blockDim.x) {
    const T a = d[begin + j];
    d[begin + j] = d[end - 1 - j];
    d[end - 1 - j] = a;
  }
}

// -------------------------------------------------------- host reference --

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

/// What an operation selects and outputs, regenerated from the input
/// definition alone.
template <class T>
struct host_model {
  op kind;
  std::uint64_t seed;
  std::uint64_t threshold;  // flags and run heads
  T bound;                  // compact_if
  bool selected(std::uint64_t i) const {
    switch (kind) {
      case op::flagged:
      case op::partition: return flag_of(seed, i, threshold);
      case op::if_:
      case op::if_host: return random_item<T>(seed, i) < bound;
      case op::unique:
      case op::rle: return run_head(seed, i, threshold);
    }
    return false;
  }
  /// Input item i (for unique / rle: at a run head, where it starts its run).
  T item(std::uint64_t i) const { return is_run_op(kind) ? run_value<T>(i) : random_item<T>(seed, i); }
};

constexpr std::size_t check_chunk = std::size_t(1) << 16;  // input items per host-check chunk
constexpr int sampled_chunks = 16;

/// Selected items before each chunk of check_chunk input items, and in all.
struct chunk_counts {
  std::vector<std::uint64_t> before;
  std::uint64_t total = 0;
};

template <class T>
chunk_counts count_chunks(const host_model<T>& m, std::size_t n) {
  const std::size_t chunks = (n + check_chunk - 1) / check_chunk;
  std::vector<std::uint64_t> in_chunk(chunks, 0);
  parallel_for(chunks, [&](std::size_t c) {
    const std::size_t end = std::min(n, (c + 1) * check_chunk);
    std::uint64_t s = 0;
    for (std::size_t i = c * check_chunk; i < end; ++i) s += m.selected(i);
    in_chunk[c] = s;
  });
  chunk_counts cc;
  cc.before.resize(chunks);
  for (std::size_t c = 0; c < chunks; ++c) {
    cc.before[c] = cc.total;
    cc.total += in_chunk[c];
  }
  return cc;
}

template <class T>
void copy_to_host(std::vector<T>& host, const T* d_src, std::size_t count) {
  host.resize(count);
  if (count) BENCH_CUDA(cudaMemcpy(host.data(), d_src, count * sizeof(T), cudaMemcpyDeviceToHost));
}

/// Checks scankit's output (d_out: selected items, or for partition all n;
/// d_lengths: rle run lengths) against the host model: every output item of
/// every input chunk when `full`, else of `sampled_chunks` chunks (the first,
/// the last and evenly spaced ones). Exits 1 with the first mismatch.
template <class T>
void check_against_host(const host_model<T>& m, const chunk_counts& cc, std::size_t n, const T* d_out,
                        const std::uint32_t* d_lengths, bool full, double timeout_s, const std::string& what) {
  bench::sync_stream(stream, what, timeout_s);
  const std::size_t chunks = cc.before.size();
  const std::uint64_t k = cc.total;
  const bool partition = m.kind == op::partition, rle = m.kind == op::rle;
  std::vector<std::size_t> picked;
  if (full || chunks <= std::size_t(sampled_chunks)) {
    for (std::size_t c = 0; c < chunks; ++c) picked.push_back(c);
  } else {
    for (int j = 0; j < sampled_chunks; ++j) picked.push_back(std::size_t(j) * (chunks - 1) / (sampled_chunks - 1));
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  }

  // What each picked chunk produced, on the host: slices of one full copy,
  // or a copy per chunk.
  struct view {
    const T* selected;           // output[before[c] ...]
    const T* rejected;           // partition: output[k + rejected before the chunk ...]
    const std::uint32_t* lengths;  // rle: lengths[before[c] ...]
  };
  std::vector<T> all_items;
  std::vector<std::uint32_t> all_lengths;
  std::vector<std::vector<T>> chunk_items(picked.size()), chunk_rejected(picked.size());
  std::vector<std::vector<std::uint32_t>> chunk_lengths(picked.size());
  std::vector<view> views(picked.size());
  if (full) {
    copy_to_host(all_items, d_out, partition ? n : k);
    if (rle) copy_to_host(all_lengths, d_lengths, k);
  }
  for (std::size_t j = 0; j < picked.size(); ++j) {
    const std::size_t c = picked[j], begin = c * check_chunk, end = std::min(n, begin + check_chunk);
    const std::uint64_t sel_begin = cc.before[c];
    const std::uint64_t sel_count = (c + 1 < chunks ? cc.before[c + 1] : k) - sel_begin;
    const std::uint64_t rej_begin = k + (begin - sel_begin), rej_count = (end - begin) - sel_count;
    if (full) {
      views[j] = {all_items.data() + sel_begin, partition ? all_items.data() + rej_begin : nullptr,
                  rle ? all_lengths.data() + sel_begin : nullptr};
    } else {
      copy_to_host(chunk_items[j], d_out + sel_begin, sel_count);
      if (partition) copy_to_host(chunk_rejected[j], d_out + rej_begin, rej_count);
      if (rle) copy_to_host(chunk_lengths[j], d_lengths + sel_begin, sel_count);
      views[j] = {chunk_items[j].data(), chunk_rejected[j].data(), chunk_lengths[j].data()};
    }
  }

  std::vector<std::string> errors(picked.size());
  parallel_for(picked.size(), [&](std::size_t j) {
    const std::size_t c = picked[j], begin = c * check_chunk, end = std::min(n, begin + check_chunk);
    const view& v = views[j];
    std::ostringstream s;
    auto mismatch = [&](const char* array, std::uint64_t at, const std::string& got, const std::string& want,
                        std::uint64_t input) {
      s << "wrong result: " << what << ": " << array << "[" << at << "] is " << got << ", the host reference is "
        << want << " (input item " << input << "; " << picked.size() << " chunk(s) of " << check_chunk
        << " input items checked)";
      errors[j] = s.str();
    };
    const std::uint64_t sel_begin = cc.before[c], rej_begin = begin - sel_begin;
    std::uint64_t sel = 0, rej = 0;
    std::uint64_t pending = 0;  // rle: the last run head seen (its length is known at the next one)
    bool have_pending = false;
    auto check_length = [&](std::uint64_t next_head) {
      const std::uint64_t want = next_head - pending;
      const std::uint32_t got = v.lengths[sel - 1];
      if (got != want) mismatch("lengths", sel_begin + sel - 1, bench::format_value(got), std::to_string(want), pending);
    };
    for (std::size_t i = begin; i < end && errors[j].empty(); ++i) {
      if (m.selected(i)) {
        if (rle && have_pending) {
          check_length(i);
          if (!errors[j].empty()) break;
        }
        const T want = m.item(i);
        if (!(v.selected[sel] == want)) {
          mismatch("output", sel_begin + sel, bench::format_value(v.selected[sel]), bench::format_value(want), i);
          break;
        }
        ++sel;
        pending = i, have_pending = true;
      } else if (partition) {
        const T want = m.item(i);
        if (!(v.rejected[rej] == want)) {
          mismatch("output", k + rej_begin + rej, bench::format_value(v.rejected[rej]), bench::format_value(want), i);
          break;
        }
        ++rej;
      }
    }
    if (rle && have_pending && errors[j].empty()) {  // the chunk's last run ends at the next head after it
      std::uint64_t next = end;
      while (next < n && !m.selected(next)) ++next;
      check_length(next);
    }
  });
  for (const auto& e : errors)
    if (!e.empty()) bench::die(1, e);
}

// ------------------------------------------------------------- the cases --

/// Bytes an operation must move at the least (the header comment).
double bytes_moved(op o, std::size_t n, std::uint64_t k, std::size_t item_bytes) {
  const double N = double(n), K = double(k), t = double(item_bytes);
  switch (o) {
    case op::flagged: return N * (t + 1) + K * t;
    case op::if_:
    case op::if_host: return N * t + K * t;
    case op::partition: return N * (t + 1) + N * t;
    case op::unique: return N * t + K * t;
    case op::rle: return N * t + K * (t + 4);
  }
  return 0;
}

struct case_result {
  std::string type;
  op o;
  int rate;
  std::size_t n;
  std::uint64_t k;
  double bytes_ratio;  // bytes moved ÷ bytes the copy moved (2·n·sizeof(T))
  double scankit_ms, cub_ms, thrust_ms, copy_ms, scankit_spread_pct;  // thrust_ms < 0: none
  int reps;
  double pct(double ms) const { return copy_ms * bytes_ratio / ms * 100; }
};

/// CUB's temp storage: grown (outside any timed region) to the largest need.
struct cub_temp {
  device_buffer buffer;
  void ensure(std::size_t bytes) {
    if (bytes > buffer.bytes()) buffer = device_buffer(bytes);
  }
};

/// The buffers of one type and size, shared by every operation and rate:
/// `pairs` sets of (items, flags, output, run lengths), all sets holding the
/// same input; CUB's verified output and lengths; one count slot per call.
template <class T>
struct size_buffers {
  std::size_t n;
  int pairs;
  std::vector<device_buffer> in, flags, out, lengths;
  device_buffer ref, ref_lengths, counts;
  int count_slots;

  size_buffers(std::size_t n_, int pairs_, int slots) : n(n_), pairs(pairs_), count_slots(slots) {
    for (int p = 0; p < pairs; ++p) {
      in.emplace_back(n * sizeof(T));
      flags.emplace_back(n);
      out.emplace_back(n * sizeof(T));
      lengths.emplace_back(n * sizeof(std::uint32_t));
    }
    ref = device_buffer(n * sizeof(T));
    ref_lengths = device_buffer(n * sizeof(std::uint32_t));
    counts = device_buffer((std::size_t(slots) + 2) * sizeof(std::size_t));
  }
  static std::size_t bytes_for(std::size_t n, int pairs, int slots) {
    return std::size_t(pairs) * n * (2 * sizeof(T) + 1 + sizeof(std::uint32_t)) + n * (sizeof(T) + sizeof(std::uint32_t)) +
           (std::size_t(slots) + 2) * sizeof(std::size_t);
  }
  const T* d_in(int k) const { return in[std::size_t(k) % in.size()].template as<T>(); }
  const std::uint8_t* d_flags(int k) const { return flags[std::size_t(k) % flags.size()].template as<std::uint8_t>(); }
  T* d_out(int k) const { return out[std::size_t(k) % out.size()].template as<T>(); }
  std::uint32_t* d_lengths(int k) const { return lengths[std::size_t(k) % lengths.size()].template as<std::uint32_t>(); }
  /// Count slot of timed call k (scankit); slot count_slots is CUB's.
  std::size_t* d_count(int k) const { return counts.as<std::size_t>() + k; }
  std::size_t* d_cub_count() const { return counts.as<std::size_t>() + count_slots; }
};

/// Everything one type and size shares between its cases.
template <class T>
struct size_case {
  const options& o;
  const bench::device_info& dev;
  scankit::context& ctx;
  bench::csv_writer& csv;
  bench::csv_writer& back_to_back_csv;
  const char* type_name;
  int lg;
  int reps;
  size_buffers<T>& buf;
  cub_temp& temp;
  bench::event_timer& timer;
  double copy_ms;
  double copy_back_to_back_ms;  // the copy timed back to back (0 above --back-to-back-max-log)
  std::vector<case_result>& results;
};

std::size_t read_count(const std::size_t* d_count) {
  std::size_t v = 0;
  BENCH_CUDA(cudaMemcpy(&v, d_count, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

/// check_equal over `count` items (nothing to compare when count is 0).
template <class T>
void check_equal_n(const T* d_a, const char* a_name, const T* d_b, const char* b_name, std::size_t count, int sms,
                   double timeout_s, const std::string& what) {
  if (count) bench::check_equal<T>(d_a, a_name, d_b, b_name, count, sms, stream, timeout_s, what);
}

const char* table_format = "%-6s %-9s %3d%% 2^%-3d %6.2f%% %11.2f %11.2f %11s %11.2f %7.1f%% %7.1f%% %6.3fx %7s %6.1f%%\n";

void print_table_header() {
  std::printf("%-6s %-9s %4s %-5s %7s %11s %11s %11s %11s %8s %8s %7s %7s %7s\n", "type", "op", "rate", "n", "sel%",
              "scankit_us", "cub_us", "thrust_us", "copy_us", "sk%copy", "cub%copy", "vs_cub", "vs_thr", "sk_iqr%");
}

template <class T>
void run_case(const size_case<T>& c, op o, int rate, const host_model<T>& model, const chunk_counts& cc) {
  const size_buffers<T>& b = c.buf;
  const std::size_t n = b.n;
  const std::string what = std::string("compact ") + op_name(o) + " " + c.type_name + " rate " + std::to_string(rate) +
                           "% n=2^" + std::to_string(c.lg);
  const below<T> pred{model.bound};
  const scankit::predicate<T> host_pred = scankit::less(model.bound);  // if_host: the host API's x < bound
  const int sms = c.dev.sms;
  const double timeout_s = c.o.timeout_s;

  // ---- the contenders; call k uses buffer set k % pairs ----
  auto scankit_call = [&](int k, std::size_t* d_count) {
    namespace dev = scankit::device;
    switch (o) {
      case op::flagged: dev::compact_async(c.ctx, b.d_in(k), b.d_flags(k), b.d_out(k), n, d_count); break;
      case op::if_: dev::compact_if_async(c.ctx, b.d_in(k), b.d_out(k), n, pred, d_count); break;
      case op::if_host: scankit::compact_if_async(c.ctx, b.d_in(k), b.d_out(k), n, host_pred, d_count); break;
      case op::partition: dev::partition_async(c.ctx, b.d_in(k), b.d_flags(k), b.d_out(k), n, d_count); break;
      case op::unique: dev::unique_async(c.ctx, b.d_in(k), b.d_out(k), n, d_count); break;
      case op::rle: dev::run_length_encode_async(c.ctx, b.d_in(k), b.d_out(k), b.d_lengths(k), n, d_count); break;
    }
  };
  auto cub_run = [&](void* d_temp, std::size_t& temp_bytes, int k, T* d_out, std::uint32_t* d_lengths) {
    switch (o) {
      case op::flagged:
        return cub::DeviceSelect::Flagged(d_temp, temp_bytes, b.d_in(k), b.d_flags(k), d_out, b.d_cub_count(),
                                          std::int64_t(n), stream);
      case op::if_:
      case op::if_host:
        return cub::DeviceSelect::If(d_temp, temp_bytes, b.d_in(k), d_out, b.d_cub_count(), std::int64_t(n), pred,
                                     stream);
      case op::partition:
        return cub::DevicePartition::Flagged(d_temp, temp_bytes, b.d_in(k), b.d_flags(k), d_out, b.d_cub_count(),
                                             int(n), stream);
      case op::unique:
        return cub::DeviceSelect::Unique(d_temp, temp_bytes, b.d_in(k), d_out, b.d_cub_count(), std::int64_t(n),
                                         stream);
      case op::rle:
        return cub::DeviceRunLengthEncode::Encode(d_temp, temp_bytes, b.d_in(k), d_out, d_lengths, b.d_cub_count(),
                                                  int(n), stream);
    }
    return cudaErrorInvalidValue;
  };
  std::size_t need = 0;
  BENCH_CUDA(cub_run(nullptr, need, 0, b.d_out(0), b.d_lengths(0)));
  c.temp.ensure(need);
  auto cub_call = [&](int k, T* d_out, std::uint32_t* d_lengths) {
    std::size_t have = c.temp.buffer.bytes();
    BENCH_CUDA(cub_run(c.temp.buffer.get(), have, k, d_out, d_lengths));
  };
  const bool has_thrust = o == op::if_;
  auto thrust_call = [&](int k, T* d_out) -> std::size_t {
    return std::size_t(thrust::copy_if(thrust::cuda::par.on(stream), b.d_in(k), b.d_in(k) + n, d_out, pred) - d_out);
  };

  // ---- correctness, on set 0, before any timing of this case ----
  const std::uint64_t k_host = cc.total;
  const std::size_t out_items = o == op::partition ? n : std::size_t(k_host);  // what the output must hold
  T* const ref = b.ref.template as<T>();
  std::uint32_t* const ref_lengths = b.ref_lengths.template as<std::uint32_t>();
  bench::poison(b.d_out(0), n * sizeof(T), stream);
  bench::poison(ref, n * sizeof(T), stream);
  if (o == op::rle) {
    bench::poison(b.d_lengths(0), n * sizeof(std::uint32_t), stream);
    bench::poison(ref_lengths, n * sizeof(std::uint32_t), stream);
  }
  BENCH_CUDA(cudaMemsetAsync(b.counts.get(), 0xFF, b.counts.bytes(), stream));
  scankit_call(0, b.d_count(0));  // also grows the context's workspace: no timed call allocates
  BENCH_CUDA(cudaGetLastError());
  cub_call(0, ref, ref_lengths);
  bench::sync_stream(stream, what + " verification run (scankit, CUB)", timeout_s);
  const std::size_t k_scankit = read_count(b.d_count(0)), k_cub = read_count(b.d_cub_count());
  if (k_scankit != k_host || k_cub != k_host) {
    std::ostringstream s;
    s << "wrong result: " << what << ": count scankit " << k_scankit << ", CUB " << k_cub << ", host reference "
      << k_host;
    bench::die(1, s.str());
  }
  if (o == op::partition && k_host < n) {  // CUB's rejected items into input order
    reverse_kernel<T><<<bench::grid_for((n - k_host) / 2 + 1, sms), 256, 0, stream>>>(ref, k_host, n);
    BENCH_CHECK_LAUNCH("reverse_kernel");
  }
  check_equal_n<T>(b.d_out(0), "scankit", ref, o == op::partition ? "CUB (rejected part reversed)" : "CUB", out_items,
                   sms, timeout_s, what);
  if (o == op::rle)
    check_equal_n<std::uint32_t>(b.d_lengths(0), "scankit lengths", ref_lengths, "CUB lengths", k_host, sms, timeout_s,
                                 what);
  check_against_host<T>(model, cc, n, b.d_out(0), b.d_lengths(0), c.lg <= c.o.full_check_log, timeout_s,
                        what + " (host reference)");
  if (has_thrust) {
    bench::poison(b.d_out(0), n * sizeof(T), stream);
    const std::size_t k_thrust = thrust_call(0, b.d_out(0));
    if (k_thrust != k_host) {
      std::ostringstream s;
      s << "wrong result: " << what << ": Thrust copy_if selected " << k_thrust << " items, the host reference "
        << k_host;
      bench::die(1, s.str());
    }
    check_equal_n<T>(b.d_out(0), "Thrust", ref, "CUB", out_items, sms, timeout_s, what);
  }
  // ref (and ref_lengths) now hold the verified result of every set's input.

  auto poison_outputs = [&] {
    for (int p = 0; p < b.pairs; ++p) {
      bench::poison(b.d_out(p), out_items * sizeof(T), stream);
      if (o == op::rle) bench::poison(b.d_lengths(p), k_host * sizeof(std::uint32_t), stream);
    }
    BENCH_CUDA(cudaMemsetAsync(b.counts.get(), 0xFF, b.counts.bytes(), stream));
  };
  // After scankit's calls 0 .. calls - 1 (call k on set k % pairs, count slot k).
  auto check_timed_calls = [&](int calls, const char* run) {
    std::vector<std::size_t> counts(std::size_t(calls), 0);
    BENCH_CUDA(cudaMemcpy(counts.data(), b.d_count(0), counts.size() * sizeof(std::size_t), cudaMemcpyDeviceToHost));
    for (int k = 0; k < calls; ++k)
      if (counts[std::size_t(k)] != k_host) {
        std::ostringstream s;
        s << "wrong result: " << what << ": scankit call " << k << " of its " << run << " wrote the count "
          << counts[std::size_t(k)] << ", the verified count is " << k_host;
        bench::die(1, s.str());
      }
    for (int p = 0; p < std::min(b.pairs, calls); ++p) {
      const std::string after = what + " set " + std::to_string(p) + " (after its " + run + ")";
      check_equal_n<T>(b.d_out(p), "scankit", ref, "verified result", out_items, sms, timeout_s, after);
      if (o == op::rle)
        check_equal_n<std::uint32_t>(b.d_lengths(p), "scankit lengths", ref_lengths, "verified lengths", k_host, sms,
                                     timeout_s, after);
    }
  };
  // ---- timing ---- (outputs poisoned and count slots cleared first, so the
  // checks after the timed calls catch anything a repeated call left unwritten)
  poison_outputs();
  bench::warm_gpu(10, sms, stream, timeout_s);  // clocks up after the host check
  const std::vector<double> scankit_ms = c.timer.run(
      c.o.warmup, [&](int k) { scankit_call(k, b.d_count(k)); }, timeout_s, what + " scankit", c.reps, c.o.held);
  check_timed_calls(c.o.warmup + int(scankit_ms.size()), "timed calls");
  const double cub_ms = bench::median(c.timer.run(
      c.o.warmup, [&](int k) { cub_call(k, b.d_out(k), b.d_lengths(k)); }, timeout_s, what + " CUB", c.reps,
      c.o.held));
  const double thrust_ms =
      has_thrust ? bench::median(c.timer.run(
                       c.o.warmup, [&](int k) { thrust_call(k, b.d_out(k)); }, timeout_s, what + " Thrust", c.reps))
                 : -1.0;

  const double bytes_ratio = bytes_moved(o, n, k_host, sizeof(T)) / (2.0 * double(n) * sizeof(T));

  // ---- back to back (n <= 2^back_to_back_max_log): batches of calls with no
  // event between them, where a launch may overlap the end of the one before
  // (programmatic dependent launch); scankit's outputs checked after.
  if (c.lg <= c.o.back_to_back_max_log) {
    poison_outputs();
    const double scankit_b2b_ms = bench::median(c.timer.run_back_to_back(
        c.o.warmup, [&](int k) { scankit_call(k, b.d_count(k)); }, timeout_s, what + " scankit back to back", c.reps,
        back_to_back_batches));
    check_timed_calls(c.reps, "back-to-back batches");
    const double cub_b2b_ms = bench::median(c.timer.run_back_to_back(
        c.o.warmup, [&](int k) { cub_call(k, b.d_out(k), b.d_lengths(k)); }, timeout_s, what + " CUB back to back",
        c.reps, back_to_back_batches));
    c.back_to_back_csv.row("compact_back_to_back", std::string(op_name(o)) + "_" + std::to_string(rate), policy_name,
                           c.type_name, n, scankit_b2b_ms, "cub", cub_b2b_ms, c.copy_back_to_back_ms, bytes_ratio);
    std::printf("%-6s %-9s %3d%% 2^%-3d back to back: scankit %.2f us, CUB %.2f us, %.3fx\n", c.type_name, op_name(o),
                rate, c.lg, scankit_b2b_ms * 1e3, cub_b2b_ms * 1e3, cub_b2b_ms / scankit_b2b_ms);
  }

  const case_result r{c.type_name, o,         rate,      n,
                      k_host,      bytes_ratio, bench::median(scankit_ms), cub_ms,
                      thrust_ms,   c.copy_ms, bench::spread_pct(scankit_ms), int(scankit_ms.size())};
  const std::string variant = std::string(op_name(o)) + "_" + std::to_string(rate);
  c.csv.row("compact", variant, policy_name, c.type_name, n, r.scankit_ms, "cub", cub_ms, c.copy_ms, r.bytes_ratio);
  if (has_thrust)
    c.csv.row("compact", variant, policy_name, c.type_name, n, r.scankit_ms, "thrust", thrust_ms, c.copy_ms,
              r.bytes_ratio);
  char thr_us[32] = "-", vs_thr[32] = "-";
  if (has_thrust) {
    std::snprintf(thr_us, sizeof thr_us, "%.2f", thrust_ms * 1e3);
    std::snprintf(vs_thr, sizeof vs_thr, "%.3fx", thrust_ms / r.scankit_ms);
  }
  std::printf(table_format, c.type_name, op_name(o), rate, c.lg, double(k_host) / double(n) * 100, r.scankit_ms * 1e3,
              cub_ms * 1e3, thr_us, c.copy_ms * 1e3, r.pct(r.scankit_ms), r.pct(cub_ms), cub_ms / r.scankit_ms, vs_thr,
              r.scankit_spread_pct);
  std::fflush(stdout);
  c.results.push_back(r);
}

template <class T>
void run_type(const char* type_name, const options& o, const bench::device_info& dev, scankit::context& ctx,
              bench::csv_writer& csv, bench::csv_writer& back_to_back_csv, std::vector<case_result>& results) {
  const bool any_select = std::any_of(o.ops.begin(), o.ops.end(), [](op x) { return !is_run_op(x); });
  const bool any_runs = std::any_of(o.ops.begin(), o.ops.end(), [](op x) { return is_run_op(x); });
  for (int lg = o.min_log; lg <= o.max_log; lg += o.step_log) {
    const std::size_t n = std::size_t(1) << lg;
    const int pairs = bench::rotation_pairs(n * sizeof(T), dev.l2_bytes, o.max_pairs);
    const int reps = lg >= 30 ? o.big_reps : o.reps;
    const int slots = o.warmup + reps;
    const std::string where = std::string(type_name) + " n=2^" + std::to_string(lg);
    const std::size_t need = size_buffers<T>::bytes_for(n, pairs, slots);
    std::fprintf(stderr, "[compact_bench] %s: %d buffer set(s), %.1f MiB of device memory\n", where.c_str(), pairs,
                 need / 1048576.0);
    bench::require_free_memory(need, where);
    size_buffers<T> buf(n, pairs, slots);
    cub_temp temp;
    const unsigned grid = bench::grid_for(n, dev.sms);

    // Items of flagged / if / partition in every set; the copy is timed on them.
    for (int p = 0; p < pairs; ++p) {
      fill_items_kernel<T><<<grid, 256, 0, stream>>>(buf.in[p].template as<T>(), n, o.seed + lg);
      BENCH_CHECK_LAUNCH("fill_items_kernel");
    }
    bench::sync_stream(stream, where + " input fill", o.timeout_s);
    bench::warm_gpu(20, dev.sms, stream, o.timeout_s);
    bench::event_timer timer(stream, reps);
    const auto copy_call = [&](int k) {
      BENCH_CUDA(cudaMemcpyAsync(buf.d_out(k), buf.d_in(k), n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    };
    const double copy_ms =
        bench::median(timer.run(o.warmup, copy_call, o.timeout_s, where + " cudaMemcpy D2D", reps, o.held));
    std::printf("%-6s %-9s %4s 2^%-3d %7s %11s %11s %11s %11.2f   (%d set(s), %d timed calls)\n", type_name, "copy", "",
                lg, "", "", "", "", copy_ms * 1e3, pairs, reps);
    const double copy_back_to_back_ms =
        lg <= o.back_to_back_max_log
            ? bench::median(timer.run_back_to_back(o.warmup, copy_call, o.timeout_s,
                                                   where + " cudaMemcpy D2D back to back", reps,
                                                   back_to_back_batches))
            : 0.0;
    const size_case<T> c{o,     dev,  ctx,  csv,     back_to_back_csv, type_name,           lg,
                         reps,  buf,  temp, timer,   copy_ms,          copy_back_to_back_ms, results};

    for (int rate : o.rates) {
      if (!any_select) break;
      const std::uint64_t threshold = rate_threshold(rate);
      for (int p = 0; p < pairs; ++p) {
        fill_flags_kernel<<<grid, 256, 0, stream>>>(buf.flags[p].template as<std::uint8_t>(), n, o.seed + lg, threshold);
        BENCH_CHECK_LAUNCH("fill_flags_kernel");
      }
      const host_model<T> flags_model{op::flagged, o.seed + lg, threshold, T{}};
      chunk_counts flag_counts;  // shared by flagged and partition
      for (op x : o.ops) {
        if (is_run_op(x)) continue;
        host_model<T> m = flags_model;
        m.kind = x;
        if (x == op::if_ || x == op::if_host) {
          m.bound = bound_for_rate<T>(rate);
          run_case<T>(c, x, rate, m, count_chunks(m, n));
        } else {
          if (flag_counts.before.empty()) flag_counts = count_chunks(flags_model, n);
          run_case<T>(c, x, rate, m, flag_counts);
        }
      }
    }
    for (int rate : o.rates) {
      if (!any_runs) break;
      const std::uint64_t threshold = rate_threshold(rate);
      for (int p = 0; p < pairs; ++p) {
        fill_runs_kernel<T><<<grid, 256, 0, stream>>>(buf.in[p].template as<T>(), n, o.seed + lg, threshold);
        BENCH_CHECK_LAUNCH("fill_runs_kernel");
      }
      const host_model<T> runs_model{op::unique, o.seed + lg, threshold, T{}};
      const chunk_counts run_counts = count_chunks(runs_model, n);  // shared by unique and rle
      for (op x : o.ops) {
        if (!is_run_op(x)) continue;
        host_model<T> m = runs_model;
        m.kind = x;
        run_case<T>(c, x, rate, m, run_counts);
      }
    }
    bench::sync_stream(stream, where + " end", o.timeout_s);
  }
}

const case_result* find_result(const std::vector<case_result>& results, const char* type, op o, int rate, int lg) {
  for (const auto& r : results)
    if (r.type == type && r.o == o && r.rate == rate && r.n == (std::size_t(1) << lg)) return &r;
  return nullptr;
}

// ------------------------------------------------------ scan-policy sweep --

constexpr int policy_logs[] = {24, 28};  // sizes of the sweep (those within --min-log .. --max-log)
constexpr int policy_rate = 50;          // % selected
constexpr int chained_log = 24;          // the only size chained policies are timed at
constexpr int chained_calls = 3;         // their timed calls at most (no warm-up)

/// "<grid>/<block>", as in the CSV and scan_policies_bench.
std::string policy_label(const scankit::scan_policy& p) {
  return std::string(scankit::to_string(p.grid)) + "/" + scankit::to_string(p.block);
}

/// The policy that runs the single-pass kernel (run_select's test).
bool is_default_policy(const scankit::scan_policy& p) {
  return p.grid == scankit::grid_strategy::decoupled_lookback && p.block == scankit::block_algorithm::warp_shuffle;
}

bool is_chained(const scankit::scan_policy& p) { return p.grid == scankit::grid_strategy::chained; }

/// "45.1%", or with two decimals below 1 % (the chained policies).
std::string pct_text(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, pct >= 1 ? "%.1f%%" : "%.2f%%", pct);
  return buf;
}

/// One policy's median at one size.
struct policy_result {
  std::string policy;
  int lg;
  double ms, cub_ms, copy_ms, bytes_ratio, spread_pct;
  int reps;
  bool is_default, from_main_sweep;
  double pct(double t) const { return copy_ms * bytes_ratio / t * 100; }
};

/// What the sweep did, for the summary lines.
struct policy_sweep_log {
  std::vector<policy_result> results;
  std::string not_run;        // why nothing ran (empty if something did)
  bool chained_skipped = false;  // chained policies left out at a size above chained_log
};

const char* policy_table_format = "%-6s 2^%-3d %-46s %11.2f %8s %7.3fx %6.1f%% %5d%s\n";

/// Verifies one policy against CUB's verified result (count and items), times
/// it and rechecks every count and output its timed calls wrote.
template <class T>
policy_result run_policy_case(const options& o, const bench::device_info& dev, scankit::context& ctx,
                              const size_buffers<T>& b, int lg, const scankit::scan_policy& policy,
                              std::uint64_t k_ref, double cub_ms, double copy_ms, double bytes_ratio,
                              bench::event_timer& timer) {
  const std::size_t n = b.n;
  const std::string name = policy_label(policy);
  const std::string what = "compact policies uint32 flagged " + std::to_string(policy_rate) + "% " + name + " n=2^" +
                           std::to_string(lg);
  const T* const ref = b.ref.template as<T>();
  const double timeout_s = o.timeout_s;
  auto call = [&](int k, std::size_t* d_count) {
    scankit::device::compact_async(ctx, b.d_in(k), b.d_flags(k), b.d_out(k), n, d_count, policy);
  };
  std::vector<double> ms;
  int calls = 0;
  try {
    // Correct first: count and items equal CUB's. The call also grows the
    // context's workspace, so no timed call allocates there.
    bench::poison(b.d_out(0), n * sizeof(T), stream);
    BENCH_CUDA(cudaMemsetAsync(b.counts.get(), 0xFF, b.counts.bytes(), stream));
    call(0, b.d_count(0));
    BENCH_CUDA(cudaGetLastError());
    bench::sync_stream(stream, what + " verification run", timeout_s);
    const std::size_t k = read_count(b.d_count(0));
    if (k != k_ref) {
      std::ostringstream s;
      s << "wrong result: " << what << ": count " << k << ", CUB DeviceSelect::Flagged " << k_ref;
      bench::die(1, s.str());
    }
    check_equal_n<T>(b.d_out(0), "scankit", ref, "CUB", k_ref, dev.sms, timeout_s, what);

    // Timing: outputs poisoned and count slots cleared first (as run_case).
    for (int p = 0; p < b.pairs; ++p) bench::poison(b.d_out(p), k_ref * sizeof(T), stream);
    BENCH_CUDA(cudaMemsetAsync(b.counts.get(), 0xFF, b.counts.bytes(), stream));
    const bool chained = is_chained(policy);
    const int warmup = chained ? 0 : o.warmup, reps = chained ? std::min(chained_calls, o.reps) : o.reps;
    ms = timer.run(warmup, [&](int c) { call(c, b.d_count(c)); }, timeout_s, what, reps);
    calls = warmup + int(ms.size());
  } catch (const std::exception& e) {
    bench::die(1, what + ": exception: " + e.what());
  }
  std::vector<std::size_t> counts(std::size_t(calls), 0);
  BENCH_CUDA(cudaMemcpy(counts.data(), b.d_count(0), counts.size() * sizeof(std::size_t), cudaMemcpyDeviceToHost));
  for (int c = 0; c < calls; ++c)
    if (counts[std::size_t(c)] != k_ref) {
      std::ostringstream s;
      s << "wrong result: " << what << ": call " << c << " of its timed run wrote the count " << counts[std::size_t(c)]
        << ", CUB's is " << k_ref;
      bench::die(1, s.str());
    }
  for (int p = 0; p < std::min(b.pairs, calls); ++p)
    check_equal_n<T>(b.d_out(p), "scankit (after its timed calls)", ref, "CUB", k_ref, dev.sms, timeout_s,
                     what + " set " + std::to_string(p));
  return {name, lg, bench::median(ms), cub_ms, copy_ms, bytes_ratio, bench::spread_pct(ms), int(ms.size()), false,
          false};
}

/// The sweep: uint32 flagged 50 % at each size of policy_logs, every policy.
void run_policy_sweep(const options& o, const bench::device_info& dev, scankit::context& ctx, bench::csv_writer& csv,
                      const std::vector<case_result>& results, policy_sweep_log& log) {
  using T = std::uint32_t;
  if (!o.policies) {
    log.not_run = "--no-policies";
    return;
  }
  if (std::find(o.types.begin(), o.types.end(), "uint32") == o.types.end()) {
    log.not_run = "uint32 not in --types";
    return;
  }
  std::vector<int> logs;
  for (int lg : policy_logs)
    if (lg >= o.min_log && lg <= o.max_log) logs.push_back(lg);
  if (logs.empty()) {
    log.not_run = "neither 2^24 nor 2^28 within --min-log .. --max-log";
    return;
  }
  const std::vector<scankit::scan_policy> policies = scankit::all_scan_policies();
  if (policy_label(scankit::scan_policy{}) != policy_name)
    bench::die(1, "the default scan_policy is " + policy_label(scankit::scan_policy{}) + ", this driver assumes " +
                      policy_name);
  std::printf("\n# scan policies: compact_async(..., policy), uint32 items, uint8 flags, %d%% selected; %zu policies "
              "(* = default: the single-pass kernel of the cases above; the others: mark -> exclusive scan of the "
              "marks with that policy -> scatter)\n",
              policy_rate, policies.size());
  std::printf("# chained policies serialize their tiles (~0.5 us each): timed at 2^%d only, with at most %d calls and "
              "no warm-up\n",
              chained_log, std::min(chained_calls, o.reps));
  std::printf("%-6s %-5s %-46s %11s %8s %8s %7s %5s\n", "type", "n", "policy (* = default)", "scankit_us", "sk%copy",
              "vs_cub", "sk_iqr%", "reps");

  const std::uint64_t threshold = rate_threshold(policy_rate);
  const std::string variant = std::string(op_name(op::flagged)) + "_" + std::to_string(policy_rate);
  for (int lg : logs) {
    const std::size_t n = std::size_t(1) << lg;
    const int pairs = bench::rotation_pairs(n * sizeof(T), dev.l2_bytes, o.max_pairs);
    const int slots = o.warmup + o.reps;
    const std::string where = "policies uint32 n=2^" + std::to_string(lg);
    const std::size_t need = size_buffers<T>::bytes_for(n, pairs, slots);
    std::fprintf(stderr, "[compact_bench] %s: %d buffer set(s), %.1f MiB of device memory\n", where.c_str(), pairs,
                 need / 1048576.0);
    bench::require_free_memory(need, where);
    size_buffers<T> b(n, pairs, slots);
    cub_temp temp;
    const unsigned grid = bench::grid_for(n, dev.sms);
    // The inputs of the flagged 50 % case of the main sweep (same seed, same flags).
    for (int p = 0; p < pairs; ++p) {
      fill_items_kernel<T><<<grid, 256, 0, stream>>>(b.in[p].template as<T>(), n, o.seed + lg);
      BENCH_CHECK_LAUNCH("fill_items_kernel");
      fill_flags_kernel<<<grid, 256, 0, stream>>>(b.flags[p].template as<std::uint8_t>(), n, o.seed + lg, threshold);
      BENCH_CHECK_LAUNCH("fill_flags_kernel");
    }

    // CUB DeviceSelect::Flagged: its result, checked against the host
    // reference, is what every policy must equal.
    auto cub_run = [&](void* d_temp, std::size_t& temp_bytes, int k, T* d_out) {
      return cub::DeviceSelect::Flagged(d_temp, temp_bytes, b.d_in(k), b.d_flags(k), d_out, b.d_cub_count(),
                                        std::int64_t(n), stream);
    };
    std::size_t temp_need = 0;
    BENCH_CUDA(cub_run(nullptr, temp_need, 0, b.d_out(0)));
    temp.ensure(temp_need);
    auto cub_call = [&](int k, T* d_out) {
      std::size_t have = temp.buffer.bytes();
      BENCH_CUDA(cub_run(temp.buffer.get(), have, k, d_out));
    };
    const host_model<T> model{op::flagged, o.seed + lg, threshold, T{}};
    const chunk_counts cc = count_chunks(model, n);
    const std::uint64_t k_ref = cc.total;
    T* const ref = b.ref.template as<T>();
    bench::poison(ref, n * sizeof(T), stream);
    cub_call(0, ref);
    bench::sync_stream(stream, where + " CUB verification run", o.timeout_s);
    const std::size_t k_cub = read_count(b.d_cub_count());
    if (k_cub != k_ref) {
      std::ostringstream s;
      s << "wrong result: " << where << ": CUB DeviceSelect::Flagged selected " << k_cub
        << " items, the host reference " << k_ref;
      bench::die(1, s.str());
    }
    check_against_host<T>(model, cc, n, ref, nullptr, lg <= o.full_check_log, o.timeout_s,
                          where + " CUB (host reference)");
    const double bytes_ratio = bytes_moved(op::flagged, n, k_ref, sizeof(T)) / (2.0 * double(n) * sizeof(T));

    // Copy and CUB: from the main sweep's case on the same inputs, else timed here.
    bench::warm_gpu(20, dev.sms, stream, o.timeout_s);  // clocks up after the host work above
    bench::event_timer timer(stream, o.reps);
    const case_result* const main = find_result(results, "uint32", op::flagged, policy_rate, lg);
    double copy_ms = 0, cub_ms = 0;
    if (main) {
      copy_ms = main->copy_ms, cub_ms = main->cub_ms;
    } else {
      copy_ms = bench::median(timer.run(
          o.warmup,
          [&](int k) {
            BENCH_CUDA(cudaMemcpyAsync(b.d_out(k), b.d_in(k), n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
          },
          o.timeout_s, where + " cudaMemcpy D2D"));
      cub_ms = bench::median(
          timer.run(o.warmup, [&](int k) { cub_call(k, b.d_out(k)); }, o.timeout_s, where + " CUB Flagged"));
    }
    const char* const source = main ? "from the main sweep" : "timed here";
    std::printf("%-6s 2^%-3d %-46s %11.2f %8s %8s %7s %5d   (copy %.2f us; copy and CUB %s; %d set(s))\n",
                "uint32", lg, "cub", cub_ms * 1e3, pct_text(copy_ms * bytes_ratio / cub_ms * 100).c_str(), "", "",
                main ? main->reps : o.reps, copy_ms * 1e3, source, pairs);

    const std::string chained_note =
        "   (chained: no warm-up, " + std::to_string(std::min(chained_calls, o.reps)) + " timed call(s))";
    int skipped = 0;
    for (const auto& p : policies) {
      const std::string name = policy_label(p);
      const bool is_default = is_default_policy(p);
      if (is_chained(p) && lg != chained_log) {
        ++skipped;
        continue;
      }
      policy_result r{};
      if (is_default && main) {  // timed above on the same inputs: no second run, no second CSV row
        r = {name, lg, main->scankit_ms, cub_ms, copy_ms, bytes_ratio, main->scankit_spread_pct, main->reps,
             true, true};
      } else {
        r = run_policy_case<T>(o, dev, ctx, b, lg, p, k_ref, cub_ms, copy_ms, bytes_ratio, timer);
        r.is_default = is_default;
        csv.row("compact", variant, name, "uint32", n, r.ms, "cub", cub_ms, copy_ms, bytes_ratio);
      }
      const std::string note = r.from_main_sweep ? "   (main sweep)" : is_chained(p) ? chained_note : "";
      std::printf(policy_table_format, "uint32", lg, (name + (is_default ? " *" : "")).c_str(), r.ms * 1e3,
                  pct_text(r.pct(r.ms)).c_str(), cub_ms / r.ms, r.spread_pct, r.reps, note.c_str());
      std::fflush(stdout);
      log.results.push_back(r);
    }
    if (skipped) {
      log.chained_skipped = true;
      std::printf("# %d chained policies not timed at 2^%d (serial tiles: %dx the tiles of 2^%d per call)\n", skipped,
                  lg, 1 << (lg - chained_log), chained_log);
    }
    bench::sync_stream(stream, where + " end", o.timeout_s);
  }
}

/// 'summary compact policies:' per size, the best and the worst policy by %
/// of copy, the default and CUB.
void print_policy_summary(const policy_sweep_log& log) {
  std::string line = "summary compact policies:";
  if (log.results.empty()) {
    std::printf("%s not run (%s)\n", line.c_str(), log.not_run.empty() ? "no case" : log.not_run.c_str());
    return;
  }
  line += " uint32 flagged " + std::to_string(policy_rate) + "%, % of copy;";
  std::vector<int> logs;
  for (const auto& r : log.results)
    if (std::find(logs.begin(), logs.end(), r.lg) == logs.end()) logs.push_back(r.lg);
  for (int lg : logs) {
    const policy_result *best = nullptr, *worst = nullptr, *def = nullptr;
    int count = 0;
    for (const auto& r : log.results) {
      if (r.lg != lg) continue;
      ++count;
      if (!best || r.ms < best->ms) best = &r;
      if (!worst || r.ms > worst->ms) worst = &r;
      if (r.is_default) def = &r;
    }
    line += " 2^" + std::to_string(lg) + " (" + std::to_string(count) + " policies) best " + best->policy + " " +
            pct_text(best->pct(best->ms)) + ", worst " + worst->policy + " " + pct_text(worst->pct(worst->ms));
    if (def) line += ", default " + pct_text(def->pct(def->ms));
    line += ", CUB Flagged " + pct_text(best->pct(best->cub_ms)) + ";";
  }
  const bool any_chained = std::any_of(log.results.begin(), log.results.end(),
                                      [](const policy_result& r) { return r.policy.rfind("chained/", 0) == 0; });
  if (log.chained_skipped)
    line += any_chained ? " chained timed at 2^" + std::to_string(chained_log) + " only, at most " +
                              std::to_string(chained_calls) + " calls"
                        : " chained not timed (2^" + std::to_string(chained_log) + " not run)";
  else
    line.pop_back();  // the last ';'
  std::printf("%s\n", line.c_str());
}

void print_headline(const std::vector<case_result>& results) {
  std::string line = "headline compact u32 2^28 50%:";
  char buf[256];
  bool any = false;
  for (op o : all_ops) {
    const case_result* r = find_result(results, "uint32", o, 50, 28);
    if (!r) continue;
    std::snprintf(buf, sizeof buf, "%s %s %.1f%%%s (CUB %s %.1f%%, %.2fx", any ? "," : "", op_name(o),
                  r->pct(r->scankit_ms), any ? "" : " of copy", cub_name(o), r->pct(r->cub_ms), r->cub_ms / r->scankit_ms);
    line += buf;
    if (r->thrust_ms > 0) {
      std::snprintf(buf, sizeof buf, "; Thrust copy_if %.1f%%, %.2fx", r->pct(r->thrust_ms), r->thrust_ms / r->scankit_ms);
      line += buf;
    }
    line += ")";
    any = true;
  }
  if (!any) line += " not run";
  std::printf("%s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const options o = parse_options(argc, argv);
  try {
    const bench::run_identity run =
        bench::begin_run("compact_bench", o.commit,
                         bench::format("reps %d (median; %d at n >= 2^30)%s, warm-up %d, seed %llu", o.reps, o.big_reps,
                                       o.held ? ", held" : ", unheld", o.warmup, (unsigned long long)o.seed));
    const bench::device_info& dev = run.dev;
    std::printf("# %% of copy credits each operation with the bytes it must move (compact_bench.cu): flagged "
                "n(T+1)+kT, if and if_host nT+kT, partition n(T+1)+nT, unique nT+kT, rle nT+k(T+4); the copy "
                "moves 2nT\n");
    bench::csv_writer csv, back_to_back_csv;
    run.open(csv, o.csv);
    run.open(back_to_back_csv, o.back_to_back_csv);

    scankit::context ctx{stream};
    std::vector<case_result> results;
    bench::warm_gpu(300, dev.sms, stream, o.timeout_s);
    print_table_header();
    for (const std::string& t : o.types) {
      if (t == "uint32") run_type<std::uint32_t>("uint32", o, dev, ctx, csv, back_to_back_csv, results);
      if (t == "uint64") run_type<std::uint64_t>("uint64", o, dev, ctx, csv, back_to_back_csv, results);
    }
    policy_sweep_log policy_log;
    run_policy_sweep(o, dev, ctx, csv, results, policy_log);
    bench::sync_stream(stream, "the end of the run", o.timeout_s);
    if (!csv.path().empty()) std::printf("# wrote %s\n", csv.path().c_str());
    if (!back_to_back_csv.path().empty()) std::printf("# wrote %s\n", back_to_back_csv.path().c_str());
    int big = 0;
    for (const auto& r : results) big += r.n >= (std::size_t(1) << 30);
    std::string big_note;
    if (big && o.big_reps < o.reps)
      big_note = "; " + std::to_string(big) + " case(s) at n >= 2^30 timed with " + std::to_string(o.big_reps) +
                 " calls instead of " + std::to_string(o.reps);
    int policy_cases = 0;
    for (const auto& r : policy_log.results) policy_cases += !r.from_main_sweep;
    const std::string policy_note =
        policy_log.results.empty()
            ? "scan-policy sweep not run"
            : "scan-policy sweep: " + std::to_string(policy_cases) + " more case(s), each equal to CUB Flagged exactly";
    std::printf("summary compact_bench: all %zu cases verified (scankit == CUB exactly: counts, items, partition "
                "with CUB's rejected part reversed, run lengths; Thrust copy_if too; and an independent host "
                "reference, every item for n <= 2^%d, %d sampled chunks of %zu items above)%s; %s; %.1f s\n",
                results.size(), o.full_check_log, sampled_chunks, check_chunk, big_note.c_str(), policy_note.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    print_policy_summary(policy_log);
    print_headline(results);
  } catch (const std::exception& e) {
    bench::die(1, std::string("exception: ") + e.what());
  }
  std::fflush(nullptr);
  return 0;
}
