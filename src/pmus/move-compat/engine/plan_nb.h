/* Transitional: the header moved to pmus/netburst/ (removed by the next commit). */
#include "netburst/plan_nb.h"
