// detail/dependent_launch.cuh — programmatic dependent launch (Hopper): a
// kernel launched as the dependent of the one before it in the stream may
// start while that one still runs, and waits for it only where it needs its
// results.
#pragma once

#include <scankit/error.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace scankit::detail {

/// In the earlier kernel: its dependent may start (once every block of this
/// grid has said so or exited). Says nothing about memory: the dependent
/// sees this grid's writes only after wait_for_earlier_grid.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// In the dependent kernel: waits until the earlier kernel has finished and
/// its writes are visible. Returns at once in a kernel not launched as a
/// dependent.
__device__ __forceinline__ void wait_for_earlier_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// The configuration of a launch <<<blocks, threads, smem_bytes, stream>>>
/// with one attribute, or none where `attribute` is null (which must
/// outlive the launch call).
inline cudaLaunchConfig_t launch_config(unsigned blocks, unsigned threads, std::size_t smem_bytes,
                                        cudaStream_t stream, cudaLaunchAttribute* attribute) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  config.attrs = attribute;
  config.numAttrs = attribute != nullptr ? 1 : 0;
  return config;
}

/// Launches kernel<<<blocks, threads, smem_bytes, stream>>>(args...), as the
/// dependent of the stream's previous kernel when `dependent` is true.
template <class... Params, class... Args>
void launch_maybe_dependent(void (*kernel)(Params...), bool dependent, unsigned blocks, unsigned threads,
                            std::size_t smem_bytes, cudaStream_t stream, const char* what, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  const cudaLaunchConfig_t config =
      launch_config(blocks, threads, smem_bytes, stream, dependent ? &attribute : nullptr);
  throw_on_cuda_error(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...), what);
}

}  // namespace scankit::detail
