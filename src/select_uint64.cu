// src/select_uint64.cu — host API selection by predicate, unique and run-length
// encoding for std::uint64_t items.
#include "select_instantiate.cuh"

SCANKIT_DEFINE_SELECT(std::uint64_t)
