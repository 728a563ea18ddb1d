"""Applied loads: forces and moments at ports, and gravity.

A load acts on one body and provides, on a few columns of the body's
efforts, the generalized force ``f(t, q)`` (the input ``B(q) u(t)`` of the
pH system) and its exact derivative with respect to ``q``.  The power it
supplies is ``e . f``.  Potential forces also give their potential
``V(q)``, so that ``H + V`` can be checked for conservation.

The loads of the packed form ``f = A^T R(q)^T u(t)`` (the base class's
force: port forces and moments, gravity, distributed plate loads) name the
slot :attr:`Load.kernel_slot` and give their data (:meth:`Load.kernel_data`);
the kernels of :mod:`phmech.forces.loads_kernels` evaluate all of them at once, in
the assembled right-hand side's Jacobian and in the compiled residual.
"""
import numpy as np

from .._checks import time_function
from .loads_kernels import KINDS, PACKED_SLOT, PackedLoads, loads_add


def _as_load_function(value, n, what, name):
    return time_function(value, n, what, f"load '{name}'")


class Load:
    """Base class of loads on one body.

    A load provides ``force(t, q, e)`` on the body's effort columns ``cols``
    (``q``, ``e``: the body's configuration and efforts) and its exact
    derivatives ``force_q`` (``len(cols) x nq``) and ``force_e``
    (``len(cols) x ne``), dense or sparse, or None where the force does not
    depend on them.  The loads here apply ``f = A^T u_body(t, q)`` with
    ``u_body`` the load in body-frame components.
    """

    #: inertial components (rotated into the body frame) or body-frame components
    inertial = True
    #: ``(code, index)`` of a follower input turned by a section of the body's ``q`` into inertial
    #: rows (:mod:`phmech.forces.loads_kernels`), or None
    follower = None

    def _own_pack(self):
        """This load alone as :class:`~phmech.forces.loads_kernels.PackedLoads` on the body's own ``q`` and
        ``e`` (None when the load is not of the packed form)."""
        if "_pack" not in self.__dict__:
            pack = None
            if self.kernel_slot == PACKED_SLOT:
                pack = PackedLoads([(self, slice(0, self.body.nq), slice(0, self.body.ne))])
                self._row_of = np.full(self.body.ne, -1)          # the row of each column in force()
                self._row_of[np.asarray(self.cols, int)] = np.arange(len(self.cols))
            self._pack = pack
        return self._pack

    def force(self, t, q, e=None):
        """Generalized force on the columns ``cols`` (the kernel of the packed loads)."""
        pack = self._own_pack()
        if pack is None:            # a body whose rotation kind has no kernel: by its rotation matrix
            u = self.fun(t)
            kind, k = self.rotation_frame()
            if self.inertial and kind is not None:
                u = kind.matrix(q[k:k + kind.n_params]).T @ u
            return self.A.T @ u
        fe = np.zeros(self.body.ne)
        loads_add(np.asarray(q, float), pack.kernel_data(t), fe)
        return fe[self.cols]

    def force_q(self, t, q, e=None):
        """Exact ``d force / d q`` (None: independent of ``q``)."""
        if not self.inertial and self.follower is None and self.kernel_gauge(slice(0, self.body.nq)) is None:
            return None
        out = np.zeros((len(self.cols), self.body.nq))
        pack = self._own_pack()
        if pack is None:
            u = self.fun(t)
            kind, k = self.rotation_frame()
            if kind is not None:
                for m, dR in enumerate(kind.derivatives(q[k:k + kind.n_params])):
                    out[:, k + m] = self.A.T @ (dR.T @ u)
            return out
        r, c, v = pack.jacobian_triplets(t, q)
        np.add.at(out, (self._row_of[r], c), v)
        return out

    def force_e(self, t, q, e=None):
        """Exact ``d force / d e`` (None: independent of ``e``)."""
        return None

    def potential(self, q, e=None):
        """Potential ``V(q)`` (or ``V(q, e)`` where the body's shape follows from its efforts) of a
        conservative load, or None."""
        return None

    @property
    def kernel_slot(self):
        """``"port_loads"`` for a load of the packed form (the force, its derivatives and the
        rotation of this class on a body whose rotation kind has a kernel), else None."""
        cls = type(self)
        own = cls.force is Load.force and cls.force_q is Load.force_q and cls.force_e is Load.force_e
        rotation = not self.inertial or self.rotation_frame()[0] in KINDS
        return PACKED_SLOT if own and rotation else None

    def rotation_frame(self):
        """``(rotation kind, index in the body's q)`` of the axes the inertial input is turned into
        (the body frame's; a moment takes its port's, :meth:`~phmech.bodies.base.Body.port_frame`)."""
        return getattr(self.body, "rotation_kind", None), getattr(self.body, "rotation_index", None)

    @property
    def constant_input(self):
        """True when the input ``u`` does not depend on time (as gravity's)."""
        return bool(getattr(self.fun, "constant", False))

    def kernel_data(self, sq, se):
        """``(kind, rot, A, cols)`` of a load of the packed form (:mod:`phmech.forces.loads_kernels`):
        the rotation code, the index in the assembled ``q`` of its first rotation coordinate, the
        dense input matrix ``A`` and its columns in the assembled ``e`` (``sq``, ``se``: the
        body's slices)."""
        A = np.asarray(self.A.toarray() if hasattr(self.A, "toarray") else self.A, float)
        if self.follower is not None:
            return self.follower[0], sq.start + self.follower[1], A, se.start + np.asarray(self.cols, np.int64)
        frame, index = self.rotation_frame()
        kind = KINDS[frame] if self.inertial else 0
        rot = sq.start + (index if self.inertial and frame is not None else 0)
        return kind, rot, A, se.start + np.asarray(self.cols, np.int64)

    def kernel_gauge(self, sq):
        """The frame gauge scaling the input, ``(q entry, d, c, flags)`` with ``sigma = d / (d + c
        q[entry])`` (:mod:`phmech.math.gauge`) applied to the components of the body-frame input
        ``R^T u`` where ``flags`` is nonzero, ``f = A^T diag(g) R^T u``, or None (``sq``: the body's
        slice of the assembled ``q``)."""
        return None

    def check(self):
        return []

    def identity_parameters(self):
        """The load's values, ``{name: value}`` (constants or functions of time) and its frame;
        part of a checkpoint's model identity (:func:`phmech.io.checkpoint.model_identity`)."""
        fun = getattr(self, "fun", None)
        out = {"inertial": bool(self.inertial)}
        if hasattr(fun, "value"):
            out[fun.what] = fun.value
        return out


class PortForce(Load):
    """A force ``u(t)`` at a port, inertial (default) or body-frame components."""

    def __init__(self, port, force, frame="inertial", name=None):
        self.name = name or f"force({port.label})"
        if frame not in ("inertial", "body"):
            raise ValueError(f"load '{self.name}': frame must be 'inertial' or 'body', got {frame!r}")
        self.port, self.body = port, port.body
        if frame == "body" and port.inertial_rows:  # a follower in the port's section axes
            follower = getattr(port.body, "follower_frame", None)
            self.follower = None if follower is None else follower(port)
            if self.follower is None:
                raise ValueError(f"load '{self.name}': a force at port '{port.label}' of body '{port.body.name}', "
                                 "whose efforts carry inertial velocities, takes inertial components "
                                 "(frame='inertial')")
        self.inertial = frame == "inertial" and port.body.rotation_kind is not None
        self.fun = _as_load_function(force, port.dim, "force", self.name)
        self.cols, self.A = port.cols, port.Yc


class PortMoment(Load):
    """A moment ``m(t)`` at a port with a rotational degree of freedom.

    Planar bodies take a scalar; spatial bodies a 3-vector in inertial
    (default) or body-frame components.
    """

    def __init__(self, port, moment, frame="inertial", name=None):
        self.name = name or f"moment({port.label})"
        if port.W is None:
            raise ValueError(f"load '{self.name}': port '{port.label}' cannot carry a moment")
        if frame not in ("inertial", "body"):
            raise ValueError(f"load '{self.name}': frame must be 'inertial' or 'body', got {frame!r}")
        self.port, self.body = port, port.body
        n = port.W.shape[0]
        self.inertial = frame == "inertial" and n == 3
        self.fun = _as_load_function(moment, n, "moment", self.name)
        self.cols, self.A = port.cols, port.Wc

    def rotation_frame(self):
        """The axes of the port's rotation rows (a section's at a port of the exact spatial beam)."""
        return self.body.port_frame(self.port)[1:3]

    def kernel_gauge(self, sq):
        """The port's gauge of its rotation rows (:attr:`~phmech.bodies.base.Port.gauge`, the root of
        a consistent spatial beam), or None."""
        g = self.port.gauge
        return None if g is None else (sq.start + g[0], g[1], g[2], g[3])


class Gravity(Load):
    """Gravity ``g`` on a whole body: ``f = M[translation, :]^T R^T g``.

    The body-frame velocity field of a unit frame translation is the unit
    vector, so the gravity power ``int rho g . v`` is ``e^T M[:, translation] R^T g``
    for any body, rigid or flexible.  The potential is
    ``V = -g . (m x_P + R S)`` with ``S`` the first moment of mass about the
    frame origin in frame components: constant for a rigid body, and for a
    flexible body the one of its deformed shape, ``S = s0 + rows @ v`` from the
    body's ``first_moment()`` (``v`` its configuration for the geometrically
    consistent beams, whose displacement is part of ``q``, or its efforts for
    the linear floating-frame beams, whose displacement follows from the
    stresses).  For the consistent beams the force is exactly ``-dV/dt``
    (their efforts are absolute velocities), so ``H + V`` is conserved to
    the integrator's accuracy.  The linear floating frame writes the
    rotational inertia with the undeformed shape: its gravity power misses
    ``g . R (omega x int rho A u)``, and ``H + V`` drifts by the work of that
    term (small for small deflections).  A plate has no frame: its gravity
    rows are ``int rho h dv`` (``momentum_rows()``) and its first moment
    that of the deflection recovered from its moments
    (:mod:`phmech.fem.plate_deflection`), whose rate is exactly the velocity
    field: the force is ``-dV/dt`` (``first_moment_exact``).  A flexible
    body without a first moment (a plate free to move rigidly) has no
    potential: its gravity work is supplied work (``potential`` returns None
    and :meth:`~phmech.assembly.energy.EnergyMixin.potential_energy` warns).
    """

    def __init__(self, body, g, name=None):
        self.name = name or f"gravity({body.name})"
        self.body = body
        g = np.asarray(g, dtype=float)
        if g.shape != (body.dim,) or not np.all(np.isfinite(g)):
            raise ValueError(f"load '{self.name}': gravity must be {body.dim} finite numbers for "
                             f"body '{body.name}', got {g!r}")
        self.g = g
        self.fun = lambda t: g
        self.fun.constant = True
        self.inertial = body.rotation_kind is not None
        self._framed = not hasattr(body, "momentum_rows")
        if not self._framed:                    # no frame translation (a plate): its own mass rows
            Mt, self.mass = body.momentum_rows(), 0.0
        else:
            Mt = body.M.tocsr()[body.translation_dofs, :].toarray()
            self.mass = float(Mt[0, body.translation_dofs[0]])
        self.cols = np.flatnonzero(np.any(Mt != 0, axis=0))
        self.A = Mt[:, self.cols]
        self._rigid = len(body.frame_dofs) == body.ne
        self._first_moment = self.mass * np.asarray(getattr(body, "center", np.zeros(body.dim)), float)
        self._deformed = None
        if not self._rigid and hasattr(body, "first_moment"):
            self._deformed = body.first_moment()
        #: the force is exactly ``-dV/dt`` (rigid bodies, the consistent beams, held plates): the energy
        #: bookkeeping may count it as a potential (:attr:`DescriptorDAE.potential_loads`)
        self.exact_potential = self._rigid or (self._deformed is not None and (
            self._deformed[2] == "q" or getattr(body, "first_moment_exact", False)))

    def identity_parameters(self):
        return {"g": self.g}

    def potential(self, q, e=None):
        """``V = -g . (m x_P + R(q) S)``; None for a flexible body without ``first_moment()``."""
        if self._rigid:
            S = self._first_moment
        elif self._deformed is None:
            return None
        else:
            s0, rows, on = self._deformed
            v = q if on == "q" else (np.zeros(self.body.ne) if e is None else e)
            S = s0 + rows @ np.asarray(v, float)
        if not self._framed:                    # no frame (a plate): S in inertial components
            return -float(self.g @ S)
        return -float(self.g @ (self.mass * self.body.position(q) + self.body.rotation(q) @ S))
