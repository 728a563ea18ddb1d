"""The force elements of a system as one group: packing, evaluation by the kernels, energy.

:class:`ForceGroup` packs the elements of :mod:`phmech.forces` for the
kernels of :mod:`phmech.forces.elements_kernels` (user laws compiled, their
handles in the data) and evaluates them for the energy bookkeeping and the
linearization; all of them are the kernel family ``"forces"``
(:mod:`phmech.kernels.families`) of the residual and its Jacobian.
"""
import numpy as np

from . import elements_kernels as K
from ..kernels.families import register_family


def _pack(elements, layout):
    """The kernels' data ``(I, QI, F, PP, CI, LA)`` of ``elements`` with their offsets (user laws
    compiled)."""
    I, QI, F, PP, CI, LA = [], [], [], [], [], []
    off = np.zeros(3, np.int64)          # into CI, PP and the values of B
    for el in elements:
        ints, qi, f, pool, cols = el.kernel_entry(layout)
        LA.append(el.law_handle() if el.law is not None else 0)
        ints[K.COFF], ints[K.POFF], ints[K.BOFF] = off
        off += (cols.size, pool.size, ints[K.NS] * cols.size)
        I.append(ints)
        QI.append(qi)
        F.append(f)
        PP.append(pool)
        CI.append(cols)
    return K.ForcesData(np.array(I, np.int64).reshape(-1, K.N_INT), np.array(QI, np.int64).reshape(-1, K.NQE),
                        np.array(F, float).reshape(-1, K.N_FLOAT),
                        np.concatenate(PP).astype(float) if PP else np.zeros(0),
                        np.concatenate(CI).astype(np.int64) if CI else np.zeros(0, np.int64),
                        np.array(LA, np.int64))


class ForceGroup:
    """All force elements of a system, evaluated by the kernels of :mod:`phmech.forces.elements_kernels`.

    The elements are the kernel family :attr:`kernel_slot` (:meth:`kernel_data`), those with a
    user law included: the law is compiled when the group is made
    (:func:`~phmech.forces.elements_kernels.compile_law`).
    """

    kernel_slot = "forces"

    def __init__(self, elements, layout, q_of):
        self.elements = list(elements)
        self.ne = layout.ne
        for el in self.elements:
            el.bind(q_of)
        #: the elements with the linear law (a potential) and with a user law (supplied work)
        self.linear = [k for k, el in enumerate(self.elements) if el.law is None]
        self.user = [k for k, el in enumerate(self.elements) if el.law is not None]
        self._data = _pack(self.elements, layout)
        #: the spatial torsional springs and bushings, whose measure holds within a full turn (:meth:`full_turns`)
        self.turning = [k for k, el in enumerate(self.elements)
                        if getattr(el, "dim", 0) == 3 and el.kind in (K.TORSION, K.BUSHING)]
        #: what the compiled residual cannot evaluate (nothing: user laws are compiled)
        self.leftovers = []

    def __bool__(self):
        return bool(self.elements)

    def kernel_data(self):
        """The packed elements (:mod:`phmech.forces.elements_kernels`)."""
        return self._data

    # -- evaluation ---------------------------------------------------------
    def _state(self, q, e):
        """Strains, rates, ``B`` values, stresses and their derivatives of the elements."""
        fd = self._data
        n = fd[0].shape[0]
        S, Rr, Sig = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6))
        Ks, Dr = np.zeros((n, 36)), np.zeros((n, 36))
        Bv = np.empty(int(np.sum(fd[0][:, K.NS] * (fd[0][:, K.NCA] + fd[0][:, K.NCB]))))
        q, e = np.ascontiguousarray(q, float), np.ascontiguousarray(e, float)
        K.forces_strains(q, e, fd, S, Rr, Bv)
        K.forces_laws(fd, S, Rr, Sig, Ks, Dr)
        return S, Rr, Bv, Sig, Ks, Dr

    def add(self, q, e, fe, t=0.0):
        """``fe += f(q, e)`` of the elements (at the time ``t``)."""
        if self.elements:
            K.forces_add(float(t), np.ascontiguousarray(q, float), np.ascontiguousarray(e, float), self._data, fe)

    def full_turns(self, t, Q):
        """``[(name, t_a, t_b)]``: each spatial torsional spring or bushing whose rotation
        measure jumped between two rows ``t_a``, ``t_b`` of the configurations ``Q``.

        Their measure follows the frames' quaternions, continuous along the motion while the
        relative rotation stays within a full turn either way; past that it jumps to the
        other end of ``(-2 pi, 2 pi]`` (the quaternions' double cover: the state does not know
        how often the bodies have turned), and so do the moment and the potential.  A change
        of more than ``pi`` between consecutive rows is such a jump (rows far enough apart
        for the rotation itself to change that much are too far apart to tell)."""
        watch = self.turning
        if not watch or len(t) < 2:
            return []
        e = np.zeros(self.ne)
        rows = np.array([self._state(q, e)[0][watch] for q in Q])       # (rows, elements, 6)
        out = []
        for j, k in enumerate(watch):
            m = rows[:, j, 0:1] if self.elements[k].kind == K.TORSION else rows[:, j, 3:6]
            jump = np.flatnonzero(np.linalg.norm(np.diff(m, axis=0), axis=1) > np.pi)
            if jump.size:
                out.append((self.elements[k].name, float(t[jump[0]]), float(t[jump[0] + 1])))
        return out

    # -- energy -------------------------------------------------------------
    def potential(self, q):
        """``sum 1/2 (s - s0)^T K (s - s0)`` of the elements with the linear law."""
        if not self.linear:
            return 0.0
        fd = self._data
        S, *_ = self._state(q, np.zeros(self.ne))
        V = 0.0
        for k in self.linear:
            ns = fd[0][k, K.NS]
            d = S[k, :ns] - fd[2][k, K.F_S0:K.F_S0 + ns]
            Km = fd[2][k, K.F_K:K.F_K + 36].reshape(6, 6)[:ns, :ns]
            V += 0.5 * float(d @ Km @ d)
        return V

    def power_terms(self, q, e):
        """``{name: e . f}`` of every element (``-sigma . s'``)."""
        if not self.elements:
            return {}
        _, Rr, _, Sig, _, _ = self._state(q, e)
        return {el.name: -float(Sig[k] @ Rr[k]) for k, el in enumerate(self.elements)}

    def potential_rate(self, q, e):
        """``dV/dt = (K (s - s0)) . s'`` of the elements with the linear law: the part of their
        power ``-dV/dt - s'^T D s'`` that their potential accounts for."""
        if not self.linear:
            return 0.0
        fd = self._data
        S, Rr, *_ = self._state(q, e)
        P = 0.0
        for k in self.linear:
            ns = fd[0][k, K.NS]
            Km = fd[2][k, K.F_K:K.F_K + 36].reshape(6, 6)[:ns, :ns]
            P += float((Km @ (S[k, :ns] - fd[2][k, K.F_S0:K.F_S0 + ns])) @ Rr[k, :ns])
        return P

    def power(self, q, e, include_potential=True):
        """``e . f`` of all elements; without the potential part ``-(K (s - s0)) . s'`` of the
        linear ones (what is left: their dissipation and the users' laws)."""
        P = sum(self.power_terms(q, e).values())
        return P if include_potential else P + self.potential_rate(q, e)


def _pack_family(groups, dae):
    """The family's data: the elements of the system's group, or none."""
    return (groups[0] if groups else ForceGroup([], dae.layout, None)).kernel_data()


register_family("forces", K.ForcesData, pack=_pack_family, has=K.has_force_elements,
                residual_add=K.forces_residual_add, jacobian_add=K.forces_jacobian_add,
                port_forces_add=K.forces_add)
