// src/select_int64.cu — host API selection by predicate, unique and run-length
// encoding for std::int64_t items.
#include "select_instantiate.cuh"

SCANKIT_DEFINE_SELECT(std::int64_t)
