/* Stratified k-fold assignment of a dataset's graphs (or any labelled items) and the
 * train/validation/test split of one fold (gat/readout.h). */
#include "gat/readout.h"
#include "core/core.h"

gat_status gat_graph_folds(const gat_idx *labels, gat_idx n, gat_idx classes, gat_idx k,
                           uint64_t seed, gat_idx *fold)
{
    gat_idx *order = NULL;
    gat_rng rng;
    gat_i_clear_error();
    if (!labels || !fold)
        return gat_i_error(GAT_EINVAL, "gat_graph_folds: NULL %s", !labels ? "labels" : "fold");
    if (n < 1 || k < 2 || k > n || classes < 1)
        return gat_i_error(GAT_EINVAL,
                           "gat_graph_folds: n = %d, classes = %d, k = %d; expected n >= 1, "
                           "classes >= 1 and 2 <= k <= n",
                           n, classes, k);
    for (gat_idx i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= classes)
            return gat_i_error(GAT_EINVAL, "gat_graph_folds: labels[%d] = %d outside 0..%d", i,
                               labels[i], classes - 1);
    if (!(order = gat_malloc((size_t)n, sizeof *order))) return GAT_ENOMEM;
    /* a seeded Fisher-Yates shuffle, then a stable pass per class: the items of each class in
     * shuffled order, dealt to the folds in turn, the deal carried on from class to class */
    for (gat_idx i = 0; i < n; i++)
        order[i] = i;
    gat_rng_seed(&rng, seed);
    for (gat_idx i = n - 1; i > 0; i--) {
        const gat_idx j = (gat_idx)gat_rng_below(&rng, (uint64_t)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    gat_idx next = 0;
    for (gat_idx c = 0; c < classes; c++)
        for (gat_idx p = 0; p < n; p++)
            if (labels[order[p]] == c) {
                fold[order[p]] = next;
                next = next + 1 == k ? 0 : next + 1;
            }
    gat_free(order);
    return GAT_OK;
}

gat_status gat_graph_fold_split(const gat_idx *fold, gat_idx n, gat_idx k, gat_idx f,
                                uint8_t *split)
{
    gat_i_clear_error();
    if (!fold || !split)
        return gat_i_error(GAT_EINVAL, "gat_graph_fold_split: NULL %s", !fold ? "fold" : "split");
    if (k < 3 || f < 0 || f >= k || n < 0)
        return gat_i_error(GAT_EINVAL,
                           "gat_graph_fold_split: fold f = %d of k = %d (n = %d), expected "
                           "0 <= f < k and k >= 3 (fold f tests and fold f + 1 validates: two "
                           "folds would leave nothing to train on)",
                           f, k, n);
    const gat_idx v = f + 1 == k ? 0 : f + 1;
    for (gat_idx i = 0; i < n; i++) /* checked first: split is untouched on failure */
        if (fold[i] < 0 || fold[i] >= k)
            return gat_i_error(GAT_EINVAL, "gat_graph_fold_split: fold[%d] = %d outside 0..%d", i,
                               fold[i], k - 1);
    for (gat_idx i = 0; i < n; i++)
        split[i] = fold[i] == f ? GAT_SPLIT_TEST : fold[i] == v ? GAT_SPLIT_VAL : GAT_SPLIT_TRAIN;
    return GAT_OK;
}
