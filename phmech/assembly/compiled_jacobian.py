"""The exact Jacobian ``df/dy`` of the compiled residual, as a kernel.

:func:`jacobian_kernel` takes the arguments of
:func:`~phmech.assembly.compiled.residual_kernel` and adds its derivatives to a
Jacobian target (:mod:`phmech.math.jacobian_target`: a dense matrix, or the CSR
values of the models above the dense limit), part by part as the residual
evaluates them: the kinematics of the frames and points, ``J(e) e - R e`` with
the gyroscopic slots, the planar joints' ``G(q)`` with its derivatives in ``q``,
the kernel families (each by the ``jacobian_add`` kernel of its own module,
:mod:`phmech.kernels.families`) and the packed loads.
The midpoint rule factorizes ``E - h/2 df/dy`` built from it
(:mod:`phmech.solvers.midpoint_kernels`); ``CompiledResidual.dense_jacobian`` and
``CompiledResidual.sparse_jacobian`` return it to Python.
"""
import numpy as np

from ..kernels.jit import borrowed, jit as _jit
from ..bodies.frames import planar_frames_jacobian, spatial_frames_jacobian_add
from ..joints.constraint_kernels import add_G_jacobian
from ..joints.planar import planar_G_derivatives, planar_G_values
from ..kernels.families import family_has, family_jacobian_add, literal_unroll
from ..forces.loads_kernels import has_loads, loads_jacobian_add
from ..math.jacobian_target import jac_add
from ..math.sparse_kernels import csr_add_dense, csr_mv


@_jit
def jacobian_kernel(t_unused, y, nq, ne, nl, pf_q, pf_e, pt_q, pt_e, sf_q, sf_e,
                    J0p, J0i, J0d, Kp, Ki, Kd, Kw, nslot, Rp, Ri, Rd,
                    Gr, Gc, Gv0, Gvcs, Gang, Xr, Xc, Xv, w, inactive, families, loads, J):
    """``df/dy`` of :func:`residual_kernel` (same arguments) added to the target ``J`` (zeroed):
    exact, with the constant extra ``G`` triplets ``X`` and the loads' inputs of the call."""
    J = borrowed(J)              # the target's arrays without reference counts in the calls below
    q = y[:nq]
    e = y[nq:nq + ne]
    lam = y[nq + ne:]
    ce, cl = nq, nq + ne              # first columns of e and lam
    P = np.empty((pf_q.shape[1], 3, 6))
    planar_frames_jacobian(q, e, pf_q, pf_e, P)
    for k in range(pf_q.shape[1]):
        for a in range(3):
            for b in range(6):
                jac_add(J, pf_q[a, k], pf_q[b, k] if b < 3 else ce + pf_e[b - 3, k], P[k, a, b])
    for k in range(pt_q.size):
        jac_add(J, pt_q[k], ce + pt_e[k], 1.0)
    spatial_frames_jacobian_add(q, e, sf_q, sf_e, J, ce)
    # efforts
    csr_add_dense(J0p, J0i, J0d, J, nq, ce, 1.0)
    if Rp.size > 1:
        csr_add_dense(Rp, Ri, Rd, J, nq, ce, -1.0)
    if nslot:
        Ke = csr_mv(Kp, Ki, Kd, e)
        for s in range(nslot):
            for i in range(ne):
                r, j = s * ne + i, Kw[s * ne + i]      # row i of slot s, weighted by e[j]
                if j < ne:
                    for k in range(Kp[r], Kp[r + 1]):
                        jac_add(J, nq + i, ce + Ki[k], -e[j] * Kd[k])
                    jac_add(J, nq + i, ce + j, -Ke[r])
    act = np.ones(nl, np.bool_)
    for i in range(inactive.size):
        act[inactive[i]] = False
        jac_add(J, cl + inactive[i], cl + inactive[i], -1.0)
    G = planar_G_values(q, Gv0, Gvcs, Gang)
    for m in range(Gr.size):
        r, c = Gr[m], Gc[m]
        g = G[m]
        jac_add(J, nq + c, cl + r, g)
        if act[r]:
            jac_add(J, cl + r, ce + c, -g)
    dG = np.empty(Gang.shape[1])
    planar_G_derivatives(q, Gvcs, Gang, dG)
    for t in range(dG.size):
        m, a = Gang[0, t], Gang[1, t]
        r, c = Gr[m], Gc[m]
        jac_add(J, nq + c, a, dG[t] * lam[r])
        if act[r]:
            jac_add(J, cl + r, a, -dG[t] * e[c])
    add_G_jacobian(nq, cl, Xr, Xc, Xv, act, J)
    for data in literal_unroll(families):
        if family_has(data):
            family_jacobian_add(q, e, lam, data, act, J, nq)
    if has_loads(loads):
        loads_jacobian_add(q, loads, J, nq)


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
