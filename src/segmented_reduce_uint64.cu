// src/segmented_reduce_uint64.cu — host API segmented reductions of std::uint64_t.
#include "segmented_reduce_instantiate.cuh"

SCANKIT_DEFINE_SEGMENTED_REDUCE(std::uint64_t)
