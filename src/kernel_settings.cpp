// src/kernel_settings.cpp — per-device kernel settings (detail/kernel_settings.hpp).
#include <scankit/detail/kernel_settings.hpp>
#include <scankit/error.hpp>

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <tuple>

namespace scankit::detail {
namespace {

using kernel_key = std::tuple<const void*, int, std::size_t, int>;  // kernel, threads, shared bytes, device

std::mutex settings_mutex;
std::map<kernel_key, int> blocks_per_sm;  // guarded by settings_mutex

}  // namespace

int current_device() {
  int device = 0;
  throw_on_cuda_error(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

int prepare_kernel(const void* kernel, int block_threads, std::size_t smem_bytes) {
  const kernel_key key{kernel, block_threads, smem_bytes, current_device()};
  {
    const std::lock_guard<std::mutex> lock(settings_mutex);
    if (const auto it = blocks_per_sm.find(key); it != blocks_per_sm.end()) return it->second;
  }
  // Asked outside the lock: both calls are idempotent, so two threads that
  // race here store the same answer.
  throw_on_cuda_error(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes)),
                      "cudaFuncSetAttribute");
  int blocks = 0;
  throw_on_cuda_error(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_threads, smem_bytes),
                      "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (blocks < 1) blocks = 1;
  const std::lock_guard<std::mutex> lock(settings_mutex);
  blocks_per_sm.emplace(key, blocks);
  return blocks;
}

}  // namespace scankit::detail
