// apps/csv/csv_demo.cu — indexes a CSV file on the GPU with csv::indexer and
// prints how many fields and rows it holds, how fast, and its first rows'
// fields (quotes removed, "" read as ").
//
//   csv_demo FILE [--delimiter=,] [--quote='"']
//   csv_demo            (a small built-in sample)
#include "csv_index.cuh"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char* const sample =
    "id,name,comment\n"
    "1,Ada,\"likes commas, and \"\"quotes\"\"\"\n"
    "2,Grace,\"spans\ntwo lines\"\n"
    "3,,empty name\n";

/// A field's text as a reader sees it: outer quotes removed, "" read as ".
std::string field_text(const std::string& raw, char quote) {
  std::string out;
  bool quoted = false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == quote) {
      if (quoted && i + 1 < raw.size() && raw[i + 1] == quote) {
        out += quote;
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (!(raw[i] == '\r' && i + 1 == raw.size())) {
      out += raw[i];
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string text = sample, name = "the built-in sample";
  csv::format fmt;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg.rfind("--delimiter=", 0) == 0 && arg.size() == 13) {
      fmt.delimiter = arg[12];
    } else if (arg.rfind("--quote=", 0) == 0 && arg.size() == 9) {
      fmt.quote = arg[8];
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "usage: csv_demo [FILE] [--delimiter=C] [--quote=C]\n");
      return 2;
    } else {
      std::ifstream in(arg, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "csv_demo: cannot read %s\n", arg.c_str());
        return 2;
      }
      std::ostringstream s;
      s << in.rdbuf();
      text = s.str(), name = arg;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "csv_demo: no CUDA GPU found; the demo needs one.\n");
    return 2;
  }
  try {
    char* d_text = nullptr;
    csv::detail::check(cudaMalloc(&d_text, text.size() + 1), "cudaMalloc");
    csv::detail::check(cudaMemcpy(d_text, text.data(), text.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
    scankit::context ctx;
    csv::indexer ix;
    ix.run(ctx, d_text, text.size(), fmt);  // first call: buffers grow
    const auto start = std::chrono::steady_clock::now();
    const csv::text_index index = ix.run(ctx, d_text, text.size(), fmt);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("csv_demo: %s: %zu bytes, %zu fields in %zu rows, indexed in %.3f ms (%.1f GB/s; the call's wall "
                "time)\n",
                name.c_str(), text.size(), index.fields, index.rows, ms, text.size() / ms / 1e6);

    // The first rows, field by field.
    const std::size_t show_rows = index.rows < 4 ? index.rows : 4;
    std::vector<std::uint64_t> row_ends(show_rows), field_ends;
    cudaMemcpy(row_ends.data(), index.d_row_ends, show_rows * 8, cudaMemcpyDeviceToHost);
    field_ends.resize(show_rows > 0 ? row_ends[show_rows - 1] : 0);
    cudaMemcpy(field_ends.data(), index.d_field_ends, field_ends.size() * 8, cudaMemcpyDeviceToHost);
    std::size_t field = 0;
    for (std::size_t r = 0; r < show_rows; ++r) {
      std::printf("  row %zu:", r);
      for (; field < row_ends[r]; ++field) {
        const std::size_t begin = field == 0 ? 0 : field_ends[field - 1] + 1;
        std::printf(" [%s]", field_text(text.substr(begin, field_ends[field] - begin), fmt.quote).c_str());
      }
      std::printf("\n");
    }
    cudaFree(d_text);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "csv_demo: %s\n", e.what());
    return 1;
  }
  return 0;
}
