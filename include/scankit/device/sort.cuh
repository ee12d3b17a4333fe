// scankit/device/sort.cuh — radix sort, template API for .cu callers: keys of
// any 4- or 8-byte integer or floating-point type, values of any trivially
// copyable type of up to 16 bytes.
//
//   scankit::device::radix_sort_pairs(ctx, d_keys, d_keys_out, d_points, d_points_out, n);
//
// A least-significant-digit radix sort in 8-bit digits: one read of the keys
// counts every pass's digits, then each pass is one kernel per portion of
// at most 2^26 keys (onesweep: each tile ranks its keys by digit and finds
// where they go by decoupled look-back on the shared tile-status component,
// so a pass reads and writes the keys once). Ordering, stability, in place,
// storage and errors as the host API (scankit/sort.hpp). Asynchronous.
#pragma once

#include <scankit/context.hpp>
#include <scankit/detail/no_values.hpp>
#include <scankit/detail/sort/radix_key.cuh>
#include <scankit/detail/sort/sort_dispatch.cuh>
#include <scankit/sort.hpp>

#include <cstddef>
#include <type_traits>

namespace scankit::device {

/// Sorts n keys from d_keys_in into d_keys_out (which may be d_keys_in) by
/// bits [begin_bit, end_bit). Stable. Asynchronous.
template <class K>
void radix_sort_keys(context& ctx, const K* d_keys_in, K* d_keys_out, std::size_t n,
                     sort_order order = sort_order::ascending, int begin_bit = 0, int end_bit = int(sizeof(K) * 8)) {
  static_assert(detail::is_sort_key<K>, "scankit::device::radix_sort_keys: 4- or 8-byte integer or floating keys");
  using Bits = detail::radix_bits_t<K>;
  detail::radix_sort_bits<Bits, detail::no_values>(ctx, reinterpret_cast<const Bits*>(d_keys_in),
                                                   reinterpret_cast<Bits*>(d_keys_out), nullptr, nullptr, n,
                                                   detail::radix_kind_of<K>, order, begin_bit, end_bit,
                                                   "device::radix_sort_keys");
}

/// Sorts n keys and moves each key's value with it. Outputs may be their
/// inputs. Stable. Asynchronous.
template <class K, class V>
void radix_sort_pairs(context& ctx, const K* d_keys_in, K* d_keys_out, const V* d_values_in, V* d_values_out,
                      std::size_t n, sort_order order = sort_order::ascending, int begin_bit = 0,
                      int end_bit = int(sizeof(K) * 8)) {
  static_assert(detail::is_sort_key<K>, "scankit::device::radix_sort_pairs: 4- or 8-byte integer or floating keys");
  static_assert(std::is_trivially_copyable_v<V> && sizeof(V) <= 16,
                "scankit::device::radix_sort_pairs: trivially copyable values of at most 16 bytes");
  using Bits = detail::radix_bits_t<K>;
  detail::radix_sort_bits<Bits, V>(ctx, reinterpret_cast<const Bits*>(d_keys_in), reinterpret_cast<Bits*>(d_keys_out),
                                   d_values_in, d_values_out, n, detail::radix_kind_of<K>, order, begin_bit, end_bit,
                                   "device::radix_sort_pairs");
}

/// Bytes of a caller workspace for sorting n keys of K (with values of V;
/// void: keys only), over any bit range.
template <class K, class V = void>
std::size_t radix_sort_workspace_bytes(std::size_t n) {
  using Value = std::conditional_t<std::is_void_v<V>, detail::no_values, V>;
  return detail::radix_sort_workspace_bytes_for<detail::radix_bits_t<K>, Value>(n);
}

}  // namespace scankit::device
