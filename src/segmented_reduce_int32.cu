// src/segmented_reduce_int32.cu — host API segmented reductions of std::int32_t.
#include "segmented_reduce_instantiate.cuh"

SCANKIT_DEFINE_SEGMENTED_REDUCE(std::int32_t)
