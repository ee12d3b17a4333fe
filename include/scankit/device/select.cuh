// scankit/device/select.cuh — stream compaction, partition, unique and
// run-length encoding, template API for .cu callers: any trivially copyable
// item type, any flag type (selected when it converts to true), any device
// predicate or equality functor.
//
//   auto positive = [] __device__ (float x) { return x > 0.f; };
//   std::size_t kept = scankit::device::compact_if(ctx, d_in, d_out, n, positive);
//
// Each call is one pass over the input (the default policy): tiles count
// their selected items and find their output position by decoupled
// look-back in the same kernel. A textbook scan policy (scankit/policy.hpp)
// runs the classic mark → scan → scatter instead, with that policy's scan.
//
// Counts: the plain functions return the count and synchronize ctx.stream();
// the _async twins write it to *d_count (device memory, std::size_t) and do
// not synchronize. Errors: std::invalid_argument before any launch (null
// pointers with n > 0, overlapping arrays other than the allowed in-place
// item output, bad policy sizes), scankit::cuda_error if CUDA fails.
#pragma once

#include <scankit/context.hpp>
#include <scankit/detail/select/select_dispatch.cuh>
#include <scankit/policy.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace scankit::device {

/// a == b with the type's operator== (NaN != NaN, -0 == +0, as thrust::unique).
using detail::equal_to;

namespace detail_select {
template <class Flag>
scankit::detail::flag_selector<Flag> flags_of(const Flag* d_flags) {
  return {d_flags};
}
template <class T, class Flag>
scankit::detail::select_arrays<T, scankit::detail::no_values> flagged_arrays(const T* d_in, const Flag* d_flags,
                                                                             T* d_out) {
  scankit::detail::select_arrays<T, scankit::detail::no_values> a;
  a.d_in = d_in;
  a.d_flags = d_flags;
  a.flag_bytes = sizeof(Flag);
  a.d_out = d_out;
  return a;
}
template <class T>
scankit::detail::select_arrays<T, scankit::detail::no_values> plain_arrays(const T* d_in, T* d_out) {
  scankit::detail::select_arrays<T, scankit::detail::no_values> a;
  a.d_in = d_in;
  a.d_out = d_out;
  return a;
}
template <class K, class V>
scankit::detail::select_arrays<K, V> pair_arrays(const K* d_keys_in, const V* d_values_in, const void* d_flags,
                                                 std::size_t flag_bytes, K* d_keys_out, V* d_values_out) {
  scankit::detail::select_arrays<K, V> a;
  a.d_in = d_keys_in;
  a.d_values_in = d_values_in;
  a.d_flags = d_flags;
  a.flag_bytes = flag_bytes;
  a.d_out = d_keys_out;
  a.d_values_out = d_values_out;
  return a;
}
}  // namespace detail_select

using scankit::detail::select_mode;

// ---- compact ----------------------------------------------------------------

/// Copies, in order, the items whose flag is true to d_out; returns how many
/// (synchronizes). d_out == d_in (in place) is allowed.
template <class T, class Flag>
std::size_t compact(context& ctx, const T* d_in, const Flag* d_flags, T* d_out, std::size_t n,
                    const scan_policy& policy = {}) {
  return scankit::detail::run_select<select_mode::compact>(ctx, detail_select::flagged_arrays(d_in, d_flags, d_out),
                                                           detail_select::flags_of(d_flags), n, nullptr, policy,
                                                           "compact");
}
/// compact, writing the count to *d_count (device) without synchronizing.
template <class T, class Flag>
void compact_async(context& ctx, const T* d_in, const Flag* d_flags, T* d_out, std::size_t n, std::size_t* d_count,
                   const scan_policy& policy = {}) {
  if (d_count == nullptr) throw std::invalid_argument("scankit::compact_async: d_count is null");
  scankit::detail::run_select<select_mode::compact>(ctx, detail_select::flagged_arrays(d_in, d_flags, d_out),
                                                    detail_select::flags_of(d_flags), n, d_count, policy,
                                                    "compact_async");
}

/// Copies, in order, the items x with pred(x) true to d_out; returns how many.
template <class T, class Pred>
std::size_t compact_if(context& ctx, const T* d_in, T* d_out, std::size_t n, Pred pred,
                       const scan_policy& policy = {}) {
  return scankit::detail::run_select<select_mode::compact>(ctx, detail_select::plain_arrays(d_in, d_out),
                                                           scankit::detail::predicate_selector<Pred>{pred}, n,
                                                           nullptr, policy, "compact_if");
}
/// compact_if, writing the count to *d_count (device) without synchronizing.
template <class T, class Pred>
void compact_if_async(context& ctx, const T* d_in, T* d_out, std::size_t n, Pred pred, std::size_t* d_count,
                      const scan_policy& policy = {}) {
  if (d_count == nullptr) throw std::invalid_argument("scankit::compact_if_async: d_count is null");
  scankit::detail::run_select<select_mode::compact>(ctx, detail_select::plain_arrays(d_in, d_out),
                                                    scankit::detail::predicate_selector<Pred>{pred}, n, d_count,
                                                    policy, "compact_if_async");
}

/// Compacts key/value pairs by flags: the selected keys and their values, in
/// order. Keys may be compacted in place; values may not overlap.
template <class K, class V, class Flag>
std::size_t compact_pairs(context& ctx, const K* d_keys_in, const V* d_values_in, const Flag* d_flags, K* d_keys_out,
                          V* d_values_out, std::size_t n, const scan_policy& policy = {}) {
  return scankit::detail::run_select<select_mode::compact>(
      ctx, detail_select::pair_arrays(d_keys_in, d_values_in, d_flags, sizeof(Flag), d_keys_out, d_values_out),
      detail_select::flags_of(d_flags), n, nullptr, policy, "compact_pairs");
}
/// compact_pairs, writing the count to *d_count (device) without synchronizing.
template <class K, class V, class Flag>
void compact_pairs_async(context& ctx, const K* d_keys_in, const V* d_values_in, const Flag* d_flags, K* d_keys_out,
                         V* d_values_out, std::size_t n, std::size_t* d_count, const scan_policy& policy = {}) {
  if (d_count == nullptr) throw std::invalid_argument("scankit::compact_pairs_async: d_count is null");
  scankit::detail::run_select<select_mode::compact>(
      ctx, detail_select::pair_arrays(d_keys_in, d_values_in, d_flags, sizeof(Flag), d_keys_out, d_values_out),
      detail_select::flags_of(d_flags), n, d_count, policy, "compact_pairs_async");
}

/// Compacts key/value pairs whose key k has pred(k) true.
template <class K, class V, class Pred>
std::size_t compact_pairs_if(context& ctx, const K* d_keys_in, const V* d_values_in, K* d_keys_out, V* d_values_out,
                             std::size_t n, Pred pred, const scan_policy& policy = {}) {
  return scankit::detail::run_select<select_mode::compact>(
      ctx, detail_select::pair_arrays(d_keys_in, d_values_in, nullptr, 0, d_keys_out, d_values_out),
      scankit::detail::predicate_selector<Pred>{pred}, n, nullptr, policy, "compact_pairs_if");
}
/// compact_pairs_if, writing the count to *d_count (device) without synchronizing.
template <class K, class V, class Pred>
void compact_pairs_if_async(context& ctx, const K* d_keys_in, const V* d_values_in, K* d_keys_out, V* d_values_out,
                            std::size_t n, Pred pred, std::size_t* d_count, const scan_policy& policy = {}) {
  if (d_count == nullptr) throw std::invalid_argument("scankit::compact_pairs_if_async: d_count is null");
  scankit::detail::run_select<select_mode::compact>(
      ctx, detail_select::pair_arrays(d_keys_in, d_values_in, nullptr, 0, d_keys_out, d_values_out),
      scankit::detail::predicate_selector<Pred>{pred}, n, d_count, policy, "compact_pairs_if_async");
}

// ---- partition --------------------------------------------------------------

/// Stable two-way partition: the items whose flag is true in order, then the
/// others in order, all in d_out (which must not overlap d_in). Returns the
/// number selected. (The single-pass kernel counts the selected items first,
/// a read of the flags, so the rejected ones can go straight to their slots.)
template <class T, class Flag>
std::size_t partition(context& ctx, const T* d_in, const Flag* d_flags, T* d_out, std::size_t n,
                      const scan_policy& policy = {}) {
  return scankit::detail::run_select<select_mode::partition>(ctx, detail_select::flagged_arrays(d_in, d_flags, d_out),
                                                             detail_select::flags_of(d_flags), n, nullptr, policy,
                                                             "partition");
}
/// partition, writing the selected count to *d_count without synchronizing.
template <class T, class Flag>
void partition_async(context& ctx, const T* d_in, const Flag* d_flags, T* d_out, std::size_t n, std::size_t* d_count,
                     const scan_policy& policy = {}) {
  if (d_count == nullptr) throw std::invalid_argument("scankit::partition_async: d_count is null");
  scankit::detail::run_select<select_mode::partition>(ctx, detail_select::flagged_arrays(d_in, d_flags, d_out),
                                                      detail_select::flags_of(d_flags), n, d_count, policy,
                                                      "partition_async");
}

/// Stable partition by predicate: items with pred(x) true, then the others.
template <class T, class Pred>
std::size_t partition_if(context& ctx, const T* d_in, T* d_out, std::size_t n, Pred pred,
                         const scan_policy& policy = {}) {
  return scankit::detail::run_select<select_mode::partition>(ctx, detail_select::plain_arrays(d_in, d_out),
                                                             scankit::detail::predicate_selector<Pred>{pred}, n,
                                                             nullptr, policy, "partition_if");
}
/// partition_if, writing the selected count to *d_count without synchronizing.
template <class T, class Pred>
void partition_if_async(context& ctx, const T* d_in, T* d_out, std::size_t n, Pred pred, std::size_t* d_count,
                        const scan_policy& policy = {}) {
  if (d_count == nullptr) throw std::invalid_argument("scankit::partition_if_async: d_count is null");
  scankit::detail::run_select<select_mode::partition>(ctx, detail_select::plain_arrays(d_in, d_out),
                                                      scankit::detail::predicate_selector<Pred>{pred}, n, d_count,
                                                      policy, "partition_if_async");
}

// ---- unique and run-length encoding -----------------------------------------

/// Drops consecutive duplicates (eq(previous, x) true): the first item of
/// every run of equal items, in order. d_out == d_in allowed. Returns how many.
template <class T, class Eq = equal_to>
std::size_t unique(context& ctx, const T* d_in, T* d_out, std::size_t n, Eq eq = {}, const scan_policy& policy = {}) {
  return scankit::detail::run_select<select_mode::compact>(ctx, detail_select::plain_arrays(d_in, d_out),
                                                           scankit::detail::run_head_selector<Eq>{eq}, n, nullptr,
                                                           policy, "unique");
}
/// unique with operator== and an explicit scan policy.
template <class T>
std::size_t unique(context& ctx, const T* d_in, T* d_out, std::size_t n, const scan_policy& policy) {
  return unique(ctx, d_in, d_out, n, equal_to{}, policy);
}
/// unique, writing the count to *d_count (device) without synchronizing.
template <class T, class Eq = equal_to>
void unique_async(context& ctx, const T* d_in, T* d_out, std::size_t n, std::size_t* d_count, Eq eq = {},
                  const scan_policy& policy = {}) {
  if (d_count == nullptr) throw std::invalid_argument("scankit::unique_async: d_count is null");
  scankit::detail::run_select<select_mode::compact>(ctx, detail_select::plain_arrays(d_in, d_out),
                                                    scankit::detail::run_head_selector<Eq>{eq}, n, d_count, policy,
                                                    "unique_async");
}

/// Run-length encoding: the first item of every run of equal items
/// (d_unique_out, in order; may be d_in) and the run's length (d_lengths).
/// Both outputs need room for n items (the most runs there can be).
/// Returns the number of runs. A Length narrower than 64 bits needs n to fit
/// it (else std::invalid_argument).
template <class T, class Length, class Eq = equal_to>
std::size_t run_length_encode(context& ctx, const T* d_in, T* d_unique_out, Length* d_lengths, std::size_t n,
                              Eq eq = {}, const scan_policy& policy = {});
/// run_length_encode, writing the number of runs to *d_num_runs (device)
/// without synchronizing.
template <class T, class Length, class Eq = equal_to>
void run_length_encode_async(context& ctx, const T* d_in, T* d_unique_out, Length* d_lengths, std::size_t n,
                             std::size_t* d_num_runs, Eq eq = {}, const scan_policy& policy = {});

namespace detail_select {
template <class T, class Length, class Eq>
std::size_t run_length_encode(context& ctx, const T* d_in, T* d_unique_out, Length* d_lengths, std::size_t n,
                              std::size_t* d_num_runs, Eq eq, const scan_policy& policy, const char* name) {
  static_assert(std::is_integral_v<Length>, "run lengths are integers");
  if (n > std::size_t(std::numeric_limits<Length>::max()))
    throw std::invalid_argument(std::string("scankit::") + name + ": n does not fit the run-length type");
  scankit::detail::select_arrays<T, Length> a;
  a.d_in = d_in;
  a.d_out = d_unique_out;
  a.d_values_out = d_lengths;
  return scankit::detail::run_select<select_mode::run_length_encode>(
      ctx, a, scankit::detail::run_head_selector<Eq>{eq}, n, d_num_runs, policy, name);
}
}  // namespace detail_select

template <class T, class Length, class Eq>
std::size_t run_length_encode(context& ctx, const T* d_in, T* d_unique_out, Length* d_lengths, std::size_t n, Eq eq,
                              const scan_policy& policy) {
  return detail_select::run_length_encode(ctx, d_in, d_unique_out, d_lengths, n, nullptr, eq, policy,
                                          "run_length_encode");
}
template <class T, class Length, class Eq>
void run_length_encode_async(context& ctx, const T* d_in, T* d_unique_out, Length* d_lengths, std::size_t n,
                             std::size_t* d_num_runs, Eq eq, const scan_policy& policy) {
  if (d_num_runs == nullptr) throw std::invalid_argument("scankit::run_length_encode_async: d_num_runs is null");
  detail_select::run_length_encode(ctx, d_in, d_unique_out, d_lengths, n, d_num_runs, eq, policy,
                                   "run_length_encode_async");
}

}  // namespace scankit::device
