# Build firmware for one board. A project's Makefile sets these and includes this file:
#
#   BOARD_DIR := path/to/boards/<name>       (the folder holding board.json)
#   SOURCES   := main.c model.c ...          (the project's C files)
#   INCLUDES  := . include                   (optional: the project's include folders)
#   include $(BOARD_DIR)/../common/firmware.mk
#
# Optional: BUILD_DIR (default build/<board name>), TARGET (firmware), OPT (-O2),
# EXTRA_CFLAGS, EXTRA_LDFLAGS, PYTHON (python3), QEMU_EXTRA (more QEMU options for run, e.g.
# -device loader,... to write a program into flash), CC_LAUNCHER (a command the compiler runs
# under, e.g. ccache).
# Targets: all (the ELF, then its size), run (under QEMU, or natively for the host board),
# clean. Result: $(BUILD_DIR)/$(TARGET).elf. Paths must not contain spaces.

ifndef BOARD_DIR
$(error BOARD_DIR is not set: point it at boards/<name>)
endif

COMMON_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
BOARD_DIR := $(abspath $(BOARD_DIR))
BUILD_DIR ?= build/$(notdir $(BOARD_DIR))
TARGET ?= firmware
OPT ?= -O2
PYTHON ?= python3

ELF := $(BUILD_DIR)/$(TARGET).elf
OBJ_DIR := $(BUILD_DIR)/obj

all: $(ELF)

# board.mk (CROSS, BOARD_CFLAGS, BOARD_SOURCES, ...) and memory.ld come from board.json;
# make rebuilds them first whenever board.json changes.
include $(BUILD_DIR)/board.mk
$(BUILD_DIR)/board.mk: $(BOARD_DIR)/board.json $(COMMON_DIR)/board_vars.py
	$(PYTHON) $(COMMON_DIR)/board_vars.py $< $(BUILD_DIR)

CC := $(strip $(CC_LAUNCHER) $(CROSS)gcc)
SIZE := $(CROSS)size

# -ffp-contract=off: no fused multiply-add, so results match the host bit for bit.
# -fno-math-errno: sqrtf becomes one instruction on FPU cores.
CFLAGS := -std=c99 $(OPT) -g -ffreestanding -ffp-contract=off -fno-math-errno \
          -Wall -Wextra -Wpedantic -Werror -ffunction-sections -fdata-sections -MMD -MP \
          $(BOARD_CFLAGS) -I$(COMMON_DIR) $(addprefix -I,$(INCLUDES)) \
          -isystem $(COMMON_DIR)/include $(EXTRA_CFLAGS)

COMMON_SOURCES := $(COMMON_DIR)/printf_min.c $(COMMON_DIR)/mathf_min.c
ifeq ($(BOARD_ARCH),host)
LDFLAGS := -Wl,--gc-sections $(BOARD_LDFLAGS) $(EXTRA_LDFLAGS)
LDLIBS :=
else
COMMON_SOURCES += $(COMMON_DIR)/libc_min.c
# --orphan-handling=error: every section must be placed by the board's script (a section
# it lacks, asked for by a model's <NAME>_WEIGHTS_SECTION, fails the link with its name).
LDFLAGS := -nostdlib -nostartfiles -Wl,--gc-sections -Wl,--print-memory-usage \
           -Wl,--orphan-handling=error -Wl,-Map=$(BUILD_DIR)/$(TARGET).map \
           -L$(BUILD_DIR) -L$(COMMON_DIR) -T$(BOARD_LDSCRIPT) \
           $(BOARD_LDFLAGS) $(EXTRA_LDFLAGS)
LDLIBS := -lgcc
endif

# Every object lands under OBJ_DIR at its source's absolute path, so names never clash.
ALL_SOURCES := $(abspath $(SOURCES) $(BOARD_SOURCES) $(COMMON_SOURCES))
OBJS := $(addprefix $(OBJ_DIR),$(addsuffix .o,$(basename $(ALL_SOURCES))))

# The memory functions must not be compiled into calls to themselves.
$(OBJ_DIR)$(COMMON_DIR)/libc_min.o: CFLAGS += -fno-tree-loop-distribute-patterns

# The .pte interpreter's loader and argument adapters run once per program or per instruction,
# never per element: compiled for size, with the options -Os sets for a whole file (a pragma
# cannot set them all). Its kernels are the static C's, at OPT.
$(foreach o,$(OBJS),$(if $(findstring /runtime_c/src/pte/,$(o)),$(o))): CFLAGS += -Os

# The Cortex-M arch kernels' assembly loops take r7: never a frame pointer there, even where
# OPT keeps one (-fno-omit-frame-pointer; gcc omits it from -O1 on).
$(foreach o,$(OBJS),$(if $(findstring /runtime_c/src/arch/,$(o)),$(o))): CFLAGS += -fomit-frame-pointer

$(OBJ_DIR)/%.o: /%.c $(BUILD_DIR)/board.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(OBJ_DIR)/%.o: /%.S $(BUILD_DIR)/board.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(ELF): $(OBJS) $(BOARD_LDSCRIPT)
	$(CC) $(BOARD_CFLAGS) $(LDFLAGS) $(OBJS) $(LDLIBS) -o $@
	$(SIZE) $@

# The same command line as aot.qemu.qemu_command (tests/qemu checks they agree).
QEMU_COMMON := -display none -monitor none -serial none -chardev stdio,id=sh0 \
               -semihosting-config enable=on,target=native,chardev=sh0 -icount shift=0

run: $(ELF)
ifeq ($(BOARD_ARCH),host)
	$(ELF)
else
	$(QEMU_SYSTEM) -machine $(QEMU_MACHINE) $(QEMU_OPTIONS) $(QEMU_COMMON) -kernel $(ELF) $(QEMU_EXTRA)
endif

clean:
	rm -rf $(BUILD_DIR)

.PHONY: all run clean

-include $(OBJS:.o=.d)
