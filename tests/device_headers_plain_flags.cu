// tests/device_headers_plain_flags.cu — the template API as a user's nvcc
// sees it: compiled (never run) without the library's own flags
// (--expt-relaxed-constexpr, --extended-lambda), so that a host-only
// function reached from device code fails the build. One instantiation per
// public entry point family, with 4- and 8-byte types.
#include <scankit/context.hpp>
#include <scankit/device/allocation.cuh>
#include <scankit/device/expand.cuh>
#include <scankit/device/operators.cuh>
#include <scankit/device/reduce_by_key.cuh>
#include <scankit/device/scan.cuh>
#include <scankit/device/segmented_reduce.cuh>
#include <scankit/device/select.cuh>

#include <cstddef>
#include <cstdint>

namespace {

struct positive {
  __device__ bool operator()(int x) const { return x > 0; }
};

}  // namespace

void instantiate_device_headers(scankit::context& ctx, const int* in, int* out, const double* in8, double* out8,
                                const std::uint64_t* keys8, std::uint64_t* keys8_out, const std::uint32_t* sizes,
                                std::uint64_t* offsets, std::uint32_t* lengths, const unsigned char* flags,
                                std::size_t n, std::size_t* d_count) {
  namespace d = scankit::device;
  d::inclusive_scan(ctx, in, out, n, d::plus{});
  d::exclusive_scan(ctx, in8, out8, n, 0.0, d::plus{});
  d::compact(ctx, in, flags, out, n);
  d::compact_if(ctx, in, out, n, positive{});
  d::partition(ctx, in, flags, out, n);
  d::unique(ctx, keys8, keys8_out, n);
  d::run_length_encode(ctx, in, out, lengths, n);
  d::allocation_offsets_async(ctx, sizes, n, offsets);
  d::load_balancing_search(ctx, offsets, n, n, offsets);
  d::interval_expand(ctx, in, offsets, n, n, out);
  d::segmented_reduce(ctx, in, n, offsets, n, out, d::plus{}, 0);
  d::reduce_by_key_async(ctx, in, in, n, out, out, d_count, d::plus{});
  d::reduce_by_key_async(ctx, keys8, in8, n, keys8_out, out8, d_count, d::plus{});
}
