// src/reduce_by_key_double.cu — host API reduce-by-key with double values.
#include "reduce_by_key_instantiate.cuh"

SCANKIT_DEFINE_REDUCE_BY_KEY_KEYS(double)
