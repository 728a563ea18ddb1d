"""The exact Jacobian ``df/dy`` of the compiled residual, as a kernel.

:func:`jacobian_kernel` takes the arguments of
:func:`~phmech.assembly.compiled.residual_kernel` and adds its derivatives to a
Jacobian target (:mod:`phmech.math.jacobian_target`: a dense matrix, or the CSR
values of the models above the dense limit), part by part as the residual
evaluates them: ``J(e) e - R e`` with the gyroscopic slots, the kernel families
(each by the ``jacobian_add`` kernel of its own module,
:mod:`phmech.kernels.families`: kinematics, joints, bodies, beams, force
elements) and the packed loads.
The midpoint rule factorizes ``E - h/2 df/dy`` built from it
(:mod:`phmech.solvers.midpoint_kernels`); ``CompiledResidual.dense_jacobian`` and
``CompiledResidual.sparse_jacobian`` return it to Python.
"""
import numpy as np

from ..kernels.jit import borrowed, jit as _jit
from ..joints.constraint_kernels import add_G_jacobian
from ..kernels.families import family_has, family_jacobian_add, literal_unroll
from ..forces.loads_kernels import has_loads, loads_jacobian_add
from ..math.jacobian_target import jac_add
from ..math.sparse_kernels import csr_add_dense, csr_mv


@_jit
def jacobian_kernel(t, y, model, inputs, J):
    """``df/dy`` of :func:`residual_kernel` (same arguments) added to the target ``J`` (zeroed):
    exact, with the constant extra ``G`` triplets ``model.X`` and the loads' inputs of the call."""
    J = borrowed(J)              # the target's arrays without reference counts in the calls below
    nq, ne, nl = model.nq, model.ne, model.nl
    q = y[:nq]
    e = y[nq:nq + ne]
    lam = y[nq + ne:]
    ce, cl = nq, nq + ne              # first columns of e and lam
    # efforts
    J0p, J0i, J0d = model.J0
    csr_add_dense(J0p, J0i, J0d, J, nq, ce, 1.0)
    Rp, Ri, Rd = model.R
    if Rp.size > 1:
        csr_add_dense(Rp, Ri, Rd, J, nq, ce, -1.0)
    if model.nslot:
        Kp, Ki, Kd = model.K
        Kw = model.Kw
        Ke = csr_mv(Kp, Ki, Kd, e)
        for s in range(model.nslot):
            for i in range(ne):
                r, j = s * ne + i, Kw[s * ne + i]      # row i of slot s, weighted by e[j]
                if j < ne:
                    for k in range(Kp[r], Kp[r + 1]):
                        jac_add(J, nq + i, ce + Ki[k], -e[j] * Kd[k])
                    jac_add(J, nq + i, ce + j, -Ke[r])
    act = np.ones(nl, np.bool_)
    inactive = model.inactive
    for i in range(inactive.size):
        act[inactive[i]] = False
        jac_add(J, cl + inactive[i], cl + inactive[i], -1.0)
    Xr, Xc, Xv = model.X
    add_G_jacobian(nq, cl, Xr, Xc, Xv, act, J)
    for data in literal_unroll(model.families):
        if family_has(data):
            family_jacobian_add(t, q, e, lam, data, act, J, nq)
    if has_loads(model.loads):
        loads_jacobian_add(q, model.loads + (inputs.u,), J, nq)


@_jit
def dense_csr(J):
    """The CSR arrays ``(indptr, indices, data)`` of the nonzero entries of the dense ``J``, row by
    row (:meth:`~phmech.assembly.dae.DescriptorDAE.jacobian`: the kernel's Jacobian as a sparse
    matrix)."""
    n, m = J.shape
    nnz = 0
    for i in range(n):
        for j in range(m):
            if J[i, j] != 0.0:
                nnz += 1
    indptr = np.empty(n + 1, np.int64)
    indices = np.empty(nnz, np.int64)
    data = np.empty(nnz)
    k = 0
    for i in range(n):
        indptr[i] = k
        for j in range(m):
            v = J[i, j]
            if v != 0.0:
                indices[k] = j
                data[k] = v
                k += 1
    indptr[n] = k
    return indptr, indices, data
