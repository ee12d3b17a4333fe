// detail/kernels/reduce_by_key_kernel.cuh — which reduce-by-key kernel a
// key/value pair takes (reduce_by_key_shape<K, V>::in_registers): each
// thread's pairs held in registers for pairs of up to 8 bytes, the tile
// staged in shared memory for wider ones; and its dynamic shared memory.
#pragma once

#include <scankit/detail/kernels/reduce_by_key_register_kernel.cuh>
#include <scankit/detail/kernels/reduce_by_key_staged_kernel.cuh>

#include <cstddef>

namespace scankit::detail {

template <class K, class V>
constexpr std::size_t reduce_by_key_smem_bytes() {
  if constexpr (reduce_by_key_shape<K, V>::in_registers)
    return reduce_by_key_register_smem_bytes<K, V>();
  else
    return reduce_by_key_staged_smem_bytes<K, V>();
}

template <class K, class V, class Op, class Equal>
auto reduce_by_key_kernel_for() {
  if constexpr (reduce_by_key_shape<K, V>::in_registers)
    return reduce_by_key_register_kernel<K, V, Op, Equal>;
  else
    return reduce_by_key_staged_kernel<K, V, Op, Equal>;
}

}  // namespace scankit::detail
