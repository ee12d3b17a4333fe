// src/segmented_reduce_int64.cu — host API segmented reductions of std::int64_t.
#include "segmented_reduce_instantiate.cuh"

SCANKIT_DEFINE_SEGMENTED_REDUCE(std::int64_t)
