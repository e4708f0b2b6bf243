/* gat-train --preset: published setups as the defaults the other options then override.
 * paper: Velickovic et al. 2018 (ICLR), section 3.3, and the reference code (PetarV-/GAT,
 * execute_cora.py); platonov: the GAT of Platonov et al. 2023 (ICLR), "A critical look at the
 * evaluation of GNNs under heterophily", from their code (yandex-research/heterophilous-graphs,
 * commit a431395, train.py's defaults, model.py, modules.py); dwivedi: the GAT of the TU graph
 * classification runs of benchmarking-gnns (Dwivedi et al., graphdeeplearning/benchmarking-gnns,
 * configs/TUs_graph_classification_GAT_{ENZYMES,PROTEINS_full}_100k.json, nets/
 * TUs_graph_classification/gat_net.py, layers/mlp_readout_layer.py,
 * main_TUs_graph_classification.py); xu: the training protocol of Xu et al. 2019 (ICLR), "How
 * Powerful are Graph Neural Networks?", section 7, for bioinformatics sets such as MUTAG, with
 * GAT layers. docs/cli.md#presets says what each sets and what our model lacks. */
#include "train.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

const char train_preset_help[] =
    "published setup as defaults (any option given overrides it): paper (GAT paper, Cora and "
    "Citeseer; Pubmed's with a dataset named *pubmed*), paper-pubmed, platonov (Platonov et al. "
    "2023's GAT), dwivedi (benchmarking-gnns' GAT for TU graph classification, --task graph), "
    "xu (Xu et al. 2019's protocol for TU bioinformatics sets, --task graph); see docs/cli.md";

/* The value of the last --NAME in argv as cli_parse reads it (the next argument, or --NAME=V),
 * or NULL. cli_parse refuses a separate value starting with "--", so a "--NAME" token is never
 * another option's value. */
static const char *scan(int argc, char **argv, const char *name)
{
    const char *v = NULL;
    const size_t n = strlen(name);
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k];
        if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, name, n) != 0) continue;
        if (a[2 + n] == '=')
            v = a + 3 + n;
        else if (a[2 + n] == '\0' && k + 1 < argc)
            v = argv[++k];
    }
    return v;
}

int train_option_given(int argc, char **argv, const char *name)
{
    return scan(argc, argv, name) != NULL;
}

/* Whether the last component of path contains word (ASCII, any case). */
static int names(const char *path, const char *word)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const size_t n = strlen(word);
    for (; *base; base++) {
        size_t k = 0;
        while (k < n && base[k] && tolower((unsigned char)base[k]) == word[k])
            k++;
        if (k == n) return 1;
    }
    return 0;
}

int train_apply_preset(options *o, int argc, char **argv)
{
    const char *name = scan(argc, argv, "preset");
    if (!name) return 0;
    if (!strcmp(name, "paper") || !strcmp(name, "paper-pubmed")) {
        /* section 3.3: two layers, 8 heads of 8 features, one output head, dropout 0.6 on
         * each layer's input and on the coefficients, L2 5e-4, lr 0.005, patience 100 on
         * validation loss and accuracy (these are gat-train's defaults too); and where the
         * reference code drops (utils/layers.py, attn_head): the input once per head
         * (`seq = tf.nn.dropout(seq, 1.0 - in_drop)` inside each head), and the projected
         * features again before aggregation (`seq_fts = tf.nn.dropout(seq_fts, 1.0 - in_drop)`) */
        o->layers = 2, o->hidden = 8, o->heads = 8, o->out_heads = 1;
        o->in_dropout = o->att_dropout = 0.6, o->slope = 0.2;
        o->head_dropout = 1, o->proj_dropout = 0.6;
        /* and the bias of its score halves: f_1 and f_2 are tf.layers.conv1d(seq_fts, 1, 1)
         * with conv1d's default use_bias=True (utils/layers.py, attn_head) */
        o->score_bias = 1;
        o->lr = 0.005, o->weight_decay = 5e-4, o->patience = 100, o->epochs = 100000;
        o->residual = 0, o->metric_name = "acc";
        const char *ds = scan(argc, argv, "dataset");
        if (!strcmp(name, "paper-pubmed") || (ds && names(ds, "pubmed"))) {
            /* Pubmed: 8 output heads, L2 0.001, lr 0.01 */
            o->out_heads = 8, o->weight_decay = 1e-3, o->lr = 0.01;
        }
        return 0;
    }
    if (!strcmp(name, "platonov")) {
        /* their model (model.py, modules.py: GATModule in ResidualModuleWrapper with
         * LayerNorm), our gat-ffn: an input layer, 5 pre-norm residual blocks 512 wide of a GAT
         * layer of 8 heads and a feed-forward block, GELU, dropout 0.2 and none on the
         * coefficients, Adam(W) lr 3e-5 without weight decay, 1000 steps, the model of the best
         * validation metric kept (ROC-AUC for two classes), features as stored; with --arch gat
         * the same setup on our GAT (8 heads of 64, residual) */
        o->arch = "gat-ffn", o->embed_dim = 512;
        o->layers = 5, o->hidden = 64, o->heads = 8, o->out_heads = 1;
        o->in_dropout = 0.2, o->att_dropout = 0, o->slope = 0.2;
        o->lr = 3e-5, o->weight_decay = 0, o->epochs = 1000, o->patience = 1000;
        o->residual = 1, o->preset_raw = 1, o->metric_name = NULL;
        o->head_dropout = 0, o->proj_dropout = 0; /* one dropout on each layer's input */
        o->score_bias = 0;
        /* GATModule's attn_linear_u and attn_linear_v: nn.Linear(dim, num_heads), each head's
         * score from the whole row (-1: wherever the score is gat's) */
        o->whole_scores = -1;
        /* their code leaves PyTorch's initial values (-1: graph transformers) */
        o->linear_init = -1;
        return 0;
    }
    if (!strcmp(name, "dwivedi")) {
        /* the TU configs (ENZYMES and PROTEINS_full alike): 4 layers, 8 heads of 18 then one
         * head of 144, residual, mean readout, MLPReadout (144 -> 72 -> 36 -> classes, ReLU),
         * no dropout, Adam lr 1e-3 without weight decay, batches of 20 graphs,
         * ReduceLROnPlateau(factor 0.5, patience 25) on the validation loss, the run ending when
         * the lr falls below 1e-6 (at most 1000 epochs): patience only as a backstop */
        o->task = "graph", o->readout = "mean";
        o->layers = 4, o->hidden = 18, o->heads = 8, o->out_heads = 1, o->embed_dim = 144;
        o->residual = 1, o->classifier_layers = 2;
        o->in_dropout = o->att_dropout = 0, o->slope = 0.2;
        o->lr = 1e-3, o->weight_decay = 0, o->graph_batch = 20;
        o->lr_factor = 0.5, o->lr_patience = 25, o->min_lr = 1e-6;
        o->epochs = 1000, o->patience = 1000, o->keep_last = 1; /* they test the last epoch */
        /* data/TUs.py reads the sets with DGL's LegacyTUDataset, whose features are the node
         * attributes where a set has them (else the one-hot node labels) */
        o->data.tu_features = "attributes";
        return 0;
    }
    if (!strcmp(name, "xu")) {
        /* section 7: 5 layers with the input's (4 message-passing layers), width 32 (their grid:
         * 16 or 32) as 4 heads of 8, sum readout, batches of 32 (grid: 32 or 128), no dropout
         * (grid: 0 or 0.5), Adam lr 0.01 halved every 50 epochs, 350 epochs, no weight decay;
         * the last epoch's model tested (they picked one epoch for all folds by its mean
         * accuracy over the folds, which are the test folds: we pick none) */
        o->task = "graph", o->readout = "sum";
        o->layers = 4, o->hidden = 8, o->heads = 4, o->out_heads = 1, o->embed_dim = 32;
        o->residual = 0, o->classifier_layers = 0;
        o->in_dropout = o->att_dropout = 0, o->slope = 0.2;
        o->lr = 0.01, o->weight_decay = 0, o->graph_batch = 32;
        o->lr_factor = 0.5, o->lr_step = 50, o->min_lr = 0;
        o->epochs = 350, o->patience = 350, o->keep_last = 1;
        return 0;
    }
    fprintf(stderr,
            "gat-train: --preset: unknown preset '%s' (expected paper, paper-pubmed, platonov, "
            "dwivedi or xu)\n",
            name);
    return 2;
}
