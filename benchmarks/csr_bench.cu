// benchmarks/csr_bench.cu — the COO → CSR sample app (apps/csr) against
// cuSPARSE and a CUB pipeline, in the same run on the same inputs.
//
//   row_pointers  csr::row_pointers (int32) of sorted row indices
//                 vs cusparseXcoo2csr; nnz = 2^26 random rows (sorted before
//                 timing) below m = 2^16, 2^20, 2^22, 2^24 (at 2^24 about
//                 2 % of the rows are empty)
//   coo_to_csr    csr::coo_to_csr (float values, int32 pointers) of unsorted
//                 entries, 10 % of them repeating an earlier entry's position,
//                 m = n = 2^22 (44-bit keys), nnz = 2^22, 2^24, 2^26
//                 vs the same steps written with CUB and cuSPARSE: the same
//                 packing kernel, cub::DeviceRadixSort::SortPairs over the
//                 same bits, cub::DeviceReduce::ReduceByKey, the number of
//                 entries read back, an unpacking kernel, cusparseXcoo2csr.
// Both conversions return with the CSR complete (each reads its count back);
// CUB's and cuSPARSE's temp storage is allocated once outside the timed
// region, as the app's context and scratch grow at the first call.
//
// Verification before timing and after it: scankit's row pointers equal
// cuSPARSE's; the conversions' counts, pointers, columns and values are
// equal (values are small integers: every sum is exact in any order).
// Timing (bench_common.cuh): CUDA events around each call, median of --reps.
// copy_ms: cudaMemcpy D2D of the nnz row indices (row_pointers) or of the
// nnz (row, column, value) entries (coo_to_csr); pct_of_copy = copy_ms ÷
// scankit_ms × 100. The CSV (docs/benchmarks.md schema): primitive
// csr_row_pointers / coo_to_csr, variant m=2^k / nnz=2^k, policy scankit,
// baseline cusparse / cub_cusparse.
//
//   csr_bench [--cases=row_pointers,coo_to_csr] [--reps=25] [--warmup=3] [--timeout-s=20] [--seed=N]
//             [--csv=path] [--commit=sha] [--quick]
#include "bench_common.cuh"

#include <csr/coo_to_csr.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <cusparse.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr cudaStream_t stream = nullptr;  // the legacy default stream (bench_common.cuh)

struct options : bench::run_options {
  std::vector<std::string> cases = {"row_pointers", "coo_to_csr"};
  bool quick = false;
};

const std::string usage =
    "usage: csr_bench [options]\n"
    "  --cases=row_pointers,coo_to_csr          which conversions\n"
    "  --quick                                  one size each, 10 reps, 2 warm-ups\n" +
    bench::run_options_usage(43);

options parse_options(int argc, char** argv) {
  options o;
  if (bench::has_flag(argc, argv, "--quick")) o.quick = true, o.reps = 10, o.warmup = 2;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    bench::handle_help(arg, usage);
    std::string v;
    if (arg == "--quick") continue;
    if (bench::option_value(arg, "cases", v))
      o.cases = bench::parse_choices(v, "cases", {"row_pointers", "coo_to_csr"}, usage);
    else if (!bench::parse_run_option(arg, o))
      bench::die(2, "unknown option " + arg + "\n" + usage);
  }
  bench::note_reps(o.reps);
  return o;
}

void check_cusparse(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    bench::die(1, std::string(call) + " failed: " + cusparseGetErrorString(status));
}

__device__ std::uint64_t mix(std::uint64_t x) {  // SplitMix64's finalizer
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Random row indices below m (sorted afterwards by the caller): with
/// nnz / m entries per row on average, rows repeat and, where that is
/// small, some stay empty (m = 2^24: e^-4, about 2 % of the rows).
__global__ void fill_random_rows(std::int32_t* d_rows, std::size_t nnz, std::int32_t m, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nnz; i += stride)
    d_rows[i] = std::int32_t(mix(seed ^ (i * 0x9e3779b97f4a7c15ull)) % std::uint64_t(m));
}

/// Entry i: the position of entry k(i), where k(i) = i, or (10 %) an
/// earlier entry; a position is two hashes of k; the value 1 .. 9.
__global__ void fill_coo(std::int32_t* d_r, std::int32_t* d_c, float* d_v, std::size_t nnz, std::int32_t m,
                         std::int32_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nnz; i += stride) {
    const std::uint64_t h = mix(seed ^ (i * 0x9e3779b97f4a7c15ull));
    const std::size_t k = (h % 10 == 0 && i > 0) ? (h >> 8) % i : i;
    d_r[i] = std::int32_t(mix(seed + 2 * k) % std::uint64_t(m));
    d_c[i] = std::int32_t(mix(seed + 2 * k + 1) % std::uint64_t(n));
    d_v[i] = float(1 + (h >> 40) % 9);
  }
}

/// The CUB pipeline's unpacking: rows and columns from the unique keys.
__global__ void unpack_rows_columns(const std::uint64_t* d_keys, const unsigned long long* d_count, int column_bits,
                                    std::int32_t* d_rows, std::int32_t* d_cols) {
  const std::size_t count = *d_count, stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    d_rows[i] = std::int32_t(d_keys[i] >> column_bits);
    d_cols[i] = std::int32_t(d_keys[i] & ((std::uint64_t(1) << column_bits) - 1));
  }
}

struct case_result {
  std::string name;
  double scankit_ms, baseline_ms;
};

template <class T>
T* as(bench::device_buffer& b) {
  return static_cast<T*>(b.get());
}

case_result run_row_pointers(std::size_t nnz, std::int32_t m, const options& o, const bench::device_info& dev,
                             scankit::context& ctx, cusparseHandle_t handle, bench::event_timer& timer,
                             bench::csv_writer& csv) {
  const std::string what = "row_pointers m=2^" + std::to_string(bench::log2_exact(m));
  bench::device_buffer rows(nnz * 4), ours(std::size_t(m + 1) * 4), theirs(std::size_t(m + 1) * 4), copy(nnz * 4);
  fill_random_rows<<<bench::grid_for(nnz, dev.sms), 256, 0, stream>>>(as<std::int32_t>(copy), nnz, m, o.seed);
  BENCH_CHECK_LAUNCH("fill_random_rows");
  std::size_t sort_bytes = 0;
  BENCH_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, as<std::int32_t>(copy), as<std::int32_t>(rows),
                                            int(nnz), 0, 32, stream));
  {
    bench::device_buffer sort_temp(sort_bytes);
    BENCH_CUDA(cub::DeviceRadixSort::SortKeys(sort_temp.get(), sort_bytes, as<std::int32_t>(copy),
                                              as<std::int32_t>(rows), int(nnz), 0, 32, stream));
    bench::sync_stream(stream, what + " input", o.timeout_s);
  }
  auto scankit_call = [&](int) { csr::row_pointers(ctx, as<std::int32_t>(rows), nnz, m, as<std::int32_t>(ours)); };
  auto cusparse_call = [&](int) {
    check_cusparse(cusparseXcoo2csr(handle, as<std::int32_t>(rows), int(nnz), m, as<std::int32_t>(theirs),
                                    CUSPARSE_INDEX_BASE_ZERO),
                   "cusparseXcoo2csr");
  };
  auto copy_call = [&](int) {
    BENCH_CUDA(cudaMemcpyAsync(copy.get(), rows.get(), nnz * 4, cudaMemcpyDeviceToDevice, stream));
  };
  auto verify = [&](const char* when) {
    cusparse_call(0);
    bench::check_equal(as<std::int32_t>(ours), "scankit", as<std::int32_t>(theirs), "cuSPARSE", std::size_t(m) + 1,
                       dev.sms, stream, o.timeout_s, what + " (" + when + ")");
  };
  scankit_call(0);
  verify("before timing");
  bench::poison(ours.get(), std::size_t(m + 1) * 4, stream);
  const double scankit_ms = bench::median(timer.run(o.warmup, scankit_call, o.timeout_s, what + " scankit"));
  verify("after timing");
  const double cusparse_ms = bench::median(timer.run(o.warmup, cusparse_call, o.timeout_s, what + " cuSPARSE"));
  const double copy_ms = bench::median(timer.run(o.warmup, copy_call, o.timeout_s, what + " copy"));
  const std::string variant = "m=2^" + std::to_string(bench::log2_exact(m));
  csv.row("csr_row_pointers", variant, "scankit", "int32", nnz, scankit_ms, "cusparse", cusparse_ms, copy_ms);
  std::printf("%-13s %-10s 2^%-3d %10.1f %12.1f %8.1f %8.3f\n", "row_pointers", variant.c_str(), bench::log2_exact(nnz),
              scankit_ms * 1e3, cusparse_ms * 1e3, copy_ms / scankit_ms * 100, cusparse_ms / scankit_ms);
  return {what, scankit_ms, cusparse_ms};
}

case_result run_coo_to_csr(std::size_t nnz, const options& o, const bench::device_info& dev, scankit::context& ctx,
                           csr::scratch& buffers, cusparseHandle_t handle, bench::event_timer& timer,
                           bench::csv_writer& csv) {
  const std::int32_t m = 1 << 22, n = 1 << 22;
  const int column_bits = 22, key_bits = 44;
  const std::string variant = "nnz=2^" + std::to_string(bench::log2_exact(nnz)), what = "coo_to_csr " + variant;
  const std::size_t pointer_bytes = std::size_t(m + 1) * 4;
  bench::require_free_memory(nnz * 128, what);  // this case's buffers, the app's scratch, the sorts' copies
  bench::device_buffer r(nnz * 4), c(nnz * 4), v(nnz * 4), pointers(pointer_bytes), columns(nnz * 4), values(nnz * 4),
      copy(nnz * 12);
  // The CUB pipeline's buffers.
  bench::device_buffer keys(nnz * 8), sorted_keys(nnz * 8), sorted_values(nnz * 4), unique_keys(nnz * 8),
      cub_rows(nnz * 4), cub_pointers(pointer_bytes), cub_columns(nnz * 4), cub_values(nnz * 4), first_bad(8),
      cub_count(8);
  fill_coo<<<bench::grid_for(nnz, dev.sms), 256, 0, stream>>>(as<std::int32_t>(r), as<std::int32_t>(c), as<float>(v),
                                                              nnz, m, n, o.seed);
  BENCH_CHECK_LAUNCH("fill_coo");

  std::size_t count = 0, cub_entries = 0;
  const csr::csr_arrays<float, std::int32_t> out{as<std::int32_t>(pointers), as<std::int32_t>(columns),
                                                 as<float>(values)};
  auto scankit_call = [&](int) {
    count = csr::coo_to_csr(ctx, buffers, m, n, as<std::int32_t>(r), as<std::int32_t>(c), as<float>(v), nnz, out);
  };
  std::size_t sort_bytes = 0, reduce_bytes = 0;
  auto cub_sort = [&](void* temp) {
    BENCH_CUDA(cub::DeviceRadixSort::SortPairs(temp, sort_bytes, as<std::uint64_t>(keys),
                                               as<std::uint64_t>(sorted_keys), as<float>(v), as<float>(sorted_values),
                                               int(nnz), 0, key_bits, stream));
  };
  auto cub_reduce = [&](void* temp) {
    BENCH_CUDA(cub::DeviceReduce::ReduceByKey(
        temp, reduce_bytes, as<std::uint64_t>(sorted_keys), as<std::uint64_t>(unique_keys), as<float>(sorted_values),
        as<float>(cub_values), as<unsigned long long>(cub_count), cuda::std::plus<float>{}, int(nnz), stream));
  };
  cub_sort(nullptr);
  cub_reduce(nullptr);
  bench::device_buffer sort_temp(sort_bytes), reduce_temp(reduce_bytes);
  const unsigned grid = bench::grid_for(nnz, dev.sms);
  auto cub_call = [&](int) {
    BENCH_CUDA(cudaMemsetAsync(first_bad.get(), 0xff, 8, stream));
    csr::detail::pack_keys<<<grid, 256, 0, stream>>>(as<std::int32_t>(r), as<std::int32_t>(c), nnz, m, n, column_bits,
                                                     as<std::uint64_t>(keys), as<unsigned long long>(first_bad));
    cub_sort(sort_temp.get());
    cub_reduce(reduce_temp.get());
    unpack_rows_columns<<<grid, 256, 0, stream>>>(as<std::uint64_t>(unique_keys), as<unsigned long long>(cub_count),
                                                  column_bits, as<std::int32_t>(cub_rows),
                                                  as<std::int32_t>(cub_columns));
    unsigned long long entries = 0;
    BENCH_CUDA(cudaMemcpyAsync(&entries, cub_count.get(), 8, cudaMemcpyDeviceToHost, stream));
    BENCH_CUDA(cudaStreamSynchronize(stream));
    cub_entries = entries;
    check_cusparse(cusparseXcoo2csr(handle, as<std::int32_t>(cub_rows), int(entries), m, as<std::int32_t>(cub_pointers),
                                    CUSPARSE_INDEX_BASE_ZERO),
                   "cusparseXcoo2csr");
    BENCH_CUDA(cudaStreamSynchronize(stream));
  };
  auto copy_call = [&](int) {
    BENCH_CUDA(cudaMemcpyAsync(copy.get(), r.get(), nnz * 4, cudaMemcpyDeviceToDevice, stream));
    BENCH_CUDA(cudaMemcpyAsync(as<char>(copy) + nnz * 4, c.get(), nnz * 4, cudaMemcpyDeviceToDevice, stream));
    BENCH_CUDA(cudaMemcpyAsync(as<char>(copy) + nnz * 8, v.get(), nnz * 4, cudaMemcpyDeviceToDevice, stream));
  };
  auto verify = [&](const char* when) {
    cub_call(0);
    const std::string at = what + " (" + when + ")";
    if (count != cub_entries)
      bench::die(1, at + ": scankit gives " + std::to_string(count) + " entries, CUB " + std::to_string(cub_entries));
    bench::check_equal(as<std::int32_t>(pointers), "scankit", as<std::int32_t>(cub_pointers), "CUB + cuSPARSE",
                       std::size_t(m) + 1, dev.sms, stream, o.timeout_s, at + " row pointers");
    bench::check_equal(as<std::int32_t>(columns), "scankit", as<std::int32_t>(cub_columns), "CUB", count, dev.sms,
                       stream, o.timeout_s, at + " columns");
    bench::check_equal(as<float>(values), "scankit", as<float>(cub_values), "CUB", count, dev.sms, stream, o.timeout_s,
                       at + " values");
  };
  scankit_call(0);
  verify("before timing");
  bench::poison(pointers.get(), pointer_bytes, stream);
  bench::poison(columns.get(), nnz * 4, stream);
  bench::poison(values.get(), nnz * 4, stream);
  const double scankit_ms = bench::median(timer.run(o.warmup, scankit_call, o.timeout_s, what + " scankit"));
  verify("after timing");
  const double cub_ms = bench::median(timer.run(o.warmup, cub_call, o.timeout_s, what + " CUB + cuSPARSE"));
  const double copy_ms = bench::median(timer.run(o.warmup, copy_call, o.timeout_s, what + " copy"));
  csv.row("coo_to_csr", variant, "scankit", "int32/float", nnz, scankit_ms, "cub_cusparse", cub_ms, copy_ms);
  std::printf("%-13s %-10s 2^%-3d %10.1f %12.1f %8.1f %8.3f   (%zu CSR entries)\n", "coo_to_csr", "m=n=2^22",
              bench::log2_exact(nnz), scankit_ms * 1e3, cub_ms * 1e3, copy_ms / scankit_ms * 100, cub_ms / scankit_ms,
              count);
  return {what, scankit_ms, cub_ms};
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const options o = parse_options(argc, argv);
  try {
    const bench::run_identity run = bench::begin_run("csr_bench", o);
    const bench::device_info& dev = run.dev;
    bench::csv_writer csv;
    run.open(csv, o.csv);
    scankit::context ctx{stream};
    csr::scratch buffers;
    cusparseHandle_t handle = nullptr;
    check_cusparse(cusparseCreate(&handle), "cusparseCreate");
    check_cusparse(cusparseSetStream(handle, stream), "cusparseSetStream");
    bench::event_timer timer(stream, o.reps);
    bench::warm_gpu(300, dev.sms, stream, o.timeout_s);
    std::printf("%-13s %-10s %-5s %10s %12s %8s %8s\n", "case", "variant", "nnz", "scankit_us", "baseline_us", "%copy",
                "speedup");
    std::vector<case_result> results;
    for (const std::string& c : o.cases) {
      if (c == "row_pointers")
        for (int lg : o.quick ? std::vector<int>{22} : std::vector<int>{16, 20, 22, 24})
          results.push_back(run_row_pointers(std::size_t(1) << 26, 1 << lg, o, dev, ctx, handle, timer, csv));
      if (c == "coo_to_csr")
        for (int lg : o.quick ? std::vector<int>{24} : std::vector<int>{22, 24, 26})
          results.push_back(run_coo_to_csr(std::size_t(1) << lg, o, dev, ctx, buffers, handle, timer, csv));
    }
    bench::sync_stream(stream, "the end of the run", o.timeout_s);
    cusparseDestroy(handle);
    if (!csv.path().empty()) std::printf("# wrote %s\n", csv.path().c_str());
    std::printf(
        "summary csr_bench: all %zu cases verified (row pointers == cusparseXcoo2csr; conversions == the CUB "
        "+ cuSPARSE pipeline: counts, pointers, columns, values); %.1f s\n",
        results.size(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    for (const auto& r : results) {
      if (r.name == "row_pointers m=2^22")
        std::printf(
            "headline csr_bench row pointers nnz 2^26, m 2^22: scankit %.3f ms, cusparseXcoo2csr %.3f ms "
            "(%.2fx; target: at most cuSPARSE's time)\n",
            r.scankit_ms, r.baseline_ms, r.baseline_ms / r.scankit_ms);
      if (r.name == "coo_to_csr nnz=2^26")
        std::printf(
            "headline csr_bench COO -> CSR nnz 2^26 (unsorted, repeats): scankit %.2f ms, CUB + cuSPARSE %.2f ms "
            "(target: at most 10 ms)\n",
            r.scankit_ms, r.baseline_ms);
    }
  } catch (const std::exception& e) {
    bench::die(1, std::string("exception: ") + e.what());
  }
  std::fflush(nullptr);
  return 0;
}
