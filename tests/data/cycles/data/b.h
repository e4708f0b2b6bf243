/* fixture of the cycles-selftest test: an include cycle across two modules */
#include "io/a.h"
