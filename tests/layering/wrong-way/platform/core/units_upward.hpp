#pragma once
// Fixture for the layering check (tests/CMakeLists.txt): core reaching up into the system layer.
#include "platform/core/errors.hpp"
#include "platform/system/simulation.hpp"
