/* Fused GAT layer kernels (Velickovic et al. 2018, eq. 1-4, with dropout, and their backward):
 * the table of one build. Every kernel file (fused_proj.c, fused_forward.c, fused_targets.c,
 * fused_sources.c, fused_dw.c, fused_adam.c, fused_gemm.c, fused_elem.c, with fused_vec.h and
 * fused_drop.h) is compiled once per instruction set, GAT_I_ISA naming the copy; fused.h describes
 * layouts and chunks. */
#include "fused_vec.h"

#define STR2(a) #a
#define STR(a) STR2(a)

extern const gat_i_fused_ops FN(gat_i_fused_ops);
const gat_i_fused_ops FN(gat_i_fused_ops) = {
    .isa = STR(GAT_I_ISA),
    .proj_sparse = FN(gat_i_fused_proj_sparse),
    .proj_dense = FN(gat_i_fused_proj_dense),
    .proj_halves = FN(gat_i_fused_proj_halves),
    .att_forward = FN(gat_i_fused_att_forward),
    .att_alpha = FN(gat_i_fused_att_alpha),
    .att_backward_targets = FN(gat_i_fused_att_backward_targets),
    .att_backward_sources = FN(gat_i_fused_att_backward_sources),
    .dw_sparse = FN(gat_i_fused_dw_sparse),
    .adam = FN(gat_i_adam_loop),
    .to_fh = FN(gat_i_fused_to_fh),
    .gemm = FN(gat_i_fused_gemm),
    .dropout = FN(gat_i_fused_dropout),
    .gelu = FN(gat_i_fused_gelu),
    .gelu_grad = FN(gat_i_fused_gelu_grad),
};
