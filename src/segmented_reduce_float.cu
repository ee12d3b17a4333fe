// src/segmented_reduce_float.cu — host API segmented reductions of float.
#include "segmented_reduce_instantiate.cuh"

SCANKIT_DEFINE_SEGMENTED_REDUCE(float)
