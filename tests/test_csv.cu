// tests/test_csv.cu — the CSV index app (apps/csv/csv_index.cuh) against a
// sequential reader on the host: random texts with quoted fields holding
// delimiters, newlines and doubled quotes, empty fields and lines, CRLF,
// fields and quoted sections longer than a segment, with and without a last
// newline, sizes from 1 byte to many scan tiles, another format; a text
// ending inside quotes and bad arguments are rejected.
#include "support/cuda_check.hpp"
#include "support/random.hpp"
#include "support/rejection.hpp"
#include <csv/csv_index.cuh>

#include <cstdint>
#include <string>
#include <vector>

using namespace sktest;

namespace {

/// The index read byte by byte: a delimiter or newline outside quotes ends
/// a field (a newline also a row); a quote outside quotes opens a quoted
/// section, inside one it closes it unless another quote follows at once.
struct host_index {
  std::vector<std::uint64_t> field_ends, row_ends;
  bool ends_in_quotes = false;
};

host_index read_sequentially(const std::string& text, const csv::format& f) {
  host_index x;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == f.quote) {
        if (i + 1 < text.size() && text[i + 1] == f.quote)
          ++i;  // "" is a literal quote
        else
          quoted = false;
      }
      continue;
    }
    if (c == f.quote) {
      quoted = true;
    } else if (c == f.delimiter || c == f.newline) {
      x.field_ends.push_back(i);
      if (c == f.newline) x.row_ends.push_back(x.field_ends.size());
    }
  }
  x.ends_in_quotes = quoted;
  if (!text.empty() && !(text.back() == f.newline && !x.row_ends.empty() &&
                         x.field_ends.back() == text.size() - 1 && x.row_ends.back() == x.field_ends.size())) {
    x.field_ends.push_back(text.size());
    x.row_ends.push_back(x.field_ends.size());
  }
  return x;
}

/// A random CSV text of about `bytes` bytes.
std::string random_csv(std::size_t bytes, rng& r, const csv::format& f) {
  std::string text;
  const std::string plain = "abcdefghij0123456789 .-_";
  auto field = [&] {
    switch (r.below(8)) {
      case 0: return;  // empty
      case 1: {        // quoted, with delimiters, newlines and doubled quotes inside
        text += f.quote;
        const std::size_t n = r.below(40);
        for (std::size_t k = 0; k < n; ++k) {
          switch (r.below(6)) {
            case 0: text += f.delimiter; break;
            case 1: text += f.newline; break;
            case 2: text += f.quote, text += f.quote; break;
            default: text += plain[r.below(plain.size())];
          }
        }
        text += f.quote;
        return;
      }
      case 2: {  // long: crosses segments
        const std::size_t n = 100 + r.below(400);
        for (std::size_t k = 0; k < n; ++k) text += plain[r.below(plain.size())];
        return;
      }
      default: {
        const std::size_t n = 1 + r.below(12);
        for (std::size_t k = 0; k < n; ++k) text += plain[r.below(plain.size())];
      }
    }
  };
  while (text.size() < bytes) {
    if (r.below(20) == 0) {  // an empty line
      text += f.newline;
      continue;
    }
    const std::size_t fields = 1 + r.below(8);
    for (std::size_t k = 0; k < fields; ++k) {
      if (k > 0) text += f.delimiter;
      field();
    }
    if (r.below(4) == 0) text += '\r';
    text += f.newline;
  }
  if (r.coin() && !text.empty()) text.pop_back();  // sometimes no last newline
  return text;
}

/// Indexes `text` on the GPU and compares with the host's reading.
void check_index(csv::indexer& ix, scankit::context& ctx, cudaStream_t stream, const std::string& text,
                 const csv::format& f = {}) {
  const host_index expected = read_sequentially(text, f);
  REQUIRE_FALSE(expected.ends_in_quotes);
  device_buffer<char> d_text(text.size());
  d_text.upload(std::vector<char>(text.begin(), text.end()), stream);
  const csv::text_index got = ix.run(ctx, d_text.data(), text.size(), f);
  CAPTURE(text.size(), expected.field_ends.size(), expected.row_ends.size());
  REQUIRE(got.fields == expected.field_ends.size());
  REQUIRE(got.rows == expected.row_ends.size());
  std::vector<std::uint64_t> field_ends(got.fields), row_ends(got.rows);
  if (got.fields > 0)
    SKTEST_CUDA(cudaMemcpy(field_ends.data(), got.d_field_ends, got.fields * 8, cudaMemcpyDeviceToHost));
  if (got.rows > 0) SKTEST_CUDA(cudaMemcpy(row_ends.data(), got.d_row_ends, got.rows * 8, cudaMemcpyDeviceToHost));
  CHECK(field_ends == expected.field_ends);
  CHECK(row_ends == expected.row_ends);
}

}  // namespace

TEST_CASE("the CSV index matches a sequential reading on small texts", "[gpu][csv][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  csv::indexer ix;
  for (const char* text : {"a", "\n", ",", "a,b", "a,b\n", "a,b\n\n", "\"x,y\"\n", "\"a\"\"b\",c", "\"\"", "a,\n,b",
                           "\"multi\nline\",2\r\n3,4", ",,,\n,,,"})
    check_index(ix, ctx, stream, text);
  rng r(case_seed("csv/small"));
  for (int k = 0; k < 20; ++k) check_index(ix, ctx, stream, random_csv(1 + r.below(700), r, {}));
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("the CSV index matches a sequential reading on texts of many scan tiles", "[gpu][csv]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  csv::indexer ix;
  rng r(case_seed("csv/large"));
  for (std::size_t bytes : {std::size_t(127), std::size_t(128), std::size_t(129), std::size_t(100000),
                            std::size_t(1) << 22, std::size_t(50) << 20})
    check_index(ix, ctx, stream, random_csv(bytes, r, {}));
  // Other characters: semicolons, single quotes, '|' as the line end.
  const csv::format other{';', '\'', '|'};
  check_index(ix, ctx, stream, random_csv(3 << 20, r, other), other);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("the CSV index at exact segment edges", "[gpu][csv]") {
  // Texts of exactly 127 ... 257 bytes, states changing at byte 127 / 128.
  cuda_stream stream;
  scankit::context ctx(stream);
  csv::indexer ix;
  check_index(ix, ctx, stream, std::string(126, 'a') + "\"\"");                      // 128 bytes, ends after a quote
  check_index(ix, ctx, stream, std::string(127, 'a') + "\"b\"\"c\"\n");            // a quote opens at byte 127
  check_index(ix, ctx, stream, "\"" + std::string(125, 'a') + "\"\"" + "\"x\n");  // "" across bytes 127 / 128
  check_index(ix, ctx, stream, std::string(127, 'a') + ",\n" + std::string(126, 'b') + "\n");
  rng r(case_seed("csv/edges"));
  for (std::size_t bytes : {127, 128, 129, 255, 256, 257}) {
    std::string text;
    while (text.size() < bytes) {
      text += std::string(1 + r.below(9), 'x');
      text += r.coin() ? ',' : '\n';
    }
    text.resize(bytes);
    check_index(ix, ctx, stream, text);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("a quoted section spanning many segments", "[gpu][csv]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  csv::indexer ix;
  std::string text = "head,\"";
  for (int k = 0; k < 100000; ++k) text += k % 7 == 0 ? "\n,\"\"" : "xyz";
  text += "\",tail\nnext,row";
  check_index(ix, ctx, stream, text);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("a CSV text ending inside quotes is rejected", "[gpu][csv]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  csv::indexer ix;
  for (std::string text : {std::string("\""), std::string("a,\"b\nc"), std::string(5000, 'x') + "\"\"\"" }) {
    device_buffer<char> d_text(text.size());
    d_text.upload(std::vector<char>(text.begin(), text.end()), stream);
    CAPTURE(text.size());
    CHECK_THROWS_WITH(ix.run(ctx, d_text.data(), text.size()), Catch::Contains("ends inside a quoted field"));
  }
  check_index(ix, ctx, stream, "after,a\nthrow\n");  // the indexer still works
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("the CSV indexer rejects bad arguments before touching the device", "[csv]") {
  scankit::context ctx;
  csv::indexer ix;
  expect_invalid_argument([&] { ix.run(ctx, nullptr, 10); }, "csv::indexer::run");
  const char* fake = reinterpret_cast<const char*>(std::uintptr_t(1) << 40);
  expect_invalid_argument([&] { ix.run(ctx, fake, 10, csv::format{',', ',', '\n'}); }, "csv::indexer::run");
  expect_invalid_argument([&] { ix.run(ctx, fake, 10, csv::format{'\n', '"', '\n'}); }, "csv::indexer::run");
  const csv::text_index empty = ix.run(ctx, nullptr, 0);
  CHECK(empty.fields == 0);
  CHECK(empty.rows == 0);
}
