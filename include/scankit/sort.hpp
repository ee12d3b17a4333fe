// scankit/sort.hpp — radix sort of keys, or of keys with values, host API.
// Plain C++: callable from a .cpp compiled by any C++17 compiler; link
// scankit::scankit.
//
//   scankit::radix_sort_keys(ctx, d_keys, d_sorted, n);
//   scankit::radix_sort_pairs(ctx, d_keys, d_sorted_keys, d_values, d_sorted_values, n,
//                             scankit::sort_order::descending);
//
// Keys: int32, uint32, int64, uint64, float, double (any integer or floating-
// point type of 4 or 8 bytes). Values: any trivially
// copyable type of 4 or 8 bytes, aligned to its size. The sort is stable
// (equal keys keep their input order, also descending); -0.0 and +0.0 are
// equal keys, NaNs sort by their bits (positive NaNs after +inf, negative ones
// before -inf), as CUB's radix sort. Only bits [begin_bit, end_bit) of the
// keys (in the order above: a float's sign is its highest bit) are compared.
//
// Asynchronous on ctx.stream() (no host synchronization; usable under CUDA
// graph capture). The context's storage holds a second copy of the keys and
// values for the passes to alternate between (radix_sort_workspace_bytes
// sizes a caller workspace). Outputs may be the inputs (in place); no other
// overlap is allowed. Errors: std::invalid_argument before any launch (null
// pointers with n > 0, overlapping arrays, a bit range outside the key, a
// misaligned value array), scankit::cuda_error if CUDA fails. n == 0 does
// nothing.
#pragma once

#include <scankit/context.hpp>
#include <scankit/error.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace scankit {

/// The order radix_sort_keys and radix_sort_pairs sort in.
enum class sort_order { ascending, descending };

namespace detail {

/// How a key type's bits become its order (see detail/sort/radix_key.cuh).
enum class radix_key_kind : std::uint8_t { unsigned_integer, signed_integer, floating_point };

/// Keys: integer or floating-point types of 4 or 8 bytes.
template <class K>
inline constexpr bool is_sort_key =
    (std::is_integral_v<K> || std::is_floating_point_v<K>) && (sizeof(K) == 4 || sizeof(K) == 8);

/// The kind of a built-in arithmetic key type.
template <class K>
inline constexpr radix_key_kind radix_kind_of = std::is_floating_point_v<K> ? radix_key_kind::floating_point
                                                : std::is_signed_v<K>       ? radix_key_kind::signed_integer
                                                                            : radix_key_kind::unsigned_integer;

/// A sort call with the key and value types erased to their sizes and the
/// key's kind.
struct radix_sort_call {
  const void* d_keys_in;
  void* d_keys_out;
  const void* d_values_in;  // null with value_bytes == 0: keys only
  void* d_values_out;
  std::size_t key_bytes;    // 4 or 8
  std::size_t value_bytes;  // 0, 4 or 8
  radix_key_kind kind;
  std::size_t n;
  sort_order order;
  int begin_bit;
  int end_bit;
  const char* name;
};
void radix_sort(context& ctx, const radix_sort_call& call);

}  // namespace detail

/// Sorts n keys from d_keys_in into d_keys_out (which may be d_keys_in),
/// comparing bits [begin_bit, end_bit). Stable. Asynchronous.
template <class K>
void radix_sort_keys(context& ctx, const K* d_keys_in, K* d_keys_out, std::size_t n,
                     sort_order order = sort_order::ascending, int begin_bit = 0, int end_bit = int(sizeof(K) * 8)) {
  static_assert(detail::is_sort_key<K>, "scankit::radix_sort_keys: 4- or 8-byte integer or floating-point keys");
  detail::radix_sort(ctx, {d_keys_in, d_keys_out, nullptr, nullptr, sizeof(K), 0, detail::radix_kind_of<K>, n, order,
                           begin_bit, end_bit, "radix_sort_keys"});
}

/// Sorts n keys and moves each key's value with it: d_values_out[i] is the
/// value that came with d_keys_out[i]. Outputs may be their inputs. Stable.
/// Asynchronous.
template <class K, class V>
void radix_sort_pairs(context& ctx, const K* d_keys_in, K* d_keys_out, const V* d_values_in, V* d_values_out,
                      std::size_t n, sort_order order = sort_order::ascending, int begin_bit = 0,
                      int end_bit = int(sizeof(K) * 8)) {
  static_assert(detail::is_sort_key<K>, "scankit::radix_sort_pairs: 4- or 8-byte integer or floating-point keys");
  static_assert(std::is_trivially_copyable_v<V> && (sizeof(V) == 4 || sizeof(V) == 8),
                "scankit::radix_sort_pairs: values of 4 or 8 bytes (the template API in scankit/device/sort.cuh "
                "takes others)");
  detail::radix_sort(ctx, {d_keys_in, d_keys_out, d_values_in, d_values_out, sizeof(K), sizeof(V),
                           detail::radix_kind_of<K>, n, order, begin_bit, end_bit, "radix_sort_pairs"});
}

/// Bytes a caller workspace (scankit::context(stream, d_workspace, bytes))
/// needs to sort n keys of key_bytes (4 or 8) with values of value_bytes
/// (0 for keys only, 4 or 8), over any bit range.
std::size_t radix_sort_workspace_bytes(std::size_t n, std::size_t key_bytes, std::size_t value_bytes = 0);

}  // namespace scankit
