// src/select_uint32.cu — host API selection by predicate, unique and run-length
// encoding for std::uint32_t items.
#include "select_instantiate.cuh"

SCANKIT_DEFINE_SELECT(std::uint32_t)
