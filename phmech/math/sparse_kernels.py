"""Products with matrices given as CSR arrays ``(indptr, indices, data)``, for the kernels.

The compiled residual and its Jacobian (:mod:`phmech.assembly.compiled`,
:mod:`phmech.assembly.compiled_jacobian`) and the Newton iterations of the
solvers (``E y`` of the midpoint and Radau IIA steps) take the constant
matrices of a model in this form.
"""
import numpy as np

from ..kernels.jit import borrowed, jit as _jit
from .jacobian_target import jac_add


@_jit
def csr_mv_add(indptr, indices, data, x, out, sign):
    """``out += sign * A x`` for ``A`` in CSR arrays."""
    for i in range(indptr.size - 1):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[indices[k]]
        out[i] += sign * s


@_jit
def csr_mv(indptr, indices, data, x):
    """``A x`` for ``A`` in CSR arrays (a new vector)."""
    out = np.zeros(indptr.size - 1)
    csr_mv_add(indptr, indices, data, x, out, 1.0)
    return out


@_jit
def csr_add_dense(indptr, indices, data, J, r0, c0, sign):
    """``J[r0 + i, c0 + j] += sign * A[i, j]`` for ``A`` in CSR arrays."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    for i in range(indptr.size - 1):
        for k in range(indptr[i], indptr[i + 1]):
            jac_add(J, r0 + i, c0 + indices[k], sign * data[k])
