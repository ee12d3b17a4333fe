// scankit/context.hpp — the stream and the cached temporary storage that
// every scankit call runs with. Plain C++: needs only the CUDA runtime header.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace scankit {

namespace detail {
struct workspace_view;
}

/// A context owns nothing but a stream handle (borrowed, never destroyed) and
/// the device temporary storage scankit calls need. Storage grows on demand and
/// is cached, so repeated calls do no cudaMalloc; `reserve` grows it ahead of
/// time (do that before capturing a CUDA graph to keep allocation out of the
/// capture, although growth under capture also works).
///
/// Work is enqueued on `stream()` and is asynchronous unless a function says it
/// synchronizes. A context is not thread-safe and must not be used by two
/// concurrent streams of work; use one context per stream.
///
/// No device is touched until the first call that needs one, so a context can
/// be created on a machine without a GPU; that first call then throws
/// scankit::cuda_error saying no device is available.
///
/// A context's storage lives on one GPU: the device current when it first
/// allocates, or the caller's buffer's device. A call made while another
/// device is current throws std::invalid_argument before launching anything;
/// a process that works on several GPUs uses one context per device (with a
/// stream of that device).
class context {
 public:
  /// A context on `stream` (default: the legacy default stream) with storage
  /// owned and cached by the context.
  explicit context(cudaStream_t stream = nullptr) noexcept;

  /// A context on `stream` that uses the caller's device buffer as its only
  /// temporary storage and never allocates. The buffer must stay valid for the
  /// context's lifetime; its contents are reset on the stream here (so create
  /// it outside stream capture; std::invalid_argument otherwise). It must be
  /// device (or managed) memory, 256-byte aligned (std::invalid_argument
  /// otherwise). Calls that need more than `bytes` throw std::invalid_argument
  /// naming the size they need (size the buffer with
  /// scankit::scan_workspace_bytes).
  context(cudaStream_t stream, void* d_workspace, std::size_t bytes);

  ~context();
  context(const context&) = delete;
  context& operator=(const context&) = delete;
  /// Moves the stream and the storage; the moved-from context is left empty
  /// (default stream, no storage) and may be reused or destroyed.
  context(context&& other) noexcept;
  context& operator=(context&& other) noexcept;

  /// The stream all work is enqueued on.
  cudaStream_t stream() const noexcept { return stream_; }

  /// Grows the cached storage so a call needing up to `status_words` look-back
  /// words and `scratch_bytes` of scratch runs without allocating.
  void reserve(std::size_t status_words, std::size_t scratch_bytes);

  /// Internal: storage for one call, grown as needed. Not for users.
  /// `launches`: the launches in the call that draw from the status words'
  /// launch counter (each advances its epoch).
  detail::workspace_view acquire(std::size_t status_words, std::size_t scratch_bytes, unsigned launches = 1);

  /// Internal: caller-workspace bytes that hold `status_words` look-back words
  /// and `scratch_bytes` of scratch (the buffer is split in two halves).
  static std::size_t workspace_bytes_for(std::size_t status_words, std::size_t scratch_bytes) noexcept;

 private:
  void ensure_device();
  void release() noexcept;  // frees owned storage
  void grow_status(std::size_t words);
  void grow_scratch(std::size_t bytes);

  cudaStream_t stream_;
  bool device_checked_ = false;
  bool caller_owned_ = false;
  // The device the storage lives on; -1 while there is none.
  int device_ = -1;
  // Look-back status words (uint64): only ever hold tile-status tags, so stale
  // words from earlier calls can never look valid (see detail/lookback).
  void* d_status_ = nullptr;
  std::size_t status_words_ = 0;
  // Scratch for per-tile values and other per-call temporaries.
  void* d_scratch_ = nullptr;
  std::size_t scratch_bytes_ = 0;
  // Launches since the status words were last cleared (tag wrap guard).
  std::uint64_t launches_since_clear_ = 0;
  // Outgrown buffers: kept until the context dies, because work already
  // enqueued or captured into a CUDA graph may still use them.
  std::vector<void*> retired_;
};

namespace detail {
/// What one call gets from context::acquire.
struct workspace_view {
  std::uint64_t* d_status;  // [0] = launch ticket/epoch counter, [1..] tile words
  std::size_t status_words;
  void* d_scratch;
  std::size_t scratch_bytes;
};
}  // namespace detail

}  // namespace scankit
