// tests/test_csr.cu — the COO → CSR sample app (apps/csr/coo_to_csr.cuh)
// against a conversion on the host: random matrices of many shapes, repeated
// positions (also more repeats of one position than a reduce-by-key tile),
// empty rows everywhere, keys of 52 bits, 31-bit columns, int32 and int64 row
// pointers, float and double values; row_pointers alone; bad indices and
// arguments.
#include "support/cuda_check.hpp"
#include "support/random.hpp"
#include "support/rejection.hpp"
#include <csr/coo_to_csr.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

using namespace sktest;

namespace {

/// A COO matrix on the host.
template <class Value>
struct coo {
  std::int32_t rows, cols;
  std::vector<std::int32_t> r, c;
  std::vector<Value> v;
};

/// The CSR a conversion must give: positions in (row, column) order, the
/// values of a repeated position summed (small integers: exact in any order).
struct expected_csr {
  std::vector<std::int64_t> pointers;
  std::vector<std::int32_t> columns;
  std::vector<double> values;
};

template <class Value>
expected_csr host_conversion(const coo<Value>& m) {
  const std::size_t nnz = m.r.size();
  std::vector<std::size_t> order(nnz);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return std::pair(m.r[a], m.c[a]) < std::pair(m.r[b], m.c[b]); });
  expected_csr e;
  e.pointers.assign(std::size_t(m.rows) + 1, 0);
  for (std::size_t k = 0; k < nnz; ++k) {
    const std::size_t i = order[k];
    if (k > 0 && m.r[order[k - 1]] == m.r[i] && m.c[order[k - 1]] == m.c[i]) {
      e.values.back() += double(m.v[i]);
      continue;
    }
    e.columns.push_back(m.c[i]);
    e.values.push_back(double(m.v[i]));
    ++e.pointers[std::size_t(m.r[i]) + 1];
  }
  for (std::size_t row = 0; row < std::size_t(m.rows); ++row) e.pointers[row + 1] += e.pointers[row];
  return e;
}

/// nnz random entries in rows [row_lo, row_hi) of a rows × cols matrix;
/// `repeat_percent` of them repeat an earlier entry's position. Values are
/// small nonzero integers, so every sum is exact.
template <class Value>
coo<Value> random_coo(std::int32_t rows, std::int32_t cols, std::size_t nnz, int repeat_percent, rng& g,
                      std::int32_t row_lo = 0, std::int32_t row_hi = -1) {
  if (row_hi < 0) row_hi = rows;
  coo<Value> m{rows, cols, std::vector<std::int32_t>(nnz), std::vector<std::int32_t>(nnz), std::vector<Value>(nnz)};
  for (std::size_t i = 0; i < nnz; ++i) {
    if (i > 0 && int(g.below(100)) < repeat_percent) {
      const std::size_t j = g.below(i);
      m.r[i] = m.r[j], m.c[i] = m.c[j];
    } else {
      m.r[i] = row_lo + std::int32_t(g.below(std::uint64_t(row_hi - row_lo)));
      m.c[i] = std::int32_t(g.below(std::uint64_t(cols)));
    }
    m.v[i] = Value(1 + std::int64_t(g.below(9))) * (g.coin() ? Value(1) : Value(-1));
  }
  return m;
}

/// Converts m on the GPU into poisoned outputs (with guard words after the
/// row pointers) and checks every array, and that nothing past the CSR's
/// entries or the pointers was written.
template <class Value, class Pointer>
void check_conversion(const coo<Value>& m, scankit::context& ctx, csr::scratch& buffers, cudaStream_t stream) {
  const std::size_t nnz = m.r.size(), guard = 19;
  CAPTURE(m.rows, m.cols, nnz, sizeof(Value), sizeof(Pointer));
  device_buffer<std::int32_t> d_r(nnz), d_c(nnz), d_columns(nnz + guard);
  device_buffer<Value> d_v(nnz), d_values(nnz + guard);
  device_buffer<Pointer> d_pointers(std::size_t(m.rows) + 1 + guard);
  d_r.upload(m.r, stream);
  d_c.upload(m.c, stream);
  d_v.upload(m.v, stream);
  d_columns.poison(stream);
  d_values.poison(stream);
  d_pointers.poison(stream);
  const std::size_t count =
      csr::coo_to_csr(ctx, buffers, m.rows, m.cols, d_r.data(), d_c.data(), d_v.data(), nnz,
                      csr::csr_arrays<Value, Pointer>{d_pointers.data(), d_columns.data(), d_values.data()});
  const expected_csr e = host_conversion(m);
  REQUIRE(count == e.columns.size());
  const std::vector<Pointer> pointers = d_pointers.download(stream);
  const std::vector<std::int32_t> columns = d_columns.download(stream);
  const std::vector<Value> values = d_values.download(stream);
  std::size_t bad_pointer = e.pointers.size(), bad_entry = count;
  for (std::size_t i = 0; i < e.pointers.size() && bad_pointer == e.pointers.size(); ++i)
    if (std::int64_t(pointers[i]) != e.pointers[i]) bad_pointer = i;
  for (std::size_t i = 0; i < count && bad_entry == count; ++i)
    if (columns[i] != e.columns[i] || double(values[i]) != e.values[i]) bad_entry = i;
  CAPTURE(bad_pointer, bad_entry);
  CHECK(bad_pointer == e.pointers.size());
  CHECK(bad_entry == count);
  for (std::size_t i = e.pointers.size(); i < pointers.size(); ++i) REQUIRE(is_poison(pointers[i]));
  for (std::size_t i = count; i < columns.size(); ++i) REQUIRE(is_poison(columns[i]));
  for (std::size_t i = count; i < values.size(); ++i) REQUIRE(is_poison(values[i]));
}

}  // namespace

TEST_CASE("coo_to_csr matches the host's conversion on matrices of every shape", "[gpu][csr]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  csr::scratch buffers;
  rng g(case_seed("csr/shapes"));
  struct shape {
    std::int32_t rows, cols;
    std::size_t nnz;
    int repeats;
  };
  const shape shapes[] = {
      {1, 1, 1, 0},        {1, 1, 5000, 0},          {3, 4, 1, 0},           {1, 1000, 3000, 20},
      {1000, 1, 3000, 20}, {3000, 5000, 100000, 10}, {77777, 3, 100003, 50}, {1 << 20, 1 << 20, 1 << 20, 10},
      {5, 7, 0, 0}};
  for (const shape& s : shapes) {
    check_conversion<float, std::int32_t>(random_coo<float>(s.rows, s.cols, s.nnz, s.repeats, g), ctx, buffers, stream);
    check_conversion<double, std::int64_t>(random_coo<double>(s.rows, s.cols, s.nnz, s.repeats, g), ctx, buffers,
                                           stream);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("coo_to_csr fills empty rows: mostly empty, and empty at both ends", "[gpu][csr]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  csr::scratch buffers;
  rng g(case_seed("csr/empty_rows"));
  check_conversion<float, std::int32_t>(random_coo<float>(1000000, 1000, 10, 0, g), ctx, buffers, stream);
  check_conversion<float, std::int32_t>(random_coo<float>(100000, 100, 50000, 10, g, 40000, 40100), ctx, buffers,
                                        stream);
  check_conversion<double, std::int64_t>(random_coo<double>(1 << 22, 50, 3, 0, g, (1 << 22) - 1), ctx, buffers, stream);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("coo_to_csr on a small matrix (for the sanitizers)", "[gpu][csr][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  csr::scratch buffers;
  rng g(case_seed("csr/sanitize"));
  check_conversion<float, std::int32_t>(random_coo<float>(300, 200, 5000, 20, g), ctx, buffers, stream);
  check_conversion<double, std::int64_t>(random_coo<double>(7, 3, 40, 30, g, 2, 5), ctx, buffers, stream);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("coo_to_csr with 52-bit keys, 31-bit columns, and a position repeated past a reduce-by-key tile",
          "[gpu][csr]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  csr::scratch buffers;
  rng g(case_seed("csr/wide"));
  check_conversion<float, std::int64_t>(random_coo<float>(1 << 26, 1 << 26, 300000, 5, g), ctx, buffers, stream);
  // 31-bit columns: every column bit in use.
  check_conversion<float, std::int32_t>(random_coo<float>(1000, 2147483647, 20000, 10, g), ctx, buffers, stream);
  // 200 000 entries at one position among others: one run far longer than a tile.
  coo<double> m = random_coo<double>(5000, 5000, 250000, 0, g);
  for (std::size_t i = 0; i < 200000; ++i) {
    const std::size_t j = g.below(m.r.size());
    m.r[j] = 17, m.c[j] = 4242;
  }
  check_conversion<double, std::int32_t>(m, ctx, buffers, stream);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("row_pointers of sorted rows, and nothing written outside on bad rows", "[gpu][csr]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  rng g(case_seed("csr/row_pointers"));
  for (std::size_t nnz : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(1) << 20}) {
    const std::int32_t rows = 50000;
    std::vector<std::int32_t> sorted(nnz);
    for (auto& row : sorted) row = std::int32_t(g.below(rows));
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::int64_t> expected(std::size_t(rows) + 1, 0);
    for (std::int32_t row : sorted) ++expected[std::size_t(row) + 1];
    for (std::size_t row = 0; row < std::size_t(rows); ++row) expected[row + 1] += expected[row];
    device_buffer<std::int32_t> d_rows(nnz);
    device_buffer<std::int64_t> d_pointers(std::size_t(rows) + 1);
    d_rows.upload(sorted, stream);
    d_pointers.poison(stream);
    csr::row_pointers(ctx, d_rows.data(), nnz, rows, d_pointers.data());
    CAPTURE(nnz);
    CHECK(d_pointers.download(stream) == expected);
  }
  // Rows out of range and out of order: unspecified pointers, but the guard
  // words on both sides of the array stay untouched.
  const std::int32_t rows = 100;
  const std::size_t guard = 64;
  std::vector<std::int32_t> bad = {-5, 3, 2, 99, 100, 1000000, -2147483647 - 1, 2147483647, 50, 7};
  device_buffer<std::int32_t> d_bad(bad.size()), d_pointers(guard + std::size_t(rows) + 1 + guard);
  d_bad.upload(bad, stream);
  d_pointers.poison(stream);
  csr::row_pointers(ctx, d_bad.data(), bad.size(), rows, d_pointers.data() + guard);
  const std::vector<std::int32_t> all = d_pointers.download(stream);
  for (std::size_t i = 0; i < guard; ++i) {
    REQUIRE(is_poison(all[i]));
    REQUIRE(is_poison(all[all.size() - 1 - i]));
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("coo_to_csr rejects indices outside the matrix and writes nothing", "[gpu][csr][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  csr::scratch buffers;
  rng g(case_seed("csr/bad_indices"));
  const std::int32_t rows = 300, cols = 400;
  const std::pair<std::int32_t, std::int32_t> bad_positions[] = {
      {-1, 0}, {300, 0}, {0, -7}, {0, 400}, {2147483647, 2147483647}};
  for (auto [bad_row, bad_col] : bad_positions) {
    coo<float> m = random_coo<float>(rows, cols, 5000, 10, g);
    const std::size_t at = 1234;
    m.r[at] = bad_row, m.c[at] = bad_col;
    m.r[at + 2000] = -3;  // a later bad entry: the first one is named
    const std::size_t nnz = m.r.size();
    device_buffer<std::int32_t> d_r(nnz), d_c(nnz), d_columns(nnz), d_pointers(std::size_t(rows) + 1);
    device_buffer<float> d_v(nnz), d_values(nnz);
    d_r.upload(m.r, stream);
    d_c.upload(m.c, stream);
    d_v.upload(m.v, stream);
    d_columns.poison(stream);
    d_values.poison(stream);
    d_pointers.poison(stream);
    CAPTURE(bad_row, bad_col);
    CHECK_THROWS_WITH(
        csr::coo_to_csr(ctx, buffers, rows, cols, d_r.data(), d_c.data(), d_v.data(), nnz,
                        csr::csr_arrays<float, std::int32_t>{d_pointers.data(), d_columns.data(), d_values.data()}),
        Catch::Contains("entry 1234"));
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    CHECK(count_unpoisoned(download_bytes(d_columns.data(), d_columns.bytes(), stream)) == 0);
    CHECK(count_unpoisoned(download_bytes(d_values.data(), d_values.bytes(), stream)) == 0);
    CHECK(count_unpoisoned(download_bytes(d_pointers.data(), d_pointers.bytes(), stream)) == 0);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("coo_to_csr and row_pointers reject bad arguments before touching the device", "[csr]") {
  scankit::context ctx;
  csr::scratch buffers;
  auto* p32 = reinterpret_cast<std::int32_t*>(std::uintptr_t(1) << 40);
  auto* f = reinterpret_cast<float*>(std::uintptr_t(1) << 41);
  const csr::csr_arrays<float, std::int32_t> out{p32, p32, f};
  auto convert = [&](std::int32_t rows, std::int32_t cols, const std::int32_t* r, std::size_t nnz) {
    csr::coo_to_csr(ctx, buffers, rows, cols, r, p32, f, nnz, out);
  };
  expect_invalid_argument([&] { convert(0, 5, p32, 10); }, "csr::coo_to_csr");
  expect_invalid_argument([&] { convert(5, -1, p32, 10); }, "csr::coo_to_csr");
  expect_invalid_argument([&] { convert(5, 5, nullptr, 10); }, "csr::coo_to_csr");
  // More entries than int32 row pointers can count.
  expect_invalid_argument([&] { convert(5, 5, p32, std::size_t(1) << 31); }, "csr::coo_to_csr");
  expect_invalid_argument([&] { csr::row_pointers(ctx, p32, 10, -1, p32); }, "csr::row_pointers");
  expect_invalid_argument([&] { csr::row_pointers(ctx, static_cast<const std::int32_t*>(nullptr), 10, 5, p32); },
                          "csr::row_pointers");
}
