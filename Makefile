# One-command set-up on a fresh Linux x86_64 machine with Python 3.11/3.12:
#   make run    builds everything and runs `python -m torch_uaccel` (build info, checks, benchmark)
#   make test   builds everything and runs the test suite
# TORCH picks the torch release (2.14.1: CUDA 13.0 build, so the CUDA kernels are compiled too;
# 2.13.0: the CPU build); VENV where it goes.
PYTHON ?= python3
TORCH ?= 2.14.1
VENV ?= .venv
MAX_JOBS ?= 2
export TORCH_CUDA_ARCH_LIST ?= 8.0;9.0+PTX
PY := $(VENV)/bin/python
SOURCES := setup.py pyproject.toml $(shell find csrc -type f)

.PHONY: run test bench build clean
run: build
	$(PY) -m torch_uaccel

test: build
	$(PY) -m pytest -q

bench: build
	$(PY) benchmarks/bench_elu.py

build: $(VENV)/.built

$(VENV)/.deps:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q "torch==$(TORCH)" numpy pytest hypothesis ninja "setuptools>=64" wheel matplotlib
	$(PY) -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda)"
	touch $@

# Rebuilds the extension whenever a C++/CUDA source or the build files change.
$(VENV)/.built: $(VENV)/.deps $(SOURCES)
	MAX_JOBS=$(MAX_JOBS) $(VENV)/bin/pip install -q --no-build-isolation --no-deps -e .
	touch $@

clean:
	rm -rf build *.egg-info torch_uaccel/_C*.so $(VENV)/.built
