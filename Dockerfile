# phmech on the official Firedrake image (PETSc and Firedrake preinstalled).
FROM firedrakeproject/firedrake-vanilla-default:2026.10.0

ENV OMP_NUM_THREADS=1 MPLBACKEND=Agg
WORKDIR /opt/phmech
COPY . /opt/phmech
RUN pip install --no-cache-dir "assimulo-testing==3.9.0b2" matplotlib scipy pytest vtk \
 && pip install --no-cache-dir --no-deps -e /opt/phmech

CMD ["python", "-m", "phmech.validation.crank_slider", "--outdir", "/tmp/out", "--no-plot"]
