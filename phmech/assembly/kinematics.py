"""The kinematic equations ``q' = T(q) e`` of all bodies, vectorized by family.

A body names its family in ``kinematics_group`` (a group class of
:mod:`phmech.bodies.frames`); bodies of one family are evaluated by one
group (``__call__`` and ``jacobian_triplets``, by the family's kernels), any
other body through its own :meth:`~phmech.bodies.Body.qdot` and
:meth:`~phmech.bodies.Body.qdot_jacobians` (exact, dense per body).
"""
import numpy as np


class Kinematics:
    """Evaluates ``q' = T(q) e`` for every body and its exact Jacobians."""

    def __init__(self, layout):
        self.layout = layout
        families = {}
        self.others = []
        for b in layout.bodies:
            if not b.nq:
                continue
            item = (layout.q_slices[b.name].start, layout.e_slices[b.name].start)
            if b.kinematics_group is not None:
                families.setdefault(b.kinematics_group, []).append((item, b))
            else:
                self.others.append(b)
        #: one group per family
        self.groups = [Group([it for it, _ in members], [b for _, b in members])
                       for Group, members in families.items()]

    def qdot_into(self, q, e, out):
        """Write ``T(q) e`` into ``out[:nq]``."""
        for g in self.groups:
            g(q, e, out)
        L = self.layout
        for b in self.others:
            out[L.q_slices[b.name]] = b.qdot(q[L.q_slices[b.name]], e[L.e_slices[b.name]])

    def jacobian_triplets(self, q, e):
        """Triplets of ``d qdot/dq`` and ``d qdot/de`` (rows and columns global in ``y``)."""
        L = self.layout
        rows, cols, vals = [], [], []
        for g in self.groups:
            r, c, v = g.jacobian_triplets(q, e, L.nq)
            rows.append(r)
            cols.append(c)
            vals.append(v)
        for b in self.others:
            sq, se = L.q_slices[b.name], L.e_slices[b.name]
            for A, c0 in zip(b.qdot_jacobians(q[sq], e[se]), (sq.start, L.nq + se.start)):
                r, c = np.nonzero(A)
                rows.append(r + sq.start)
                cols.append(c + c0)
                vals.append(A[r, c])
        return rows, cols, vals
