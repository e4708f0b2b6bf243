/* Library version. */
#include "gat/gat.h"

const char *gat_version(void)
{
    return GAT_VERSION_STRING;
}

int gat_version_number(void)
{
    return GAT_VERSION_NUMBER;
}
