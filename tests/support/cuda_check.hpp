// tests/support/cuda_check.hpp — CUDA plumbing for the tests: every runtime
// call checked with REQUIRE, RAII device buffers and streams, and output
// poisoning. Plain C++ (CUDA runtime API only), so any test file can use it.
#pragma once

#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

/// REQUIRE that a CUDA runtime call succeeded; on failure the message names
/// the call and the CUDA error.
#define SKTEST_CUDA(call)                                                                         \
  do {                                                                                            \
    const cudaError_t sktest_status_ = (call);                                                    \
    INFO(#call << " -> " << cudaGetErrorName(sktest_status_) << ": "                              \
               << cudaGetErrorString(sktest_status_));                                            \
    REQUIRE(sktest_status_ == cudaSuccess);                                                       \
  } while (false)

/// The end of every GPU test: the device finished all work without error and
/// no launch error is pending.
#define SKTEST_REQUIRE_DEVICE_CLEAN()            \
  do {                                           \
    SKTEST_CUDA(cudaDeviceSynchronize());        \
    SKTEST_CUDA(cudaGetLastError());             \
  } while (false)

namespace sktest {

/// Byte written over outputs before every run, so elements a scan fails to
/// write are wrong afterwards (0xA5A5A5A5 is neither a small number nor a
/// value the float generators can produce; see random.hpp).
inline constexpr unsigned char poison_byte = 0xA5;

/// True when all bytes of `value` are the poison byte.
template <class T>
bool is_poison(const T& value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  for (unsigned char b : bytes)
    if (b != poison_byte) return false;
  return true;
}

/// A non-blocking stream, destroyed with the object.
class cuda_stream {
 public:
  cuda_stream() { SKTEST_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~cuda_stream() {
    if (stream_ != nullptr) CHECK(cudaStreamDestroy(stream_) == cudaSuccess);  // no REQUIRE in a destructor
  }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;

  cudaStream_t get() const noexcept { return stream_; }
  operator cudaStream_t() const noexcept { return stream_; }
  void synchronize() const { SKTEST_CUDA(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

/// `n` elements of T in device memory (cudaMalloc / cudaFree). n == 0 holds a
/// null pointer. Transfers are enqueued on the given stream and waited for.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : n_(n) {
    if (n != 0) SKTEST_CUDA(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
  }
  ~device_buffer() {
    if (p_ != nullptr) CHECK(cudaFree(p_) == cudaSuccess);  // no REQUIRE in a destructor
  }
  device_buffer(device_buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }
  std::size_t bytes() const noexcept { return n_ * sizeof(T); }

  /// Copies `h` to elements [offset, offset + h.size()).
  void upload(const std::vector<T>& h, cudaStream_t stream, std::size_t offset = 0) {
    REQUIRE(offset + h.size() <= n_);
    if (h.empty()) return;
    SKTEST_CUDA(cudaMemcpyAsync(p_ + offset, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
    SKTEST_CUDA(cudaStreamSynchronize(stream));
  }

  /// Elements [offset, offset + count) (default: to the end).
  std::vector<T> download(cudaStream_t stream, std::size_t offset = 0, std::size_t count = std::size_t(-1)) const {
    if (count == std::size_t(-1)) count = n_ - offset;
    REQUIRE(offset + count <= n_);
    std::vector<T> h(count);
    if (count == 0) return h;
    SKTEST_CUDA(cudaMemcpyAsync(h.data(), p_ + offset, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    return h;
  }

  /// Fills every byte with the poison byte (asynchronously, on `stream`).
  void poison(cudaStream_t stream) {
    if (n_ != 0) SKTEST_CUDA(cudaMemsetAsync(p_, poison_byte, bytes(), stream));
  }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

/// Raw bytes [d_ptr, d_ptr + bytes) of device memory.
inline std::vector<unsigned char> download_bytes(const void* d_ptr, std::size_t bytes, cudaStream_t stream) {
  std::vector<unsigned char> h(bytes);
  if (bytes == 0) return h;
  SKTEST_CUDA(cudaMemcpyAsync(h.data(), d_ptr, bytes, cudaMemcpyDeviceToHost, stream));
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  return h;
}

/// Number of bytes in `bytes` that are not the poison byte.
inline std::size_t count_unpoisoned(const std::vector<unsigned char>& bytes) {
  std::size_t count = 0;
  for (unsigned char b : bytes) count += b != poison_byte;
  return count;
}

}  // namespace sktest
