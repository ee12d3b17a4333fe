// src/reduce_by_key_float.cu — host API reduce-by-key with float values.
#include "reduce_by_key_instantiate.cuh"

SCANKIT_DEFINE_REDUCE_BY_KEY_KEYS(float)
