// scankit/scankit.hpp — everything in the host API (plain C++).
#pragma once

#include <scankit/allocation.hpp>
#include <scankit/context.hpp>
#include <scankit/error.hpp>
#include <scankit/expand.hpp>
#include <scankit/offsets.hpp>
#include <scankit/policy.hpp>
#include <scankit/reduce_by_key.hpp>
#include <scankit/scan.hpp>
#include <scankit/segmented_reduce.hpp>
#include <scankit/select.hpp>
#include <scankit/sort.hpp>
