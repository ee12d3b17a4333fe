// src/scan_numeric_double.cu — host API scans of double in the numeric modes
// run_to_run, exact and compensated.
#include "scan_numeric_instantiate.cuh"

SCANKIT_DEFINE_NUMERIC_SCAN(double)
