// src/sort.cu — the host API's radix sort entry point and workspace sizing.
#include "sort_instantiate.cuh"

#include <string>

void scankit::detail::radix_sort(context& ctx, const radix_sort_call& c) {
  if (c.key_bytes == 4) return radix_sort_keys32(ctx, c);
  if (c.key_bytes == 8) return radix_sort_keys64(ctx, c);
  throw std::invalid_argument(std::string("scankit::") + c.name + ": keys of 4 or 8 bytes");
}

std::size_t scankit::radix_sort_workspace_bytes(std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
  using namespace detail;
  auto for_keys = [&](auto* key_word) -> std::size_t {
    using Bits = std::remove_pointer_t<decltype(key_word)>;
    switch (value_bytes) {
      case 0: return radix_sort_workspace_bytes_for<Bits, no_values>(n);
      case 4: return radix_sort_workspace_bytes_for<Bits, std::uint32_t>(n);
      case 8: return radix_sort_workspace_bytes_for<Bits, std::uint64_t>(n);
      default: throw std::invalid_argument("scankit::radix_sort_workspace_bytes: value_bytes must be 0, 4 or 8");
    }
  };
  if (key_bytes == 4) return for_keys(static_cast<std::uint32_t*>(nullptr));
  if (key_bytes == 8) return for_keys(static_cast<std::uint64_t*>(nullptr));
  throw std::invalid_argument("scankit::radix_sort_workspace_bytes: key_bytes must be 4 or 8");
}
