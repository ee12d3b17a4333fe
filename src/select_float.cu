// src/select_float.cu — host API selection by predicate, unique and run-length
// encoding for float items.
#include "select_instantiate.cuh"

SCANKIT_DEFINE_SELECT(float)
