// src/context.cpp — the context's cached temporary storage. Plain C++.
#include <scankit/context.hpp>
#include <scankit/detail/kernel_settings.hpp>
#include <scankit/error.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <utility>
#include <stdexcept>
#include <string>

namespace scankit {
namespace {

constexpr std::size_t alignment = 256;
// Tags repeat every 2^31 - 1 launches (detail/lookback/tile_status.cuh);
// clearing the status words well before that makes a stale match impossible.
constexpr std::uint64_t launches_between_clears = std::uint64_t(1) << 30;

std::size_t align_up(std::size_t bytes) { return (bytes + alignment - 1) / alignment * alignment; }

// cudaMalloc that also works while the calling thread's stream is being
// captured into a graph (global capture mode forbids it otherwise).
void* device_allocate(std::size_t bytes) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  cudaThreadExchangeStreamCaptureMode(&mode);
  detail::throw_on_cuda_error(status, "cudaMalloc");
  return p;
}

// Zeroes fresh device memory and waits for it, whatever the calling thread's
// streams are doing (also during stream capture).
cudaError_t zero_now(void* p, std::size_t bytes) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;  // as in device_allocate
  cudaThreadExchangeStreamCaptureMode(&mode);
  cudaStream_t side = nullptr;
  cudaError_t status = cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  if (status == cudaSuccess) {
    status = cudaMemsetAsync(p, 0, bytes, side);
    const cudaError_t synced = cudaStreamSynchronize(side);
    cudaStreamDestroy(side);
    if (status == cudaSuccess) status = synced;
  }
  cudaThreadExchangeStreamCaptureMode(&mode);
  return status;
}

}  // namespace

context::context(cudaStream_t stream) noexcept : stream_(stream) {}

context::context(cudaStream_t stream, void* d_workspace, std::size_t bytes) : stream_(stream), caller_owned_(true) {
  if (d_workspace == nullptr && bytes != 0)
    throw std::invalid_argument("scankit::context: null workspace with bytes > 0");
  if (reinterpret_cast<std::uintptr_t>(d_workspace) % alignment != 0)
    throw std::invalid_argument("scankit::context: workspace must be 256-byte aligned (as cudaMalloc returns)");
  if (d_workspace != nullptr) {
    ensure_device();
    cudaPointerAttributes attributes{};
    detail::throw_on_cuda_error(cudaPointerGetAttributes(&attributes, d_workspace), "cudaPointerGetAttributes");
    if (attributes.type == cudaMemoryTypeDevice)
      device_ = attributes.device;
    else if (attributes.type == cudaMemoryTypeManaged)
      device_ = detail::current_device();
    else
      throw std::invalid_argument("scankit::context: the workspace must be device memory (cudaMalloc)");
  }
  const std::size_t status_bytes = bytes / 2 / alignment * alignment;
  d_status_ = d_workspace;
  status_words_ = status_bytes / sizeof(std::uint64_t);
  d_scratch_ = static_cast<char*>(d_workspace) + status_bytes;
  scratch_bytes_ = bytes - status_bytes;
  if (status_bytes != 0) {
    ensure_device();
    // Stream-ordered, so work still using the buffer finishes first; that
    // cannot be honoured while the stream is being captured.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    detail::throw_on_cuda_error(cudaStreamIsCapturing(stream_, &capture), "cudaStreamIsCapturing");
    if (capture != cudaStreamCaptureStatusNone)
      throw std::invalid_argument("scankit::context: create a workspace context outside stream capture");
    detail::throw_on_cuda_error(cudaMemsetAsync(d_status_, 0, status_bytes, stream_), "cudaMemsetAsync");
  }
}

context::~context() { release(); }

context::context(context&& other) noexcept { *this = std::move(other); }

context& context::operator=(context&& other) noexcept {
  if (this == &other) return *this;
  release();
  stream_ = std::exchange(other.stream_, nullptr);
  device_checked_ = std::exchange(other.device_checked_, false);
  caller_owned_ = std::exchange(other.caller_owned_, false);
  device_ = std::exchange(other.device_, -1);
  d_status_ = std::exchange(other.d_status_, nullptr);
  status_words_ = std::exchange(other.status_words_, 0);
  d_scratch_ = std::exchange(other.d_scratch_, nullptr);
  scratch_bytes_ = std::exchange(other.scratch_bytes_, 0);
  launches_since_clear_ = std::exchange(other.launches_since_clear_, 0);
  retired_ = std::exchange(other.retired_, {});
  return *this;
}

void context::release() noexcept {
  if (!caller_owned_) {
    for (void* p : retired_) cudaFree(p);
    cudaFree(d_status_);
    cudaFree(d_scratch_);
  }
  retired_.clear();
  device_ = -1;
  d_status_ = d_scratch_ = nullptr;
  status_words_ = scratch_bytes_ = 0;
}

std::size_t context::workspace_bytes_for(std::size_t status_words, std::size_t scratch_bytes) noexcept {
  return 2 * std::max(align_up(status_words * sizeof(std::uint64_t)), align_up(scratch_bytes));
}

void context::ensure_device() {
  if (device_checked_) return;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear the error so later CUDA calls are not poisoned
    throw cuda_error("cudaGetDeviceCount", status,
                     std::string("no usable CUDA device: ") + cudaGetErrorString(status));
  }
  if (count == 0) throw cuda_error("cudaGetDeviceCount", cudaErrorNoDevice, "no CUDA device available");
  device_checked_ = true;
}


void context::grow_status(std::size_t words) {
  const std::size_t new_words = std::max(words, 2 * status_words_);
  void* p = device_allocate(new_words * sizeof(std::uint64_t));
  // Zeroed words read as "not published" under every tag. Zero them now, on a
  // private stream: on the caller's stream the memset would only be recorded
  // when that stream is being captured into a graph.
  const cudaError_t status = zero_now(p, new_words * sizeof(std::uint64_t));
  if (status != cudaSuccess) {
    cudaFree(p);
    detail::throw_on_cuda_error(status, "zeroing look-back status words");
  }
  if (d_status_ != nullptr) retired_.push_back(d_status_);
  d_status_ = p;
  status_words_ = new_words;
  launches_since_clear_ = 0;
}

void context::grow_scratch(std::size_t bytes) {
  const std::size_t new_bytes = std::max(align_up(bytes), 2 * scratch_bytes_);
  void* p = device_allocate(new_bytes);
  if (d_scratch_ != nullptr) retired_.push_back(d_scratch_);
  d_scratch_ = p;
  scratch_bytes_ = new_bytes;
}

void context::reserve(std::size_t status_words, std::size_t scratch_bytes) {
  ensure_device();
  const int device = detail::current_device();
  if (device_ != -1 && device != device_)
    throw std::invalid_argument("scankit: this context's storage is on device " + std::to_string(device_) +
                                " but device " + std::to_string(device) +
                                " is current (use one context per device)");
  if (status_words <= status_words_ && scratch_bytes <= scratch_bytes_) return;
  if (caller_owned_)
    throw std::invalid_argument("scankit: caller workspace too small (this call needs " +
                                std::to_string(workspace_bytes_for(status_words, scratch_bytes)) + " bytes)");
  // Bound by each allocation that succeeds, so one that fails after the other still leaves the context bound.
  if (status_words > status_words_) {
    grow_status(status_words);
    device_ = device;
  }
  if (scratch_bytes > scratch_bytes_) {
    grow_scratch(scratch_bytes);
    device_ = device;
  }
}

detail::workspace_view context::acquire(std::size_t status_words, std::size_t scratch_bytes, unsigned launches) {
  reserve(status_words, scratch_bytes);
  if (status_words != 0 && (launches_since_clear_ += launches) >= launches_between_clears) {
    detail::throw_on_cuda_error(cudaMemsetAsync(d_status_, 0, status_words_ * sizeof(std::uint64_t), stream_),
                                "cudaMemsetAsync");
    launches_since_clear_ = 0;
  }
  return {static_cast<std::uint64_t*>(d_status_), status_words_, d_scratch_, scratch_bytes_};
}

}  // namespace scankit
