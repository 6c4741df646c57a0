/* Transitional: the header moved to pmus/netburst/ (removed by the next commit). */
#include "netburst/backend_msr_nb.h"
