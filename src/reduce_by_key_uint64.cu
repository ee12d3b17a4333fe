// src/reduce_by_key_uint64.cu — host API reduce-by-key with std::uint64_t values.
#include "reduce_by_key_instantiate.cuh"

SCANKIT_DEFINE_REDUCE_BY_KEY_KEYS(std::uint64_t)
