// scankit/select.hpp — stream compaction, partition, unique and run-length
// encoding, host API. Plain C++: callable from a .cpp compiled by any C++17
// compiler; link scankit::scankit.
//
//   std::size_t kept = scankit::compact(ctx, d_in, d_flags, d_out, n);       // flags: uint8_t, bool, int32_t
//   std::size_t big  = scankit::compact_if(ctx, d_in, d_out, n, scankit::greater(100));
//   std::size_t runs = scankit::run_length_encode(ctx, d_in, d_unique, d_lengths, n);
//
// Items: int32, uint32, int64, uint64, float, double. Flags: uint8_t, bool or
// int32_t, selected when non-zero. Predicates: scankit/select_predicate.hpp.
//
// The plain functions return the count and synchronize ctx.stream(); each
// has an _async twin that writes the count to *d_count (device memory) and
// does not synchronize (usable under CUDA graph capture). Every function
// takes an optional scan policy: the default runs one single-pass kernel
// (count and scatter by decoupled look-back); a textbook policy runs mark →
// scan (with that policy) → scatter. Errors: std::invalid_argument before
// any launch (null pointers with n > 0, overlapping arrays except an in-place
// item output where allowed, bad policy sizes, a predicate whose kind is no
// scankit::compare), scankit::cuda_error if CUDA fails. n == 0 gives a count
// of 0.
#pragma once

#include <scankit/context.hpp>
#include <scankit/error.hpp>
#include <scankit/policy.hpp>
#include <scankit/select_predicate.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace scankit {

namespace detail {

template <class T>
inline constexpr bool is_host_item =
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::uint64_t> || std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class F>
inline constexpr bool is_host_flag =
    std::is_same_v<F, std::uint8_t> || std::is_same_v<F, bool> || std::is_same_v<F, std::int32_t>;
template <class T>
struct identity {
  using type = T;
};
template <class T>
using non_deduced = typename identity<T>::type;

/// A selection call with the item and value types erased to their sizes
/// (compaction by flags only moves bytes).
struct flagged_call {
  const void* d_in;
  const void* d_flags;
  const void* d_values_in;  // null: no values
  void* d_out;
  void* d_values_out;
  std::size_t item_bytes;   // 4 or 8
  std::size_t value_bytes;  // 0 (no values), 4 or 8
  std::size_t flag_bytes;   // 1 (uint8_t, bool) or 4 (int32_t)
  std::size_t n;
  std::size_t* d_count;     // null: return the count (synchronizing)
  scan_policy policy;
};
std::size_t compact_flagged(context& ctx, const flagged_call& call);
std::size_t partition_flagged(context& ctx, const flagged_call& call);

/// Calls by predicate, unique and run-length encoding keep the item type.
#define SCANKIT_DECLARE_SELECT(T)                                                                                \
  std::size_t compact_if(context& ctx, const T* d_in, T* d_out, std::size_t n, const predicate<T>& pred,       \
                         std::size_t* d_count, const scan_policy& policy);                                     \
  std::size_t compact_pairs_if(context& ctx, const T* d_keys_in, const void* d_values_in, T* d_keys_out,        \
                               void* d_values_out, std::size_t value_bytes, std::size_t n,                     \
                               const predicate<T>& pred, std::size_t* d_count, const scan_policy& policy);     \
  std::size_t partition_if(context& ctx, const T* d_in, T* d_out, std::size_t n, const predicate<T>& pred,     \
                           std::size_t* d_count, const scan_policy& policy);                                   \
  std::size_t unique(context& ctx, const T* d_in, T* d_out, std::size_t n, std::size_t* d_count,               \
                     const scan_policy& policy);                                                               \
  std::size_t run_length_encode(context& ctx, const T* d_in, T* d_unique_out, void* d_lengths,                 \
                                std::size_t length_bytes, std::size_t n, std::size_t* d_count,                 \
                                const scan_policy& policy);
SCANKIT_DECLARE_SELECT(std::int32_t)
SCANKIT_DECLARE_SELECT(std::uint32_t)
SCANKIT_DECLARE_SELECT(std::int64_t)
SCANKIT_DECLARE_SELECT(std::uint64_t)
SCANKIT_DECLARE_SELECT(float)
SCANKIT_DECLARE_SELECT(double)
#undef SCANKIT_DECLARE_SELECT

template <class T, class V = std::int32_t, class F = std::uint8_t>
constexpr void check_select_types() {
  static_assert(is_host_item<T>, "scankit host API items: int32, uint32, int64, uint64, float, double");
  static_assert(is_host_item<V>, "scankit host API values: int32, uint32, int64, uint64, float, double");
  static_assert(is_host_flag<F>, "scankit host API flags: uint8_t, bool or int32_t");
}

template <class T, class F>
flagged_call make_flagged_call(const T* d_in, const F* d_flags, T* d_out, std::size_t n, std::size_t* d_count,
                               const scan_policy& policy) {
  return {d_in, d_flags, nullptr, d_out, nullptr, sizeof(T), 0, sizeof(F), n, d_count, policy};
}
template <class K, class V, class F>
flagged_call make_flagged_pairs_call(const K* d_keys_in, const V* d_values_in, const F* d_flags, K* d_keys_out,
                                     V* d_values_out, std::size_t n, std::size_t* d_count, const scan_policy& policy) {
  return {d_keys_in, d_flags, d_values_in, d_keys_out, d_values_out, sizeof(K), sizeof(V), sizeof(F), n, d_count,
          policy};
}

}  // namespace detail

// ---- compact ----------------------------------------------------------------

/// Copies, in order, the items whose flag is non-zero to d_out; returns how
/// many (synchronizes). d_out == d_in (in place) is allowed.
template <class T, class F>
std::size_t compact(context& ctx, const T* d_in, const F* d_flags, T* d_out, std::size_t n,
                    const scan_policy& policy = {}) {
  detail::check_select_types<T, std::int32_t, F>();
  return detail::compact_flagged(ctx, detail::make_flagged_call(d_in, d_flags, d_out, n, nullptr, policy));
}
/// compact, writing the count to *d_count (device memory) without synchronizing.
template <class T, class F>
void compact_async(context& ctx, const T* d_in, const F* d_flags, T* d_out, std::size_t n, std::size_t* d_count,
                   const scan_policy& policy = {}) {
  detail::check_select_types<T, std::int32_t, F>();
  if (d_count == nullptr) throw std::invalid_argument("scankit::compact_async: d_count is null");
  detail::compact_flagged(ctx, detail::make_flagged_call(d_in, d_flags, d_out, n, d_count, policy));
}

/// Copies, in order, the items x for which `pred` holds (e.g. greater(0)).
template <class T>
std::size_t compact_if(context& ctx, const T* d_in, T* d_out, std::size_t n, const detail::non_deduced<predicate<T>>& pred,
                       const scan_policy& policy = {}) {
  detail::check_select_types<T>();
  return detail::compact_if(ctx, d_in, d_out, n, pred, nullptr, policy);
}
/// compact_if, writing the count to *d_count without synchronizing.
template <class T>
void compact_if_async(context& ctx, const T* d_in, T* d_out, std::size_t n,
                      const detail::non_deduced<predicate<T>>& pred, std::size_t* d_count,
                      const scan_policy& policy = {}) {
  detail::check_select_types<T>();
  if (d_count == nullptr) throw std::invalid_argument("scankit::compact_if_async: d_count is null");
  detail::compact_if(ctx, d_in, d_out, n, pred, d_count, policy);
}

/// Key/value pairs whose flag is non-zero: the keys and their values, in
/// order. Keys may be compacted in place; the values may not overlap.
template <class K, class V, class F>
std::size_t compact_pairs(context& ctx, const K* d_keys_in, const V* d_values_in, const F* d_flags, K* d_keys_out,
                          V* d_values_out, std::size_t n, const scan_policy& policy = {}) {
  detail::check_select_types<K, V, F>();
  return detail::compact_flagged(
      ctx, detail::make_flagged_pairs_call(d_keys_in, d_values_in, d_flags, d_keys_out, d_values_out, n, nullptr, policy));
}
/// compact_pairs, writing the count to *d_count without synchronizing.
template <class K, class V, class F>
void compact_pairs_async(context& ctx, const K* d_keys_in, const V* d_values_in, const F* d_flags, K* d_keys_out,
                         V* d_values_out, std::size_t n, std::size_t* d_count, const scan_policy& policy = {}) {
  detail::check_select_types<K, V, F>();
  if (d_count == nullptr) throw std::invalid_argument("scankit::compact_pairs_async: d_count is null");
  detail::compact_flagged(
      ctx, detail::make_flagged_pairs_call(d_keys_in, d_values_in, d_flags, d_keys_out, d_values_out, n, d_count, policy));
}

/// Key/value pairs whose key satisfies `pred`.
template <class K, class V>
std::size_t compact_pairs_if(context& ctx, const K* d_keys_in, const V* d_values_in, K* d_keys_out, V* d_values_out,
                             std::size_t n, const detail::non_deduced<predicate<K>>& pred,
                             const scan_policy& policy = {}) {
  detail::check_select_types<K, V>();
  return detail::compact_pairs_if(ctx, d_keys_in, d_values_in, d_keys_out, d_values_out, sizeof(V), n, pred, nullptr,
                                  policy);
}
/// compact_pairs_if, writing the count to *d_count without synchronizing.
template <class K, class V>
void compact_pairs_if_async(context& ctx, const K* d_keys_in, const V* d_values_in, K* d_keys_out, V* d_values_out,
                            std::size_t n, const detail::non_deduced<predicate<K>>& pred, std::size_t* d_count,
                            const scan_policy& policy = {}) {
  detail::check_select_types<K, V>();
  if (d_count == nullptr) throw std::invalid_argument("scankit::compact_pairs_if_async: d_count is null");
  detail::compact_pairs_if(ctx, d_keys_in, d_values_in, d_keys_out, d_values_out, sizeof(V), n, pred, d_count, policy);
}

// ---- partition --------------------------------------------------------------

/// Stable two-way partition into d_out (must not overlap d_in): the items
/// whose flag is non-zero in order, then the others in order. Returns the
/// number selected.
template <class T, class F>
std::size_t partition(context& ctx, const T* d_in, const F* d_flags, T* d_out, std::size_t n,
                      const scan_policy& policy = {}) {
  detail::check_select_types<T, std::int32_t, F>();
  return detail::partition_flagged(ctx, detail::make_flagged_call(d_in, d_flags, d_out, n, nullptr, policy));
}
/// partition, writing the selected count to *d_count without synchronizing.
template <class T, class F>
void partition_async(context& ctx, const T* d_in, const F* d_flags, T* d_out, std::size_t n, std::size_t* d_count,
                     const scan_policy& policy = {}) {
  detail::check_select_types<T, std::int32_t, F>();
  if (d_count == nullptr) throw std::invalid_argument("scankit::partition_async: d_count is null");
  detail::partition_flagged(ctx, detail::make_flagged_call(d_in, d_flags, d_out, n, d_count, policy));
}

/// Stable partition by predicate: items satisfying `pred`, then the others.
template <class T>
std::size_t partition_if(context& ctx, const T* d_in, T* d_out, std::size_t n,
                         const detail::non_deduced<predicate<T>>& pred, const scan_policy& policy = {}) {
  detail::check_select_types<T>();
  return detail::partition_if(ctx, d_in, d_out, n, pred, nullptr, policy);
}
/// partition_if, writing the selected count to *d_count without synchronizing.
template <class T>
void partition_if_async(context& ctx, const T* d_in, T* d_out, std::size_t n,
                        const detail::non_deduced<predicate<T>>& pred, std::size_t* d_count,
                        const scan_policy& policy = {}) {
  detail::check_select_types<T>();
  if (d_count == nullptr) throw std::invalid_argument("scankit::partition_if_async: d_count is null");
  detail::partition_if(ctx, d_in, d_out, n, pred, d_count, policy);
}

// ---- unique and run-length encoding -----------------------------------------

/// Drops consecutive duplicates (operator==; NaN != NaN): the first item of
/// every run of equal items, in order. d_out == d_in allowed. Returns how many.
template <class T>
std::size_t unique(context& ctx, const T* d_in, T* d_out, std::size_t n, const scan_policy& policy = {}) {
  detail::check_select_types<T>();
  return detail::unique(ctx, d_in, d_out, n, nullptr, policy);
}
/// unique, writing the count to *d_count without synchronizing.
template <class T>
void unique_async(context& ctx, const T* d_in, T* d_out, std::size_t n, std::size_t* d_count,
                  const scan_policy& policy = {}) {
  detail::check_select_types<T>();
  if (d_count == nullptr) throw std::invalid_argument("scankit::unique_async: d_count is null");
  detail::unique(ctx, d_in, d_out, n, d_count, policy);
}

/// Run-length encoding: the first item of every run of equal items
/// (d_unique_out, may be d_in) and each run's length (uint32_t lengths need
/// n < 2^32, else std::invalid_argument; uint64_t lengths take any n). Both
/// outputs need room for n items (the most runs there can be).
/// Returns the number of runs.
template <class T, class L>
std::size_t run_length_encode(context& ctx, const T* d_in, T* d_unique_out, L* d_lengths, std::size_t n,
                              const scan_policy& policy = {}) {
  detail::check_select_types<T>();
  static_assert(std::is_same_v<L, std::uint32_t> || std::is_same_v<L, std::uint64_t>,
                "scankit host API run lengths: uint32_t or uint64_t");
  return detail::run_length_encode(ctx, d_in, d_unique_out, d_lengths, sizeof(L), n, nullptr, policy);
}
/// run_length_encode, writing the number of runs to *d_num_runs without
/// synchronizing.
template <class T, class L>
void run_length_encode_async(context& ctx, const T* d_in, T* d_unique_out, L* d_lengths, std::size_t n,
                             std::size_t* d_num_runs, const scan_policy& policy = {}) {
  detail::check_select_types<T>();
  static_assert(std::is_same_v<L, std::uint32_t> || std::is_same_v<L, std::uint64_t>,
                "scankit host API run lengths: uint32_t or uint64_t");
  if (d_num_runs == nullptr) throw std::invalid_argument("scankit::run_length_encode_async: d_num_runs is null");
  detail::run_length_encode(ctx, d_in, d_unique_out, d_lengths, sizeof(L), n, d_num_runs, policy);
}

}  // namespace scankit
