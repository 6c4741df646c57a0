/* Transitional: the header moved to pmu/ (removed by the next commit). */
#include "pmu/plan.h"
