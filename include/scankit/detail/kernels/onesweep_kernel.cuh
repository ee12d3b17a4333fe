// detail/kernels/onesweep_kernel.cuh — one pass of the radix sort over one
// portion of the keys, in a single kernel (onesweep, Adinets & Merrill 2022):
// the keys are read once and written once per pass.
//
// Each block takes a tile by ticket (tiles in launch order), then:
//   1. load    — each warp a contiguous span of the tile, lane-strided;
//   2. count   — each key adds one to its warp's count of its digit (shared
//                atomics);
//   3. publish — thread d (the first 256) adds up digit d over the warps and
//                publishes the tile's count of digit d at once (tile_status,
//                one tagged word per tile and digit), before any ranking
//                (the onesweep paper's early counts); a block scan gives where
//                each digit's keys start in the tile and each warp's keys of
//                digit d within them;
//   4. rank    — per warp, item by item: lanes with the same digit find each
//                other (one ballot per digit bit) and take the next positions
//                of the warp's keys of that digit, so equal digits keep their
//                input order; each key is staged in shared memory at once;
//   5. values  — loaded and staged at their keys' positions;
//   6. look back — thread d walks back over the earlier tiles' words of digit
//                d, adding their counts until one holds an inclusive count,
//                then publishes its own inclusive count; the portion's last
//                tile also says where the next portion's keys of each digit
//                start;
//   7. write   — thread j writes staged item j to its digit's start + j, so a
//                run of one digit goes to consecutive addresses.
// Against ranking first and publishing after it (H100, 2^22-2^28,
// docs/sort.md): 4-byte keys −4 to −14 %, 8-byte keys −10 to −12 %, pairs
// −12 to −14 %. Publishing only when the look-back starts measured +3 to
// +8 % instead, looking back before ranking +47 to +87 %, and loading the
// values after the look-back +7 to +30 % for pairs.
// Counts in the status words are within the portion (at most 2^26 keys); the
// 64-bit start of each digit comes from the portion's starts array.
#pragma once

#include <scankit/detail/block/block_sum.cuh>
#include <scankit/detail/lookback/launch_ticket.cuh>
#include <scankit/detail/lookback/tile_status.cuh>
#include <scankit/detail/no_values.hpp>
#include <scankit/detail/sort/radix_key.cuh>
#include <scankit/detail/warp/match_bits.cuh>
#include <scankit/detail/warp/shuffle.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace scankit::detail {

/// The block and tile of the onesweep kernel for keys of Bits and values of
/// Value (no_values: keys only): 4-byte keys 384 threads × 24 keys (9 216 a
/// tile), with 4-byte values 384 × 22 (8 448), with wider values 384 × 20
/// (7 680: with 8-byte values two blocks still fit an SM's shared memory);
/// 8-byte keys 256 × 16 (4 096). Threads past the first 256 do not publish
/// or look back. Against 384 × 20 (H100, three interleaved rounds, medians
/// of 15 sorts, 2^22–2^28, run twice): 4-byte keys on 384 × 24 −2.4 to
/// −3.5 % from 2^24, +0.6 / +1.4 % at 2^22; with values 384 × 22 −0.1 to
/// −2.8 % (384 × 24 −0.8 to −3.4 % from 2^24 but +3.1 % at 2^22, spilling
/// 32 bytes). Not faster: keys on 512 × 15 (−0.3 to +1.3 %; with values +14
/// to +36 %), 320 × 28 (+1.5 to +4 %), 256 × 30 (+5 to +6 %), and 384 × 28,
/// 384 × 32 or 512 × 20, which leave room for one block per SM (+17 to
/// +28 %); 8-byte keys on 256 × 20, 320 × 16 or 512 × 8 (+4 to +18 %).
/// Earlier, on the kernel that ranked before publishing its counts: 8-byte
/// keys 256 × 16 against 256 × 8 −9 to −21 %, 384 × 12 and 256 × 12 behind
/// it (docs/sort.md).
template <class Bits, class Value>
struct onesweep_shape {
  static constexpr bool has_values = !std::is_same_v<Value, no_values>;
  static constexpr int threads = sizeof(Bits) == 4 ? 384 : 256;
  static constexpr int items =  // keys per thread
      sizeof(Bits) == 8 ? 16 : !has_values ? 24 : sizeof(Value) <= 4 ? 22 : 20;
  static_assert(threads >= radix_digits && threads % warp_threads == 0, "thread d publishes and looks back on digit d");
  static constexpr std::uint32_t tile = std::uint32_t(threads) * items;
  /// Keys per portion: one launch per portion and pass, so that counts within
  /// a portion fit the status words' 32 bits and the status words stay few.
  static constexpr std::uint32_t portion_items = (std::uint32_t(1) << 26) / tile * tile;
  /// Dynamic shared memory: the staged keys, then the staged values.
  static constexpr std::size_t staged_bytes = tile * sizeof(Bits) + (has_values ? tile * sizeof(Value) : 0);
  static_assert(tile * sizeof(Bits) % 16 == 0, "staged values 16-byte aligned");
};

/// The arguments of one onesweep launch.
template <class Bits, class Value>
struct onesweep_launch {
  const Bits* d_keys_in;      // the portion's keys
  Bits* d_keys_out;           // the whole output
  const Value* d_values_in;   // the portion's values (keys only: unused)
  Value* d_values_out;        // the whole output (keys only: unused)
  std::uint32_t items;        // keys in the portion
  std::uint32_t num_tiles;
  radix_digit digit;
  const unsigned long long* d_portion_starts;  // where the portion's keys of digit d start
  unsigned long long* d_next_portion_starts;   // the next portion's: written by the last tile
  std::uint64_t* d_status;    // [0]: ticket counter; then num_tiles * 256 status words
};

template <class Bits, class Value>
__global__ void __launch_bounds__(onesweep_shape<Bits, Value>::threads)
    onesweep_kernel(onesweep_launch<Bits, Value> L) {
  using shape = onesweep_shape<Bits, Value>;
  constexpr int threads = shape::threads, items = shape::items, warps = threads / warp_threads;
  constexpr std::uint32_t warp_span = std::uint32_t(warp_threads) * items;
  extern __shared__ __align__(16) unsigned char onesweep_staging[];
  Bits* const staged_keys = reinterpret_cast<Bits*>(onesweep_staging);
  Value* const staged_values = reinterpret_cast<Value*>(onesweep_staging + shape::tile * sizeof(Bits));
  // Each warp's count of each digit; from step 3 where its keys of the digit
  // start in the tile, and in step 4 its next free position for the digit.
  __shared__ std::uint32_t warp_digit_counts[warps][radix_digits];
  __shared__ unsigned long long digit_destinations[radix_digits];  // output index of tile position 0, per digit
  __shared__ launch_ticket ticket;

  const int lane = lane_id(), warp = int(threadIdx.x) / warp_threads;
  if (threadIdx.x == 0) ticket = redeem_ticket(L.d_status, draw_ticket(L.d_status), L.num_tiles);
  for (int d = lane; d < radix_digits; d += warp_threads) warp_digit_counts[warp][d] = 0;
  __syncthreads();
  const launch_ticket my = ticket;
  const std::uint32_t tile_begin = my.tile * shape::tile;
  const std::uint32_t tile_items = L.items - tile_begin < shape::tile ? L.items - tile_begin : shape::tile;
  const std::uint32_t warp_begin = std::uint32_t(warp) * warp_span;

  // 1. Load: item i of lane l is tile position warp_begin + 32 i + l.
  Bits keys[items];
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const std::uint32_t at = warp_begin + std::uint32_t(i) * warp_threads + lane;
    keys[i] = at < tile_items ? L.d_keys_in[tile_begin + at] : Bits(0);
  }

  // 2. Count: each key adds one to its warp's count of its digit.
#pragma unroll
  for (int i = 0; i < items; ++i)
    if (warp_begin + std::uint32_t(i) * warp_threads + lane < tile_items)
      atomicAdd(&warp_digit_counts[warp][L.digit.of(keys[i])], 1u);
  __syncthreads();

  // 3. Publish (thread d < 256: digit d): the tile's count of digit d goes
  //    out before any ranking, so later tiles' look-backs need not wait for
  //    it; then where each warp's keys of digit d start in the tile.
  const std::uint32_t d = threadIdx.x;
  const bool counts_digit = d < radix_digits;
  const tile_status<std::uint32_t> status(L.d_status + 1, nullptr, L.num_tiles * radix_digits);
  const std::uint32_t word = my.tile * radix_digits + d;
  std::uint32_t count = 0;
  if (counts_digit) {
#pragma unroll
    for (int w = 0; w < warps; ++w) count += warp_digit_counts[w][d];
    status.publish(word, my.tile == 0 ? tile_state::inclusive : tile_state::aggregate, count, my.tag);
  }
  const std::uint32_t tile_start = block_exclusive_sum<threads>(count);
  if (counts_digit) {
    std::uint32_t start = tile_start;
#pragma unroll
    for (int w = 0; w < warps; ++w) {
      const std::uint32_t c = warp_digit_counts[w][d];
      warp_digit_counts[w][d] = start;
      start += c;
    }
  }
  __syncthreads();

  // 4. Rank within the warp, in tile order, and stage each key at its tile
  //    position: lanes with the same digit find each other (one ballot per
  //    digit bit) and take the next positions of the warp's run of that
  //    digit, so equal digits keep their input order. Past the end: digit
  //    256, which joins no match.
  std::uint32_t ranks[shape::has_values ? items : 1];
  const unsigned lanes_below = (1u << lane) - 1u;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const bool valid = warp_begin + std::uint32_t(i) * warp_threads + lane < tile_items;
    const std::uint32_t k = valid ? L.digit.of(keys[i]) : std::uint32_t(radix_digits);
    const unsigned peers = warp_match_bits<radix_digit_bits>(k, valid);
    const std::uint32_t next = valid ? warp_digit_counts[warp][k] : 0u;
    __syncwarp();
    if (valid && lane == 31 - __clz(peers)) warp_digit_counts[warp][k] = next + __popc(peers);
    __syncwarp();
    const std::uint32_t rank = next + __popc(peers & lanes_below);
    if (valid) staged_keys[rank] = keys[i];
    if constexpr (shape::has_values) ranks[i] = rank;
  }

  // 5. Stage the values at their keys' positions, before the look-back
  //    (after it, pairs measured up to 30 % slower; docs/sort.md).
  if constexpr (shape::has_values) {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::uint32_t at = warp_begin + std::uint32_t(i) * warp_threads + lane;
      if (at < tile_items) staged_values[ranks[i]] = L.d_values_in[tile_begin + at];
    }
  }

  // 6. Look back over digit d (thread d < 256): its count in the portion's
  //    earlier tiles. Tile 0 publishes an inclusive count, so the walk stops
  //    by then.
  if (counts_digit) {
    std::uint32_t before = 0;
    if (my.tile > 0) {
      std::uint32_t pred = my.tile - 1;
      unsigned backoff_ns = 8;
      while (true) {
        const tile_reading<std::uint32_t> r = status.read(pred * radix_digits + d, my.tag);
        if (r.state == tile_state::invalid) {
          __nanosleep(backoff_ns);
          if (backoff_ns < 256) backoff_ns *= 2;
          continue;
        }
        before += r.value;
        if (r.state == tile_state::inclusive) break;
        --pred;
      }
      status.publish(word, tile_state::inclusive, before + count, my.tag);
    }
    const unsigned long long portion_start = L.d_portion_starts[d];
    digit_destinations[d] = portion_start + before - tile_start;
    if (my.tile == L.num_tiles - 1) L.d_next_portion_starts[d] = portion_start + before + count;
  }
  __syncthreads();

  // 7. Write: tile position j of digit k goes to digit_destinations[k] + j.
  for (std::uint32_t j = threadIdx.x; j < tile_items; j += threads) {
    const Bits key = staged_keys[j];
    const unsigned long long to = digit_destinations[L.digit.of(key)] + j;
    L.d_keys_out[to] = key;
    if constexpr (shape::has_values) L.d_values_out[to] = staged_values[j];
  }
}

}  // namespace scankit::detail
