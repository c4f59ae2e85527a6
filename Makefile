# mcu-aot: two commands do everything on a fresh machine.
#   make demo   compile the keyword-spotting model, run it on mps2-an386 under QEMU and
#               compare it with torch
#   make test   run the whole test suite
# Both bootstrap a virtualenv in .venv and the Debian packages the tests need.

PYTHON   ?= python3
VENV     := .venv
PY       := $(VENV)/bin/python
STAMP    := $(VENV)/.installed
DEMO_DIR := build/demo

# Debian packages, each with what the suite uses it for (dpkg -S names the owner of a file):
#   gcc, libc6-dev, make     host builds: aot.host, the kernel harness, ASan/UBSan (libasan
#                            comes with gcc through libgcc-12-dev), firmware for the host board,
#                            the cycle model's QEMU plugin (aot/cycles.py; no qemu header:
#                            the plugin declares the API it uses)
#   flatbuffers-compiler     flatc: regenerating and checking the .pte schema bindings
#   gcc-arm-none-eabi        Cortex-M firmware; no newlib: boards/common/include is the libc
#   qemu-system-arm          mps2-an385/386/500, mps3-an547 (built with TCG plugins: -plugin)
#   gcc-riscv64-unknown-elf, qemu-system-misc   riscv32-virt
#   cmake                    building `aot compile`'s library folder, for the host and with an
#                            arm-none-eabi toolchain file (tests/qemu/test_library.py)
#   ccache                   the tests' firmware builds share their runtime objects
#                            (tests/conftest.py sets firmware.mk's CC_LAUNCHER)
#   (libgcc-12-dev, with gcc: sanitizer/asan_interface.h, for the fuzz harness's exact blocks,
#                            tests/host/test_pte_fuzz_corpus.py)
APT_PACKAGES := gcc libc6-dev make flatbuffers-compiler gcc-arm-none-eabi qemu-system-arm \
                qemu-system-misc gcc-riscv64-unknown-elf cmake ccache
# `make fuzz` only: clang-14 (the compiler), libclang-rt-14-dev (libFuzzer, and clang's ASan and
# UBSan runtimes), llvm-14 (llvm-symbolizer: source lines in a sanitizer report)
FUZZ_PACKAGES := clang-14 libclang-rt-14-dev llvm-14
SECONDS  ?= 60
WORKERS  ?= 2

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test docs fuzz bootstrap system-deps fuzz-deps clean

bootstrap: system-deps $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,interop]'
	touch $@

system-deps fuzz-deps: PACKAGES = $(APT_PACKAGES)
fuzz-deps: PACKAGES = $(APT_PACKAGES) $(FUZZ_PACKAGES)
system-deps fuzz-deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

DEMO_BOARD := mps2-an386
# The cycle model prices the Cortex-M4: the demo states KWS's cycles and latency there.
DEMO_CYCLES := $(if $(filter mps2-an386,$(DEMO_BOARD)),--cycles --clock-mhz 120)

# The int8 keyword-spotting network end to end, then the float32 one for comparison.
demo: bootstrap
	$(VENV)/bin/aot zoo kws --int8 -o $(DEMO_DIR)/kws_int8.pt2
	$(VENV)/bin/aot report $(DEMO_DIR)/kws_int8.pt2 --svg $(DEMO_DIR)/kws-int8-arena.svg
	$(VENV)/bin/aot compile $(DEMO_DIR)/kws_int8.pt2 -o $(DEMO_DIR)/c --name kws
	$(VENV)/bin/aot firmware $(DEMO_DIR)/kws_int8.pt2 --board $(DEMO_BOARD) -o $(DEMO_DIR)/firmware --name kws
	@echo "== int8 KWS on $(DEMO_BOARD) =="
	$(VENV)/bin/aot run $(DEMO_DIR)/kws_int8.pt2 --board $(DEMO_BOARD) --name kws --profile \
	    --svg $(DEMO_DIR)/kws-int8-profile.svg $(DEMO_CYCLES)
	$(VENV)/bin/aot zoo kws -o $(DEMO_DIR)/kws.pt2
	@echo "== float32 KWS on $(DEMO_BOARD), for comparison =="
	$(VENV)/bin/aot run $(DEMO_DIR)/kws.pt2 --board $(DEMO_BOARD) --name kws $(DEMO_CYCLES)

# --dist loadgroup: a module marked xdist_group runs on one worker, so its module fixtures (every
# zoo network lowered and quantized, the interpreter built) are made once, not once a worker.
test: bootstrap
	$(PY) -m pytest -q -n auto --dist loadgroup tests

# The generated pages of docs/ (docs/ops.md, from the op table); tests/unit/test_docs.py checks
# that they are current.
docs: $(STAMP)
	$(PY) docs/generate.py

# A coverage-guided campaign against the .pte interpreter (bench/fuzz.py): SECONDS of libFuzzer
# on WORKERS cores under ASan and UBSan. What it crashes with lands in tests/fuzz/corpus/crashes,
# which `make test` replays.
fuzz: fuzz-deps $(STAMP)
	$(PY) bench/fuzz.py --seconds $(SECONDS) --workers $(WORKERS)

clean:
	rm -rf build $(DEMO_DIR) .pytest_cache
