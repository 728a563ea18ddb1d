"""Index layout of the assembled system: ``y = (q, e, lam)`` with named slices."""
import numpy as np


class Layout:
    """Slices of every body's ``q`` and ``e`` and every joint's multipliers.

    Attributes
    ----------
    nq, ne, nl, n : sizes of ``q``, ``e``, ``lam`` and ``y``
    q_slices, e_slices : dict body name -> slice (into ``q`` and ``e``)
    lam_slices : dict joint name -> slice (into ``lam``)
    sq, se, sl : slices of ``q``, ``e`` and ``lam`` in ``y``
    """

    def __init__(self, bodies, joints):
        self.bodies, self.joints = list(bodies), list(joints)
        self.q_slices, self.e_slices, self.lam_slices = {}, {}, {}
        iq = ie = il = 0
        for b in self.bodies:
            self.q_slices[b.name] = slice(iq, iq + b.nq)
            self.e_slices[b.name] = slice(ie, ie + b.ne)
            iq += b.nq
            ie += b.ne
        for j in self.joints:
            self.lam_slices[j.name] = slice(il, il + j.n_rows)
            il += j.n_rows
        self.nq, self.ne, self.nl = iq, ie, il
        self.n = iq + ie + il
        self.sq = slice(0, iq)
        self.se = slice(iq, iq + ie)
        self.sl = slice(iq + ie, self.n)

    def q_getter(self, q):
        """``body -> q[body]`` for a global configuration ``q``."""
        sl = self.q_slices
        return lambda body: q[sl[body.name]]

    def e_index(self, body, local):
        """Global indices into ``e`` of a body's local effort indices."""
        return self.e_slices[body.name].start + np.asarray(local, int)

    def frame_indices(self):
        """Global indices into ``e`` of every body's frame (rigid) velocities."""
        parts = [self.e_index(b, b.frame_dofs) for b in self.bodies]
        return np.concatenate(parts) if parts else np.zeros(0, int)

    def labels(self):
        """Names of all components of ``y``."""
        out = []
        for b in self.bodies:
            out += [f"{b.name}.q.{l}" for l in b.q_labels]
        for b in self.bodies:
            lab = list(b.e_labels) + [f"e{i}" for i in range(len(b.e_labels), b.ne)]
            out += [f"{b.name}.e.{l}" for l in lab]
        for j in self.joints:
            out += [f"{j.name}.lam{i}" for i in range(j.n_rows)]
        return out
