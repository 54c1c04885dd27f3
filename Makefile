# One-command set-up on a fresh Linux x86_64 machine with Python 3.11/3.12:
#   make run    builds everything and runs `python -m torch_uaccel` (build info, checks, benchmark)
#   make test   builds everything and runs the test suite
# TORCH picks the torch release (2.14.1: CUDA 13.0 build, so the CUDA kernels are compiled too;
# 2.13.0: the CPU build); VENV where it goes.
PYTHON ?= python3
TORCH ?= 2.14.1
VENV ?= .venv
MAX_JOBS ?= 2
PYTEST_ARGS ?=
export TORCH_CUDA_ARCH_LIST ?= 8.0;9.0+PTX
PY := $(VENV)/bin/python
SOURCES := setup.py pyproject.toml $(shell find csrc -type f)

.PHONY: run test cpp-test sanitize bench build clean
run: build
	$(PY) -m torch_uaccel

test: build
	$(PY) -m pytest -q $(PYTEST_ARGS)

bench: build
	$(PY) benchmarks/bench_elu.py
	$(PY) benchmarks/bench_memory.py
	$(PY) benchmarks/bench_copy.py

# The LibTorch side: libuaccel with CMake, its GoogleTest suite and C++ example under CTest, then
# `cmake --install` and a separate project that find_package()s it (needs Debian's libgtest-dev).
CMAKE_ENV := PATH=$(abspath $(VENV))/bin:$$PATH
TORCH_CMAKE_PREFIX = $(shell $(PY) -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
CUDA_ROOT := $(firstword $(wildcard /usr/local/cuda))
CMAKE_CUDA_ARGS := $(if $(CUDA_ROOT),-DCUDA_TOOLKIT_ROOT_DIR=$(CUDA_ROOT) -DCMAKE_CUDA_COMPILER=$(CUDA_ROOT)/bin/nvcc)
cpp-test: $(VENV)/.deps
	$(CMAKE_ENV) cmake -S . -B build/cmake -G Ninja -DCMAKE_BUILD_TYPE=Release -DUACCEL_BUILD_TESTS=ON -DCMAKE_PREFIX_PATH="$(TORCH_CMAKE_PREFIX)" $(CMAKE_CUDA_ARGS)
	$(CMAKE_ENV) cmake --build build/cmake -j $(MAX_JOBS)
	ctest --test-dir build/cmake --output-on-failure
	cmake --install build/cmake --prefix build/prefix
	$(CMAKE_ENV) cmake -S tests/cpp/downstream -B build/downstream -G Ninja -DCMAKE_PREFIX_PATH="$(abspath build/prefix);$(TORCH_CMAKE_PREFIX)" $(CMAKE_CUDA_ARGS)
	$(CMAKE_ENV) cmake --build build/downstream
	build/downstream/downstream

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

# The CPU suite against an AddressSanitizer + UndefinedBehaviorSanitizer build of the extension
# (CPU kernels; the sanitizer runtime preloaded into Python). It builds in place, so the next
# `make test` rebuilds the normal extension. torch.compile and load_inline tests are left out:
# they compile and load C++ of their own, which is slow and not ours.
# libstdc++ is preloaded too: Python does not link it, and ASan must find its __cxa_throw at start.
SANITIZER_PRELOAD = $(shell gcc -print-file-name=libasan.so) $(shell gcc -print-file-name=libstdc++.so)
sanitize: $(VENV)/.deps
	rm -f $(VENV)/.built
	UACCEL_SANITIZE=1 UACCEL_CPU_ONLY=1 MAX_JOBS=$(MAX_JOBS) $(VENV)/bin/pip install -q --no-build-isolation --no-deps -e .
	LD_PRELOAD="$(SANITIZER_PRELOAD)" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(PY) -m pytest -q -p no:cacheprovider -k "not compile and not cpp_api" tests
	rm -f torch_uaccel/_C*.so

clean:
	rm -rf build *.egg-info torch_uaccel/_C*.so $(VENV)/.built
