#!/usr/bin/env bash
# Install the phmech stack into a virtual environment: Debian packages, PETSc
# (from the PyPI source distribution), h5py against the parallel HDF5, Firedrake
# (with petsc4py), SLEPc and slepc4py, all built against this PETSc; then phmech
# (editable) with every extra of setup.cfg, `.[all]`, whose dependencies are
# declared there only; last, the compiled kernels are put into their cache.
#
#   bash scripts/install.sh            # install or update; idempotent
#   PHMECH_HOME=/somewhere bash scripts/install.sh
#
# Layout (PHMECH_HOME defaults to /opt/phmech):
#   $PHMECH_HOME/petsc-<version>/     PETSc source tree and build (PETSC_ARCH below)
#   $PHMECH_HOME/venv/                the virtual environment; activate it with
#                                     `source $PHMECH_HOME/venv/bin/activate`
#   $PHMECH_HOME/stamps/              one file per finished step; a step whose
#                                     stamp exists is skipped on the next run
# A full install on a bare 2-core machine takes about 30 minutes; a second run
# with everything in place takes a few seconds.
set -euo pipefail

PHMECH_HOME=${PHMECH_HOME:-/opt/phmech}
PETSC_VERSION=3.26.0          # matches the petsc4py pinned by Firedrake 2026.10.0
FIREDRAKE_VERSION=2026.10.0
PETSC_ARCH=arch-firedrake-default
PYTHON=${PYTHON:-python3}
JOBS=${JOBS:-$(nproc)}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PETSC_DIR=$PHMECH_HOME/petsc-$PETSC_VERSION
VENV=$PHMECH_HOME/venv
STAMPS=$PHMECH_HOME/stamps
mkdir -p "$PHMECH_HOME" "$STAMPS"

log() { printf '[install %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
done_() { [ -f "$STAMPS/$1" ]; }
stamp() { date -Is > "$STAMPS/$1"; }
t0=$SECONDS

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1

# ---------------------------------------------------------------- 1. Debian
DEB_PACKAGES="bison flex cmake gfortran ninja-build pkg-config libopenmpi-dev
 openmpi-bin libhdf5-openmpi-dev libmumps-ptscotch-dev libmetis-dev
 libptscotch-dev libscalapack-openmpi-dev libsuitesparse-dev libsuperlu-dev
 libsuperlu-dist-dev libhwloc-dev libopenblas-dev zlib1g-dev
 patchelf ffmpeg libglu1-mesa libxcursor1 libxinerama1 libxft2 libxrender1 libxfixes3
 libegl1 libegl-mesa0 libgl1-mesa-dri chromium"
# libegl*/mesa: vtk's off-screen rendering without an X server; chromium: the test that
# loads Result.to_html's page headless
missing=""
for p in $DEB_PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  log "Debian packages:$missing"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

# ---------------------------------------------------------------- 2. PETSc
if ! done_ "petsc-$PETSC_VERSION"; then
  log "building PETSc $PETSC_VERSION in $PETSC_DIR (about 6 minutes)"
  src=$PHMECH_HOME/src; mkdir -p "$src"
  [ -f "$src/petsc-$PETSC_VERSION.tar.gz" ] || \
    $PYTHON -m pip download -q --no-deps --no-binary :all: "petsc==$PETSC_VERSION" -d "$src"
  rm -rf "$PETSC_DIR"
  tar xzf "$src/petsc-$PETSC_VERSION.tar.gz" -C "$PHMECH_HOME"
  cd "$PETSC_DIR"
  INC="-I/usr/include/hdf5/openmpi -I/usr/include/scotch -I/usr/include/superlu -I/usr/include/superlu-dist -L/usr/lib/x86_64-linux-gnu/hdf5/openmpi"
  $PYTHON ./configure PETSC_ARCH=$PETSC_ARCH \
    --COPTFLAGS="-O2 $INC" --CXXOPTFLAGS="-O2 $INC" --FOPTFLAGS="-O2 $INC" \
    --with-c2html=0 --with-debugging=0 --with-fortran-bindings=0 \
    --with-shared-libraries=1 --with-strict-petscerrorcode \
    --with-bison --with-hdf5 --with-hwloc --with-metis --with-mumps --with-ptscotch \
    --with-scalapack-lib=-lscalapack-openmpi --with-suitesparse --with-superlu_dist --with-zlib \
    > "$PHMECH_HOME/petsc-configure.log" 2>&1 || { tail -n 40 "$PHMECH_HOME/petsc-configure.log"; exit 1; }
  make -j"$JOBS" PETSC_DIR="$PETSC_DIR" PETSC_ARCH=$PETSC_ARCH all \
    > "$PHMECH_HOME/petsc-make.log" 2>&1 || { tail -n 40 "$PHMECH_HOME/petsc-make.log"; exit 1; }
  cd "$REPO"
  stamp "petsc-$PETSC_VERSION"
fi
export PETSC_DIR PETSC_ARCH

# ---------------------------------------------------------------- 3. venv
if [ ! -x "$VENV/bin/python" ]; then
  log "creating virtual environment $VENV"
  $PYTHON -m venv "$VENV"
fi
PIP="$VENV/bin/python -m pip"
if ! done_ venv-base; then
  $PIP install -q --upgrade pip
  # h5py's metadata (PEP 639 licence string) needs setuptools >= 77.
  $PIP install -q --upgrade mpi4py numpy Cython pkgconfig "setuptools>=77" wheel
  stamp venv-base
fi
if ! done_ h5py; then
  log "building h5py against Debian's parallel HDF5 (about 4 minutes)"
  # Without build isolation: h5py's isolated build would compile an old mpi4py.
  HDF5_MPI=ON CC=mpicc HDF5_INCLUDEDIR=/usr/include/hdf5/openmpi \
    HDF5_LIBDIR=/usr/lib/x86_64-linux-gnu/hdf5/openmpi \
    PIP_NO_CACHE_DIR=1 $PIP install -q --no-build-isolation --no-binary h5py h5py
  stamp h5py
fi
if ! done_ "firedrake-$FIREDRAKE_VERSION"; then
  log "installing Firedrake $FIREDRAKE_VERSION (about 15 minutes)"
  # No wheel cache (also inside pip's isolated build environments): petsc4py must be
  # compiled against this PETSC_DIR, never taken from a wheel built for another PETSc
  HDF5_MPI=ON CC=mpicc PIP_NO_CACHE_DIR=1 $PIP install -q "firedrake[check]==$FIREDRAKE_VERSION"
  stamp "firedrake-$FIREDRAKE_VERSION"
fi
if ! done_ "slepc-$PETSC_VERSION"; then
  log "building SLEPc and slepc4py against this PETSc (about 6 minutes)"
  # Same rule as petsc4py: compiled against PETSC_DIR, never from a foreign wheel.
  # Two steps: slepc4py's build looks for an installed SLEPc.
  PIP_NO_CACHE_DIR=1 $PIP install -q --no-build-isolation --no-binary slepc "slepc==${PETSC_VERSION%.*}.*"
  PIP_NO_CACHE_DIR=1 $PIP install -q --no-build-isolation --no-binary slepc4py "slepc4py==${PETSC_VERSION%.*}.*"
  stamp "slepc-$PETSC_VERSION"
fi
if ! done_ "slepc-rpath-$PETSC_VERSION"; then
  # slepc4py's extension has no run path to the SLEPc library that the slepc package installed
  SITE=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  for so in "$SITE"/slepc4py/lib/*/SLEPc*.so; do
    patchelf --add-rpath "$SITE/slepc/lib" "$so"
  done
  "$VENV/bin/python" -c "from slepc4py import SLEPc" && stamp "slepc-rpath-$PETSC_VERSION"
fi
# ---------------------------------------------------------------- 4. phmech
# Editable, with the dependencies and extras of setup.cfg (`.[all]`: numba, tqdm, h5py, vtk,
# imageio, gmsh, assimulo, mpi4py, the docs and test tools); h5py, petsc4py and slepc4py,
# built above, are found satisfied.  Reinstalled when the checkout moves or setup.cfg or
# pyproject.toml change (a changed extra is installed on the next run).
key=$(printf '%s %s' "$REPO" "$(cat "$REPO/setup.cfg" "$REPO/pyproject.toml" 2>/dev/null | sha1sum)")
if [ -f "$REPO/setup.cfg" ] && [ "$(cat "$STAMPS/phmech" 2>/dev/null)" != "$key" ]; then
  log "installing phmech (editable) with its extras, .[all], from $REPO"
  PIP_NO_CACHE_DIR=1 $PIP install -q --no-build-isolation -e "$REPO[all]"
  printf '%s' "$key" > "$STAMPS/phmech"
fi

# Environment file sourced by .ci/run and by users.
cat > "$PHMECH_HOME/env.sh" <<ENV
export PETSC_DIR=$PETSC_DIR PETSC_ARCH=$PETSC_ARCH
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source $VENV/bin/activate
ENV

# ---------------------------------------------------------------- 5. kernel cache
# Compile the numba kernels into their disk cache (a few minutes once; seconds when warm).
# The cache directory is named after the digest of the kernel sources and numba's version,
# so the stamp holding it is stale exactly when the kernels need compiling again; its
# entries are keyed by those sources and this processor, not by this checkout's path, so
# every other checkout or clone of the same sources (with the same PHMECH_NUMBA_CACHE_DIR)
# loads them too.
kernels=$("$VENV/bin/python" -c "from phmech.kernels.jit import cache_directory; print(cache_directory())")
if [ "$(cat "$STAMPS/kernels" 2>/dev/null)" != "$kernels" ] || [ ! -d "$kernels" ]; then
  log "compiling the time-step kernels into $kernels"
  "$VENV/bin/python" -m phmech.warm
  printf '%s' "$kernels" > "$STAMPS/kernels"
fi

log "done in $((SECONDS - t0)) s; activate with: source $PHMECH_HOME/env.sh"
