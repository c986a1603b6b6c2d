#pragma once
// The generalisation suite's inputs: every input element is a pure function of (seed, index),
// computed the same way on the device (to fill the buffers) and on the host (by the CPU
// references), so a check needs no host copy of the inputs and gives the same answer on every run.
// Plain C++ that nvcc also compiles for the device.
#include <cstdint>

#if defined(__CUDACC__)
#define PERFMODEL_HD __host__ __device__ __forceinline__
#else
#define PERFMODEL_HD inline
#endif

namespace perfmodel::gen {

// splitmix64's finaliser: a well-mixed 64-bit value from any 64-bit input.
PERFMODEL_HD std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

PERFMODEL_HD std::uint64_t draw(std::uint32_t seed, std::uint64_t i) {
  return mix64((static_cast<std::uint64_t>(seed) << 40) ^ (i * 0x100000001b3ull));
}

// k/256 − 2 with k in [0, 1024): values in [−2, 2) that binary16, binary32 and binary64 all hold
// exactly, and whose sums of up to 2^15 terms stay exact in binary32 (so reductions check exactly).
PERFMODEL_HD float value(std::uint32_t seed, std::uint64_t i) {
  return static_cast<float>(static_cast<int>(draw(seed, i) >> 54)) * (1.0f / 256.0f) - 2.0f;
}

// A uniform 32-bit key.
PERFMODEL_HD std::uint32_t key(std::uint32_t seed, std::uint64_t i) { return static_cast<std::uint32_t>(draw(seed, i) >> 32); }

// A bijection of [0, 2^bits) (1 <= bits <= 32): rounds of an odd multiplication and an
// xor-shift, each invertible modulo 2^bits. A scatter through it writes every element once.
PERFMODEL_HD std::uint32_t permute(std::uint32_t i, int bits, std::uint32_t seed) {
  const std::uint32_t mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1u;
  const int shift = (bits + 1) / 2;
  std::uint32_t x = (i + seed * 0x6a09e667u) & mask;
  for (int r = 0; r < 3; ++r) {
    x = (x * 0x9e3779b1u) & mask;
    x ^= x >> shift;
  }
  return x;
}

// The partly local index: a random element of the aligned window of 2^window_bits elements that
// holds i (a warp's reads fall in one window: its footprint, not the array's, is what it touches).
PERFMODEL_HD std::uint32_t local_index(std::uint32_t i, int window_bits, std::uint32_t seed) {
  const std::uint32_t window = (1u << window_bits) - 1u;
  return (i & ~window) | (key(seed, i) & window);
}

// The partly local permutation: a bijection inside each aligned window of 2^window_bits elements.
PERFMODEL_HD std::uint32_t local_permute(std::uint32_t i, int window_bits, std::uint32_t seed) {
  const std::uint32_t window = (1u << window_bits) - 1u;
  return (i & ~window) | permute(i & window, window_bits, seed + (i >> window_bits));
}

// counter_i32_runtime_uniform's input: the counter block b's threads update, b mod 4 (the four
// int32 counters share one 32-byte sector).
constexpr std::uint32_t kCounterSlots = 4;
PERFMODEL_HD std::uint32_t counter_slot(std::uint64_t block) { return static_cast<std::uint32_t>(block % kCounterSlots); }

// gather_near_512's index: i plus a uniform offset in [−512, 511], clamped to [0, n) (a warp's
// 32 reads fall in the 1055 elements around its own, each element's readers in the warps
// launched beside it).
PERFMODEL_HD std::uint32_t near_index(std::uint32_t i, std::uint32_t n, std::uint32_t seed) {
  const long long j = static_cast<long long>(i) + static_cast<long long>(key(seed, i) & 1023u) - 512;
  return static_cast<std::uint32_t>(j < 0 ? 0 : j >= static_cast<long long>(n) ? n - 1 : j);
}

// xorshift32_chain's result for thread i after k rounds (shifts 13, 17, 5 from the seed i + 1).
PERFMODEL_HD std::uint32_t xorshift32(std::uint32_t i, int k) {
  std::uint32_t y = i + 1u;
  for (int s = 0; s < k; ++s) {
    y ^= y << 13;
    y ^= y >> 17;
    y ^= y << 5;
  }
  return y;
}

// hash_gather_1g's address: a cheap integer hash of the thread's index (Wellons' "lowbias32":
// two multiplications and three xor-shifts, a bijection of the 32-bit words whose low bits are
// well mixed), masked to the table by the kernel.
PERFMODEL_HD std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// A uniform index below m (any m, not only powers of two): the key scaled by m / 2^32 (Lemire's
// multiply-shift; over m = 12 Mi slots each is hit by 341 or 342 of the 2^32 keys).
PERFMODEL_HD std::uint32_t key_below(std::uint32_t seed, std::uint64_t i, std::uint32_t m) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(key(seed, i)) * m) >> 32);
}

// int_rotl_add_chain's constant c in y = rotl(y, 7) + (y ^ c).
constexpr std::uint32_t kRotlAddConstant = 0x9e3779b9u;

// int_xor_mul_chain's multiplier in y = (y ^ (y >> 15)) · c (an odd constant: each round is a
// bijection of the 32-bit words).
constexpr std::uint32_t kXorMulMultiplier = 0x2c1b3c6du;

// Half H's seeds: gather_random_512m's index keys, int_xor_mul_chain's input keys, and the
// permutations of the four index scatters (the runs and the CPU references use the same ones).
constexpr std::uint32_t kHalfHGatherSeed = 42, kHalfHChainSeed = 43;
constexpr std::uint32_t kScatter256mSeed = 41, kScatter2gSeed = 44, kScatterF64Seed = 45, kDensePermSeed = 46;

}  // namespace perfmodel::gen
