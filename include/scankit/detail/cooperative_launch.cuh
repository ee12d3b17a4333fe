// detail/cooperative_launch.cuh — a cooperative launch: every block of the
// grid is resident at once (or nothing is launched), so blocks may wait for
// one another's results.
#pragma once

#include <scankit/detail/dependent_launch.cuh>
#include <scankit/error.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace scankit::detail {

/// Launches kernel<<<blocks, threads, smem_bytes, stream>>>(args...) as a
/// cooperative grid. Returns false, having launched nothing, when the grid
/// cannot be resident at once (fewer multiprocessors free for it than the
/// grid was sized for) or the device has no cooperative launch; throws on
/// any other error.
template <class... Params, class... Args>
bool try_launch_cooperative(void (*kernel)(Params...), unsigned blocks, unsigned threads, std::size_t smem_bytes,
                            cudaStream_t stream, const char* what, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeCooperative;
  attribute.val.cooperative = 1;
  const cudaLaunchConfig_t config = launch_config(blocks, threads, smem_bytes, stream, &attribute);
  const cudaError_t error = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
  if (error == cudaErrorCooperativeLaunchTooLarge || error == cudaErrorNotSupported) {
    (void)cudaGetLastError();  // not sticky: clear it, the caller launches another way
    return false;
  }
  throw_on_cuda_error(error, what);
  return true;
}

}  // namespace scankit::detail
