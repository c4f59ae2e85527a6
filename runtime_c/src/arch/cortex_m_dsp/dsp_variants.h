/* dsp_variants.h (Cortex-M DSP) - which fast paths of the DSP int8 convolutions a build
 * compiles.
 *
 * rt_conv2d_1x1_s8, rt_depthwise_conv2d_s8, rt_conv2d_s8 and rt_s8_fc_row pick a path per
 * layer at run time (pointwise quads or blocks; depthwise 3x3 whole planes or rings of rows,
 * channel pairs or quads; long convolution patches; a fully connected row's asm blocks), by
 * predicates on the layer's shapes, quantization and biases. Each path is its own code, and a
 * model takes a few: its generator builds the firmware with -DRT_DSP_USE=<mask> of RT_DSP_U_*
 * bits (aot/codegen/dsp_variants.py, which mirrors those predicates), and a path whose bit is
 * clear is not compiled. The
 * generator also leaves out the fully connected blocks where the layers that would take them
 * are small (a keyword spotter's 768-MAC classifier: 950 B of code for 2 K cycles). Without
 * RT_DSP_USE (a user's own build, the twins, the CMake library) every path is.
 *
 * A path left out is never a wrong answer: its layers take the next path that fits, down to
 * the general one, which every build has (the same bytes, in more cycles). The generator's
 * mirror is checked by tests/qemu/test_dsp_variants.py: a pruned build runs the zoo's networks
 * in the very instructions of the full one. Private to this folder. */
#ifndef RT_DSP_VARIANTS_H
#define RT_DSP_VARIANTS_H

#define RT_DSP_U_PW_QUADS (1u << 0)    /* conv_1x1_s8.c: pointwise_quads */
#define RT_DSP_U_PW_BLOCKS (1u << 1)   /* conv_1x1_s8.c: pointwise_blocks */
#define RT_DSP_U_DW3_FLAT (1u << 2)    /* depthwise_conv_3x3_s8.c: whole planes (dw3_flat) */
#define RT_DSP_U_DW_PAIRS (1u << 3)    /* depthwise_conv_s8.c: dwm_layer (multiplier 2k) */
#define RT_DSP_U_DW_QUADS (1u << 4)    /* depthwise_conv_s8.c: quad_channels */
#define RT_DSP_U_DW3_ROWS (1u << 5)    /* depthwise_conv_3x3_s8.c: rings of rows (dw3_channels),
                                          and whole planes at stride 2 (dw3_flat2) */
#define RT_DSP_U_FC_BLOCKS (1u << 6)   /* fc_row_s8.c: fc_blocks (and fc_fast) */
#define RT_DSP_U_CONV_KXK (1u << 7)    /* conv_s8.c: conv_kxk (conv_kxk.h) */

#ifndef RT_DSP_USE
#define RT_DSP_USE (~0u)
#endif

/* Whether any of the paths `bits` is compiled: a constant, so that a path's call under
 * `if (RT_DSP_HAS(...) && ...)` and its code are left out of the build when it is not. */
#define RT_DSP_HAS(bits) (((RT_DSP_USE) & (bits)) != 0u)

#endif /* RT_DSP_VARIANTS_H */
