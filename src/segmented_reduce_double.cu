// src/segmented_reduce_double.cu — host API segmented reductions of double.
#include "segmented_reduce_instantiate.cuh"

SCANKIT_DEFINE_SEGMENTED_REDUCE(double)
