// benchmarks/scan_policies_bench.cu — every scan policy of scankit
// (scankit::all_scan_policies(): 4 grid strategies x 5 block algorithms, with
// their default sizes) against CUB's InclusiveSum and cudaMemcpy D2D, all in
// the same run on the same inputs.
//
// What is measured, for each type (int32, float) and n = 2^20, 2^24, 2^28:
//   policy   scankit::inclusive_scan(ctx, d_in, d_out, n, policy) (host API,
//            plus), one scankit::context for the whole run, so its workspace
//            is cached after a policy's first call; decoupled_lookback/
//            warp_shuffle is the tuned default (marked '*'), the 19 others
//            are the textbook kernels;
//   cub      cub::DeviceScan::InclusiveSum, temp storage allocated once;
//   copy     cudaMemcpyAsync D2D of n * sizeof(T) bytes, so
//            pct_of_copy = copy_ms / policy_ms * 100.
// CUB and the copy are timed once per type and size, before the policies.
// Method as scan_bench.cu (bench_common.cuh): legacy default stream, CUDA
// events around each single call, a spin kernel to get the clocks up, median
// of --reps (25) timed calls after --warmup (3) untimed ones, input/output
// pairs rotated past 2x the L2.
//
// Slow cases. Some textbook policies are slow by design: chained serializes
// the tiles (512 items per Kogge-Stone tile: 2^28 items are 524288 tiles, one
// after the other), Kogge-Stone tiles are tiny. So each policy's first call
// after verification is timed alone; if it takes more than --slow-ms (20 ms),
// it counts as one of --slow-reps (5) timed calls, the other 4 follow without
// further warm-up (fewer, at least 3, where 5 would take over --slow-max-s =
// 4 s: only if one call took over 0.8 s), and stdout says so (the table's
// 'reps' column too). A full run is estimated at ~15-40 s on an H200 (not yet
// measured), dominated by the chained policies at 2^28, whose tiles run one
// after the other: ~1.6 million tiles per type over the five block
// algorithms at ~0.5-1.5 us each, ~6 calls each; the summary line gives the
// measured time.
//
// Correctness (before a policy is timed): CUB's result is checked against the
// exact host reference at ~1000 sampled indices once per type and size; every
// policy must equal it element for element (floats too: inputs on a 1/16 grid
// make every partial sum exact, see bench_common.cuh), and again on every
// output its timed calls wrote. A mismatch, CUDA error, scankit exception or
// hang exits non-zero.
//
// Output: stdout table, then a 'summary scan_policies_bench:' line and a final
// 'summary scan_policies:' line (per type and size: the best and the worst
// policy by % of copy, and CUB); --csv=path writes the docs/benchmarks.md
// schema with primitive=scan_policies, variant=inclusive,
// policy=<grid>/<block> (e.g. decoupled_lookback/kogge_stone), baseline=cub.
//
//   scan_policies_bench [--types=int32,float] [--logs=20,24,28]
//                       [--policies=chained/kogge_stone,reduce_then_scan/*,*/brent_kung]
//                       [--slow-ms=20] [--slow-reps=5] [--slow-max-s=4] [--reps=25] [--warmup=3] [--max-pairs=16]
//                       [--timeout-s=20] [--seed=N] [--csv=path] [--commit=sha] [--quick] [--list-policies]
#include "bench_common.cuh"

#include <scankit/device/scan.cuh>  // detail: tile sizes of the policies, for the table
#include <scankit/scankit.hpp>

#include <exception>

namespace {

using bench::device_buffer;

const std::string usage =
    "usage: scan_policies_bench [options]\n"
    "  --types=int32,float          element types (default: both)\n"
    "  --logs=20,24,28              log2 sizes (default: 20,24,28; at most 30)\n"
    "  --policies=GRID/BLOCK,...    run only these policies; '*' matches any grid or block\n"
    "                               (e.g. chained/*,*/kogge_stone); see --list-policies\n"
    "  --slow-ms=20                 a policy whose first timed call takes longer is timed\n"
    "  --slow-reps=5                with this many calls (that one included), no warm-up,\n"
    "  --slow-max-s=4               fewer (at least 3) if they would take longer than this\n" +
    bench::run_options_usage(31) +
    "  --quick                      n = 2^20 and 2^24, 10 reps, 2 warm-ups (later options override)\n"
    "  --list-policies              print the policy names and exit\n";

struct options : bench::run_options {
  std::vector<std::string> types{"int32", "float"};
  std::vector<int> logs{20, 24, 28};
  std::vector<std::string> policy_patterns;  // empty: all
  double slow_ms = 20, slow_max_s = 4;
  int slow_reps = 5;
};

std::string policy_name(const scankit::scan_policy& p) {
  return std::string(scankit::to_string(p.grid)) + "/" + scankit::to_string(p.block);
}

/// "grid/block" against a pattern whose grid or block may be '*'.
bool policy_matches(const std::string& name, const std::string& pattern) {
  const std::size_t slash = name.find('/'), pslash = pattern.find('/');
  if (pslash == std::string::npos) return name == pattern;
  const std::string g = pattern.substr(0, pslash), b = pattern.substr(pslash + 1);
  return (g == "*" || g == name.substr(0, slash)) && (b == "*" || b == name.substr(slash + 1));
}

std::vector<scankit::scan_policy> selected_policies(const options& o) {
  std::vector<scankit::scan_policy> chosen;
  for (const auto& p : scankit::all_scan_policies()) {
    const std::string name = policy_name(p);
    bool keep = o.policy_patterns.empty();
    for (const auto& pattern : o.policy_patterns) keep = keep || policy_matches(name, pattern);
    if (keep) chosen.push_back(p);
  }
  return chosen;
}

options parse_options(int argc, char** argv) {
  options o;
  if (bench::has_flag(argc, argv, "--quick")) o.logs = {20, 24}, o.reps = 10, o.warmup = 2;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    std::string v;
    if (arg == "--quick") continue;
    bench::handle_help(arg, usage);
    if (arg == "--list-policies") {
      for (const auto& p : scankit::all_scan_policies()) std::printf("%s\n", policy_name(p).c_str());
      std::exit(0);
    }
    if (bench::option_value(arg, "types", v)) {
      o.types = bench::parse_choices(v, "types", {"int32", "float"}, usage);
    } else if (bench::option_value(arg, "logs", v)) {
      o.logs = bench::parse_logs(v, "logs", 30);  // CUB is called with int num_items
    } else if (bench::option_value(arg, "policies", v)) {
      o.policy_patterns = bench::split_list(v);
      if (o.policy_patterns.empty()) bench::die(2, "empty --policies (see --list-policies)");
      for (const auto& pattern : o.policy_patterns) {
        bool any = false;
        for (const auto& p : scankit::all_scan_policies()) any = any || policy_matches(policy_name(p), pattern);
        if (!any) bench::die(2, "--policies: '" + pattern + "' matches no policy (see --list-policies)");
      }
    } else if (bench::option_value(arg, "slow-ms", v)) {
      o.slow_ms = bench::parse_double(v, "slow-ms", 0, 1e6);
    } else if (bench::option_value(arg, "slow-max-s", v)) {
      o.slow_max_s = bench::parse_double(v, "slow-max-s", 0, 1e6);
    } else if (bench::option_value(arg, "slow-reps", v)) {
      o.slow_reps = int(bench::parse_int(v, "slow-reps", 1, 100000));
    } else if (!bench::parse_run_option(arg, o)) {
      bench::die(2, "unknown option '" + arg + "'\n" + usage);
    }
  }
  bench::note_reps(o.reps);
  return o;
}

const cudaStream_t stream = 0;  // the legacy default stream (as scan_bench)

/// Items per tile of a policy for T (the library's defaults; the tuned
/// default policy's tile is fixed at compile time).
template <class T>
std::size_t policy_tile_items(const scankit::scan_policy& p) {
  if (scankit::detail::is_tuned_policy(p))
    return scankit::detail::tile_items<T, scankit::detail::default_scan_tuning<T>>;
  return scankit::detail::resolve_textbook_shape(p, sizeof(T)).tile_items;
}

/// One policy's median at one type and size.
struct policy_result {
  std::string type, policy;
  int lg;
  double ms, copy_ms, cub_ms;
  bool slow;  // one call took over --slow-ms: timed with fewer calls
};

/// Everything one size of one type shares between the policies.
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
  std::vector<policy_result>& results;
};

const char* table_format = "%-6s 2^%-3d %-46s %8s %12.2f %7.1f%% %7.3fx %6.1f%% %4d\n";

template <class T>
void run_policy(const size_case<T>& c, const scankit::scan_policy& policy) {
  const std::string name = policy_name(policy);
  const bool is_default = scankit::detail::is_tuned_policy(policy);
  const std::string what = std::string("scan_policies ") + c.type_name + " " + name + " n=2^" + std::to_string(c.lg);
  auto call = [&](const T* d_in, T* d_out) { scankit::inclusive_scan(c.ctx, d_in, d_out, c.n, policy); };
  const char* const timed_name = "policy (after its timed calls)";
  std::vector<double> ms;
  bool slow = false;
  try {
    // Correct first: must equal CUB's verified result. This first call also
    // grows the context's workspace, so none of the timed calls allocates.
    bench::verify_call<T>(c.buf, call, "policy", c.d_ref, "CUB", c.dev.sms, stream, c.o.timeout_s, what);

    // One call timed alone decides how many follow.
    ms = bench::time_and_recheck<T>(c.timer, c.buf, 0, 1, call, timed_name, c.d_ref, "CUB", c.dev.sms, stream,
                                    c.o.timeout_s, what + " (first timed call)");
    if (ms[0] > c.o.slow_ms) {
      slow = true;
      const int affordable = std::max(3, int(c.o.slow_max_s * 1e3 / ms[0]));
      const int reps = std::min({c.o.slow_reps, c.o.reps, affordable});
      std::printf("# slow: %s %s 2^%d: one call took %.1f ms (> %.0f ms): timed with %d call(s) in all, no warm-up\n",
                  c.type_name, name.c_str(), c.lg, ms[0], c.o.slow_ms, reps);
      if (reps > 1) {
        const double timeout_s = c.o.timeout_s + 3.0 * (reps - 1) * ms[0] * 1e-3;  // scaled to the slow call
        const std::vector<double> more = bench::time_and_recheck<T>(
            c.timer, c.buf, 0, reps - 1, call, timed_name, c.d_ref, "CUB", c.dev.sms, stream, timeout_s, what);
        ms.insert(ms.end(), more.begin(), more.end());
      }
    } else {
      ms = bench::time_and_recheck<T>(c.timer, c.buf, c.o.warmup, 0, call, timed_name, c.d_ref, "CUB", c.dev.sms,
                                      stream, c.o.timeout_s, what);
    }
  } catch (const std::exception& e) {
    bench::die(1, what + ": exception: " + e.what());
  }

  const double med = bench::median(ms);
  const std::string tile = std::to_string(policy_tile_items<T>(policy));
  std::printf(table_format, c.type_name, c.lg, (name + (is_default ? " *" : "")).c_str(), tile.c_str(), med * 1e3,
              c.copy_ms / med * 100, c.cub_ms / med, bench::spread_pct(ms), int(ms.size()));
  std::fflush(stdout);
  c.csv.row("scan_policies", "inclusive", name, c.type_name, c.n, med, "cub", c.cub_ms, c.copy_ms);
  c.results.push_back({c.type_name, name, c.lg, med, c.copy_ms, c.cub_ms, slow});
}

template <class T>
void run_type(const char* type_name, const std::vector<scankit::scan_policy>& policies, const options& o,
              const bench::device_info& dev, scankit::context& ctx, bench::csv_writer& csv,
              std::vector<policy_result>& results, std::map<std::size_t, bench::sampled_reference>& references) {
  for (int lg : o.logs) {
    const std::size_t n = std::size_t(1) << lg;
    const std::size_t bytes = n * sizeof(T);
    const int pairs = bench::rotation_pairs(bytes, dev.l2_bytes, o.max_pairs);
    const std::string where = std::string(type_name) + " n=2^" + std::to_string(lg);
    std::fprintf(stderr, "[scan_policies_bench] %s: %d buffer pair(s) of %.1f MiB\n", where.c_str(), pairs,
                 bytes / 1048576.0);
    bench::require_free_memory((2 * std::size_t(pairs) + 1) * bytes, where);
    const bench::rotated_buffers<T> buf(n, pairs, o.seed + lg, dev.sms, stream);
    device_buffer ref_out(bytes);
    auto found = references.find(n);
    if (found == references.end()) found = references.emplace(n, bench::make_reference(n, o.seed + lg)).first;
    bench::event_timer timer(stream, o.reps);

    // CUB: its result checked against the exact host reference, then the
    // result every policy must equal.
    const bench::cub_inclusive_sum<T> cub_call(n, stream);
    cub_call.verified_result(buf.in(0), ref_out.as<T>(), found->second, o.timeout_s, where + " CUB");

    bench::warm_gpu(20, dev.sms, stream, o.timeout_s);  // clocks up after the host work above
    const double copy_ms = bench::time_copy<T>(timer, buf, o.warmup, stream, o.timeout_s, where + " cudaMemcpy D2D");
    const double cub_ms = bench::median(
        timer.run(o.warmup, [&](int k) { cub_call(buf.in(k), buf.out(k)); }, o.timeout_s, where + " CUB"));
    std::printf("%-6s 2^%-3d %-46s %8s %12.2f %7.1f%% %8s %7s %4d   (copy %.2f us, %d pair(s))\n", type_name, lg,
                "cub", "", cub_ms * 1e3, copy_ms / cub_ms * 100, "", "", o.reps, copy_ms * 1e3, pairs);

    const size_case<T> c{o, dev, ctx, csv, type_name, n, lg, buf, ref_out.as<T>(), cub_ms, copy_ms, timer, results};
    for (const auto& p : policies) run_policy<T>(c, p);
  }
}

/// The final line: per type and size, the best and the worst policy by % of
/// copy, and CUB.
void print_summary(const std::vector<policy_result>& results) {
  std::vector<std::pair<std::string, int>> cases;  // (type, lg) in run order
  for (const auto& r : results)
    if (std::find(cases.begin(), cases.end(), std::make_pair(r.type, r.lg)) == cases.end())
      cases.emplace_back(r.type, r.lg);
  std::string line = "summary scan_policies:";
  char buf[400];
  for (const auto& [type, lg] : cases) {
    const policy_result *best = nullptr, *worst = nullptr;
    for (const auto& r : results)
      if (r.type == type && r.lg == lg) {
        if (!best || r.ms < best->ms) best = &r;
        if (!worst || r.ms > worst->ms) worst = &r;
      }
    std::snprintf(buf, sizeof buf, " %s 2^%d best %s %.1f%%, worst %s %.2f%% (CUB %.1f%%);", type.c_str(), lg,
                  best->policy.c_str(), best->copy_ms / best->ms * 100, worst->policy.c_str(),
                  worst->copy_ms / worst->ms * 100, best->copy_ms / best->cub_ms * 100);
    line += buf;
  }
  if (cases.empty()) line += " no cases run";
  std::printf("%s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const options o = parse_options(argc, argv);
  const std::vector<scankit::scan_policy> policies = selected_policies(o);
  try {
    const bench::run_identity run = bench::begin_run(
        "scan_policies_bench", o.commit,
        bench::format("%zu policies, reps %d (median; at most %d for calls over %.0f ms), warm-up %d, seed %llu",
                      policies.size(), o.reps, std::min(o.slow_reps, o.reps), o.slow_ms, o.warmup,
                      (unsigned long long)o.seed));
    const bench::device_info& dev = run.dev;
    bench::csv_writer csv;
    run.open(csv, o.csv);
    scankit::context ctx{stream};
    std::vector<policy_result> results;
    std::map<std::size_t, bench::sampled_reference> references;

    bench::warm_gpu(300, dev.sms, stream, o.timeout_s);
    std::printf("%-6s %-5s %-46s %8s %12s %8s %8s %7s %4s\n", "type", "n", "policy (* = default)", "tile", "us",
                "%copy", "vs_cub", "iqr%", "reps");
    for (const std::string& t : o.types) {
      if (t == "int32") run_type<std::int32_t>("int32", policies, o, dev, ctx, csv, results, references);
      if (t == "float") run_type<float>("float", policies, o, dev, ctx, csv, results, references);
    }
    bench::sync_stream(stream, "the end of the run", o.timeout_s);
    if (!csv.path().empty()) std::printf("# wrote %s\n", csv.path().c_str());
    int slow = 0;
    for (const auto& r : results) slow += r.slow;
    std::printf("summary scan_policies_bench: %zu policy x type x size cases verified (each equal to CUB exactly, "
                "CUB equal to the exact host reference at sampled indices); %d slow case(s) timed with at most %d calls; "
                "%.1f s\n",
                results.size(), slow, std::min(o.slow_reps, o.reps),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    print_summary(results);
  } catch (const std::exception& e) {
    bench::die(1, std::string("exception: ") + e.what());
  }
  std::fflush(nullptr);
  return 0;
}
