// src/kernel_settings.cpp — per-device kernel settings (detail/kernel_settings.hpp).
#include <scankit/detail/kernel_settings.hpp>
#include <scankit/error.hpp>

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <tuple>
#include <utility>

namespace scankit::detail {
namespace {

using kernel_on_device = std::pair<const void*, int>;                      // kernel, device
using launch_shape_key = std::tuple<const void*, int, std::size_t, int>;  // kernel, threads, shared bytes, device

/// What has been set and asked so far. Built on first use (so calls from
/// other translation units' static constructors find it built).
struct kernel_settings {
  std::mutex mutex;
  std::map<kernel_on_device, std::size_t> smem_limit;  // the dynamic shared-memory limit set on each
  std::map<launch_shape_key, int> blocks_per_sm;
};

kernel_settings& settings() {
  static kernel_settings* const s = new kernel_settings;  // never destroyed: calls from static destructors work
  return *s;
}

}  // namespace

int current_device() {
  int device = 0;
  throw_on_cuda_error(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

int prepare_kernel(const void* kernel, int block_threads, std::size_t smem_bytes) {
  const int device = current_device();
  kernel_settings& s = settings();
  const std::lock_guard<std::mutex> lock(s.mutex);
  const launch_shape_key key{kernel, block_threads, smem_bytes, device};
  if (const auto it = s.blocks_per_sm.find(key); it != s.blocks_per_sm.end()) return it->second;
  // The limit is one per kernel and device: only ever raised, so a smaller
  // shape prepared later never takes room from a larger one prepared before.
  std::size_t& limit = s.smem_limit[{kernel, device}];
  if (smem_bytes > limit) {
    throw_on_cuda_error(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes)),
                        "cudaFuncSetAttribute");
    limit = smem_bytes;
  }
  int blocks = 0;
  throw_on_cuda_error(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_threads, smem_bytes),
                      "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (blocks < 1) blocks = 1;
  s.blocks_per_sm.emplace(key, blocks);
  return blocks;
}

}  // namespace scankit::detail
