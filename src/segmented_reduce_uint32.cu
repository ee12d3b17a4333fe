// src/segmented_reduce_uint32.cu — host API segmented reductions of std::uint32_t.
#include "segmented_reduce_instantiate.cuh"

SCANKIT_DEFINE_SEGMENTED_REDUCE(std::uint32_t)
