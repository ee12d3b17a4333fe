// benchmarks/scan_tuning_bench.cu — tile-shape sweep of scankit's default
// scan policy (single-pass decoupled look-back, warp-shuffle block scan):
// inclusive plus-scans through the template API,
//   scankit::device::inclusive_scan<scankit::detail::scan_tuning<THREADS, ROUNDS>>(ctx, in, out, n, plus{})
// for a fixed list of {threads per block, rounds of 16-byte vectors per
// thread} (items per thread = ROUNDS * 16 / sizeof(T)), against CUB's
// InclusiveSum and cudaMemcpy D2D measured in the same run.
//   int32: 256x8 384x8 512x8 384x10 512x6 128x12 at n = 2^16, 2^20, 2^24, 2^28
//   int64: 256x12 384x8 256x16 512x8 384x10      at n = 2^16, 2^20, 2^24, 2^27
// (tile bytes = threads x rounds x 16, staged in shared memory; the default
// tuning is marked '*'.)
// Method as scan_bench.cu (bench_common.cuh): legacy default stream, CUDA
// events around each single call, warm-up (also a spin kernel to get the clocks
// up), median of --reps calls, input/output
// pairs rotated past 2x L2, CUB's temp storage allocated once. Correctness:
// CUB's result is checked against the exact host reference (sampled) once per
// size, then every tuning must equal CUB element for element, before and
// after its timed calls; any mismatch, CUDA error or hang exits non-zero.
// Also printed per tuning: registers, local (spill) bytes and resident blocks
// per SM, from cudaFuncGetAttributes / the occupancy API.
//
// Output: stdout table, then 'summary' lines (fastest tuning per size against
// the default; scripts/gpu-check greps for them); --csv=path writes the docs/benchmarks.md schema with
// primitive=scan_tuning, policy=decoupled_lookback_t<THREADS>x<ROUNDS>, baseline=cub.
//
//   scan_tuning_bench [--types=int32,int64] [--logs=16,20,24,28] [--only=512x4,256x8]
//                     [--reps=25] [--warmup=3] [--max-pairs=16] [--timeout-s=20]
//                     [--seed=N] [--csv=path] [--commit=sha] [--quick]
#include "bench_common.cuh"

#include <scankit/context.hpp>
#include <scankit/device/operators.cuh>
#include <scankit/device/scan.cuh>

#include <exception>

namespace {

using bench::device_buffer;

template <int Threads, int Rounds>
using tuning = scankit::detail::scan_tuning<Threads, Rounds>;
template <class... Tunings>
struct tuning_list {};

// The sweep (11 kernel instantiations in all; keep it small: compile time).
using int32_tunings =
    tuning_list<tuning<256, 8>, tuning<384, 8>, tuning<512, 8>, tuning<384, 10>, tuning<512, 6>, tuning<128, 12>>;
using int64_tunings = tuning_list<tuning<256, 12>, tuning<384, 8>, tuning<256, 16>, tuning<512, 8>, tuning<384, 10>>;

const std::string usage =
    "usage: scan_tuning_bench [options]\n"
    "  --types=int32,int64       element types (default: both)\n"
    "  --logs=16,20,24,28        log2 sizes for every type (default: int32 16,20,24,28; int64 16,20,24,27)\n"
    "  --only=512x4,256x8        run only these THREADSxROUNDS tunings\n" +
    bench::run_options_usage(28) +
    "  --quick                   sizes 2^16 and 2^24, 10 reps, 2 warm-ups (later options override)\n";

struct options : bench::run_options {
  std::vector<std::string> types{"int32", "int64"};
  std::vector<int> logs;  // empty: per-type defaults
  std::vector<std::string> only;
};

options parse_options(int argc, char** argv) {
  options o;
  if (bench::has_flag(argc, argv, "--quick")) o.logs = {16, 24}, o.reps = 10, o.warmup = 2;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    std::string v;
    if (arg == "--quick") continue;
    bench::handle_help(arg, usage);
    if (bench::option_value(arg, "types", v)) {
      o.types = bench::parse_choices(v, "types", {"int32", "int64"}, usage);
    } else if (bench::option_value(arg, "logs", v)) {
      o.logs = bench::parse_logs(v, "logs", 30);
    } else if (bench::option_value(arg, "only", v)) {
      o.only = bench::split_list(v);
    } else if (!bench::parse_run_option(arg, o)) {
      bench::die(2, "unknown option '" + arg + "'\n" + usage);
    }
  }
  bench::note_reps(o.reps);
  return o;
}

const cudaStream_t stream = 0;

template <class Tuning>
std::string tuning_name() {
  return std::to_string(Tuning::threads) + "x" + std::to_string(Tuning::rounds);
}

template <class T, class Tuning>
bool is_default_tuning() {
  using d = scankit::detail::default_scan_tuning<T>;
  return d::threads == Tuning::threads && d::rounds == Tuning::rounds;
}

bool selected(const options& o, const std::string& name) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), name) != o.only.end();
}

/// One tuning's median at one size, for the summary lines.
struct tuning_result {
  std::string type, tuning;
  int lg;
  double ms, copy_ms, cub_ms;
  bool is_default;
};

/// Everything one size of one type shares between the tunings.
template <class T>
struct size_case {
  const options& o;
  const bench::device_info& dev;
  scankit::context& ctx;
  bench::csv_writer& csv;
  const char* type_name;
  std::size_t n;
  int lg;
  const bench::rotated_buffers<T>& buf;
  const T* d_ref;  // CUB's verified result
  double cub_ms, copy_ms;
  bench::event_timer& timer;
  std::vector<tuning_result>& results;
};

template <class T, class Tuning>
void run_tuning(const size_case<T>& c) {
  const std::string name = tuning_name<Tuning>();
  if (!selected(c.o, name)) return;
  const std::string what = std::string("scan_tuning ") + c.type_name + " t" + name + " n=2^" + std::to_string(c.lg);
  auto call = [&](const T* d_in, T* d_out) {
    scankit::device::inclusive_scan<Tuning>(c.ctx, d_in, d_out, c.n, scankit::device::plus{});
  };

  // Correct first: must equal CUB's verified result.
  bench::verify_call<T>(c.buf, call, "scankit", c.d_ref, "CUB", c.dev.sms, stream, c.o.timeout_s, what);

  // Kernel resources (registers, spills, occupancy with the staged tile in
  // dynamic shared memory; the call above raised the kernel's smem limit).
  const auto kernel = scankit::detail::scan_kernel<T, T, T, scankit::device::plus, Tuning, false,
                                                    scankit::detail::look_back_order::any>;
  cudaFuncAttributes attr{};
  BENCH_CUDA(cudaFuncGetAttributes(&attr, kernel));
  int blocks_per_sm = 0;
  BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, Tuning::threads,
                                                           scankit::detail::staged_tile_bytes<T, Tuning>));

  const std::vector<double> ms =
      bench::time_and_recheck<T>(c.timer, c.buf, c.o.warmup, 0, call, "scankit (after its timed calls)", c.d_ref,
                                 "CUB", c.dev.sms, stream, c.o.timeout_s, what);

  const double med = bench::median(ms);
  const int items = Tuning::rounds * scankit::detail::tuning_vector_items<T, Tuning>;
  std::printf("%-6s 2^%-3d %7s%-1s %5d %7zu %5d %6d %4d %11.2f %7.1f%% %6.3fx %6.1f%%\n", c.type_name, c.lg,
              name.c_str(), is_default_tuning<T, Tuning>() ? "*" : " ", items,
              scankit::detail::tile_items<T, Tuning>, attr.numRegs, int(attr.localSizeBytes), blocks_per_sm, med * 1e3,
              c.copy_ms / med * 100, c.cub_ms / med, bench::spread_pct(ms));
  std::fflush(stdout);
  c.csv.row("scan_tuning", "inclusive", "decoupled_lookback_t" + name, c.type_name, c.n, med, "cub", c.cub_ms,
            c.copy_ms);
  c.results.push_back({c.type_name, name, c.lg, med, c.copy_ms, c.cub_ms, is_default_tuning<T, Tuning>()});
}

/// One line per type: at each size, the fastest tuning against the default.
void print_summary(const std::vector<tuning_result>& results) {
  std::vector<std::string> types;
  for (const auto& r : results)
    if (std::find(types.begin(), types.end(), r.type) == types.end()) types.push_back(r.type);
  for (const auto& t : types) {
    std::string line = "summary scan_tuning " + t + " (best vs default, % of copy):";
    std::vector<int> logs;
    for (const auto& r : results)
      if (r.type == t && std::find(logs.begin(), logs.end(), r.lg) == logs.end()) logs.push_back(r.lg);
    for (int lg : logs) {
      const tuning_result *best = nullptr, *def = nullptr;
      for (const auto& r : results)
        if (r.type == t && r.lg == lg) {
          if (!best || r.ms < best->ms) best = &r;
          if (r.is_default) def = &r;
        }
      char buf[160];
      std::snprintf(buf, sizeof buf, " 2^%d %s %.1f%%", lg, best->tuning.c_str(), best->copy_ms / best->ms * 100);
      line += buf;
      if (def && def != best) {
        std::snprintf(buf, sizeof buf, " (default %s %.1f%%)", def->tuning.c_str(), def->copy_ms / def->ms * 100);
        line += buf;
      } else if (def) {
        line += " (= default)";
      }
      std::snprintf(buf, sizeof buf, " CUB %.1f%%;", best->copy_ms / best->cub_ms * 100);
      line += buf;
    }
    std::printf("%s\n", line.c_str());
  }
}

template <class T, class... Tunings>
void run_type(const char* type_name, tuning_list<Tunings...>, const std::vector<int>& logs, const options& o,
              const bench::device_info& dev, scankit::context& ctx, bench::csv_writer& csv,
              std::vector<tuning_result>& results) {
  for (int lg : logs) {
    const std::size_t n = std::size_t(1) << lg;
    const std::size_t bytes = n * sizeof(T);
    const int pairs = bench::rotation_pairs(bytes, dev.l2_bytes, o.max_pairs);
    const std::string where = std::string(type_name) + " n=2^" + std::to_string(lg);
    bench::require_free_memory((2 * std::size_t(pairs) + 1) * bytes, where);
    const bench::rotated_buffers<T> buf(n, pairs, o.seed + lg, dev.sms, stream);
    device_buffer ref_out(bytes);
    const bench::sampled_reference reference = bench::make_reference(n, o.seed + lg);
    bench::event_timer timer(stream, o.reps);

    // CUB: temp storage allocated once here; its result checked against the
    // exact host reference, then used as the reference for every tuning.
    const bench::cub_inclusive_sum<T> cub_call(n, stream);
    cub_call.verified_result(buf.in(0), ref_out.as<T>(), reference, o.timeout_s, where + " CUB");

    bench::warm_gpu(20, dev.sms, stream, o.timeout_s);  // clocks up after the host work above
    const double copy_ms = bench::time_copy<T>(timer, buf, o.warmup, stream, o.timeout_s, where + " cudaMemcpy D2D");
    const double cub_ms = bench::median(
        timer.run(o.warmup, [&](int k) { cub_call(buf.in(k), buf.out(k)); }, o.timeout_s, where + " CUB"));
    std::printf("%-6s 2^%-3d %8s %5s %7s %5s %6s %4s %11.2f %7.1f%% %7s   (copy %.2f us, %d pair(s))\n", type_name, lg,
                "cub", "", "", "", "", "", cub_ms * 1e3, copy_ms / cub_ms * 100, "", copy_ms * 1e3, pairs);

    const size_case<T> c{o, dev, ctx, csv, type_name, n, lg, buf, ref_out.as<T>(), cub_ms, copy_ms, timer, results};
    (run_tuning<T, Tunings>(c), ...);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const options o = parse_options(argc, argv);
  try {
    const bench::run_identity run = bench::begin_run("scan_tuning_bench", o.commit,
                                                     bench::format("reps %d (median), warm-up %d", o.reps, o.warmup));
    const bench::device_info& dev = run.dev;
    bench::csv_writer csv;
    run.open(csv, o.csv);
    scankit::context ctx{stream};
    std::vector<tuning_result> results;

    bench::warm_gpu(300, dev.sms, stream, o.timeout_s);
    std::printf("%-6s %-5s %8s %5s %7s %5s %6s %4s %11s %8s %7s %7s\n", "type", "n", "tuning", "items", "tile",
                "regs", "spill", "b/SM", "us", "%copy", "vs_cub", "iqr%");
    for (const std::string& t : o.types) {
      if (t == "int32")
        run_type<std::int32_t>("int32", int32_tunings{}, o.logs.empty() ? std::vector<int>{16, 20, 24, 28} : o.logs, o,
                               dev, ctx, csv, results);
      if (t == "int64")
        run_type<std::int64_t>("int64", int64_tunings{}, o.logs.empty() ? std::vector<int>{16, 20, 24, 27} : o.logs, o,
                               dev, ctx, csv, results);
    }
    bench::sync_stream(stream, "the end of the run", o.timeout_s);
    if (!csv.path().empty()) std::printf("# wrote %s\n", csv.path().c_str());
    std::printf("summary scan_tuning_bench: %zu tuning x size cases verified (each equal to CUB exactly, CUB equal "
                "to the exact host reference at sampled indices); %.1f s\n",
                results.size(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    print_summary(results);
  } catch (const std::exception& e) {
    bench::die(1, std::string("exception: ") + e.what());
  }
  std::fflush(nullptr);
  return 0;
}
