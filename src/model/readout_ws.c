/* Freeing a graph model's readout caches (readout_ws.h): apart from graph_model.c, which fills
 * them, so that model.c frees a model without a call into the graph forward's file. */
#include "readout_ws.h"
#include "core/core.h"

void gat_i_readout_ws_free(struct gat_i_readout_ws *w)
{
    if (!w) return;
    gat_free(w->ptr);
    gat_free(w->r);
    gat_free(w->logits);
    gat_free(w->dr);
    gat_free(w->dh);
    gat_free(w->u);
    gat_free(w->a);
    gat_free(w->dz);
    gat_free(w->dg);
    gat_free(w->arg);
    gat_free(w->act);
    gat_free(w->scratch);
    gat_free(w->dl);
    gat_free(w->all);
    gat_free(w);
}
