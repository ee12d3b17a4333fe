// apps/csr/csr_demo.cu — builds a random sparse matrix in COO form (any
// order, with repeated positions), converts it to CSR on the GPU with
// csr::coo_to_csr, checks the result against a conversion on the host, and
// prints how long the GPU took.
//
//   csr_demo [--rows=1048576] [--cols=1048576] [--nnz=16777216] [--repeats=10] [--seed=1]
//
// --repeats: percent of the entries that repeat an earlier entry's position.
#include "coo_to_csr.cuh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

struct options {
  long long rows = 1 << 20, cols = 1 << 20, nnz = 1 << 24, repeats = 10;
  unsigned long long seed = 1;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "csr_demo: %s\nusage: csr_demo [--rows=N] [--cols=N] [--nnz=N] [--repeats=PERCENT] [--seed=N]\n",
               message.c_str());
  std::exit(2);
}

long long parse(const std::string& arg, const char* name, long long lo, long long hi) {
  const std::string value = arg.substr(std::string(name).size() + 3);
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || v < lo || v > hi)
    usage_error("--" + std::string(name) + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                "]");
  return v;
}

options parse_options(int argc, char** argv) {
  options o;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto is = [&](const char* name) { return arg.rfind(std::string("--") + name + "=", 0) == 0; };
    if (is("rows"))
      o.rows = parse(arg, "rows", 1, std::numeric_limits<std::int32_t>::max());
    else if (is("cols"))
      o.cols = parse(arg, "cols", 1, std::numeric_limits<std::int32_t>::max());
    else if (is("nnz"))
      o.nnz = parse(arg, "nnz", 0, std::numeric_limits<std::int32_t>::max());
    else if (is("repeats"))
      o.repeats = parse(arg, "repeats", 0, 100);
    else if (is("seed"))
      o.seed = (unsigned long long)parse(arg, "seed", 0, std::numeric_limits<long long>::max());
    else
      usage_error("unknown option " + arg);
  }
  return o;
}

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "csr_demo: %s: %s\n", what, cudaGetErrorString(status));
  std::exit(1);
}

template <class T>
T* device_copy(const std::vector<T>& host) {
  T* d = nullptr;
  check(cudaMalloc(&d, std::max<std::size_t>(1, host.size()) * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  return d;
}

template <class T>
std::vector<T> host_copy(const T* d, std::size_t n) {
  std::vector<T> host(n);
  check(cudaMemcpy(host.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return host;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_options(argc, argv);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "csr_demo: no CUDA GPU found; the demo needs one.\n");
    return 2;
  }
  const std::size_t nnz = std::size_t(o.nnz);
  const auto rows = std::int32_t(o.rows), cols = std::int32_t(o.cols);

  // A random matrix; some entries repeat an earlier entry's position.
  std::mt19937_64 rng(o.seed);
  std::vector<std::int32_t> r(nnz), c(nnz);
  std::vector<float> v(nnz);
  for (std::size_t i = 0; i < nnz; ++i) {
    if (i > 0 && static_cast<long long>(rng() % 100) < o.repeats) {
      const std::size_t j = rng() % i;
      r[i] = r[j], c[i] = c[j];
    } else {
      r[i] = std::int32_t(rng() % std::uint64_t(rows));
      c[i] = std::int32_t(rng() % std::uint64_t(cols));
    }
    v[i] = float(int(rng() % 19) - 9);  // small integers: every sum is exact
  }
  std::int32_t* d_r = device_copy(r);
  std::int32_t* d_c = device_copy(c);
  float* d_v = device_copy(v);
  std::int32_t *d_pointers = nullptr, *d_columns = nullptr;
  float* d_values = nullptr;
  check(cudaMalloc(&d_pointers, (std::size_t(rows) + 1) * sizeof(std::int32_t)), "cudaMalloc");
  check(cudaMalloc(&d_columns, std::max<std::size_t>(1, nnz) * sizeof(std::int32_t)), "cudaMalloc");
  check(cudaMalloc(&d_values, std::max<std::size_t>(1, nnz) * sizeof(float)), "cudaMalloc");

  try {
    scankit::context ctx;
    csr::scratch buffers;
    const csr::csr_arrays<float, std::int32_t> out{d_pointers, d_columns, d_values};
    csr::coo_to_csr(ctx, buffers, rows, cols, d_r, d_c, d_v, nnz, out);  // first call: storage grows
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const auto start = std::chrono::steady_clock::now();
    const std::size_t count = csr::coo_to_csr(ctx, buffers, rows, cols, d_r, d_c, d_v, nnz, out);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    // The host's conversion: sort the positions, sum each one's values.
    std::vector<std::uint64_t> order(nnz);
    for (std::size_t i = 0; i < nnz; ++i) order[i] = (std::uint64_t(r[i]) << 32 | std::uint32_t(c[i]));
    std::vector<std::size_t> index(nnz);
    for (std::size_t i = 0; i < nnz; ++i) index[i] = i;
    std::stable_sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) { return order[a] < order[b]; });
    std::vector<std::int64_t> pointers(std::size_t(rows) + 1, 0);
    std::vector<std::int32_t> columns;
    std::vector<double> values;
    for (std::size_t k = 0; k < nnz; ++k) {
      const std::size_t i = index[k];
      if (k > 0 && order[index[k - 1]] == order[i]) {
        values.back() += v[i];
        continue;
      }
      columns.push_back(c[i]);
      values.push_back(v[i]);
      ++pointers[std::size_t(r[i]) + 1];
    }
    for (std::size_t row = 0; row < std::size_t(rows); ++row) pointers[row + 1] += pointers[row];

    const std::vector<std::int32_t> got_pointers = host_copy(d_pointers, std::size_t(rows) + 1);
    const std::vector<std::int32_t> got_columns = host_copy(d_columns, count);
    const std::vector<float> got_values = host_copy(d_values, count);
    bool ok = count == columns.size();
    for (std::size_t i = 0; ok && i <= std::size_t(rows); ++i) ok = got_pointers[i] == pointers[i];
    for (std::size_t i = 0; ok && i < count; ++i)
      ok = got_columns[i] == columns[i] && double(got_values[i]) == values[i];
    std::printf(
        "csr_demo: %d x %d matrix, %zu COO entries (%lld %% repeated positions) -> %zu CSR entries in %.2f ms "
        "(the call's wall time); %s\n",
        rows, cols, nnz, o.repeats, count, ms, ok ? "matches the host's conversion" : "DIFFERS from the host");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "csr_demo: %s\n", e.what());
    return 1;
  }
}
