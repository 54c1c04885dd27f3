# One-command set-up on a fresh Linux x86_64 machine with Python 3.11/3.12:
#   make run    builds everything and runs `python -m torch_uaccel` (build info, checks, benchmark)
#   make test   builds everything and runs the test suite
#   make wheel  a binary wheel of the library for that torch, into dist/ (wheel-test: installs and tests it)
# TORCH picks the torch release (default in requirements/torch.txt: 2.15.0, its CUDA 13.2 build, so the
# CUDA kernels are compiled too; 2.14.1: CUDA 13.0; 2.13.0: the CPU build); VENV where it goes.
PYTHON ?= python3
TORCH ?= $(shell sed -n 's/^torch==//p' requirements/torch.txt)
VENV ?= .venv
MAX_JOBS ?= 2
PYTEST_ARGS ?=
# Test processes (pytest-xdist): the suite runs on both cores of a CI machine; 0 runs it in this process.
PYTEST_WORKERS ?= 2
PYTEST := pytest -q -n $(PYTEST_WORKERS)
PY := $(VENV)/bin/python
# One CMake build tree per environment: setup.py builds libuaccel there for the Python package, and
# cpp-test builds the C++ tests and examples in the same tree, against the same library.
BUILD_DIR := $(abspath build/cmake-$(subst .,,$(notdir $(VENV))))
SOURCES := setup.py pyproject.toml CMakeLists.txt $(shell find csrc cmake -type f)

.PHONY: run test cpp-test sanitize bench build clean lint format expm1-sweep accuracy tables tables-check wheel wheel-test \
  example-test example-test-here
run: build
	$(PY) -m torch_uaccel

test: build
	$(PY) -m $(PYTEST) $(PYTEST_ARGS)

# The record first, while the machine is quietest: bench_report.py rewrites README.md's benchmark table and
# docs/benchmarks/ (CSV, plot); the other scripts' results go to benchmarks/results/ (ignored by git), each
# stamped with the commit, torch and the CPU.
bench: build
	$(VENV)/bin/pip install -q -r requirements/bench.txt
	$(PY) benchmarks/bench_report.py
	$(PY) benchmarks/bench_targets.py --json benchmarks/results/targets_cpu.json
	$(PY) benchmarks/bench_per_call.py --json benchmarks/results/per_call_cpu.json
	$(PY) benchmarks/bench_ops.py
	$(PY) benchmarks/bench_memory.py
	$(PY) benchmarks/bench_copy.py
	$(PY) benchmarks/bench_compiled.py
	$(PY) benchmarks/bench_swiglu.py --json benchmarks/results/swiglu_cpu.json
	$(PY) benchmarks/bench_rms_norm.py --allocator uaccel --update-readme
	$(PY) benchmarks/bench_models.py --update-readme --json benchmarks/results/models_cpu.json

# The CPU expm1 against float64 on every float32 x <= 0 (2^31 values, about a minute per CPU path;
# CI checks a dense sample in tests/test_expm1_accuracy.py).
expm1-sweep: build
	$(PY) tests/expm1_sweep.py

# docs/accuracy.md: every op's forward and derivative on each CPU path this machine runs, against float64.
accuracy: build
	$(PY) tools/accuracy_record.py

# The fitted polynomials' coefficients in csrc/ are, byte for byte, what tools/ writes: the generators in an
# environment of their own (requirements/tables.txt's numpy, the clang-format below). `make tables` rewrites them.
TABLES_VENV := .venv-tables
$(TABLES_VENV)/.deps: requirements/tables.txt
	$(PYTHON) -m venv $(TABLES_VENV)
	$(TABLES_VENV)/bin/pip install -q -r requirements/tables.txt "clang-format==$(CLANG_FORMAT_VERSION)"
	touch $@
tables-check: $(TABLES_VENV)/.deps
	$(TABLES_VENV)/bin/python tools/fit_activation_tables.py --check
	$(TABLES_VENV)/bin/python tools/fit_polynomials.py --check
tables: $(TABLES_VENV)/.deps
	$(TABLES_VENV)/bin/python tools/fit_activation_tables.py
	$(TABLES_VENV)/bin/python tools/fit_polynomials.py

# The LibTorch side, against the library `make build` built: the GoogleTest suite and the C++ example
# under CTest, then `cmake --install` and projects outside the tree that find_package() it: a
# downstream user, and examples/aoti (an AOTInductor package of a model using the ops, run from C++).
CMAKE_ENV := PATH=$(abspath $(VENV))/bin:$$PATH
PREFIX := $(abspath build/prefix)
TORCH_CMAKE_PREFIX = $(shell $(PY) -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
CMAKE_CUDA_ARGS = $(shell grep -E '^(CMAKE_CUDA_COMPILER|CUDA_TOOLKIT_ROOT_DIR):' $(BUILD_DIR)/CMakeCache.txt | sed -E 's/^([A-Z_]+):[A-Z]+=/-D\1=/')
# The downstream consumer finds the CMake package inside the Python package, as a wheel's user does
# (torch_uaccel.cmake_prefix_path); the AOTInductor example finds the one `cmake --install` wrote.
PACKAGE_CMAKE_PREFIX = $(shell $(PY) -c 'import torch_uaccel; print(torch_uaccel.cmake_prefix_path)' 2>/dev/null)
cpp-test: build
	$(CMAKE_ENV) cmake -S . -B $(BUILD_DIR) -DUACCEL_BUILD_TESTS=ON
	$(CMAKE_ENV) cmake --build $(BUILD_DIR) -j $(MAX_JOBS)
	$(CMAKE_ENV) ctest --test-dir $(BUILD_DIR) --output-on-failure
	$(CMAKE_ENV) cmake --install $(BUILD_DIR) --prefix $(PREFIX)
	for consumer in tests/cpp/downstream=$(PACKAGE_CMAKE_PREFIX) examples/aoti=$(PREFIX); do \
	  project=$${consumer%%=*}; \
	  $(CMAKE_ENV) cmake -S $$project -B build/$$(basename $$project) -G Ninja -DCMAKE_PREFIX_PATH="$${consumer#*=};$(TORCH_CMAKE_PREFIX)" \
	    -DPython3_EXECUTABLE=$(abspath $(PY)) $(CMAKE_CUDA_ARGS) && \
	  $(CMAKE_ENV) cmake --build build/$$(basename $$project) && \
	  $(CMAKE_ENV) ctest --test-dir build/$$(basename $$project) --output-on-failure || exit 1; \
	done

build: $(VENV)/.built

# torch and the test tools come through build/wheelhouse-<torch> (downloaded once), so that wheel-test can
# make a fresh environment offline.
WHEELHOUSE := build/wheelhouse-$(TORCH)
$(VENV)/.deps: requirements/test.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip download -q -d $(WHEELHOUSE) "torch==$(TORCH)" -r requirements/test.txt
	$(VENV)/bin/pip install -q --no-index --find-links $(WHEELHOUSE) "torch==$(TORCH)" -r requirements/test.txt
	$(VENV)/bin/pip install -q -r requirements/build.txt
	if $(PY) -c "import sys, torch; sys.exit(torch.version.cuda is None)"; then \
	  $(VENV)/bin/pip install -q -r requirements/cuda-tools.txt; fi
	$(PY) -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda)"
	touch $@

# Rebuilds libuaccel whenever a C++/CUDA source or the build files change.
$(VENV)/.built: $(VENV)/.deps $(SOURCES)
	UACCEL_BUILD_DIR=$(BUILD_DIR) MAX_JOBS=$(MAX_JOBS) $(VENV)/bin/pip install -q --no-build-isolation --no-deps -e .
	touch $@

# A binary wheel for $(TORCH) (CPU-only or CUDA build, as torch is), built from the same CMake tree,
# then tagged by auditwheel with the manylinux tag its glibc symbols allow; torch's and CUDA's
# libraries, and the OpenMP runtime torch bundles, are loaded by `import torch`, never bundled.
WHEEL_EXCLUDES := --exclude 'libtorch*.so' --exclude 'libc10*.so' --exclude 'libcudart.so.*' --exclude 'libgomp.so.*'
WHEEL_TAGGED := build/wheel-tagged
wheel: $(VENV)/.deps
	rm -rf build/wheel-raw $(WHEEL_TAGGED)
	UACCEL_WHEEL=1 UACCEL_BUILD_DIR=$(BUILD_DIR) MAX_JOBS=$(MAX_JOBS) $(VENV)/bin/pip wheel -q --no-build-isolation --no-deps -w build/wheel-raw .
	rm -rf torch_uaccel.egg-info  # the build's metadata, which would shadow the installed one from here
	PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/auditwheel repair -w $(WHEEL_TAGGED) $(WHEEL_EXCLUDES) build/wheel-raw/*.whl
	PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/auditwheel show $(WHEEL_TAGGED)/*.whl
	mkdir -p dist && cp $(WHEEL_TAGGED)/*.whl dist/

# The wheel as a user gets it: a fresh environment with the matching torch (offline, from the
# wheelhouse), no compiler, CMake or nvcc on PATH, run from outside the source tree: the main job
# (every op against its reference), then the tests of what an installed copy must get right (marker
# torch_release: the installed distribution, the library's loading, every op's citizenship checks,
# transforms) less what compiles C++ (torch.compile, load_inline: marked slow) and opcheck (the same
# registrations as the build tree's). The rest of the suite exercises the same library, already tested.
WHEEL_VENV := $(abspath build/venv-wheel)
WHEEL_PATH := $(abspath build/path-without-compilers)
# Run from here: outside the source tree's package (so the installed one is imported), inside the clone.
WHEEL_CWD := $(abspath build/wheel-test-cwd)
wheel-test: wheel
	rm -rf $(WHEEL_VENV) $(WHEEL_PATH) $(WHEEL_CWD)
	$(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/pip install -q --no-index --find-links $(WHEELHOUSE) "torch==$(TORCH)" -r requirements/test.txt \
	  $(WHEEL_TAGGED)/*.whl
	mkdir -p $(WHEEL_PATH) && for tool in sh bash env uname cat readelf; do ln -s "$$(command -v $$tool)" $(WHEEL_PATH)/; done
	mkdir -p $(WHEEL_CWD) && cd $(WHEEL_CWD) && PATH=$(WHEEL_VENV)/bin:$(WHEEL_PATH) UACCEL_EXPECT_INSTALLED=1 sh -c '\
	  for tool in cc gcc c++ g++ cmake ninja nvcc; do ! command -v $$tool || exit 1; done; \
	  python -m torch_uaccel --quick && python -m $(PYTEST) -p no:cacheprovider -m "torch_release and not slow" \
	    -k "not opcheck" $(abspath tests)'

# The framework as another project uses it: wheel-test's fresh environment (the wheel and the matching
# torch) given CMake and Ninja, with the compilers on PATH this time; examples/custom_pointwise built and
# installed from its own directory as a user does, then its tests and its benchmark run there. CUDA
# kernels compile for one arch (the library's own build compiles them for every default one).
example-test: wheel-test
	$(WHEEL_VENV)/bin/pip install -q -r requirements/build.txt
	cd examples/custom_pointwise && PATH=$(WHEEL_VENV)/bin:$$PATH MAX_JOBS=$(MAX_JOBS) TORCH_CUDA_ARCH_LIST=9.0 \
	  pip install -q --no-build-isolation . && \
	  PATH=$(WHEEL_VENV)/bin:$$PATH python -m $(PYTEST) -p no:cacheprovider tests && \
	  PATH=$(WHEEL_VENV)/bin:$$PATH python tests/bench_myops.py

# The same project built in place against this environment's torch_uaccel and torch (CI's older-torch legs).
example-test-here: build
	cd examples/custom_pointwise && PATH=$(abspath $(VENV))/bin:$$PATH MAX_JOBS=$(MAX_JOBS) \
	  pip install -q --no-build-isolation . && PATH=$(abspath $(VENV))/bin:$$PATH python -m $(PYTEST) -p no:cacheprovider tests

# The CPU suite against an AddressSanitizer + UndefinedBehaviorSanitizer build of libuaccel (CPU
# kernels, its own build tree; the sanitizer runtime preloaded into Python). The package loads it for
# the run, then gets its normal library back from the normal build tree (nothing recompiled), whether
# the tests passed or not: the environment stays usable. torch.compile, export and load_inline tests are
# left out: they compile and load C++ of their own, which is slow and not ours; so are the transformers
# models, whose time is matrix products, and whose norms and activations the op tests already run; and
# opcheck, whose checks are of the registration (schemas, fakes, autograd), which the sanitizers do not
# see, and whose kernel calls are the value tests' own inputs again.
# libstdc++ is preloaded too: Python does not link it, and ASan must find its __cxa_throw at start.
# allocator_may_return_null: an impossible size fails as it does without ASan (ENOMEM, which our
# allocator turns into an OutOfMemoryError the tests expect) instead of aborting the process.
SANITIZER_PRELOAD = $(shell gcc -print-file-name=libasan.so) $(shell gcc -print-file-name=libstdc++.so)
sanitize: $(VENV)/.built
	UACCEL_SANITIZE=1 UACCEL_CPU_ONLY=1 UACCEL_BUILD_DIR=$(BUILD_DIR)-sanitize MAX_JOBS=$(MAX_JOBS) \
	  $(VENV)/bin/pip install -q --no-build-isolation --no-deps -e .
	LD_PRELOAD="$(SANITIZER_PRELOAD)" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(PY) -m $(PYTEST) -p no:cacheprovider -m "not slow" -k "not compile and not cpp_api and not transformers and not opcheck" \
	  $(PYTEST_ARGS) tests; status=$$?; \
	UACCEL_BUILD_DIR=$(BUILD_DIR) MAX_JOBS=$(MAX_JOBS) $(VENV)/bin/pip install -q --no-build-isolation --no-deps -e . \
	  && exit $$status

# Lint and format: ruff (Python; pyproject.toml) and clang-format (C++/CUDA; .clang-format), pinned
# so every machine and CI agree. `lint` checks and fails on any finding; `format` rewrites.
RUFF_VERSION := 0.17.6
CLANG_FORMAT_VERSION := 23.1.5
LINT_DEPS := $(VENV)/.lint-$(RUFF_VERSION)-$(CLANG_FORMAT_VERSION)
CXX_SOURCES = $(shell git ls-files --cached --others --exclude-standard -- csrc tests/cpp examples | grep -E '\.(cpp|h|cu|cuh)$$')
lint: $(LINT_DEPS)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/clang-format --dry-run --Werror $(CXX_SOURCES)

format: $(LINT_DEPS)
	$(VENV)/bin/ruff check --fix --exit-zero .
	$(VENV)/bin/ruff format .
	$(VENV)/bin/clang-format -i $(CXX_SOURCES)

$(LINT_DEPS):
	test -x $(VENV)/bin/pip || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q "ruff==$(RUFF_VERSION)" "clang-format==$(CLANG_FORMAT_VERSION)"
	touch $@

clean:
	rm -rf build dist *.egg-info examples/custom_pointwise/build torch_uaccel/libuaccel.so torch_uaccel/_build.py torch_uaccel/include torch_uaccel/share $(VENV)/.built
