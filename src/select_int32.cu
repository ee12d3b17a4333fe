// src/select_int32.cu — host API selection by predicate, unique and run-length
// encoding for std::int32_t items.
#include "select_instantiate.cuh"

SCANKIT_DEFINE_SELECT(std::int32_t)
