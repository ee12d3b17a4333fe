// src/reduce_by_key_int32.cu — host API reduce-by-key with std::int32_t values.
#include "reduce_by_key_instantiate.cuh"

SCANKIT_DEFINE_REDUCE_BY_KEY_KEYS(std::int32_t)
