// src/sort_keys32.cu — the host API's radix sort of 4-byte keys.
#include "sort_instantiate.cuh"

void scankit::detail::radix_sort_keys32(context& ctx, const radix_sort_call& c) {
  radix_sort_words<std::uint32_t>(ctx, c);
}
