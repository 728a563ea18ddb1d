# phmech on the official Firedrake image (PETSc, petsc4py, h5py and Firedrake preinstalled).
# The tag is the FIREDRAKE_VERSION that scripts/install.sh installs (tests/test_packaging.py
# checks it); the Python dependencies come from setup.cfg, `.[all]`, as in the script.
FROM firedrakeproject/firedrake-vanilla-default:2026.10.0

ENV OMP_NUM_THREADS=1 PHMECH_NUMBA_CACHE_DIR=/opt/phmech-cache/numba
WORKDIR /opt/phmech
COPY . /opt/phmech

# SLEPc and slepc4py against the image's PETSc when the image has none (the eigen layer's
# SLEPc path); two steps, since slepc4py's build looks for an installed SLEPc.
RUN python -c "from slepc4py import SLEPc" 2>/dev/null || { \
      v=$(python -c "import petsc4py; print(petsc4py.__version__.rsplit('.', 1)[0])") \
   && pip install --no-cache-dir --no-build-isolation --no-binary slepc "slepc==$v.*" \
   && pip install --no-cache-dir --no-build-isolation --no-binary slepc4py "slepc4py==$v.*" \
   && python -c "from slepc4py import SLEPc"; }

# phmech (editable) with every extra: numba, tqdm, h5py, vtk, imageio, gmsh, assimulo, ...
RUN pip install --no-cache-dir -e "/opt/phmech[all]"

# The compiled kernels, built once here and readable by any user of the image; writable by
# root only (phmech does not use a kernel cache that others could write: it is code).
RUN python -m phmech.warm && chmod -R a+rX,go-w /opt/phmech-cache

CMD ["python", "-m", "phmech.validation.crank_slider", "--outdir", "/tmp/out", "--no-plot"]
