// src/error.cpp — CUDA status to scankit::cuda_error.
#include <scankit/error.hpp>

#include <cuda_runtime_api.h>

namespace scankit::detail {

void throw_on_cuda_error(int status, const char* call) {
  if (status == cudaSuccess) return;
  const auto code = static_cast<cudaError_t>(status);
  throw cuda_error(call, status, std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code));
}

}  // namespace scankit::detail
