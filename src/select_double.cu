// src/select_double.cu — host API selection by predicate, unique and run-length
// encoding for double items.
#include "select_instantiate.cuh"

SCANKIT_DEFINE_SELECT(double)
