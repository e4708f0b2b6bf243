/* Picks the build of fused.c for this CPU: AVX-512 (x86-64-v4), AVX2 + FMA (x86-64-v3), or the
 * baseline, unless the environment variable GAT_ISA names another one this CPU runs. Builds
 * without GAT_I_FUSED_X86 (other CPUs, the double build) have the baseline only. */
#include "fused.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

extern const gat_i_fused_ops gat_i_fused_ops_base;
#ifdef GAT_I_FUSED_X86
extern const gat_i_fused_ops gat_i_fused_ops_avx2, gat_i_fused_ops_avx512;
#endif

/* The widest build this CPU runs. */
static const gat_i_fused_ops *detect(void)
{
#ifdef GAT_I_FUSED_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
        return &gat_i_fused_ops_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("f16c"))
        return &gat_i_fused_ops_avx2;
#endif
    return &gat_i_fused_ops_base;
}

const gat_i_fused_ops *gat_i_fused_select(const char *isa)
{
    const gat_i_fused_ops *ops = isa ? gat_i_fused_named(isa) : NULL;
    return ops ? ops : detect();
}

const gat_i_fused_ops *gat_i_fused(void)
{
    /* GAT_ISA is read by the first call only: every model of the process then runs the same
     * build. Racing first calls store the same pointer. */
    static const gat_i_fused_ops *_Atomic chosen;
    const gat_i_fused_ops *ops = atomic_load_explicit(&chosen, memory_order_acquire);
    if (!ops) {
        ops = gat_i_fused_select(getenv("GAT_ISA"));
        atomic_store_explicit(&chosen, ops, memory_order_release);
    }
    return ops;
}

const gat_i_fused_ops *gat_i_fused_named(const char *isa)
{
    if (!strcmp(isa, "base")) return &gat_i_fused_ops_base;
#ifdef GAT_I_FUSED_X86
    const gat_i_fused_ops *best = detect();
    if (!strcmp(isa, "avx2") && best != &gat_i_fused_ops_base) return &gat_i_fused_ops_avx2;
    if (!strcmp(isa, "avx512") && best == &gat_i_fused_ops_avx512) return &gat_i_fused_ops_avx512;
#endif
    return NULL;
}
