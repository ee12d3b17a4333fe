// detail/thread/store_run.cuh — a block's threads write a run of items
// staged in shared memory to global memory, in 16-byte stores where the
// output allows.
#pragma once

#include <scankit/detail/thread/shared_vector.cuh>

#include <cstdint>
#include <cstring>

namespace scankit::detail {

/// out[vec·w, vec·w + vec) = staged[Lead + vec·w, …) for w in [0, vectors),
/// 16-byte vectors of vec items, out 16-byte aligned. With Lead > 0 each
/// output vector is the tail of one aligned shared-memory vector and the
/// head of the next (staged 16-byte aligned). Unrolled: the loop as the
/// compiler unrolls it (several vectors in flight per thread); else one
/// vector per iteration, for kernels without the registers for more.
template <unsigned Lead, int Threads, bool Unrolled, class Item>
__device__ __forceinline__ void store_shifted_vectors(const Item* staged, Item* out, unsigned vectors,
                                                      unsigned thread) {
  constexpr unsigned vec = 16 / sizeof(Item);
  auto store_vector = [&](unsigned w) {
    Item a[vec], v[vec];
    load_shared_vector(staged + w * vec, a);
    if constexpr (Lead == 0) {
#pragma unroll
      for (unsigned c = 0; c < vec; ++c) v[c] = a[c];
    } else {
      Item b[vec];
      load_shared_vector(staged + (w + 1) * vec, b);
#pragma unroll
      for (unsigned c = 0; c < vec; ++c) v[c] = c + Lead < vec ? a[c + Lead] : b[c + Lead - vec];
    }
    uint4 raw;
    memcpy(&raw, v, sizeof(raw));
    *reinterpret_cast<uint4*>(out + w * vec) = raw;
  };
  if constexpr (Unrolled) {
    for (unsigned w = thread; w < vectors; w += Threads) store_vector(w);
  } else {
#pragma unroll 1
    for (unsigned w = thread; w < vectors; w += Threads) store_vector(w);
  }
}

/// out[0, count) = staged[0, count), thread `thread` of Threads taking its
/// share. staged is 16-byte aligned (a tile buffer; it may be read up to its
/// next 16-byte boundary past count). For 4-byte items the run goes out in
/// 16-byte stores from out's first 16-byte boundary on; the items before it
/// and after the last whole vector, one item per thread. Other items go
/// one per thread: for 8-byte items the same scheme measured mixed in the
/// selection kernels (H200, 2^26–2^30: compaction by flags −1.4 to −2.2 %,
/// compact_if +0.9 to +1.7 % at 10 and 50 % selected, unique −1.4 to
/// +0.1 %), where for 4-byte items it gained up to 4.1 % (docs/select.md).
/// Unrolled: see store_shifted_vectors.
template <int Threads, bool Unrolled = true, class Item>
__device__ __forceinline__ void store_run(const Item* staged, Item* out, unsigned count, unsigned thread) {
  if constexpr (sizeof(Item) == 4) {
    constexpr unsigned vec = 4;
    static_assert(Threads >= int(vec), "the lead and the tail take one item per thread");
    const auto address = reinterpret_cast<std::uintptr_t>(out);
    const unsigned lead = unsigned((16 - address % 16) % 16 / sizeof(Item));  // items before the boundary
    if (address % sizeof(Item) == 0 && count >= lead + vec) {
      if (thread < lead) out[thread] = staged[thread];
      const unsigned vectors = (count - lead) / vec;
      switch (lead) {
        case 0: store_shifted_vectors<0, Threads, Unrolled>(staged, out, vectors, thread); break;
        case 1: store_shifted_vectors<1, Threads, Unrolled>(staged, out + 1, vectors, thread); break;
        case 2: store_shifted_vectors<2, Threads, Unrolled>(staged, out + 2, vectors, thread); break;
        default: store_shifted_vectors<3, Threads, Unrolled>(staged, out + 3, vectors, thread); break;
      }
      const unsigned done = lead + vectors * vec;  // count - done < vec items left
      if (thread < count - done) out[done + thread] = staged[done + thread];
      return;
    }
  }
  for (unsigned i = thread; i < count; i += Threads) out[i] = staged[i];
}

}  // namespace scankit::detail
