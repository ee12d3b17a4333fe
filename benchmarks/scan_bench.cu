// benchmarks/scan_bench.cu — scankit's prefix scan against CUB, Thrust and
// cudaMemcpy device-to-device, all in the same run.
//
// What is measured, for each type (int32, float, int64, double), variant
// (inclusive; exclusive with a nonzero init) and n = 2^16, 2^18, ..., 2^30:
//   scankit  scankit::inclusive_scan / exclusive_scan (host API, default
//            policy = tuned decoupled look-back), one scankit::context made
//            once, so its temp storage is cached after the first call;
//   cub      cub::DeviceScan::InclusiveSum, and ExclusiveScan(plus, init) for
//            exclusive (the same kernel ExclusiveSum runs, with our init); temp
//            storage allocated once, outside the timed region;
//   thrust   thrust::inclusive_scan / exclusive_scan(thrust::device, ...), as a
//            user calls it: its per-call temp allocation and final
//            synchronization are part of its time;
//   copy     cudaMemcpyAsync device-to-device of n * sizeof(T) bytes: it reads
//            and writes each byte once, as a scan must, so
//            pct_of_copy = copy_ms / scankit_ms * 100.
// Timing: everything runs on the legacy default stream (where thrust::device
// runs); CUDA events recorded on that stream around every single call; warm-up
// calls first; median of --reps (default 25) timed calls; no host
// synchronization between timed calls (Thrust synchronizes inside its own).
// A spin kernel keeps the SMs busy for 300 ms at the start and 20 ms before
// each size, so clocks are up when timing starts. When n * sizeof(T) is
// small, several input/output pairs (enough that the inputs total 2x the L2,
// at most --max-pairs) are cycled through by every contender alike, so each
// call reads an input that is not in L2.
// Correctness (before any timing of a case): scankit, CUB and Thrust run on the
// same input; outputs are poisoned first; scankit must equal CUB and Thrust
// element for element (exact, also for floats: see bench_common.cuh) and the
// exact host reference at ~1000 sampled indices. After scankit's timed calls,
// every output pair it wrote is compared again (catches races that show only
// on repeated calls). Any mismatch, CUDA error or hang exits non-zero.
//
// Output: stdout table, then 'summary' and 'headline' lines (scripts/gpu-check
// greps for them); --csv=path writes the docs/benchmarks.md
// schema (two rows per case: baseline = cub and baseline = thrust).
//
//   scan_bench [--types=int32,float,int64,double] [--variants=inclusive,exclusive]
//              [--min-log=16] [--max-log=30] [--step-log=2] [--reps=25] [--warmup=3]
//              [--max-pairs=16] [--timeout-s=20] [--seed=N] [--csv=path] [--commit=sha] [--quick]
#include "bench_common.cuh"

#include <scankit/scankit.hpp>

#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <exception>

namespace {

using bench::device_buffer;

const std::string usage =
    "usage: scan_bench [options]\n"
    "  --types=int32,float,int64,double   element types (default: all four)\n"
    "  --variants=inclusive,exclusive     scan variants (default: both)\n"
    "  --min-log=16 --max-log=30          n = 2^min-log ... 2^max-log (max-log <= 30)\n"
    "  --step-log=2                       step between log2 sizes\n" +
    bench::run_options_usage(37) +
    "  --quick                            n = 2^16, 2^20, 2^24, 2^28, 10 reps, 2 warm-ups\n"
    "                                     (later options override)\n";

struct options : bench::run_options {
  std::vector<std::string> types{"int32", "float", "int64", "double"};
  std::vector<std::string> variants{"inclusive", "exclusive"};
  int min_log = 16, max_log = 30, step_log = 2;
};

options parse_options(int argc, char** argv) {
  options o;
  if (bench::has_flag(argc, argv, "--quick")) o.min_log = 16, o.max_log = 28, o.step_log = 4, o.reps = 10, o.warmup = 2;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    std::string v;
    if (arg == "--quick") continue;
    bench::handle_help(arg, usage);
    if (bench::option_value(arg, "types", v)) {
      o.types = bench::parse_choices(v, "types", {"int32", "float", "int64", "double"}, usage);
    } else if (bench::option_value(arg, "variants", v)) {
      o.variants = bench::parse_choices(v, "variants", {"inclusive", "exclusive"}, usage);
    } else if (bench::option_value(arg, "min-log", v)) {
      o.min_log = int(bench::parse_int(v, "min-log", 0, 30));
    } else if (bench::option_value(arg, "max-log", v)) {
      o.max_log = int(bench::parse_int(v, "max-log", 0, 30));  // CUB is called with int num_items
    } else if (bench::option_value(arg, "step-log", v)) {
      o.step_log = int(bench::parse_int(v, "step-log", 1, 30));
    } else if (!bench::parse_run_option(arg, o)) {
      bench::die(2, "unknown option '" + arg + "'\n" + usage);
    }
  }
  if (o.min_log > o.max_log) bench::die(2, "--min-log is larger than --max-log");
  bench::note_reps(o.reps);
  return o;
}

struct case_result {
  std::string type, variant;
  std::size_t n;
  double scankit_ms, cub_ms, thrust_ms, copy_ms, scankit_spread_pct;
};

/// CUB's temp storage: grown (outside any timed region) to the largest need.
struct cub_temp {
  device_buffer buffer;
  void ensure(std::size_t bytes) {
    if (bytes > buffer.bytes()) buffer = device_buffer(bytes);
  }
};

const cudaStream_t stream = 0;  // the legacy default stream, where thrust::device runs

template <class T>
cudaError_t cub_scan(bool exclusive, void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, std::size_t n,
                     T init) {
  const int num_items = int(n);  // n <= 2^30: the 32-bit offset path, as most CUB users call it
  if (exclusive)
    return cub::DeviceScan::ExclusiveScan(d_temp, temp_bytes, d_in, d_out, ::cuda::std::plus<>{}, init, num_items, stream);
  return cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_in, d_out, num_items, stream);
}

void print_table_header() {
  std::printf("%-7s %-9s %5s %11s %11s %11s %11s %8s %8s %7s %7s %7s\n", "type", "variant", "n", "scankit_us",
              "cub_us", "thrust_us", "copy_us", "sk%copy", "cub%copy", "vs_cub", "vs_thr", "sk_iqr%");
}

void print_row(const case_result& r) {
  std::printf("%-7s %-9s 2^%-3d %11.2f %11.2f %11.2f %11.2f %7.1f%% %7.1f%% %6.3fx %6.3fx %6.1f%%\n", r.type.c_str(),
              r.variant.c_str(), bench::log2_exact(r.n), r.scankit_ms * 1e3, r.cub_ms * 1e3, r.thrust_ms * 1e3,
              r.copy_ms * 1e3, r.copy_ms / r.scankit_ms * 100, r.copy_ms / r.cub_ms * 100, r.cub_ms / r.scankit_ms,
              r.thrust_ms / r.scankit_ms, r.scankit_spread_pct);
  std::fflush(stdout);
}

template <class T>
void run_type(const char* type_name, const options& o, const bench::device_info& dev, scankit::context& ctx,
              cub_temp& temp, bench::csv_writer& csv, std::vector<case_result>& results,
              std::map<std::size_t, bench::sampled_reference>& references) {
  for (int lg = o.min_log; lg <= o.max_log; lg += o.step_log) {
    const std::size_t n = std::size_t(1) << lg;
    const std::size_t bytes = n * sizeof(T);
    const int pairs = bench::rotation_pairs(bytes, dev.l2_bytes, o.max_pairs);
    const std::string where = std::string(type_name) + " n=2^" + std::to_string(lg);
    std::fprintf(stderr, "[scan_bench] %s: %d buffer pair(s) of %.1f MiB\n", where.c_str(), pairs, bytes / 1048576.0);

    // Buffers: `pairs` input/output pairs (same data in every input) + one
    // reference output. Freed at the end of this iteration.
    bench::require_free_memory((2 * std::size_t(pairs) + 1) * bytes, where);
    const bench::rotated_buffers<T> buf(n, pairs, o.seed + lg, dev.sms, stream);
    device_buffer ref_out(bytes);
    auto found = references.find(n);
    if (found == references.end()) found = references.emplace(n, bench::make_reference(n, o.seed + lg)).first;
    const bench::sampled_reference& reference = found->second;
    bench::sync_stream(stream, where + " input fill", o.timeout_s);

    bench::warm_gpu(20, dev.sms, stream, o.timeout_s);  // clocks up after the host work above
    bench::event_timer timer(stream, o.reps);
    // The copy at the same byte count, shared by both variants.
    const double copy_ms = bench::time_copy<T>(timer, buf, o.warmup, stream, o.timeout_s, where + " cudaMemcpy D2D");

    for (const std::string& variant : o.variants) {
      const bool exclusive = variant == "exclusive";
      const T init = bench::value_of<T>(bench::exclusive_init_digit);
      const std::string what = std::string("scan ") + variant + " " + where;

      auto scankit_call = [&](const T* d_in, T* d_out) {
        if (exclusive)
          scankit::exclusive_scan(ctx, d_in, d_out, n, init);
        else
          scankit::inclusive_scan(ctx, d_in, d_out, n);
      };
      std::size_t need = 0;
      BENCH_CUDA(cub_scan<T>(exclusive, nullptr, need, buf.in(0), buf.out(0), n, init));
      temp.ensure(need);
      auto cub_call = [&](const T* d_in, T* d_out) {
        std::size_t have = temp.buffer.bytes();
        BENCH_CUDA(cub_scan<T>(exclusive, temp.buffer.get(), have, d_in, d_out, n, init));
      };
      auto thrust_call = [&](const T* d_in, T* d_out) {
        if (exclusive)
          thrust::exclusive_scan(thrust::device, d_in, d_in + n, d_out, init);
        else
          thrust::inclusive_scan(thrust::device, d_in, d_in + n, d_out);
      };

      // ---- correctness, on pair 0, before any timing of this case ----
      bench::poison(buf.out(0), bytes, stream);
      bench::poison(ref_out.get(), bytes, stream);
      scankit_call(buf.in(0), buf.out(0));
      BENCH_CUDA(cudaGetLastError());
      cub_call(buf.in(0), ref_out.as<T>());
      bench::sync_stream(stream, what + " verification run (scankit, CUB)", o.timeout_s);
      bench::check_equal<T>(buf.out(0), "scankit", ref_out.as<T>(), "CUB", n, dev.sms, stream, o.timeout_s, what);
      bench::check_against_reference<T>(buf.out(0), reference, exclusive, stream, o.timeout_s, what + " scankit");
      bench::check_against_reference<T>(ref_out.as<T>(), reference, exclusive, stream, o.timeout_s, what + " CUB");
      bench::poison(ref_out.get(), bytes, stream);
      thrust_call(buf.in(0), ref_out.as<T>());
      bench::check_equal<T>(buf.out(0), "scankit", ref_out.as<T>(), "Thrust", n, dev.sms, stream, o.timeout_s, what);
      // ref_out now holds the verified result for every pair's input.

      // ---- timing ---- (outputs poisoned first, so the check after the
      // timed calls also catches elements a repeated call failed to write)
      const std::vector<double> scankit_ms =
          bench::time_and_recheck<T>(timer, buf, o.warmup, 0, scankit_call, "scankit (after its timed calls)",
                                     ref_out.as<T>(), "verified result", dev.sms, stream, o.timeout_s, what + " scankit");
      const double cub_ms = bench::median(
          timer.run(o.warmup, [&](int k) { cub_call(buf.in(k), buf.out(k)); }, o.timeout_s, what + " CUB"));
      const double thrust_ms = bench::median(
          timer.run(o.warmup, [&](int k) { thrust_call(buf.in(k), buf.out(k)); }, o.timeout_s, what + " Thrust"));

      const case_result r{type_name, variant, n, bench::median(scankit_ms), cub_ms, thrust_ms, copy_ms,
                          bench::spread_pct(scankit_ms)};
      csv.row("scan", variant, "decoupled_lookback", type_name, n, r.scankit_ms, "cub", cub_ms, copy_ms);
      csv.row("scan", variant, "decoupled_lookback", type_name, n, r.scankit_ms, "thrust", thrust_ms, copy_ms);
      print_row(r);
      results.push_back(r);
    }
  }
}

const case_result* find_result(const std::vector<case_result>& results, const char* type, const char* variant,
                               int lg) {
  for (const auto& r : results)
    if (r.type == type && r.variant == variant && r.n == (std::size_t(1) << lg)) return &r;
  return nullptr;
}

void print_headline(const std::vector<case_result>& results) {
  std::string line = "headline scan int32 inclusive:";
  char buf[256];
  if (const case_result* r = find_result(results, "int32", "inclusive", 28)) {
    std::snprintf(buf, sizeof buf, " 2^28 %.1f%% of copy, %.3fx CUB (CUB %.1f%%) [target >=90%%, >=1.2x];",
                  r->copy_ms / r->scankit_ms * 100, r->cub_ms / r->scankit_ms, r->copy_ms / r->cub_ms * 100);
    line += buf;
  } else {
    line += " 2^28 not run;";
  }
  if (const case_result* r = find_result(results, "int32", "inclusive", 24)) {
    std::snprintf(buf, sizeof buf, " 2^24 %.1f%% of copy (CUB %.1f%%) [target >=80%%];",
                  r->copy_ms / r->scankit_ms * 100, r->copy_ms / r->cub_ms * 100);
    line += buf;
  } else {
    line += " 2^24 not run;";
  }
  if (const case_result* r = find_result(results, "int32", "inclusive", 16)) {
    std::snprintf(buf, sizeof buf, " 2^16 %.2f us (CUB %.2f us) [target <=7 us]", r->scankit_ms * 1e3,
                  r->cub_ms * 1e3);
    line += buf;
  } else {
    line += " 2^16 not run";
  }
  std::printf("%s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const options o = parse_options(argc, argv);
  try {
    const bench::run_identity run = bench::begin_run("scan_bench", o);
    const bench::device_info& dev = run.dev;
    bench::csv_writer csv;
    run.open(csv, o.csv);

    scankit::context ctx{stream};
    cub_temp temp;
    std::vector<case_result> results;
    std::map<std::size_t, bench::sampled_reference> references;
    bench::warm_gpu(300, dev.sms, stream, o.timeout_s);
    print_table_header();
    for (const std::string& t : o.types) {
      if (t == "int32") run_type<std::int32_t>("int32", o, dev, ctx, temp, csv, results, references);
      if (t == "float") run_type<float>("float", o, dev, ctx, temp, csv, results, references);
      if (t == "int64") run_type<std::int64_t>("int64", o, dev, ctx, temp, csv, results, references);
      if (t == "double") run_type<double>("double", o, dev, ctx, temp, csv, results, references);
    }
    bench::sync_stream(stream, "the end of the run", o.timeout_s);
    if (!csv.path().empty()) std::printf("# wrote %s\n", csv.path().c_str());
    std::printf("summary scan_bench: all %zu cases verified (scankit == CUB == Thrust exactly, and the exact host "
                "reference at sampled indices); %.1f s\n",
                results.size(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    print_headline(results);
  } catch (const std::exception& e) {
    bench::die(1, std::string("exception: ") + e.what());
  }
  std::fflush(nullptr);
  return 0;
}
