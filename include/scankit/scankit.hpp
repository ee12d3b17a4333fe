// scankit/scankit.hpp — everything in the host API (plain C++).
#pragma once

#include <scankit/context.hpp>
#include <scankit/error.hpp>
#include <scankit/policy.hpp>
#include <scankit/scan.hpp>
#include <scankit/select.hpp>
