/* Picks a build of the fused kernels (layers/fused*.c, compiled once per instruction set):
 * AVX-512 (x86-64-v4), AVX2 + FMA (x86-64-v3) or the baseline, as a model's options name it or
 * the widest this CPU runs. Builds without GAT_I_FUSED_X86 (other CPUs, the double build,
 * -Disa_copies=false) have the baseline only. */
#include "fused.h"

#include <string.h>

extern const gat_i_fused_ops gat_i_fused_ops_base;
#ifdef GAT_I_FUSED_X86
extern const gat_i_fused_ops gat_i_fused_ops_avx2, gat_i_fused_ops_avx512;
#endif

static const char *const kernel_names[GAT_KERNELS_COUNT] = {"auto", "base", "avx2", "avx512"};

/* The widest build this CPU runs. */
static const gat_i_fused_ops *widest(void)
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

const gat_i_fused_ops *gat_i_fused_get(gat_kernels k)
{
    const gat_i_fused_ops *best = widest();
    switch (k) {
    case GAT_KERNELS_AUTO:
        return best;
    case GAT_KERNELS_BASE:
        return &gat_i_fused_ops_base;
#ifdef GAT_I_FUSED_X86
    case GAT_KERNELS_AVX2:
        return best != &gat_i_fused_ops_base ? &gat_i_fused_ops_avx2 : NULL;
    case GAT_KERNELS_AVX512:
        return best == &gat_i_fused_ops_avx512 ? &gat_i_fused_ops_avx512 : NULL;
#endif
    default:
        return NULL;
    }
}

const gat_i_fused_ops *gat_i_fused_named(const char *isa)
{
    for (int k = GAT_KERNELS_BASE; k < GAT_KERNELS_COUNT; k++)
        if (!strcmp(isa, kernel_names[k])) return gat_i_fused_get((gat_kernels)k);
    return NULL;
}

gat_status gat_i_kernels_check(gat_kernels k, const char *fn)
{
    if ((unsigned)k >= GAT_KERNELS_COUNT)
        return gat_i_error(GAT_EINVAL,
                           "%s%soptions.kernels %d is not a gat_kernels (expected "
                           "0..%d)",
                           fn ? fn : "", fn ? ": " : "", (int)k, GAT_KERNELS_COUNT - 1);
    if (gat_i_fused_get(k)) return GAT_OK;
    char runs[64] = "";
    for (int r = GAT_KERNELS_COUNT - 1; r >= GAT_KERNELS_BASE; r--)
        if (gat_i_fused_get((gat_kernels)r)) {
            strncat(runs, runs[0] ? ", " : "", sizeof runs - strlen(runs) - 1);
            strncat(runs, kernel_names[r], sizeof runs - strlen(runs) - 1);
        }
    return gat_i_error(GAT_EINVAL,
                       "%s%soptions.kernels: the %s kernels do not run on this CPU "
                       "or are not in this build of libgat (it runs %s)",
                       fn ? fn : "", fn ? ": " : "", kernel_names[k], runs);
}

const char *gat_kernels_name(gat_kernels k)
{
    return (unsigned)k < GAT_KERNELS_COUNT ? kernel_names[k] : NULL;
}

gat_status gat_kernels_from_name(const char *name, gat_kernels *out)
{
    static const int values[GAT_KERNELS_COUNT] = {0, 1, 2, 3};
    int v;
    gat_status st;
    gat_i_clear_error();
    if (!name || !out)
        return gat_i_error(GAT_EINVAL, "gat_kernels_from_name: NULL %s", !name ? "name" : "out");
    if ((st = gat_i_name_lookup("kernel build", name, kernel_names, values, GAT_KERNELS_COUNT,
                                &v)) == GAT_OK)
        *out = (gat_kernels)v;
    return st;
}

int gat_kernels_supported(gat_kernels k)
{
    return (unsigned)k < GAT_KERNELS_COUNT && gat_i_fused_get(k) != NULL;
}
