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

# Debian packages: flatc for the schema, cross compilers and QEMU for the board tests.
APT_PACKAGES := flatbuffers-compiler gcc-arm-none-eabi qemu-system-arm qemu-system-misc \
                gcc-riscv64-unknown-elf
APT_TOOLS    := flatc arm-none-eabi-gcc qemu-system-arm qemu-system-riscv32 riscv64-unknown-elf-gcc

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test bootstrap system-deps clean

bootstrap: $(STAMP) system-deps

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,interop]'
	touch $@

system-deps:
	@missing=""; for t in $(APT_TOOLS); do command -v $$t >/dev/null || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages (missing:$$missing)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(APT_PACKAGES); \
	fi

DEMO_BOARD := mps2-an386

demo: bootstrap
	$(VENV)/bin/aot zoo kws -o $(DEMO_DIR)/kws.pt2
	$(VENV)/bin/aot report $(DEMO_DIR)/kws.pt2 --svg $(DEMO_DIR)/kws-arena.svg
	$(VENV)/bin/aot compile $(DEMO_DIR)/kws.pt2 -o $(DEMO_DIR)/c --name kws
	$(VENV)/bin/aot firmware $(DEMO_DIR)/kws.pt2 --board $(DEMO_BOARD) -o $(DEMO_DIR)/firmware --name kws
	$(VENV)/bin/aot run $(DEMO_DIR)/kws.pt2 --board $(DEMO_BOARD) --name kws

test: bootstrap
	$(PY) -m pytest -q tests

clean:
	rm -rf build $(DEMO_DIR) .pytest_cache
