// src/sort_instantiate.cuh — the host API's radix sort for keys of one word
// size: keys move as their bits (the key's kind says how to order them) and
// values as 4- or 8-byte words, so three onesweep kernels serve every host
// key and value type of that key size. src/sort_keys<bits>.cu include it.
#pragma once

#include <scankit/detail/sort/sort_dispatch.cuh>
#include <scankit/sort.hpp>

#include <cstdint>
#include <stdexcept>

namespace scankit::detail {

/// detail::radix_sort for keys of Bits.
template <class Bits>
void radix_sort_words(context& ctx, const radix_sort_call& c) {
  const auto* keys_in = static_cast<const Bits*>(c.d_keys_in);
  auto* keys_out = static_cast<Bits*>(c.d_keys_out);
  auto sort = [&](auto* value_word) {
    using Value = std::remove_pointer_t<decltype(value_word)>;
    radix_sort_bits<Bits, Value>(ctx, keys_in, keys_out, static_cast<const Value*>(c.d_values_in),
                                 static_cast<Value*>(c.d_values_out), c.n, c.kind, c.order, c.begin_bit, c.end_bit,
                                 c.name);
  };
  switch (c.value_bytes) {
    case 0: return sort(static_cast<no_values*>(nullptr));
    case 4: return sort(static_cast<std::uint32_t*>(nullptr));
    case 8: return sort(static_cast<std::uint64_t*>(nullptr));
    default: throw std::invalid_argument(std::string("scankit::") + c.name + ": values of 4 or 8 bytes");
  }
}

/// The sorts of src/sort_keys32.cu and src/sort_keys64.cu.
void radix_sort_keys32(context& ctx, const radix_sort_call& c);
void radix_sort_keys64(context& ctx, const radix_sort_call& c);

}  // namespace scankit::detail
