// apps/csv/csv_index.cuh — where every field and row of a CSV text ends,
// found on the GPU, quotes respected (ParPaRaw's idea on scankit's scan):
//
// Reading a CSV is a finite-state machine with three states: U (outside
// quotes), Q (inside quotes), E (a quote seen inside quotes: the closing one,
// or the first of a doubled ""). Each byte maps a state to the next, and
// such maps compose associatively — but not commutatively — so one scan
// finds the state before every byte without reading the text in order:
//
//   1. summarize — each thread reads a segment of 128 bytes from each of the
//                  three states at once: the segment's map (where each start
//                  state ends up) and, per start state, how many fields and
//                  rows end in it;
//   2. scan      — scankit::device::inclusive_scan over the summaries with
//                  their composition (map after map; counts of the second
//                  segment taken from the state the first one left): each
//                  segment learns the state it starts in and how many fields
//                  and rows end before it;
//   3. emit      — each thread reads its segment again from its true start
//                  state and writes its field and row ends where the scan
//                  says they go.
//
// A delimiter or newline read in U or E ends a field; a newline there also
// ends a row. Outside quotes a quote opens a quoted section wherever it
// appears (RFC 4180 allows it only at a field's start); "" inside quotes is
// a literal quote. An empty line is a row of one empty field. A '\r' before
// a newline stays in the field (strip it when reading the field).
#pragma once

#include <scankit/device/scan.cuh>
#include <scankit/scankit.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace csv {

/// The characters that structure the text.
struct format {
  char delimiter = ',';
  char quote = '"';
  char newline = '\n';
};

/// The index of a text: fields in order, across rows; field f spans bytes
/// [field_end[f - 1] + 1, field_end[f]) (field 0 from byte 0), its end being
/// the delimiter or newline after it (or the text's length for a last field
/// with no newline after it); row r holds fields [row_end[r - 1],
/// row_end[r]) (row 0 from field 0). Device arrays, valid until the indexer
/// runs again or is destroyed.
struct text_index {
  const std::uint64_t* d_field_ends;
  std::size_t fields;
  const std::uint64_t* d_row_ends;
  std::size_t rows;
};

namespace detail {

enum : unsigned { state_u = 0, state_q = 1, state_e = 2 };

/// A map of the three states, 2 bits each: state s goes to (map >> 2s) & 3.
using state_map = std::uint32_t;
inline constexpr state_map identity_map = 0u | (1u << 2) | (2u << 4);

__host__ __device__ inline unsigned apply(state_map m, unsigned s) { return (m >> (2 * s)) & 3u; }

/// The next state after a byte of each kind, and whether the byte ends a
/// field (and a row) when read in a state.
struct byte_rule {
  format f;
  __device__ unsigned next(unsigned s, char c) const {
    if (c == f.quote) return s == state_q ? state_e : state_q;
    return s == state_q ? state_q : state_u;  // E: the quoted section closed
  }
  __device__ bool ends_field(unsigned s, char c) const { return s != state_q && (c == f.delimiter || c == f.newline); }
  __device__ bool ends_row(unsigned s, char c) const { return s != state_q && c == f.newline; }
};

/// A run of bytes as the scan sees it: its state map, and per start state
/// the fields and rows that end in it.
struct segment_summary {
  state_map map;
  std::uint32_t pad;
  std::uint64_t fields[3];
  std::uint64_t rows[3];
};

/// a, then b.
struct compose_summaries {
  __device__ segment_summary operator()(const segment_summary& a, const segment_summary& b) const {
    segment_summary r{};
    for (unsigned s = 0; s < 3; ++s) {
      const unsigned mid = apply(a.map, s);
      r.map |= state_map(apply(b.map, mid)) << (2 * s);
      r.fields[s] = a.fields[s] + b.fields[mid];
      r.rows[s] = a.rows[s] + b.rows[mid];
    }
    return r;
  }
};

inline constexpr std::size_t segment_bytes = 128;

/// 1. Each segment read from all three states at once. (Kernels are
/// templates on the rule only so that the header may be included anywhere.)
template <class Rule>
__global__ void summarize_segments(const char* d_text, std::size_t bytes, Rule rule, segment_summary* d_summaries,
                                   std::size_t segments) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t seg = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; seg < segments; seg += stride) {
    const std::size_t begin = seg * segment_bytes, end = begin + segment_bytes < bytes ? begin + segment_bytes : bytes;
    unsigned state[3] = {state_u, state_q, state_e};
    segment_summary out{};
    for (std::size_t i = begin; i < end; ++i) {
      const char c = d_text[i];
      for (unsigned s = 0; s < 3; ++s) {
        out.fields[s] += rule.ends_field(state[s], c);
        out.rows[s] += rule.ends_row(state[s], c);
        state[s] = rule.next(state[s], c);
      }
    }
    out.map = state[0] | (state[1] << 2) | (state[2] << 4);
    d_summaries[seg] = out;
  }
}

/// 3. Each segment read again from its start state, its ends written. The
/// last segment also ends a last field and row left open by the text, and
/// says in d_totals how many fields and rows there are.
template <class Rule>
__global__ void emit_ends(const char* d_text, std::size_t bytes, Rule rule, const segment_summary* d_inclusive,
                          std::size_t segments, std::uint64_t* d_field_ends, std::uint64_t* d_row_ends,
                          std::uint64_t* d_totals) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t seg = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; seg < segments; seg += stride) {
    unsigned state = seg == 0 ? state_u : apply(d_inclusive[seg - 1].map, state_u);
    std::uint64_t field = seg == 0 ? 0 : d_inclusive[seg - 1].fields[state_u];
    std::uint64_t row = seg == 0 ? 0 : d_inclusive[seg - 1].rows[state_u];
    const std::size_t begin = seg * segment_bytes, end = begin + segment_bytes < bytes ? begin + segment_bytes : bytes;
    bool ended_row = false;  // by the segment's last byte
    for (std::size_t i = begin; i < end; ++i) {
      const char c = d_text[i];
      ended_row = rule.ends_row(state, c);
      if (rule.ends_field(state, c)) d_field_ends[field++] = i;
      if (ended_row) d_row_ends[row++] = field;
      state = rule.next(state, c);
    }
    if (seg + 1 == segments) {
      // The text's last byte is in the last segment: unless it ended a row,
      // the last field and row end with the text.
      if (!ended_row) {
        d_field_ends[field++] = bytes;
        d_row_ends[row++] = field;
      }
      d_totals[0] = field;
      d_totals[1] = row;
    }
  }
}

inline void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw scankit::cuda_error(call, int(status), cudaGetErrorString(status));
}

inline unsigned blocks_for(std::size_t items) {
  const std::size_t blocks = (items + 255) / 256;
  return unsigned(blocks < 65536 ? blocks : 65536);
}

/// Device memory that grows on demand (old contents not kept).
class device_array {
 public:
  device_array() = default;
  ~device_array() {
    if (p_ != nullptr) cudaFree(p_);
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  void* get(std::size_t bytes) {
    if (bytes > bytes_) {
      if (p_ != nullptr) cudaFree(p_);
      p_ = nullptr;
      bytes_ = 0;
      check(cudaMalloc(&p_, bytes), "cudaMalloc");
      bytes_ = bytes;
    }
    return p_;
  }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace detail

/// Indexes CSV texts on the GPU, keeping its device buffers from one text to
/// the next. One per stream of work, like a scankit::context.
class indexer {
 public:
  /// The field and row ends of `bytes` bytes of text at d_text (device
  /// memory), read with `fmt`. Synchronizes ctx.stream() (the counts size
  /// the output); the index is complete on return. A text that ends inside
  /// a quoted section throws std::invalid_argument. Empty text: no fields,
  /// no rows.
  text_index run(scankit::context& ctx, const char* d_text, std::size_t bytes, const format& fmt = {}) {
    if (bytes > 0 && d_text == nullptr) throw std::invalid_argument("csv::indexer::run: null text with bytes > 0");
    if (fmt.delimiter == fmt.quote || fmt.delimiter == fmt.newline || fmt.quote == fmt.newline)
      throw std::invalid_argument("csv::indexer::run: delimiter, quote and newline must differ");
    if (bytes == 0) return {nullptr, 0, nullptr, 0};
    const cudaStream_t stream = ctx.stream();
    const detail::byte_rule rule{fmt};
    const std::size_t segments = (bytes + detail::segment_bytes - 1) / detail::segment_bytes;
    auto* const d_summaries =
        static_cast<detail::segment_summary*>(summaries_.get(segments * sizeof(detail::segment_summary)));

    // 1-2. Summaries, then their inclusive scan in place.
    detail::summarize_segments<<<detail::blocks_for(segments), 256, 0, stream>>>(d_text, bytes, rule, d_summaries,
                                                                                 segments);
    detail::check(cudaGetLastError(), "csv summarize kernel launch");
    scankit::device::inclusive_scan(ctx, d_summaries, d_summaries, segments, detail::compose_summaries{});
    detail::segment_summary total{};
    detail::check(cudaMemcpyAsync(&total, d_summaries + segments - 1, sizeof total, cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync");
    detail::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (detail::apply(total.map, detail::state_u) == detail::state_q)
      throw std::invalid_argument("csv::indexer::run: the text ends inside a quoted field");

    // 3. The ends, one more field and row where the text leaves them open.
    const std::size_t fields = total.fields[detail::state_u] + 1, rows = total.rows[detail::state_u] + 1;
    auto* const d_field_ends = static_cast<std::uint64_t*>(field_ends_.get(fields * sizeof(std::uint64_t)));
    auto* const d_row_ends = static_cast<std::uint64_t*>(row_ends_.get(rows * sizeof(std::uint64_t)));
    auto* const d_totals = static_cast<std::uint64_t*>(totals_.get(2 * sizeof(std::uint64_t)));
    detail::emit_ends<<<detail::blocks_for(segments), 256, 0, stream>>>(d_text, bytes, rule, d_summaries, segments,
                                                                        d_field_ends, d_row_ends, d_totals);
    detail::check(cudaGetLastError(), "csv emit kernel launch");
    std::uint64_t counts[2] = {};
    detail::check(cudaMemcpyAsync(counts, d_totals, sizeof counts, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    detail::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return {d_field_ends, std::size_t(counts[0]), d_row_ends, std::size_t(counts[1])};
  }

 private:
  detail::device_array summaries_, field_ends_, row_ends_, totals_;
};

}  // namespace csv
