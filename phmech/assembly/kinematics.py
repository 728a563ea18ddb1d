"""The kinematic equations ``q' = T(q) e`` of all bodies, vectorized by family.

A body names its family in ``kinematics_group`` (a group class of
:mod:`phmech.bodies.frames`); bodies of one family are evaluated by one
group (by the family's kernels), any other body through its own
:meth:`~phmech.bodies.Body.qdot` (its :meth:`~phmech.bodies.Body.qdot_jacobians` are the
compiled residual's leftovers, :mod:`phmech.assembly.compiled`).
"""


class Kinematics:
    """Evaluates ``q' = T(q) e`` for every body."""

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
