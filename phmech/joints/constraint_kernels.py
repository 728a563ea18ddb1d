"""The constraint terms of a joint family, given the values of its ``G``, as kernels.

A family of joints whose rows are ``G(q) e = w`` contributes ``G^T lam`` to the
efforts and ``-G e`` to the constraint rows of the residual
(:mod:`phmech.assembly.compiled`).  Its kernels give the values of ``G`` on
a fixed pattern ``G[r[m], c[m]] = v[m]``; :func:`add_G_terms` adds the two
terms and :func:`add_G_jacobian` their derivatives by ``lam`` and ``e``
(the derivatives by ``q`` are the family's own).
"""
from ..kernels.jit import borrowed, jit as _jit
from ..math.jacobian_target import jac_add


@_jit
def add_G_terms(r, c, v, e, lam, fe, fl):
    """``fe += G^T lam`` and ``fl -= G e`` for the entries ``G[r[m], c[m]] = v[m]``."""
    for m in range(v.size):
        fe[c[m]] += v[m] * lam[r[m]]
        fl[r[m]] -= v[m] * e[c[m]]


@_jit
def add_G_jacobian(nq, ne_end, r, c, v, act, J):
    """``G^T`` into the ``e`` rows and ``-G`` into the active ``lam`` rows of the Jacobian target ``J``
    (columns of ``lam`` and ``e``; ``act`` marks the active rows) for the entries
    ``G[r[m], c[m]] = v[m]``."""
    J = borrowed(J)              # no reference counts of the target's arrays in the writes
    for m in range(v.size):
        jac_add(J, nq + c[m], ne_end + r[m], v[m])
        if act[r[m]]:
            jac_add(J, ne_end + r[m], nq + c[m], -v[m])
