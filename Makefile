# parjava: `make demo` runs the main job on the embedded example, `make test` runs every test.
# Both install what is missing first (scripts/deps.sh, idempotent) and build incrementally.
PYTHON ?= python3
BUILD ?= build/dev
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=

# MPI as root needs these; tests and the demo run real mpirun.
export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1
export OMPI_MCA_rmaps_base_oversubscribe = 1
# Use the build in place: python/ for the package, $(BUILD)/package for the compiled parts.
export PYTHONPATH := $(CURDIR)/python$(if $(PYTHONPATH),:$(PYTHONPATH))
export PARJAVA_BUILD_DIR := $(CURDIR)/$(BUILD)/package

.PHONY: all deps configure build test test-cpp test-python test-fuzz test-notebooks test-sanitize \
        fuzz demo docs lint format stubs clean

all: build

deps:
	@PYTHON=$(PYTHON) scripts/deps.sh

$(BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DPARJAVA_BUILD_TESTS=ON -DPARJAVA_WERROR=ON -DPython_EXECUTABLE=$$(command -v $(PYTHON)) \
	  $(CMAKE_ARGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build test-cpp test-python test-fuzz test-notebooks

test-cpp:
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-python:
	$(PYTHON) -m pytest tests/python -q

# Every reader (OTF2, GOAL, model and machine JSON, Predictor.par, estimates) on a few hundred
# seeded mutations of valid files: a result or the reader's own error, never anything else.
test-fuzz:
	$(PYTHON) -m pytest tests/fuzz -q

test-notebooks:
	@if ls notebooks/*.ipynb >/dev/null 2>&1; then \
	  $(PYTHON) scripts/run_notebooks.py --executed $(BUILD)/notebooks notebooks/*.ipynb; \
	else echo "no notebooks yet"; fi

# AddressSanitizer + UndefinedBehaviorSanitizer over every C++ part except the Clang frontend,
# in a build directory of its own: only the GoogleTest suites are built (-O1, line tables), and
# run. Any report fails the run (halt_on_error; leaks too). ccache, when installed, makes a
# rebuild cheap.
SANITIZE_BUILD ?= build/sanitize
SANITIZE_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SANITIZE_LAUNCHER = $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)

$(SANITIZE_BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(SANITIZE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=None \
	  -DPARJAVA_BUILD_TESTS=ON -DPARJAVA_BUILD_PYTHON=OFF -DPARJAVA_WITH_CLANG=OFF \
	  -DCMAKE_C_FLAGS="-O1 -g1 $(SANITIZE_FLAGS)" -DCMAKE_CXX_FLAGS="-O1 -g1 $(SANITIZE_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS="$(SANITIZE_FLAGS)" -DCMAKE_SHARED_LINKER_FLAGS="$(SANITIZE_FLAGS)" \
	  $(SANITIZE_LAUNCHER)

test-sanitize: deps $(SANITIZE_BUILD)/build.ninja
	cmake --build $(SANITIZE_BUILD) -j $(JOBS) --target parjava_tests
	ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/sanitize/lsan.supp:print_suppressions=0 \
	  ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS)

demo: build
	$(PYTHON) -m parjava demo

# The documentation site (mkdocs.yml) into build/site: scripts/gen_docs.py stages the pages, the
# generated API, extension and CLI references and the notebooks (with their outputs when
# `make test-notebooks` left executed copies), failing on a broken link; MkDocs builds with
# warnings as errors. Needs no C++ build; installs MkDocs when it is missing.
docs:
	@$(PYTHON) -c "import mkdocs" 2>/dev/null || $(PYTHON) -m pip install -q "mkdocs>=1.5"
	$(PYTHON) scripts/gen_docs.py --out $(BUILD)/docs-src --executed $(BUILD)/notebooks
	$(PYTHON) -m mkdocs build --strict --quiet -f $(BUILD)/docs-src/mkdocs.yml -d $(CURDIR)/build/site

lint:
	$(PYTHON) -m ruff check python tests/python tests/fuzz benchmarks scripts notebooks
	$(PYTHON) -m ruff format --check python tests/python tests/fuzz benchmarks scripts notebooks
	clang-format-16 --dry-run --Werror $$(git ls-files 'cpp/*.cpp' 'cpp/*.hpp' 'tests/cpp/*.cpp' 'examples/*.c' 'examples/*.cpp')

format:
	$(PYTHON) -m ruff format python tests/python tests/fuzz benchmarks
	clang-format-16 -i $$(git ls-files 'cpp/*.cpp' 'cpp/*.hpp' 'tests/cpp/*.cpp')

# Type stubs of the extension module, shipped in the wheel (python/parjava/_core.pyi); rerun
# after changing a binding (tests/python/test_workflow_packaging.py says when they are stale).
stubs:
	$(PYTHON) -c 'import sys; from mypy.stubgen import main; main(sys.argv[1:])' \
	  -m parjava._core -o $(BUILD)/stubs
	cp $(BUILD)/stubs/parjava/_core.pyi python/parjava/_core.pyi
	$(PYTHON) -m ruff check --fix --select I python/parjava/_core.pyi
	$(PYTHON) -m ruff format python/parjava/_core.pyi

clean:
	rm -rf $(BUILD)
