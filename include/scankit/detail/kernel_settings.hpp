// detail/kernel_settings.hpp — what a kernel needs set, and what it can get,
// on the GPU it is about to run on. A kernel's dynamic shared-memory limit and
// its resident blocks per SM belong to one device, so they are set and asked
// once per kernel, launch shape and device, then remembered. Plain C++.
#pragma once

#include <cstddef>

namespace scankit::detail {

/// Prepares `kernel` for blocks of `block_threads` threads with `smem_bytes`
/// of dynamic shared memory on the current device (raises its dynamic
/// shared-memory limit to at least `smem_bytes`; never lowers it) and returns
/// how many such blocks one SM holds at once, at least 1. The first call per
/// kernel, shape and device asks the CUDA runtime; later ones return what it
/// said. Thread-safe.
int prepare_kernel(const void* kernel, int block_threads, std::size_t smem_bytes);

/// prepare_kernel for a typed kernel pointer.
template <class Kernel>
int prepare_kernel(Kernel* kernel, int block_threads, std::size_t smem_bytes) {
  return prepare_kernel(reinterpret_cast<const void*>(kernel), block_threads, smem_bytes);
}

/// The device current on the calling thread.
int current_device();

}  // namespace scankit::detail
