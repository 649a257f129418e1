// Fixture for the layering check: a link model reaching into the GPU model and the scenario.
#include "models/gpu/gpu.hpp"
#include "platform/config/scenario.hpp"
