"""The force elements of a system as one group: packing, evaluation by the kernels, energy.

:class:`ForceGroup` packs the elements of :mod:`phmech.forces` for the
kernels of :mod:`phmech.forces.elements_kernels` and evaluates them for the Python
right-hand side, the assembled Jacobian, the energy bookkeeping and the
linearization; the elements with the linear law are the kernel family
``"forces"`` (:mod:`phmech.kernels.families`) of the compiled residual.
"""
import numpy as np

from . import elements_kernels as K
from ..kernels.families import register_family


def _pack(elements, layout):
    """The kernels' data ``(I, QI, F, PP, CI)`` of ``elements`` with their offsets."""
    I, QI, F, PP, CI = [], [], [], [], []
    off = np.zeros(3, np.int64)          # into CI, PP and the values of B
    for el in elements:
        ints, qi, f, pool, cols = el.kernel_entry(layout)
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
                        np.concatenate(CI).astype(np.int64) if CI else np.zeros(0, np.int64))


class ForceGroup:
    """All force elements of a system, evaluated by the kernels of :mod:`phmech.forces.elements_kernels`.

    The elements with the linear law are the kernel family :attr:`kernel_slot`
    (:meth:`kernel_data`); those with a user law are the compiled residual's
    Python leftovers (:attr:`leftovers`, :meth:`leftover_add`).  The Python
    right-hand side evaluates both through the same kernels.
    """

    kernel_slot = "forces"

    def __init__(self, elements, layout, q_of):
        self.elements = list(elements)
        self.ne = layout.ne
        for el in self.elements:
            el.bind(q_of)
        self.linear = [el for el in self.elements if el.law is None]
        self.user = [el for el in self.elements if el.law is not None]
        self._lin = _pack(self.linear, layout)
        self._usr = _pack(self.user, layout)
        #: what the compiled residual cannot evaluate
        self.leftovers = [f"force element '{el.name}' (a Python law)" for el in self.user]

    def __bool__(self):
        return bool(self.elements)

    def kernel_data(self):
        """The packed elements with the linear law (:mod:`phmech.forces.elements_kernels`)."""
        return self._lin

    # -- evaluation ---------------------------------------------------------
    def _state(self, fd, elements, q, e):
        """Strains, rates, ``B`` values, stresses and their derivatives of one packed set."""
        n = fd[0].shape[0]
        S, Rr, Sig = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6))
        Ks, Dr = np.zeros((n, 36)), np.zeros((n, 36))
        Bv = np.empty(int(np.sum(fd[0][:, K.NS] * (fd[0][:, K.NCA] + fd[0][:, K.NCB]))))
        q, e = np.asarray(q, float), np.asarray(e, float)
        K.forces_strains(q, e, fd, S, Rr, Bv)
        if elements is self.linear:
            K.forces_linear_laws(fd, S, Rr, Sig, Ks, Dr)
        else:
            for k, el in enumerate(elements):
                Sig[k, 0], Ks[k, 0], Dr[k, 0] = el.evaluate_law(S[k, 0], Rr[k, 0])
        return S, Rr, Bv, Sig, Ks, Dr

    def _sets(self, which="all"):
        out = []
        if which in ("all", "linear") and self.linear:
            out.append((self._lin, self.linear))
        if which in ("all", "user") and self.user:
            out.append((self._usr, self.user))
        return out

    def add(self, q, e, fe, which="all"):
        """``fe += f(q, e)`` of the elements (``which``: ``"all"``, ``"linear"``, ``"user"``)."""
        for fd, els in self._sets(which):
            _, _, Bv, Sig, _, _ = self._state(fd, els, q, e)
            K.forces_apply(fd, Bv, Sig, fe)

    def leftover_add(self, q, e, fe):
        """The elements without a compiled evaluation (user laws) added to ``fe``."""
        self.add(q, e, fe, "user")

    def jacobian_triplets(self, q, e, which="all"):
        """``(df/dq, df/de)`` as triplets (rows in ``e``, columns in ``q`` and in ``e``)."""
        dq, de = [[], [], []], [[], [], []]
        for fd, els in self._sets(which):
            I, QI, CI = fd[0], fd[1], fd[4]
            _, _, _, Sig, Ks, Dr = self._state(fd, els, q, e)
            n = I.shape[0]
            nc = int(np.max(I[:, K.NCA] + I[:, K.NCB]))
            Vq, Ve = np.zeros((n, nc, K.NQE)), np.zeros((n, nc, nc))
            K.forces_derivatives(np.asarray(q, float), np.asarray(e, float), fd, Sig, Ks, Dr, Vq, Ve)
            for k in range(n):
                nck = I[k, K.NCA] + I[k, K.NCB]
                cols = CI[I[k, K.COFF]:I[k, K.COFF] + nck]
                has = QI[k] >= 0
                dq[0].append(np.repeat(cols, has.sum()))
                dq[1].append(np.tile(QI[k][has], nck))
                dq[2].append(Vq[k, :nck][:, has].ravel())
                de[0].append(np.repeat(cols, nck))
                de[1].append(np.tile(cols, nck))
                de[2].append(Ve[k, :nck, :nck].ravel())
        cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))
        return (tuple(cat(x, dt) for x, dt in zip(dq, (int, int, float))),
                tuple(cat(x, dt) for x, dt in zip(de, (int, int, float))))

    # -- energy -------------------------------------------------------------
    def potential(self, q):
        """``sum 1/2 (s - s0)^T K (s - s0)`` of the elements with the linear law."""
        if not self.linear:
            return 0.0
        fd = self._lin
        S, *_ = self._state(fd, self.linear, q, np.zeros(self.ne))
        V = 0.0
        for k in range(len(self.linear)):
            ns = fd[0][k, K.NS]
            d = S[k, :ns] - fd[2][k, K.F_S0:K.F_S0 + ns]
            Km = fd[2][k, K.F_K:K.F_K + 36].reshape(6, 6)[:ns, :ns]
            V += 0.5 * float(d @ Km @ d)
        return V

    def power_terms(self, q, e):
        """``{name: e . f}`` of every element (``-sigma . s'``)."""
        out = {}
        for fd, els in self._sets():
            _, Rr, _, Sig, _, _ = self._state(fd, els, q, e)
            for k, el in enumerate(els):
                out[el.name] = -float(Sig[k] @ Rr[k])
        return out

    def power(self, q, e, include_potential=True):
        """``e . f`` of all elements; without the potential part ``-(K (s - s0)) . s'`` of the
        linear ones (what is left: their dissipation and the users' laws)."""
        P = sum(self.power_terms(q, e).values())
        if not include_potential and self.linear:
            fd = self._lin
            S, Rr, *_ = self._state(fd, self.linear, q, e)
            for k in range(len(self.linear)):
                ns = fd[0][k, K.NS]
                Km = fd[2][k, K.F_K:K.F_K + 36].reshape(6, 6)[:ns, :ns]
                P += float((Km @ (S[k, :ns] - fd[2][k, K.F_S0:K.F_S0 + ns])) @ Rr[k, :ns])
        return P


def _pack_family(groups, dae):
    """The family's data: the linear-law elements of the system's group, or none."""
    return (groups[0] if groups else ForceGroup([], dae.layout, None)).kernel_data()


register_family("forces", K.ForcesData, pack=_pack_family, has=K.has_force_elements,
                residual_add=K.forces_residual_add, jacobian_add=K.forces_jacobian_add,
                port_forces_add=K.forces_add)
