"""aot.codesize: code bytes by part, read from a GNU ld map. Only what the linker placed counts
(the discarded sections listed before the memory map do not), a long section name puts its
address, size and object on the next line, .text is code and .rodata constants."""
from __future__ import annotations

from aot.codesize import code_bytes

MAP = """\
Discarded input sections

 .text.rt_conv2d_s8
                0x00000000      0x538 /p/build/obj/p/runtime_c/src/int8/conv_s8.o

Linker script and memory map

LOAD /p/build/obj/p/main.o
 .text.startup.main
                0x00000100       0xcc /p/build/obj/p/main.o
 .text.rt_conv2d_1x1_s8
                0x000001cc      0x60c /p/build/obj/p/runtime_c/src/arch/cortex_m_dsp/conv_1x1_s8.o
 .text.rt_shape_numel
                0x000007d8       0x48 /p/build/obj/p/runtime_c/src/core/shape.o
 .text.model_run
                0x00000820      0x2a8 /p/build/obj/p/model.o
 .text          0x00000ac8       0xa0 /usr/lib/gcc/arm-none-eabi/12.2.1/thumb/libgcc.a(_arm_truncdfsf2.o)
 .rodata.model_c3
                0x00000b68     0x1000 /p/build/obj/p/model.o
 .rodata.inv.0  0x00001b68       0x78 /p/build/obj/p/boards/common/mathf_min.o
"""


def test_code_bytes_split_runtime_model_platform(tmp_path):
    path = tmp_path / "firmware.map"
    path.write_text(MAP)
    c = code_bytes(path)
    assert c.runtime == 0x60c + 0x48       # the discarded rt_conv2d_s8 does not count
    assert c.model == 0x2a8
    assert c.platform == 0xcc + 0xa0       # main and libgcc
    assert c.constants == 0x1000 + 0x78
    assert c.runtime_and_model == 0x60c + 0x48 + 0x2a8


def test_no_map_no_figure(tmp_path):
    """Host builds link without a map: no code figure rather than a wrong one."""
    assert code_bytes(tmp_path / "missing.map") is None
