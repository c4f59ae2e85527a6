/* depthwise_conv_3x3_s8.c (Cortex-M Helium) - rt_depthwise_conv2d_3x3_s8 as the portable
 * entry point has it: the Helium depthwise of this folder (sixteen channels a pass) already
 * takes these layers, and this file keeps the DSP folder's per-channel kernel, which it
 * would otherwise inherit, out of the M55's firmware. */
#include "../../int8/depthwise_conv_3x3_s8.c"
