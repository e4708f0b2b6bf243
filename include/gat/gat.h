/* libgat: graph attention networks on sparse graphs. One include for the whole public API. */
#ifndef GAT_GAT_H
#define GAT_GAT_H

#define GAT_VERSION_MAJOR 0
#define GAT_VERSION_MINOR 1
#define GAT_VERSION_PATCH 0
#define GAT_VERSION_STRING "0.1.0"

#include "status.h"
#include "graph.h"
#include "matrix.h"
#include "dataset.h"
#include "model.h"
#include "optim.h"
#include "train.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string, e.g. "0.1.0" (may differ from GAT_VERSION_STRING of the headers
 * a program was compiled with). */
GAT_API const char *gat_version(void);

#ifdef __cplusplus
}
#endif
#endif
