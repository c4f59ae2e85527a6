/* mve_variants.h (Cortex-M Helium) - which of the Helium kernels' variants a build compiles.
 *
 * The int8 convolutions pick a variant per layer at run time (a depthwise strategy, a plane's
 * loop, a 4x2 tile's loop), by predicates on the layer's shapes and quantization alone; each
 * variant is its own copy of an assembly loop (35 KB of KWS's 58 KB). A model uses a few, and its
 * generator knows which: it builds the firmware with -DRT_MVE_USE=<mask> of RT_MVE_U_* bits
 * (aot/codegen/mve_variants.py, which mirrors the predicates below), and only those variants
 * are compiled. Without RT_MVE_USE (a user's own build, the twins, the CMake library), and at
 * -O0 (where the assembly is not built anyway), every variant is.
 *
 * A variant asked for but left out fails safely: the call returns RT_ERR_PARAM, having run
 * none of it (a depthwise strategy or plane loop is checked before the layer's first output,
 * a 4x2 tile loop before the rows it would take; outputs stored before then by other blocks
 * are as undefined as on any error). The generator's mirror of the predicates is checked by
 * tests/qemu/test_mve_variants.py and by every int8 network on the M55. Private to this
 * folder. */
#ifndef RT_MVE_VARIANTS_H
#define RT_MVE_VARIANTS_H

/* rt_depthwise_conv2d_s8's strategies (depthwise_conv_s8.c) */
#define RT_MVE_U_DW_ONE_INPUT (1ull << 0)   /* dw_one_input.h */
#define RT_MVE_U_DW_G_COLS (1ull << 1)      /* dw_gathered.h's gathered_cols */
#define RT_MVE_U_DW_G_ROWS (1ull << 2)      /* ... gathered_rows */
#define RT_MVE_U_DW_G_LINES (1ull << 3)     /* ... gathered_columns */
#define RT_MVE_U_DW_BAND (1ull << 4)        /* dw_band.h, dw_taps.h: bands, passes, channels */
/* dw_plane.h's plane_run, per mode (DW_P_COLUMNS 1 .. DW_P_BLOCKS2 3), odd group count and
 * output stage (bare: without the sign fix): 12 copies of its loop */
#define RT_MVE_DW_PLANE_AT(mode, odd, bare) (4 * ((mode) - 1) + 2 * (odd) + (bare))
#define RT_MVE_U_DW_PLANE_AT(i) (1ull << (5 + (i)))
#define RT_MVE_U_DW_PLANE(mode, odd, bare) \
    RT_MVE_U_DW_PLANE_AT(RT_MVE_DW_PLANE_AT(mode, odd, bare))
#define RT_MVE_U_DW_PLANES (0xFFFull << 5)
/* rt_mve_gathered's column-major patches (conv_mve.c: rt_mve_cols_gathered) */
#define RT_MVE_U_COLS (1ull << 17)
/* rt_mve_quads' loops (conv_mve_4x2.h), by rt_mve_quads_variant's number */
#define RT_MVE_U_QUAD(v) (1ull << (18 + (v)))
#define RT_MVE_U_QUADS (0x1FFFFFull << 18)

/* rt_mve_quads_variant's numbers: rows 18 bytes apart; 256 taps; the saturating stage at 48
 * and (rows not word-aligned) 64 taps; down the rows (rt_mve_quads_down) at 8 .. 128 taps;
 * the clamping stage at 128 .. 8 taps, every shift right (+1) or not. */
#define RT_MVE_Q_V_AT18 0
#define RT_MVE_Q_V_256 1
#define RT_MVE_Q_V_SAT48 2
#define RT_MVE_Q_V_SAT64 3
#define RT_MVE_Q_V_DOWN8 4
#define RT_MVE_Q_V_DOWN16 5
#define RT_MVE_Q_V_DOWN32 6
#define RT_MVE_Q_V_DOWN64 7
#define RT_MVE_Q_V_DOWN128 8
#define RT_MVE_Q_V_CLAMP128 9   /* +1: every filter shifts right; 64: 11, 48: 13, .. 8: 19 */
#define RT_MVE_Q_V_CLAMP64 11
#define RT_MVE_Q_V_CLAMP48 13
#define RT_MVE_Q_V_CLAMP32 15
#define RT_MVE_Q_V_CLAMP16 17
#define RT_MVE_Q_V_CLAMP8 19

#if !defined(RT_MVE_USE) || !defined(__OPTIMIZE__)
#undef RT_MVE_USE
#define RT_MVE_USE (~0ull)
#endif

/* The 256-tap loop takes every register its assembly may have: beside some loops (or alone)
 * gcc found too few at some levels, so it comes with them all, as in the full build. */
#if (RT_MVE_USE & RT_MVE_U_QUAD(RT_MVE_Q_V_256)) != 0ull
#define RT_MVE_COMPILED (RT_MVE_USE | RT_MVE_U_QUADS)
#else
#define RT_MVE_COMPILED RT_MVE_USE
#endif

/* Whether any of the variants `bits` is compiled (in #if and in code alike). */
#define RT_MVE_HAS(bits) ((RT_MVE_COMPILED & (bits)) != 0ull)

#endif /* RT_MVE_VARIANTS_H */
