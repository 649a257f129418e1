// Fixture for the layering check: the collectives reaching up into hybrid parallelism.
#include "models/parallel/plan.hpp"
