// src/offsets.cu — scankit::validate_offsets.
#include <scankit/context.hpp>
#include <scankit/detail/kernels/offsets_kernels.cuh>
#include <scankit/detail/launch_shape.cuh>
#include <scankit/offsets.hpp>

#include <cuda_runtime.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace scankit::detail {

template <class Offset>
void check_offsets(context& ctx, const Offset* d_offsets, std::size_t num_segments, std::size_t limit) {
  if (d_offsets == nullptr) throw std::invalid_argument("scankit::validate_offsets: d_offsets is null");
  const std::uint64_t num_boundaries = std::uint64_t(num_segments) + 1;
  const workspace_view ws = ctx.acquire(0, sizeof(unsigned long long));
  auto* d_first_bad = static_cast<unsigned long long*>(ws.d_scratch);
  cudaStream_t stream = ctx.stream();
  throw_on_cuda_error(cudaMemsetAsync(d_first_bad, 0xff, sizeof(unsigned long long), stream), "cudaMemsetAsync");
  validate_offsets_kernel<<<grid_stride_blocks(num_boundaries, 256), 256, 0, stream>>>(d_offsets, num_boundaries,
                                                                                      limit, d_first_bad);
  throw_on_cuda_error(cudaGetLastError(), "validate_offsets kernel launch");
  unsigned long long first_bad = 0;
  throw_on_cuda_error(cudaMemcpyAsync(&first_bad, d_first_bad, sizeof(first_bad), cudaMemcpyDeviceToHost, stream),
                      "cudaMemcpyAsync");
  throw_on_cuda_error(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (first_bad == std::numeric_limits<unsigned long long>::max()) return;

  // Name the bad entry and its neighbour.
  Offset pair[2] = {};
  const std::size_t shown = first_bad + 1 < num_boundaries ? 2 : 1;
  throw_on_cuda_error(
      cudaMemcpyAsync(pair, d_offsets + first_bad, shown * sizeof(Offset), cudaMemcpyDeviceToHost, stream),
      "cudaMemcpyAsync");
  throw_on_cuda_error(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const std::string at = "offsets[" + std::to_string(first_bad) + "] = " + std::to_string(pair[0]);
  bool negative = false;
  if constexpr (std::is_signed_v<Offset>) negative = pair[0] < 0;
  std::string why;
  if (negative) why = at + " is negative";
  else if (shown == 2 && pair[1] < pair[0])
    why = at + " > offsets[" + std::to_string(first_bad + 1) + "] = " + std::to_string(pair[1]) + " (decreasing)";
  else why = at + " (the last offset) exceeds the limit " + std::to_string(limit);
  throw std::invalid_argument("scankit::validate_offsets: " + why);
}

}  // namespace scankit::detail

#define SCANKIT_DEFINE_VALIDATE_OFFSETS(Offset)                                                                   \
  void scankit::validate_offsets(context& ctx, const Offset* d_offsets, std::size_t num_segments,              \
                                 std::size_t limit) {                                                           \
    detail::check_offsets(ctx, d_offsets, num_segments, limit);                                                 \
  }

SCANKIT_DEFINE_VALIDATE_OFFSETS(std::int32_t)
SCANKIT_DEFINE_VALIDATE_OFFSETS(std::uint32_t)
SCANKIT_DEFINE_VALIDATE_OFFSETS(std::int64_t)
SCANKIT_DEFINE_VALIDATE_OFFSETS(std::uint64_t)
