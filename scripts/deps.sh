#!/usr/bin/env bash
# Install what parjava needs to build and test, idempotently: a second run installs nothing.
# apt packages are installed only when dpkg says they are missing; Python packages only when
# they cannot be imported.
set -euo pipefail

APT_PACKAGES=(
  build-essential pkg-config
  libopenmpi-dev openmpi-bin          # MPI for netbench, the tracer and examples (also OpenSHMEM)
  libotf2-trace-dev otf2-tools        # OTF2 reading/writing, otf2-print for cross-checks
  libgtest-dev                        # C++ unit tests
  libclang-cpp16-dev libclang-16-dev llvm-16-dev clang-16   # the model builder (frontend)
  libomp-16-dev                       # omp.h for Clang when the frontend parses -fopenmp code
  libdw-dev                           # call-site resolution (return address -> file:line)
  nlohmann-json3-dev                  # JSON (machine descriptions)
  chromium                            # headless rendering test of `parjava report`
  valgrind                            # instruction counts: the probes' cost, load-independent
)
# nbclient, nbformat, ipykernel, jinja2: the notebooks (the `notebooks` extra of pyproject.toml);
# mkdocs: the documentation site, built strictly by tests/python/test_docs.py (`docs` extra).
# mpi4py (built against the system MPI) and distributed: sweeps and trace analysis on MPI or
# Dask (docs/running-at-scale.md); their tests skip with a message where they are missing.
PY_MODULES=(numpy matplotlib pandas pytest nbclient nbformat ipykernel jinja2 mkdocs pybind11 scikit_build_core
            ninja cmake scipy mpi4py distributed)
PY_PACKAGES=(numpy matplotlib pandas pytest nbclient nbformat ipykernel jinja2 mkdocs pybind11 scikit-build-core
             ninja cmake scipy mpi4py distributed)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  echo "deps: installing apt packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
pymissing=()
for i in "${!PY_MODULES[@]}"; do
  if ! "$PYTHON" -c "import ${PY_MODULES[$i]}" >/dev/null 2>&1; then
    pymissing+=("${PY_PACKAGES[$i]}")
  fi
done
if ((${#pymissing[@]})); then
  echo "deps: installing Python packages: ${pymissing[*]}"
  "$PYTHON" -m pip install -q "${pymissing[@]}"
fi
