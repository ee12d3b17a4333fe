// benchmarks/bench_common.cuh — the harness shared by the benchmark drivers
// (benchmarks/*_bench.cu): the run's header line and CSV identity, the
// options every driver takes, CUDA error checks that exit, reproducible
// inputs with an exact host reference, full-array device comparison, event
// timing (median of single calls), rotation of buffer pairs past the L2,
// verify-time-recheck of a contender against a verified result, CUB's
// InclusiveSum as the reference contender, and the results CSV of
// docs/benchmarks.md.
//
// Inputs. Element i is d_i = a nonzero integer in [-16, 16] drawn by a
// counter-based hash of (seed, i), so the host can regenerate any element
// without copying the input back. Integer types store d_i; float and double
// store d_i / 16, i.e. values in [-1, 1] on a 1/16 grid. Every partial sum a
// scan can form is then an integer multiple of 1/16 far inside the exactly
// representable range (|sum| < 2^20 needs 24 mantissa bits; a random walk of
// 2^30 steps stays ~50 standard deviations below that), so float results are
// exact for ANY association order and every contender can be compared
// bit-for-bit, and against an exact int64 host reference. Integer sums stay
// far below 2^31 (no signed overflow).
//
// Failure policy: any CUDA error, wrong result or hang (an event not complete
// within --timeout-s) prints "FATAL: ..." to stderr and exits non-zero
// (1 = error or wrong result, 2 = bad command line, 3 = timeout), after
// flushing stdout and the CSV so the rows written so far survive.
#pragma once

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
#error "the benchmarks time everything on the legacy default stream (where thrust::device runs); build without --default-stream per-thread"
#endif

namespace bench {

// ---------------------------------------------------------------- failure --

[[noreturn]] inline void die(int code, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "FATAL: %s\n", message.c_str());
  std::fflush(nullptr);  // stdout, stderr and the CSV file
  // _Exit, not exit: a hung kernel must not keep the process alive in the
  // CUDA runtime's teardown; the driver reclaims the context at process exit.
  std::_Exit(code);
}

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  std::ostringstream s;
  s << "CUDA error " << cudaGetErrorName(status) << " (" << int(status) << "): " << cudaGetErrorString(status)
    << "\n  in " << call << "\n  at " << file << ":" << line;
  die(1, s.str());
}

}  // namespace bench

/// Checks a CUDA runtime call; on failure prints the call, file and line and exits 1.
#define BENCH_CUDA(call) ::bench::check_cuda((call), #call, __FILE__, __LINE__)
/// Checks for a launch error right after a kernel launch.
#define BENCH_CHECK_LAUNCH(what) ::bench::check_cuda(cudaGetLastError(), "launch of " what, __FILE__, __LINE__)

namespace bench {

// --------------------------------------------------------------- options --

/// Splits "a,b,c" into its non-empty parts.
inline std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  return parts;
}

/// If `arg` is "--name=value", stores value and returns true.
inline bool option_value(const std::string& arg, const char* name, std::string& value) {
  const std::string prefix = std::string("--") + name + "=";
  if (arg.compare(0, prefix.size(), prefix) != 0) return false;
  value = arg.substr(prefix.size());
  return true;
}

inline long parse_int(const std::string& text, const char* option, long lo, long hi) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < lo || v > hi) {
    std::ostringstream s;
    s << "--" << option << "=" << text << ": expected an integer in [" << lo << ", " << hi << "]";
    die(2, s.str());
  }
  return v;
}

inline double parse_double(const std::string& text, const char* option, double lo, double hi) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= lo && v <= hi)) {
    std::ostringstream s;
    s << "--" << option << "=" << text << ": expected a number in [" << lo << ", " << hi << "]";
    die(2, s.str());
  }
  return v;
}

/// The options every driver takes (docs/benchmarks.md method); each driver's
/// own options struct derives from this one.
struct run_options {
  int reps = 25, warmup = 3, max_pairs = 16;
  double timeout_s = 20;
  std::uint64_t seed = 20240601;
  std::string csv, commit;
};

/// The usage lines of run_options, descriptions starting at column `width`.
inline std::string run_options_usage(int width) {
  static const char* const lines[][2] = {
      {"--reps=25", "timed calls per contender (median)"},
      {"--warmup=3", "untimed calls before them"},
      {"--max-pairs=16", "most input/output pairs rotated through"},
      {"--timeout-s=20", "a GPU wait longer than this is a hang: exit 3"},
      {"--seed=N", "input seed (default 20240601)"},
      {"--csv=path", "write results CSV (docs/benchmarks.md schema)"},
      {"--commit=sha", "commit for the CSV (default $SCANKIT_COMMIT or 'unknown')"},
  };
  std::string text;
  char buf[256];
  for (const auto& line : lines) {
    std::snprintf(buf, sizeof buf, "  %-*s %s\n", width - 3, line[0], line[1]);
    text += buf;
  }
  return text;
}

/// Parses one of run_options' options into `o`; false if `arg` is none of them.
inline bool parse_run_option(const std::string& arg, run_options& o) {
  std::string v;
  if (option_value(arg, "reps", v))
    o.reps = int(parse_int(v, "reps", 1, 100000));
  else if (option_value(arg, "warmup", v))
    o.warmup = int(parse_int(v, "warmup", 0, 100000));
  else if (option_value(arg, "max-pairs", v))
    o.max_pairs = int(parse_int(v, "max-pairs", 1, 4096));
  else if (option_value(arg, "timeout-s", v))
    o.timeout_s = parse_double(v, "timeout-s", 0.1, 86400);
  else if (option_value(arg, "seed", v))
    o.seed = std::uint64_t(parse_int(v, "seed", 0, LONG_MAX));
  else if (option_value(arg, "csv", v))
    o.csv = v;
  else if (option_value(arg, "commit", v))
    o.commit = v;
  else
    return false;
  return true;
}

/// --help / -h: prints `usage` and exits 0.
inline void handle_help(const std::string& arg, const std::string& usage) {
  if (arg != "--help" && arg != "-h") return;
  std::printf("%s", usage.c_str());
  std::exit(0);
}

/// True if argv holds `flag` exactly (for presets such as --quick that later
/// options override).
inline bool has_flag(int argc, char** argv, const char* flag) {
  for (int a = 1; a < argc; ++a)
    if (std::string(argv[a]) == flag) return true;
  return false;
}

/// The values of a list option (--types=a,b), each one of `allowed`; exits 2
/// on an unknown or empty list.
inline std::vector<std::string> parse_choices(const std::string& value, const char* option,
                                              const std::vector<std::string>& allowed, const std::string& usage) {
  const std::vector<std::string> chosen = split_list(value);
  std::string known;
  for (const auto& a : allowed) known += (known.empty() ? "" : ", ") + a;
  if (chosen.empty()) die(2, std::string("empty --") + option + " (one of: " + known + ")\n" + usage);
  for (const auto& c : chosen)
    if (std::find(allowed.begin(), allowed.end(), c) == allowed.end())
      die(2, std::string("--") + option + ": unknown value '" + c + "' (one of: " + known + ")\n" + usage);
  return chosen;
}

/// --logs=16,20,24: log2 sizes in [0, max_log]; exits 2 on a bad or empty list.
inline std::vector<int> parse_logs(const std::string& value, const char* option, int max_log) {
  std::vector<int> logs;
  for (const auto& s : split_list(value)) logs.push_back(int(parse_int(s, option, 0, max_log)));
  if (logs.empty()) die(2, std::string("empty --") + option);
  return logs;
}

/// The docs/benchmarks.md note for fewer than 20 timed calls.
inline void note_reps(int reps) {
  if (reps < 20) std::printf("# note: --reps=%d is below the >= 20 timed runs docs/benchmarks.md asks for\n", reps);
}

/// Removes characters that would break a CSV field.
inline std::string csv_safe(std::string s) {
  for (char& c : s)
    if (c == ',' || c == '\n' || c == '\r' || c == '"') c = ' ';
  return s.empty() ? std::string("unknown") : s;
}

inline std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

/// The commit recorded in the CSV: --commit= wins, then $SCANKIT_COMMIT, else "unknown".
inline std::string commit_id(const std::string& from_option) {
  if (!from_option.empty()) return csv_safe(from_option);
  const char* env = std::getenv("SCANKIT_COMMIT");
  return csv_safe(env ? env : "unknown");
}

// ---------------------------------------------------------------- device --

struct device_info {
  int id = 0;
  std::string name;
  std::size_t l2_bytes = 0;
  int sms = 0;
  std::size_t total_mem = 0;
};

inline device_info query_device() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0)
    die(1, std::string("no usable CUDA device (cudaGetDeviceCount: ") +
               (status == cudaSuccess ? "0 devices" : cudaGetErrorString(status)) + ")");
  device_info d;
  BENCH_CUDA(cudaGetDevice(&d.id));
  cudaDeviceProp prop{};
  BENCH_CUDA(cudaGetDeviceProperties(&prop, d.id));
  d.name = csv_safe(prop.name);
  d.l2_bytes = std::size_t(prop.l2CacheSize);
  d.sms = prop.multiProcessorCount;
  d.total_mem = prop.totalGlobalMem;
  int driver = 0, runtime = 0;
  BENCH_CUDA(cudaDriverGetVersion(&driver));
  BENCH_CUDA(cudaRuntimeGetVersion(&runtime));
  std::printf("# device %d: %s, sm_%d%d, %d SMs, L2 %.1f MiB, %.1f GiB, driver %d, runtime %d\n", d.id,
              d.name.c_str(), prop.major, prop.minor, d.sms, d.l2_bytes / 1048576.0, d.total_mem / 1073741824.0,
              driver, runtime);
  return d;
}

/// Exits with a clear message unless `bytes` more device memory is free.
inline void require_free_memory(std::size_t bytes, const std::string& what) {
  std::size_t free_b = 0, total_b = 0;
  BENCH_CUDA(cudaMemGetInfo(&free_b, &total_b));
  if (bytes + (std::size_t(256) << 20) > free_b) {
    std::ostringstream s;
    s << what << " needs " << bytes / 1048576.0 << " MiB of device memory, only " << free_b / 1048576.0
      << " MiB free (run smaller sizes)";
    die(1, s.str());
  }
}

/// An owning device allocation (freed when it goes out of scope).
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes) BENCH_CUDA(cudaMalloc(&ptr_, bytes));
  }
  ~device_buffer() {
    if (ptr_) BENCH_CUDA(cudaFree(ptr_));
  }
  device_buffer(device_buffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr, o.bytes_ = 0; }
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Waits for `event` by polling, so a hung kernel ends the run (exit 3) after
/// `timeout_s` instead of blocking it forever.
inline void wait_event(cudaEvent_t event, const std::string& what, double timeout_s) {
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    const cudaError_t status = cudaEventQuery(event);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) check_cuda(status, ("cudaEventQuery while waiting for " + what).c_str(), __FILE__, __LINE__);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (waited > timeout_s) {
      std::ostringstream s;
      s << "timeout: GPU work did not finish within " << timeout_s << " s while waiting for " << what
        << " (hang or deadlock?)";
      die(3, s.str());
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

/// Records an event on `stream` and waits for it (with the timeout).
inline void sync_stream(cudaStream_t stream, const std::string& what, double timeout_s) {
  cudaEvent_t e;
  BENCH_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  BENCH_CUDA(cudaEventRecord(e, stream));
  wait_event(e, what, timeout_s);
  BENCH_CUDA(cudaEventDestroy(e));
}

/// Busy-waits on every SM for about `ns` nanoseconds (by %globaltimer; also
/// bounded by 2 clock cycles per ns, in case the timer does not advance).
__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns && (unsigned long long)(clock64() - c0) < 2 * ns);
}

/// Holds the stream until the host sets *release (mapped host memory) or
/// about `timeout_ns` pass; then sets *timed_out if it was the timeout.
__global__ void hold_kernel(const volatile int* release, int* timed_out, unsigned long long timeout_ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    if (*release) return;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < timeout_ns);
  *timed_out = 1;
}

/// Keeps the SMs busy for about `ms` so their clocks are up before timing
/// (an idle H200 was seen at 345 MHz; small cases would otherwise be timed
/// while the clocks ramp). Not part of any timed region.
inline void warm_gpu(double ms, int sms, cudaStream_t stream, double timeout_s) {
  spin_kernel<<<unsigned(sms) * 4, 128, 0, stream>>>((unsigned long long)(ms * 1e6));
  BENCH_CHECK_LAUNCH("spin_kernel");
  sync_stream(stream, "GPU clock warm-up (spin_kernel)", timeout_s + 6 * ms * 1e-3);
}

// ---------------------------------------------------------------- inputs --

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Input digit of element i: a nonzero integer in [-16, 16].
__host__ __device__ inline int input_digit(std::uint64_t seed, std::uint64_t i) {
  const int r = int(splitmix64(seed * 0x2545F4914F6CDD1Dull + i) >> 59);  // 0 .. 31
  return r < 16 ? r - 16 : r - 15;
}

/// The element value of a digit sum s: s itself for integers, s / 16 for
/// floating point (exact: see the header comment).
template <class T>
__host__ __device__ inline T value_of(std::int64_t s) {
  if constexpr (std::is_floating_point_v<T>)
    return T(double(s) * 0.0625);
  else
    return T(s);
}

/// Initial value of exclusive scans, as a digit (12 -> 12 or 0.75). Nonzero, so
/// an ignored init fails the check.
constexpr std::int64_t exclusive_init_digit = 12;

template <class T>
__global__ void fill_kernel(T* d_out, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    d_out[i] = value_of<T>(input_digit(seed, i));
}

inline unsigned grid_for(std::size_t n, int sms) {
  const std::size_t blocks = (n + 255) / 256;
  return unsigned(std::min<std::size_t>(blocks, std::size_t(sms) * 16));
}

template <class T>
void fill_input(T* d_out, std::size_t n, std::uint64_t seed, int sms, cudaStream_t stream) {
  fill_kernel<T><<<grid_for(n, sms), 256, 0, stream>>>(d_out, n, seed);
  BENCH_CHECK_LAUNCH("fill_kernel");
}

/// Poisons an output buffer: byte 0x7F everywhere gives 2139062143 (int32),
/// ~9.2e18 (int64), 3.4e38 (float), 1.4e306 (double) — never a valid result.
inline void poison(void* d_ptr, std::size_t bytes, cudaStream_t stream) {
  BENCH_CUDA(cudaMemsetAsync(d_ptr, 0x7F, bytes, stream));
}

/// The input/output pairs a size is timed with (bench::rotation_pairs of
/// them): every input holds the same data (fill_input with `seed`), so every
/// output must equal one verified result. Call k uses pair k % pairs().
template <class T>
class rotated_buffers {
 public:
  rotated_buffers(std::size_t n, int pairs, std::uint64_t seed, int sms, cudaStream_t stream)
      : n_(n), bytes_(n * sizeof(T)) {
    for (int p = 0; p < pairs; ++p) {
      in_.emplace_back(bytes_);
      out_.emplace_back(bytes_);
      fill_input(in_.back().template as<T>(), n, seed, sms, stream);
    }
  }
  const T* in(int k) const { return in_[std::size_t(k) % in_.size()].template as<T>(); }
  T* out(int k) const { return out_[std::size_t(k) % out_.size()].template as<T>(); }
  int pairs() const { return int(in_.size()); }
  std::size_t n() const { return n_; }
  std::size_t bytes() const { return bytes_; }
  /// Poisons every output (so a check after timed calls also catches elements
  /// that a repeated call failed to write).
  void poison_outputs(cudaStream_t stream) const {
    for (const auto& b : out_) poison(b.get(), bytes_, stream);
  }

 private:
  std::size_t n_, bytes_;
  std::vector<device_buffer> in_, out_;
};

// ------------------------------------------------------- host reference --

/// Exact prefix sums (as digit sums) at a few sampled indices, computed on the
/// host by regenerating the input (multi-threaded, no copy of the input).
struct sampled_reference {
  std::vector<std::uint64_t> index;     // sorted, unique, in [0, n)
  std::vector<std::int64_t> inclusive;  // d_0 + ... + d_i
  std::vector<std::int64_t> exclusive;  // d_0 + ... + d_{i-1}   (without the init)
};

/// Indices 0, 1, n-1 and `count` evenly spaced ones.
inline sampled_reference make_reference(std::size_t n, std::uint64_t seed, int count = 1000) {
  sampled_reference ref;
  std::vector<std::uint64_t>& idx = ref.index;
  for (int k = 0; k <= count; ++k) idx.push_back(std::uint64_t((unsigned __int128)(n - 1) * k / count));
  idx.push_back(std::min<std::uint64_t>(1, n - 1));
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());

  // Sum of the digits in (idx[j-1], idx[j]] for every j, in parallel.
  const std::size_t m = idx.size();
  std::vector<std::int64_t> segment(m, 0);
  const unsigned workers = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      for (std::size_t j = w; j < m; j += workers) {
        const std::uint64_t begin = j == 0 ? 0 : idx[j - 1] + 1;
        std::int64_t s = 0;
        for (std::uint64_t i = begin; i <= idx[j]; ++i) s += input_digit(seed, i);
        segment[j] = s;
      }
    });
  for (auto& t : pool) t.join();
  std::int64_t running = 0;
  for (std::size_t j = 0; j < m; ++j) {
    running += segment[j];
    ref.inclusive.push_back(running);
    ref.exclusive.push_back(running - input_digit(seed, idx[j]));
  }
  return ref;
}

template <class T>
__global__ void gather_kernel(const T* d_in, const std::uint64_t* d_index, std::size_t m, T* d_out) {
  for (std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < m; j += std::size_t(gridDim.x) * blockDim.x)
    d_out[j] = d_in[d_index[j]];
}

template <class T>
std::string format_value(T v) {
  std::ostringstream s;
  if constexpr (std::is_floating_point_v<T>)
    s.precision(17);
  s << v;
  return s.str();
}

/// Checks d_result at the sampled indices against the exact host reference;
/// exits 1 with the first mismatch. `exclusive` selects the exclusive
/// reference (init + sum of the items before i).
template <class T>
void check_against_reference(const T* d_result, const sampled_reference& ref, bool exclusive, cudaStream_t stream,
                             double timeout_s, const std::string& what) {
  // Wait (with the hang timeout) for the work that produced d_result first:
  // the copies below would otherwise block without one.
  sync_stream(stream, what, timeout_s);
  const std::size_t m = ref.index.size();
  device_buffer d_index(m * sizeof(std::uint64_t)), d_values(m * sizeof(T));
  BENCH_CUDA(cudaMemcpyAsync(d_index.get(), ref.index.data(), m * sizeof(std::uint64_t), cudaMemcpyHostToDevice, stream));
  gather_kernel<T><<<unsigned((m + 255) / 256), 256, 0, stream>>>(d_result, d_index.as<std::uint64_t>(), m, d_values.as<T>());
  BENCH_CHECK_LAUNCH("gather_kernel");
  std::vector<T> got(m);
  BENCH_CUDA(cudaMemcpyAsync(got.data(), d_values.get(), m * sizeof(T), cudaMemcpyDeviceToHost, stream));
  sync_stream(stream, what + " (sampled reference check)", timeout_s);
  for (std::size_t j = 0; j < m; ++j) {
    const std::int64_t digits = exclusive ? exclusive_init_digit + ref.exclusive[j] : ref.inclusive[j];
    const T expected = value_of<T>(digits);
    if (!(got[j] == expected)) {
      std::ostringstream s;
      s << "wrong result: " << what << ": element " << ref.index[j] << " is " << format_value(got[j])
        << ", the exact host reference is " << format_value(expected) << " (" << m << " sampled indices checked)";
      die(1, s.str());
    }
  }
}

/// Mismatch count and first mismatching index of a full-array comparison.
struct compare_result {
  unsigned long long mismatches;
  unsigned long long first;
};

template <class T>
__global__ void compare_kernel(const T* d_a, const T* d_b, std::size_t n, compare_result* d_result) {
  unsigned long long local = 0, first = ~0ull;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    if (!(d_a[i] == d_b[i])) {
      ++local;
      if (i < first) first = i;
    }
  if (local) {
    atomicAdd(&d_result->mismatches, local);
    atomicMin(&d_result->first, first);
  }
}

/// Compares d_a and d_b element for element (exact; see the header comment for
/// why floating point is exact too); exits 1 describing the first mismatch.
template <class T>
void check_equal(const T* d_a, const char* a_name, const T* d_b, const char* b_name, std::size_t n, int sms,
                 cudaStream_t stream, double timeout_s, const std::string& what) {
  sync_stream(stream, what, timeout_s);  // as in check_against_reference
  device_buffer d_result(sizeof(compare_result));
  BENCH_CUDA(cudaMemsetAsync(d_result.get(), 0, sizeof(unsigned long long), stream));  // mismatches = 0
  BENCH_CUDA(cudaMemsetAsync(d_result.as<char>() + sizeof(unsigned long long), 0xFF, sizeof(unsigned long long),
                             stream));  // first = ~0
  compare_kernel<T><<<grid_for(n, sms), 256, 0, stream>>>(d_a, d_b, n, d_result.as<compare_result>());
  BENCH_CHECK_LAUNCH("compare_kernel");
  compare_result r{};
  BENCH_CUDA(cudaMemcpyAsync(&r, d_result.get(), sizeof r, cudaMemcpyDeviceToHost, stream));
  sync_stream(stream, what + " (full comparison)", timeout_s);
  if (r.mismatches == 0) return;
  T a{}, b{};
  BENCH_CUDA(cudaMemcpyAsync(&a, d_a + r.first, sizeof(T), cudaMemcpyDeviceToHost, stream));
  BENCH_CUDA(cudaMemcpyAsync(&b, d_b + r.first, sizeof(T), cudaMemcpyDeviceToHost, stream));
  sync_stream(stream, what + " (reading the mismatch)", timeout_s);
  std::ostringstream s;
  s << "wrong result: " << what << ": " << a_name << " and " << b_name << " differ in " << r.mismatches << " of " << n
    << " elements; first at index " << r.first << ": " << a_name << " = " << format_value(a) << ", " << b_name << " = "
    << format_value(b) << " (a value made of 0x7F bytes is the poison: that element was never written)";
  die(1, s.str());
}

// ---------------------------------------------------------------- timing --

/// Number of input/output pairs to cycle through so that the inputs of
/// consecutive calls total at least twice the L2 (at most `max_pairs`).
inline int rotation_pairs(std::size_t bytes_per_buffer, std::size_t l2_bytes, int max_pairs) {
  if (bytes_per_buffer == 0) return 1;
  const std::size_t want = (2 * l2_bytes + bytes_per_buffer - 1) / bytes_per_buffer;
  return int(std::max<std::size_t>(1, std::min<std::size_t>(want, std::size_t(max_pairs))));
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size();
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

/// Times single calls with a pair of CUDA events recorded on `stream` around
/// each call (the contender must enqueue its work on the same stream). No
/// host synchronization between calls: a call's window is its own GPU time
/// when the GPU is the bottleneck, and includes the launch latency the host
/// adds when it is not (small n). Thrust synchronizes inside its own call,
/// which is then part of its time, as for any user.
///
/// Held (`held` in run): the timed calls are queued behind hold_kernel and
/// released together, so each window is the call's GPU time alone (no host
/// launch time in it, whatever the host's pace); only for contenders that
/// never synchronize inside a call.
class event_timer {
 public:
  event_timer(cudaStream_t stream, int reps) : stream_(stream), start_(reps), stop_(reps) {
    for (int r = 0; r < reps; ++r) {
      BENCH_CUDA(cudaEventCreate(&start_[r]));
      BENCH_CUDA(cudaEventCreate(&stop_[r]));
    }
    BENCH_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&hold_), 2 * sizeof(int), cudaHostAllocMapped));
  }
  ~event_timer() {
    for (std::size_t r = 0; r < start_.size(); ++r) {
      cudaEventDestroy(start_[r]);
      cudaEventDestroy(stop_[r]);
    }
    cudaFreeHost(hold_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  /// Runs call(k) for k = 0 .. warmup + reps - 1 (k picks the buffer pair),
  /// times the last `reps`, and returns their per-call milliseconds. `reps`
  /// is the timer's own count unless a smaller positive one is given;
  /// `held`: the timed calls are queued behind hold_kernel first.
  template <class Call>
  std::vector<double> run(int warmup, Call&& call, double timeout_s, const std::string& what, int reps = 0,
                          bool held = false) {
    if (reps <= 0 || reps > int(start_.size())) reps = int(start_.size());
    int k = 0;
    for (int w = 0; w < warmup; ++w) call(k++);
    sync_stream(stream_, what + " (warm-up)", timeout_s);
    if (held) {
      hold_[0] = hold_[1] = 0;
      int *d_hold = nullptr;
      BENCH_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_hold), hold_, 0));
      hold_kernel<<<1, 1, 0, stream_>>>(d_hold, d_hold + 1, (unsigned long long)(timeout_s * 1e9));
      BENCH_CHECK_LAUNCH("hold_kernel");
    }
    for (int r = 0; r < reps; ++r) {
      BENCH_CUDA(cudaEventRecord(start_[r], stream_));
      call(k++);
      BENCH_CUDA(cudaEventRecord(stop_[r], stream_));
    }
    if (held) {
      reinterpret_cast<volatile int*>(hold_)[0] = 1;
      sync_stream(stream_, what + " (held calls)", 2 * timeout_s);
      if (hold_[1]) die(1, what + ": the held calls did not queue (a call waited for the stream)");
    }
    return elapsed_ms(reps, 1, what + " (timed calls)", timeout_s);
  }

  /// Back to back: `batches` batches of call(0) .. call(calls - 1) (after
  /// `warmup` untimed calls), each batch between one pair of events and no
  /// event between its calls, as in a pipeline, where a launch may overlap
  /// the end of the call before it. Returns each batch's milliseconds per
  /// call. `batches` is at most the timer's count.
  template <class Call>
  std::vector<double> run_back_to_back(int warmup, Call&& call, double timeout_s, const std::string& what, int calls,
                                       int batches) {
    if (batches <= 0 || batches > int(start_.size())) batches = int(start_.size());
    for (int w = 0; w < warmup; ++w) call(w);
    sync_stream(stream_, what + " (warm-up)", timeout_s);
    for (int r = 0; r < batches; ++r) {
      BENCH_CUDA(cudaEventRecord(start_[r], stream_));
      for (int k = 0; k < calls; ++k) call(k);
      BENCH_CUDA(cudaEventRecord(stop_[r], stream_));
    }
    return elapsed_ms(batches, calls, what + " (timed batches)", timeout_s);
  }

  cudaStream_t stream() const { return stream_; }

 private:
  /// After the last of `pairs` event pairs: each pair's milliseconds ÷ `calls`.
  std::vector<double> elapsed_ms(int pairs, int calls, const std::string& what, double timeout_s) {
    BENCH_CUDA(cudaGetLastError());
    wait_event(stop_[pairs - 1], what, timeout_s);
    std::vector<double> ms(pairs);
    for (int r = 0; r < pairs; ++r) {
      float t = 0;
      BENCH_CUDA(cudaEventElapsedTime(&t, start_[r], stop_[r]));
      ms[r] = t / calls;
    }
    return ms;
  }

  cudaStream_t stream_;
  std::vector<cudaEvent_t> start_, stop_;
  int* hold_ = nullptr;  // mapped host memory: [0] releases hold_kernel, [1] it timed out
};

/// (p75 - p25) / median in percent: the run-to-run spread of a timing.
inline double spread_pct(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const double med = median(v);
  const std::size_t m = v.size();
  return med > 0 ? (v[(3 * (m - 1)) / 4] - v[(m - 1) / 4]) / med * 100.0 : 0.0;
}

/// One contender's timing under a slow budget (time_with_budget).
struct budget_timing {
  double ms = 0, spread = 0, probe_ms = 0;
  int reps = 0, warmup = 0;
  bool reduced = false;  // fewer timed calls than --reps (slow budget)
  /// Buffer sets / count slots the calls wrote: call k (probe 0, then k = 0 ..
  /// warmup + reps - 1) uses set k % pairs and slot k.
  int indices() const { return std::max(1, warmup + reps); }
};

/// Probe call (timed: decides the plan; also the first warm-up), then
/// o.warmup - 1 warm-ups and o.reps timed calls on the timer's stream. A
/// contender whose calls would pass `slow_budget_ms` in all gets no more
/// warm-ups and budget ÷ probe timed calls (at least `slow_min_reps`), so the
/// slowest contenders (seconds per call) do not dominate a run. call(k) uses
/// buffer set k % pairs.
template <class Call>
budget_timing time_with_budget(const run_options& o, double slow_budget_ms, int slow_min_reps, event_timer& timer,
                               const std::string& what, Call&& call) {
  cudaEvent_t e0, e1;
  BENCH_CUDA(cudaEventCreate(&e0));
  BENCH_CUDA(cudaEventCreate(&e1));
  BENCH_CUDA(cudaEventRecord(e0, timer.stream()));
  call(0);
  BENCH_CUDA(cudaEventRecord(e1, timer.stream()));
  wait_event(e1, what + " (probe call)", o.timeout_s);
  float probe = 0;
  BENCH_CUDA(cudaEventElapsedTime(&probe, e0, e1));
  BENCH_CUDA(cudaEventDestroy(e0));
  BENCH_CUDA(cudaEventDestroy(e1));
  budget_timing t;
  t.probe_ms = probe;
  t.warmup = std::max(0, o.warmup - 1);
  t.reps = o.reps;
  if (double(probe) * (t.warmup + t.reps) > slow_budget_ms) {
    t.warmup = 0;
    t.reps = std::min(o.reps, std::max(slow_min_reps, int(slow_budget_ms / std::max(1e-3, double(probe)))));
    t.reduced = t.reps < o.reps;
  }
  const std::vector<double> ms = timer.run(t.warmup, call, o.timeout_s, what, t.reps);
  t.ms = median(ms);
  t.spread = spread_pct(ms);
  return t;
}

// ------------------------------------------------- verify, time, recheck --

/// cudaMemcpy D2D of every pair's input to its output (n * sizeof(T) bytes):
/// the median of the timer's calls after `warmup` untimed ones.
template <class T>
double time_copy(event_timer& timer, const rotated_buffers<T>& buf, int warmup, cudaStream_t stream,
                 double timeout_s, const std::string& what) {
  return median(timer.run(
      warmup,
      [&](int k) { BENCH_CUDA(cudaMemcpyAsync(buf.out(k), buf.in(k), buf.bytes(), cudaMemcpyDeviceToDevice, stream)); },
      timeout_s, what));
}

/// Correct before timed: poisons output 0, runs call(in(0), out(0)) once and
/// requires it to equal `d_expected` (a verified result) element for element.
template <class T, class Call>
void verify_call(const rotated_buffers<T>& buf, Call&& call, const char* name, const T* d_expected,
                 const char* expected_name, int sms, cudaStream_t stream, double timeout_s, const std::string& what) {
  poison(buf.out(0), buf.bytes(), stream);
  call(buf.in(0), buf.out(0));
  BENCH_CUDA(cudaGetLastError());
  check_equal<T>(buf.out(0), name, d_expected, expected_name, buf.n(), sms, stream, timeout_s, what);
}

/// Poisons every output, times call(in(k), out(k)) (`warmup` untimed calls,
/// then `reps` timed ones, 0 = the timer's count), then requires every output
/// those calls wrote to equal `d_expected` (catches races that show only on
/// repeated calls). Returns the per-call milliseconds.
template <class T, class Call>
std::vector<double> time_and_recheck(event_timer& timer, const rotated_buffers<T>& buf, int warmup, int reps,
                                     Call&& call, const char* name, const T* d_expected, const char* expected_name,
                                     int sms, cudaStream_t stream, double timeout_s, const std::string& what) {
  buf.poison_outputs(stream);
  const std::vector<double> ms =
      timer.run(warmup, [&](int k) { call(buf.in(k), buf.out(k)); }, timeout_s, what, reps);
  for (int p = 0; p < std::min(buf.pairs(), warmup + int(ms.size())); ++p)
    check_equal<T>(buf.out(p), name, d_expected, expected_name, buf.n(), sms, stream, timeout_s,
                   what + " pair " + std::to_string(p));
  return ms;
}

/// cub::DeviceScan::InclusiveSum of n items as its users call it: temp
/// storage allocated once here, outside any timed region; int num_items (the
/// 32-bit offset path, n <= 2^31 - 1).
template <class T>
class cub_inclusive_sum {
 public:
  cub_inclusive_sum(std::size_t n, cudaStream_t stream) : n_(n), stream_(stream) {
    if (n > std::size_t(INT_MAX)) die(2, "CUB is called with int num_items: n must be below 2^31");
    std::size_t bytes = 0;
    BENCH_CUDA(cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                             int(n), stream));
    temp_ = device_buffer(bytes);
  }
  void operator()(const T* d_in, T* d_out) const {
    std::size_t bytes = temp_.bytes();
    BENCH_CUDA(cub::DeviceScan::InclusiveSum(temp_.get(), bytes, d_in, d_out, int(n_), stream_));
  }
  /// Runs CUB on `d_in` into the (poisoned first) `d_out` and checks it against
  /// the exact host reference at its sampled indices: d_out is then the
  /// verified result every contender must equal.
  void verified_result(const T* d_in, T* d_out, const sampled_reference& reference, double timeout_s,
                       const std::string& what) const {
    poison(d_out, n_ * sizeof(T), stream_);
    (*this)(d_in, d_out);
    check_against_reference<T>(d_out, reference, false, stream_, timeout_s, what);
  }

 private:
  std::size_t n_;
  cudaStream_t stream_;
  device_buffer temp_;
};

// -------------------------------------------------------------------- csv --

inline const char* csv_header() {
  return "primitive,variant,policy,type,n,scankit_ms,baseline,baseline_ms,copy_ms,pct_of_copy,speedup_vs_baseline,gpu,"
         "date,commit";
}

/// The results CSV (docs/benchmarks.md schema); rows are flushed as written.
/// copy_ms is the copy of n * sizeof(T) bytes (2 * n * sizeof(T) moved);
/// copy_bytes_ratio = bytes the primitive must move / bytes the copy moved
/// (1 for a scan) scales it in pct_of_copy.
class csv_writer {
 public:
  csv_writer() = default;
  void open(const std::string& path, const std::string& gpu, const std::string& date, const std::string& commit) {
    if (path.empty()) return;
    file_ = std::fopen(path.c_str(), "w");
    if (!file_) die(1, "cannot open --csv=" + path + " for writing");
    path_ = path, gpu_ = gpu, date_ = date, commit_ = commit;
    std::fprintf(file_, "%s\n", csv_header());
    std::fflush(file_);
  }
  ~csv_writer() {
    if (file_) std::fclose(file_);
  }
  void row(const char* primitive, const std::string& variant, const std::string& policy, const char* type,
           std::size_t n, double scankit_ms, const char* baseline, double baseline_ms, double copy_ms,
           double copy_bytes_ratio = 1.0) {
    if (!file_) return;
    std::fprintf(file_, "%s,%s,%s,%s,%zu,%.6f,%s,%.6f,%.6f,%.2f,%.4f,%s,%s,%s\n", primitive, variant.c_str(),
                 policy.c_str(), type, n, scankit_ms, baseline, baseline_ms, copy_ms,
                 copy_ms * copy_bytes_ratio / scankit_ms * 100.0,
                 baseline_ms / scankit_ms, gpu_.c_str(), date_.c_str(), commit_.c_str());
    if (std::fflush(file_) != 0) die(1, "write to " + path_ + " failed");
  }
  const std::string& path() const { return path_; }

 private:
  std::FILE* file_ = nullptr;
  std::string path_, gpu_, date_, commit_;
};

/// printf into a std::string.
__attribute__((format(printf, 1, 2))) inline std::string format(const char* fmt, ...) {
  va_list args, again;
  va_start(args, fmt);
  va_copy(again, args);
  const int size = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  std::string text(size > 0 ? std::size_t(size) : 0, '\0');
  if (size > 0) std::vsnprintf(text.data(), text.size() + 1, fmt, again);
  va_end(again);
  return text;
}

/// The start of every driver's run: the device (its line printed), the
/// commit and date its CSVs record, and the run's header line
/// "# <driver>: commit C, date D, CCCL x.y.z, <details>".
struct run_identity {
  device_info dev;
  std::string commit, date;

  /// Opens `csv` at `path` (nothing when empty) for this run.
  template <class Writer>
  void open(Writer& csv, const std::string& path) const {
    csv.open(path, dev.name, date, commit);
  }
};

inline run_identity begin_run(const char* driver, const std::string& commit_option, const std::string& details) {
  run_identity run{query_device(), commit_id(commit_option), utc_date()};
  std::printf("# %s: commit %s, date %s, CCCL %d.%d.%d, %s\n", driver, run.commit.c_str(), run.date.c_str(),
              CCCL_MAJOR_VERSION, CCCL_MINOR_VERSION, CCCL_PATCH_VERSION, details.c_str());
  return run;
}

/// begin_run with the details of run_options: reps, warm-up, seed.
inline run_identity begin_run(const char* driver, const run_options& o) {
  return begin_run(driver, o.commit,
                   format("reps %d (median), warm-up %d, seed %llu", o.reps, o.warmup, (unsigned long long)o.seed));
}

inline int log2_exact(std::size_t n) {
  int k = 0;
  while ((std::size_t(1) << k) < n) ++k;
  return k;
}

}  // namespace bench
