/* libgat: graph attention networks on sparse graphs. One include for the whole public API
 * (the igraph bridge, which needs igraph's headers, is the separate gat/gat_igraph.h).
 *
 * Conventions of every header: fallible calls return a gat_status (GAT_OK == 0) and leave a
 * one-sentence message for gat_last_error(), kept per thread; nothing prints, exits or aborts.
 * NULL arguments follow one rule, stated in status.h: status-returning calls refuse them with
 * GAT_EINVAL naming the argument, the others do nothing and return 0, -1 or NULL. Graphs and
 * features a caller filled or edited are checked before use (gat_graph_check, gat_csr_check).
 * Data the caller reads (gat_graph, gat_csr, gat_matrix, gat_dataset) are structs with documented
 * fields, filled by an init/build call and released by the matching *_destroy; engines (gat_model)
 * are opaque, made by *_create and released by *_free. Pointer arguments are borrowed for the call
 * unless a comment says an object keeps them; whoever creates an object frees it. Objects are not
 * locked: use one model per thread; graphs and datasets are read-only once built and may be
 * shared by threads. Link with `pkg-config --cflags --libs gat`. */
#ifndef GAT_GAT_H
#define GAT_GAT_H

#define GAT_VERSION_MAJOR 0
#define GAT_VERSION_MINOR 1
#define GAT_VERSION_PATCH 0
#define GAT_VERSION_STRING "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for #if checks. */
#define GAT_VERSION_NUMBER (GAT_VERSION_MAJOR * 10000 + GAT_VERSION_MINOR * 100 + GAT_VERSION_PATCH)

#include "status.h"
#include "graph.h"
#include "matrix.h"
#include "dataset.h"
#include "model.h"
#include "optim.h"
#include "train.h"
#include "modelfile.h"
#include "embed.h"
#include "graphfile.h"
#include "analysis.h"
#include "encode.h"
#include "partition.h"
#include "sample.h"
#include "metrics.h"
#include "readout.h"
#include "gps.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string, e.g. "0.1.0" (may differ from GAT_VERSION_STRING of the headers
 * a program was compiled with). */
GAT_API const char *gat_version(void);

/* The library's GAT_VERSION_NUMBER, to compare with the headers' at run time. */
GAT_API int gat_version_number(void);

#ifdef __cplusplus
}
#endif
#endif
