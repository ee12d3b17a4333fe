// src/reduce_by_key_uint32.cu — host API reduce-by-key with std::uint32_t values.
#include "reduce_by_key_instantiate.cuh"

SCANKIT_DEFINE_REDUCE_BY_KEY_KEYS(std::uint32_t)
