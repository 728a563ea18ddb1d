"""Energy and power bookkeeping of the assembled system."""
import warnings

import numpy as np

from ..forces.loads import Gravity


class EnergyMixin:
    """Hamiltonian, potentials and the power through every port."""

    def hamiltonian(self, y):
        """Total stored energy ``e^T M e / 2`` for one state or an array of states (rows)."""
        y = np.atleast_2d(y)
        e = y[:, self.se]
        H = 0.5 * np.einsum("ij,ij->i", e, (self.M @ e.T).T)
        return H if H.shape[0] > 1 else H[0]

    def potential_energy(self, y, exact=False):
        """Sum of the potentials of the conservative loads (gravity on rigid bodies and on the
        deformed shape of beams, :class:`~phmech.forces.loads.Gravity`) and of the force elements with
        the linear law (springs, bushings).

        Loads without a potential (forces; gravity on a flexible body without a first moment,
        with a warning) and force elements with a user law count as supplied work instead.  With
        ``exact`` only the loads of :attr:`potential_loads` count (those whose force is exactly
        ``-dV/dt``: not gravity on the linear floating-frame beams), the potential that closes the
        balance with ``power(t, y, include_potential=False)``.
        """
        y = np.atleast_2d(y)
        V = np.zeros(y.shape[0])
        missing = []
        for ld, sq, se in self.loads:
            if exact and ld.name not in self.potential_loads:
                continue
            for k, row in enumerate(y):
                v = ld.potential(row[self.sq][sq], row[self.se][se])
                if v is None:
                    if isinstance(ld, Gravity):
                        missing.append(ld.name)
                    break
                V[k] += v
        if missing and not getattr(self, "_warned_potential", False):
            self._warned_potential = True
            warnings.warn("potential_energy: no potential for " + ", ".join(missing) + " (a body whose "
                          "state does not give its position: no first_moment(), e.g. a plate free to "
                          "move rigidly or an attached body); their work is supplied work, not part of "
                          "H + V",
                          RuntimeWarning, stacklevel=2)
        forces = getattr(self, "forces", None)
        if forces:
            for k, row in enumerate(y):
                V[k] += forces.potential(row[self.sq])
        return V if V.shape[0] > 1 else V[0]

    def power(self, t, y, include_potential=True):
        """Power entering through the prescribed velocities, the loads and the force elements
        (minus dissipation): the kernels' (:meth:`~phmech.assembly.compiled.CompiledResidual.supplied_power`).

        With ``include_potential=False`` the loads and force elements that have a
        potential are left out (their power is ``-dV/dt``; a damped element keeps its
        dissipation).
        """
        P = self.residual().supplied_power(t, y)
        if include_potential:
            return P
        q, e, _ = self.split(np.asarray(y, float))
        for ld, sq, se in self.loads:
            if ld.name in self.potential_loads:
                P -= float(e[se][ld.cols] @ ld.force(t, q[sq], e[se]))
        if getattr(self, "forces", None):
            P += self.forces.potential_rate(q, e)
        return P

    def powers(self, ts, Y):
        """:meth:`power` (with the potentials' loads) at the times ``ts`` and the rows of ``Y``,
        by one call of the power kernel (:meth:`~phmech.assembly.compiled.CompiledResidual.supplied_powers`)."""
        return self.residual().supplied_powers(ts, Y)

    def power_terms(self, t, y):
        """Power through every port: ``{joint or load name: power}`` (W), plus ``"dissipation"``.

        A joint supplies ``w_j . lam_j`` (non-zero only for prescribed
        motions); a load and a force element ``e . f``.
        """
        q, e, lam = self.split(y)
        out = {}
        w = self.w(t)
        for j in self.system.joints:
            sl = self.lam_slices[j.name]
            out[j.name] = float(w[sl] @ lam[sl])
        for ld, sq, se in self.loads:
            out[ld.name] = out.get(ld.name, 0.0) + float(e[se][ld.cols] @ ld.force(t, q[sq], e[se]))
        if getattr(self, "forces", None):
            out.update(self.forces.power_terms(q, e))
        if self.has_R:
            out["dissipation"] = -float(e @ (self.R @ e))
        return out

    def constraint_residual(self, t, y):
        """Velocity-level residual ``G(q) e - w(t)`` (redundant rows included: they hold
        when the rows they depend on hold)."""
        q, e, _ = self.split(y)
        return self.G(q) @ e - self.w(t)

    def position_residuals(self, t, q):
        """Dictionary joint name -> position-level residual (joints that have one)."""
        get = self.layout.q_getter(q)
        out = {}
        for j in self.system.joints:
            r = j.position_residual(get, t)
            if r is not None:
                out[j.name] = np.atleast_1d(r)
        return out
