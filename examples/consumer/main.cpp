// examples/consumer/main.cpp — scankit from plain C++ (compiled by g++):
// running sums and offsets of 1,000,000 ints on the GPU, checked on the host.
// Exit codes: 0 verified, 1 wrong result, 3 no GPU (scankit::cuda_error).
#include <scankit/scankit.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdint>
#include <vector>

// Minimal CUDA error check for this example's own runtime calls.
static void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw scankit::cuda_error(call, status, cudaGetErrorString(status));
}

int main() {
  const std::size_t n = 1000000;
  std::vector<std::int32_t> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = std::int32_t(i % 7) - 3;

  try {
    scankit::context ctx;  // default stream, cached temporary storage
    std::int32_t *d_in = nullptr, *d_out = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&d_in), n * sizeof(std::int32_t)), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&d_out), n * sizeof(std::int32_t)), "cudaMalloc");
    check(cudaMemcpy(d_in, host.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice), "cudaMemcpy");

    scankit::inclusive_scan(ctx, d_in, d_out, n);     // out[i] = in[0] + ... + in[i]
    std::vector<std::int32_t> sums(n);
    check(cudaMemcpy(sums.data(), d_out, n * sizeof(std::int32_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
    scankit::exclusive_scan(ctx, d_in, d_out, n, 100, scankit::op::plus);  // offsets from 100
    std::vector<std::int32_t> offsets(n);
    check(cudaMemcpy(offsets.data(), d_out, n * sizeof(std::int32_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
    cudaFree(d_in);
    cudaFree(d_out);

    std::int64_t running = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (offsets[i] != 100 + running) return std::printf("wrong offset at %zu\n", i), 1;
      running += host[i];
      if (sums[i] != running) return std::printf("wrong sum at %zu\n", i), 1;
    }
    std::printf("consumer: scanned %zu ints on the GPU from g++-compiled code: correct\n", n);
    return 0;
  } catch (const scankit::cuda_error& e) {
    std::printf("consumer: %s\n", e.what());
    return 3;
  }
}
