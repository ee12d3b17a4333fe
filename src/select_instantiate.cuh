// src/select_instantiate.cuh — defines the host API's typed selection calls
// (by predicate, unique, run-length encoding) for one item type; each
// src/select_<type>.cu includes this once.
#pragma once

#include <scankit/device/select.cuh>
#include <scankit/select.hpp>

#include <stdexcept>

namespace scankit::detail {

/// Calls f(value) with a typed null pointer for 4- or 8-byte values.
template <class F>
std::size_t with_value_word(std::size_t value_bytes, F&& f) {
  if (value_bytes == 4) return f(static_cast<std::uint32_t*>(nullptr));
  if (value_bytes == 8) return f(static_cast<std::uint64_t*>(nullptr));
  throw std::invalid_argument("scankit: values of 4 or 8 bytes only");
}

}  // namespace scankit::detail

#define SCANKIT_DEFINE_SELECT(T)                                                                                  \
  std::size_t scankit::detail::compact_if(context& ctx, const T* d_in, T* d_out, std::size_t n,                  \
                                          const predicate<T>& pred, std::size_t* d_count,                        \
                                          const scan_policy& policy) {                                           \
    const char* name = d_count ? "compact_if_async" : "compact_if";                                              \
    return run_select<select_mode::compact>(ctx, device::detail_select::plain_arrays(d_in, d_out),               \
                                            predicate_selector<predicate<T>>(pred, name), n, d_count, policy,    \
                                            name);                                                                \
  }                                                                                                               \
  std::size_t scankit::detail::compact_pairs_if(context& ctx, const T* d_keys_in, const void* d_values_in,       \
                                                T* d_keys_out, void* d_values_out, std::size_t value_bytes,      \
                                                std::size_t n, const predicate<T>& pred, std::size_t* d_count,   \
                                                const scan_policy& policy) {                                     \
    const char* name = d_count ? "compact_pairs_if_async" : "compact_pairs_if";                                  \
    return with_value_word(value_bytes, [&](auto* value) -> std::size_t {                                        \
      using V = std::remove_pointer_t<decltype(value)>;                                                          \
      return run_select<select_mode::compact>(                                                                   \
          ctx,                                                                                                    \
          device::detail_select::pair_arrays(d_keys_in, static_cast<const V*>(d_values_in), nullptr, 0,          \
                                             d_keys_out, static_cast<V*>(d_values_out)),                         \
          predicate_selector<predicate<T>>(pred, name), n, d_count, policy, name);                               \
    });                                                                                                           \
  }                                                                                                               \
  std::size_t scankit::detail::partition_if(context& ctx, const T* d_in, T* d_out, std::size_t n,                \
                                            const predicate<T>& pred, std::size_t* d_count,                      \
                                            const scan_policy& policy) {                                         \
    const char* name = d_count ? "partition_if_async" : "partition_if";                                          \
    return run_select<select_mode::partition>(ctx, device::detail_select::plain_arrays(d_in, d_out),             \
                                              predicate_selector<predicate<T>>(pred, name), n, d_count, policy,  \
                                              name);                                                              \
  }                                                                                                               \
  std::size_t scankit::detail::unique(context& ctx, const T* d_in, T* d_out, std::size_t n, std::size_t* d_count, \
                                      const scan_policy& policy) {                                               \
    return run_select<select_mode::compact>(ctx, device::detail_select::plain_arrays(d_in, d_out),               \
                                            run_head_selector<equal_to>{}, n, d_count, policy,                   \
                                            d_count ? "unique_async" : "unique");                                \
  }                                                                                                               \
  std::size_t scankit::detail::run_length_encode(context& ctx, const T* d_in, T* d_unique_out, void* d_lengths,  \
                                                 std::size_t length_bytes, std::size_t n, std::size_t* d_count,  \
                                                 const scan_policy& policy) {                                    \
    const char* name = d_count ? "run_length_encode_async" : "run_length_encode";                                \
    return with_value_word(length_bytes, [&](auto* length) -> std::size_t {                                      \
      using L = std::remove_pointer_t<decltype(length)>;                                                         \
      return device::detail_select::run_length_encode(ctx, d_in, d_unique_out, static_cast<L*>(d_lengths), n,    \
                                                      d_count, equal_to{}, policy, name);                        \
    });                                                                                                           \
  }
