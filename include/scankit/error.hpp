// scankit/error.hpp — the exceptions every scankit call may throw.
#pragma once

#include <stdexcept>
#include <string>

namespace scankit {

/// Thrown when a CUDA runtime call made by scankit fails. `what()` names the
/// call and carries the CUDA error string; `code()` is the raw cudaError_t
/// value (an int here so this header needs no CUDA include).
class cuda_error : public std::runtime_error {
 public:
  cuda_error(const std::string& call, int code, const std::string& message)
      : std::runtime_error("scankit: " + call + " failed: " + message + " (CUDA error " +
                           std::to_string(code) + ")"),
        call_(call),
        code_(code) {}

  /// The CUDA runtime call (or kernel launch) that failed.
  const std::string& call() const noexcept { return call_; }
  /// The cudaError_t value it returned.
  int code() const noexcept { return code_; }

 private:
  std::string call_;
  int code_;
};

namespace detail {
/// Throws cuda_error if `status` (a cudaError_t) is not cudaSuccess.
void throw_on_cuda_error(int status, const char* call);
}  // namespace detail

}  // namespace scankit
