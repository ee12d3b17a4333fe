// benchmarks/csv_bench.cu — the CSV index app (apps/csv) against the same
// state machine written with Thrust, and cudaMemcpy, in the same run on the
// same text.
//
//   csv_index  csv::indexer::run: field and row ends of --mib MiB (default
//              1024) of CSV text (rows of 1-8 fields: plain, empty, long, and
//              quoted ones holding delimiters, newlines and doubled quotes),
//              the counts read back (the call synchronizes)
//   baseline   thrust: each byte's state map (thrust::transform), their
//              inclusive scan by composition (thrust::inclusive_scan, one
//              byte per map), then the positions of field-ending bytes
//              (thrust::copy_if over the indices), the count read back
// Verified before timing and after it: the field ends are equal, the rows
// as many as Thrust's newline-ending fields, and each row end found by
// scankit follows the one before and falls on a row-ending newline. Thrust
// allocates its temporaries per call, and finds no row ends.
// GB/s = text bytes ÷ time; pct_of_copy = cudaMemcpy D2D of the text ÷
// scankit_ms × 100 (a read of the text is the least the index can cost).
// The CSV (docs/benchmarks.md schema): primitive csv_index, variant
// quoted, policy scankit, type char, n = bytes, baseline thrust.
//
//   csv_bench [--mib=1024] [--reps=25] [--warmup=3] [--timeout-s=20] [--seed=N] [--csv=path] [--commit=sha]
//             [--quick]
#include "bench_common.cuh"

#include <csv/csv_index.cuh>

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_ptr.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr cudaStream_t stream = nullptr;  // the legacy default stream (bench_common.cuh)

struct options : bench::run_options {
  long mib = 1024;
};

const std::string usage =
    "usage: csv_bench [options]\n"
    "  --mib=1024                               MiB of CSV text\n"
    "  --quick                                  256 MiB, 10 reps, 2 warm-ups\n" +
    bench::run_options_usage(43);

options parse_options(int argc, char** argv) {
  options o;
  if (bench::has_flag(argc, argv, "--quick")) o.mib = 256, o.reps = 10, o.warmup = 2;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    bench::handle_help(arg, usage);
    std::string v;
    if (arg == "--quick") continue;
    if (bench::option_value(arg, "mib", v))
      o.mib = bench::parse_int(v, "mib", 1, 16384);
    else if (!bench::parse_run_option(arg, o))
      bench::die(2, "unknown option " + arg + "\n" + usage);
  }
  bench::note_reps(o.reps);
  return o;
}

/// `bytes` of CSV text: whole rows drawn from a pool of 4 096 random rows,
/// then newlines (empty rows) up to the size.
std::string make_text(std::size_t bytes, std::uint64_t seed) {
  std::mt19937_64 r(seed);
  const std::string plain = "abcdefghijklmnopqrstuvwxyz0123456789 .-_";
  std::vector<std::string> pool(4096);
  for (auto& row : pool) {
    const int fields = 1 + int(r() % 8);
    for (int k = 0; k < fields; ++k) {
      if (k > 0) row += ',';
      const unsigned kind = r() % 8;
      if (kind == 0) continue;  // empty
      if (kind == 1) {          // quoted
        row += '"';
        for (int n = int(r() % 30); n > 0; --n) {
          const unsigned c = r() % 8;
          if (c == 0) row += ',';
          else if (c == 1) row += '\n';
          else if (c == 2) row += "\"\"";
          else row += plain[r() % plain.size()];
        }
        row += '"';
        continue;
      }
      for (int n = kind == 2 ? 100 + int(r() % 200) : 1 + int(r() % 12); n > 0; --n) row += plain[r() % plain.size()];
    }
    row += '\n';
  }
  std::string text;
  text.reserve(bytes);
  for (;;) {
    const std::string& row = pool[r() % pool.size()];
    if (text.size() + row.size() > bytes) break;
    text += row;
  }
  text.resize(bytes, '\n');
  return text;
}

// ---- the Thrust baseline: one state map per byte ----
struct byte_map {
  __device__ std::uint8_t operator()(char c) const {
    // U, Q, E on a quote: Q, E, Q; on anything else: U, Q, U (2 bits each).
    return c == '"' ? std::uint8_t(1u | (2u << 2) | (1u << 4)) : std::uint8_t(0u | (1u << 2) | (0u << 4));
  }
};
struct compose_maps {  // a, then b
  __device__ std::uint8_t operator()(std::uint8_t a, std::uint8_t b) const {
    unsigned r = 0;
    for (unsigned s = 0; s < 3; ++s) r |= ((b >> (2 * ((a >> (2 * s)) & 3u))) & 3u) << (2 * s);
    return std::uint8_t(r);
  }
};
struct is_true {
  __device__ bool operator()(bool b) const { return b; }
};
struct ends_at_newline {
  const char* text;
  __device__ bool operator()(std::uint64_t end) const { return text[end] == '\n'; }
};
struct ends_field {
  const char* text;
  const std::uint8_t* maps;  // inclusive: the state after byte i is maps[i] applied to U
  __device__ bool operator()(std::size_t i) const {
    const unsigned before = i == 0 ? 0u : maps[i - 1] & 3u;
    return before != 1u && (text[i] == ',' || text[i] == '\n');
  }
};

/// How many scankit row ends do not fall on a row-ending newline (the last
/// may fall on the text's end) or do not follow the row before.
__global__ void count_bad_rows(const char* text, std::size_t bytes, const std::uint64_t* field_ends,
                               const std::uint64_t* row_ends, std::size_t rows, unsigned long long* d_bad) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t r = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += stride) {
    const std::uint64_t end = field_ends[row_ends[r] - 1];
    if (!(end == bytes || text[end] == '\n') || (r > 0 && row_ends[r] <= row_ends[r - 1])) atomicAdd(d_bad, 1ull);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const options o = parse_options(argc, argv);
  try {
    const bench::run_identity run = bench::begin_run("csv_bench", o);
    const bench::device_info& dev = run.dev;
    bench::csv_writer csv;
    run.open(csv, o.csv);
    const std::size_t bytes = std::size_t(o.mib) << 20;
    bench::require_free_memory(bytes * 13, "csv_bench");
    const std::string text = make_text(bytes, o.seed);
    bench::device_buffer d_text(bytes), d_copy(bytes), d_maps(bytes), d_thrust_ends(bytes * 8), d_bad(8);
    BENCH_CUDA(cudaMemcpy(d_text.get(), text.data(), bytes, cudaMemcpyHostToDevice));
    const char* t = static_cast<const char*>(d_text.get());

    scankit::context ctx{stream};
    csv::indexer ix;
    csv::text_index index{};
    auto scankit_call = [&](int) { index = ix.run(ctx, t, bytes); };
    std::size_t thrust_fields = 0;
    auto thrust_call = [&](int) {
      const auto policy = thrust::cuda::par.on(stream);
      auto* maps = static_cast<std::uint8_t*>(d_maps.get());
      thrust::transform(policy, t, t + bytes, maps, byte_map{});
      thrust::inclusive_scan(policy, maps, maps + bytes, maps, compose_maps{});
      const auto ends = thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0), ends_field{t, maps});
      auto* out = static_cast<std::uint64_t*>(d_thrust_ends.get());
      thrust_fields = std::size_t(thrust::copy_if(policy, thrust::counting_iterator<std::size_t>(0),
                                                  thrust::counting_iterator<std::size_t>(bytes), ends, out,
                                                  is_true{}) -
                                  out);
    };
    auto copy_call = [&](int) {
      BENCH_CUDA(cudaMemcpyAsync(d_copy.get(), t, bytes, cudaMemcpyDeviceToDevice, stream));
    };
    auto verify = [&](const char* when) {
      thrust_call(0);
      const std::string at = std::string("csv_index (") + when + ")";
      // The text ends with a newline, so no field or row is left open.
      if (index.fields != thrust_fields)
        bench::die(1, at + ": scankit finds " + std::to_string(index.fields) + " fields, Thrust " +
                          std::to_string(thrust_fields));
      bench::check_equal(index.d_field_ends, "scankit", static_cast<const std::uint64_t*>(d_thrust_ends.get()),
                         "Thrust", index.fields, dev.sms, stream, o.timeout_s, at + " field ends");
      BENCH_CUDA(cudaMemsetAsync(d_bad.get(), 0, 8, stream));
      count_bad_rows<<<bench::grid_for(index.rows, dev.sms), 256, 0, stream>>>(
          t, bytes, index.d_field_ends, index.d_row_ends, index.rows, static_cast<unsigned long long*>(d_bad.get()));
      BENCH_CHECK_LAUNCH("count_bad_rows");
      unsigned long long bad = 0;
      BENCH_CUDA(cudaMemcpy(&bad, d_bad.get(), 8, cudaMemcpyDeviceToHost));
      if (bad != 0) bench::die(1, at + ": " + std::to_string(bad) + " row ends not on a row-ending newline");
      const auto* ends = static_cast<const std::uint64_t*>(d_thrust_ends.get());
      const std::size_t thrust_rows = std::size_t(
          thrust::count_if(thrust::cuda::par.on(stream), ends, ends + thrust_fields, ends_at_newline{t}));
      if (index.rows != thrust_rows)
        bench::die(1, at + ": scankit finds " + std::to_string(index.rows) + " rows, Thrust " +
                          std::to_string(thrust_rows));
    };
    bench::event_timer timer(stream, o.reps);
    bench::warm_gpu(300, dev.sms, stream, o.timeout_s);
    scankit_call(0);
    verify("before timing");
    const double scankit_ms = bench::median(timer.run(o.warmup, scankit_call, o.timeout_s, "csv_index scankit"));
    verify("after timing");
    const double thrust_ms = bench::median(timer.run(o.warmup, thrust_call, o.timeout_s, "csv_index Thrust"));
    const double copy_ms = bench::median(timer.run(o.warmup, copy_call, o.timeout_s, "csv_index copy"));
    csv.row("csv_index", "quoted", "scankit", "char", bytes, scankit_ms, "thrust", thrust_ms, copy_ms);
    bench::sync_stream(stream, "the end of the run", o.timeout_s);
    if (!csv.path().empty()) std::printf("# wrote %s\n", csv.path().c_str());
    std::printf("csv_index %zu MiB: %zu fields, %zu rows; scankit %.3f ms (%.1f GB/s, %.1f %% of copy), Thrust %.3f ms "
                "(%.1f GB/s), copy %.3f ms\n",
                bytes >> 20, index.fields, index.rows, scankit_ms, bytes / scankit_ms / 1e6, copy_ms / scankit_ms * 100,
                thrust_ms, bytes / thrust_ms / 1e6, copy_ms);
    std::printf("summary csv_bench: verified (field ends == Thrust's; every row end on a row-ending newline); %.1f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::printf("headline csv_bench %zu MiB: scankit %.1f GB/s, Thrust %.1f GB/s (%.2fx; target: at least 100 GB/s)\n",
                bytes >> 20, bytes / scankit_ms / 1e6, bytes / thrust_ms / 1e6, thrust_ms / scankit_ms);
  } catch (const std::exception& e) {
    bench::die(1, std::string("exception: ") + e.what());
  }
  std::fflush(nullptr);
  return 0;
}
