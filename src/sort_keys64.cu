// src/sort_keys64.cu — the host API's radix sort of 8-byte keys.
#include "sort_instantiate.cuh"

void scankit::detail::radix_sort_keys64(context& ctx, const radix_sort_call& c) {
  radix_sort_words<std::uint64_t>(ctx, c);
}
