// detail/launch_shape.cuh — grid sizes that depend on the current GPU.
#pragma once

#include <scankit/detail/kernel_settings.hpp>
#include <scankit/error.hpp>

#include <cuda_runtime.h>

#include <cstddef>

namespace scankit::detail {

/// SMs of the current device.
inline unsigned current_sm_count() {
  int sms = 0;
  throw_on_cuda_error(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, current_device()),
                      "cudaDeviceGetAttribute");
  return unsigned(sms);
}

/// Blocks for a grid-stride kernel over n items: enough to fill the current
/// GPU (16 blocks per SM), fewer when n is small.
inline unsigned grid_stride_blocks(std::size_t n, unsigned threads) {
  const std::size_t wanted = (n + threads - 1) / threads, most = std::size_t(current_sm_count()) * 16;
  return unsigned(wanted < most ? wanted : most);
}

}  // namespace scankit::detail
