"""Unilateral contact contributions: gaps, their force directions and the contact laws.

A contact declares, for the configuration ``q`` of the assembled system,

* its normal gap ``g_N(q)`` (one row; closed for ``g_N <= 0``); for a port
  of a beam fixed in space, whose deformation is not part of ``q`` but of
  the stresses in ``e``, ``g_N(q, e) = g_N(q) + gap_rows . e`` with the
  displacement recovered from the stresses
  (:meth:`phmech.fem.beam.EulerBernoulliBeam.displacement_rows`); for a port
  of a floating-frame beam (:class:`phmech.fem.beam.FloatingEulerBernoulliBeam`, plane
  contacts only) the recovered body-frame displacement ``D e`` is turned with
  the frame, ``g_N = g_N(q) + n . R(q) D e`` (:meth:`Contact.stress_rows`);
  its rate ``W_N^T e`` then omits ``omega x R D e``, second order in the
  small deformation, as the ports of the floating-frame beam do;
* the generalized force directions ``W_N`` (``ne``) and ``W_F`` (``ne x nF``)
  so that the normal relative velocity is ``gamma_N = W_N^T e`` and the
  friction velocities are ``gamma_F = W_F^T e`` (Capobianco, Harsch,
  Eugster & Leine, IJNME 122 (2021), eqs. (3)-(6): ``dg_N/dt = W_N^T u``
  for scleronomic gaps);
* the law data: Newton's restitution coefficients ``e_N``, ``e_F``
  (ibid. eqs. (13), (17)), the friction coefficient ``mu`` and the
  friction set, a ball of radius ``mu P_N`` in the ``nF``-space of the
  friction velocities.

Coulomb friction in the plane has ``nF = 1``, in space ``nF = 2``.  The
Coulomb--Contensou law (friction force and drilling moment of a small
circular contact area) is used in the ellipsoidal form of Leine & Glocker,
Eur. J. Mech. A 22 (2003) 193--216, Sect. 5: with the Contensou radius
``r_c`` the drilling velocity ``r_c omega_n`` is a third friction velocity
and the scaled drilling moment ``M / r_c`` a third friction force, all
three in one ball of radius ``mu P_N`` (``nF = 3``).

The force directions come from the ports of the bodies: a port velocity
in inertial components is ``R(q) Y e`` (``Y e + omega x R r`` for the
bodies with inertial velocities of :mod:`phmech.bodies.inertial`), its
angular velocity ``R(q) W e`` (planar: the scalar ``W e``), see
:class:`phmech.bodies.base.Port`.  A contact therefore attaches to any
port: of rigid bodies, point masses and points of flexible beams.  Each
contact packs its data (:meth:`Contact.kernel_row`) and the gaps, force
directions and friction velocities of all contacts are evaluated by one
compiled kernel, :func:`phmech.contact.kernels.contact_kinematics`.
"""
import numpy as np

from ..bodies.base import Port
from . import kernels as K
from .kernels import tangents_into


def _number(what, value, problems, upper=None, default=0.0):
    """``float(value)`` if a finite non-negative number (at most ``upper``); else ``default`` and one
    line appended to ``problems`` naming ``what`` and the value."""
    if isinstance(value, (bool, np.bool_)) or value is None:
        problems.append(f"{what} must be a number, got {value!r}")
        return default
    try:
        v = float(value)
    except (TypeError, ValueError):
        problems.append(f"{what} must be a number, got {value!r}")
        return default
    if not np.isfinite(v) or v < 0:
        problems.append(f"{what} must be non-negative and finite, got {value!r}")
        return default
    if upper is not None and v > upper:
        problems.append(f"{what} must lie in [0, {upper:g}], got {value!r}")
        return default
    return v


def _vector(what, value, dim, problems, nonzero=False):
    """``value`` as ``dim`` finite numbers (not all zero with ``nonzero``), or None and one line in
    ``problems``."""
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        v = None
    if v is None or v.shape != (dim,) or not np.all(np.isfinite(v)) or (nonzero and not np.any(v)):
        problems.append(f"{what} must be {dim} finite numbers{', not all zero' if nonzero else ''}, "
                        f"got {value!r}")
        return None
    return v


def tangents(n):
    """Unit tangents of the unit normal ``n``: one (planar, ``n`` rotated by +90 deg) or two (spatial)
    (:func:`~phmech.contact.kernels.tangents_into`)."""
    n = np.asarray(n, float)
    T = np.empty((n.size - 1, 3))
    tangents_into(np.r_[n, 0.0][:3], n.size, T)
    return T[:, :n.size].copy()


class Contact:
    """Base class of the unilateral contacts (see the module docstring).

    Every parameter is checked when the contact is built: all problems of one
    contact are reported together in one ``ValueError`` naming the contact,
    the parameter and the value.

    Parameters
    ----------
    name : str
    e_N, e_F : float
        Normal and tangential restitution coefficients (in [0, 1]).
    mu : float
        Friction coefficient (0: frictionless, no friction rows).
    contensou_radius : float
        Radius ``r_c`` of the Coulomb--Contensou law (spatial only); 0 for Coulomb friction.
    penetration_tol : float, optional
        Depth [length] beyond which a penetration is reported: a warning when the run
        starts with the contact penetrated that deeply and when a gap goes below
        ``-penetration_tol`` during a run (:class:`~phmech.solvers.moreau.NonsmoothStepper`).
        Default: a tenth of the contact's radius (sum of the radii), ``1e-2`` (1 cm in
        SI units) for a contact of radius zero.
    """

    def __init__(self, name, e_N=0.0, e_F=0.0, mu=0.0, contensou_radius=0.0, penetration_tol=None):
        if name is not None and not isinstance(name, str):
            name = repr(name)
            self.problems = [f"name must be a string, got {name}"]
        else:
            self.problems = []
        self.name = name
        pr = self.problems
        self.e_N = _number("e_N", e_N, pr, upper=1.0)
        self.e_F = _number("e_F", e_F, pr, upper=1.0)
        self.mu = _number("mu", mu, pr)
        self.r_c = _number("contensou_radius", contensou_radius, pr)
        self._penetration_tol = None if penetration_tol is None else _number("penetration_tol",
                                                                             penetration_tol, pr)
        self.e_slices = None

    def _port_problems(self, what, port):
        """One line in ``problems`` unless ``port`` is a :class:`~phmech.bodies.base.Port`; its dim or None."""
        if not isinstance(port, Port):
            self.problems.append(f"{what} must be a port of a body (body.port(name)), got {port!r}")
            return None
        return port.dim

    def _raise_problems(self):
        """Raise the problems found by the constructor as one ValueError naming the contact."""
        if self.problems:
            items = self.problems
            raise ValueError(f"contact '{self.name}': " + (items[0] if len(items) == 1 else
                             f"{len(items)} invalid parameters:\n  " + "\n  ".join(items)))

    @property
    def size(self):
        """Radius of the contact (sum of the radii); the scale of :attr:`penetration_tol`."""
        return 0.0

    @property
    def penetration_tol(self):
        """Reported penetrations are deeper than this (see the class docstring)."""
        if self._penetration_tol is not None:
            return self._penetration_tol
        return 0.1 * self.size if self.size > 0 else 1e-2

    @property
    def dim(self):
        return self.ports()[0].dim

    @property
    def nF(self):
        """Number of friction rows: 0 without friction, 1 planar, 2 spatial, 3 with Contensou."""
        if self.mu == 0:
            return 0
        return 1 if self.dim == 2 else (3 if self.r_c > 0 else 2)

    def ports(self):
        raise NotImplementedError

    def check(self):
        """The list of inconsistencies of this contact (empty when it is usable)."""
        out = [f"contact '{self.name}': {p}" for p in self.problems]
        if out:
            return out
        for port in self.ports():
            body = port.body
            if body.nq and hasattr(body, "displacement_rows") and np.any(port.position) and not (
                    isinstance(self, PointPlane) and port.dim == 2 and self._floating_flexible(port)):
                out.append(f"contact '{self.name}': port '{port.label}' of the floating flexible body "
                           f"'{body.name}' is not supported: contacts on floating beams need a planar "
                           f"PointPlane and a beam whose deflection lives in the stresses "
                           f"(FloatingEulerBernoulliBeam)")
        return out

    def bind(self, e_slices, ne):
        """Remember where the bodies' efforts sit in ``e`` of size ``ne`` (called by the problem view)."""
        self.e_slices, self.ne = e_slices, ne
        self.gap_rows = None
        self._float_rows = None
        #: rows ``D`` (dim x ne of the body) of the port displacement recovered from the stresses
        #: (floating beams: body frame), packed for the kernel; None for the other bodies
        self._D = None

    @staticmethod
    def _floating_flexible(port):
        """True for a port of a floating-frame body whose deflection lives in the stresses
        (configuration = the frame only, the displacement recovered by ``displacement_rows``)."""
        body = port.body
        return bool(body.nq) and hasattr(body, "displacement_rows") and not hasattr(body, "_trace_q")

    @property
    def depends_on_stresses(self):
        """True when the gap depends on the stresses in ``e`` (beams fixed in space, floating beams)."""
        return self.gap_rows is not None or self._float_rows is not None

    def stress_rows(self, get_q):
        """Row ``s`` (length ``ne``) with ``g_N = g_N(q) + s . e``, or None (see the module docstring)."""
        return self.gap_rows

    @staticmethod
    def _stress_displacement(port):
        """Bodies without configuration (a beam fixed in space) carry their deformation in the
        stresses: rows ``D`` (dim x ne of the body) with the port displacement ``D e``, or None."""
        body = port.body
        if body.nq or not hasattr(body, "displacement_rows"):
            return None
        x = port.position[0]
        rx, ry = body.displacement_rows([x])
        return np.vstack([rx, ry])

    def kernel_row(self, table, ints, floats):
        """Pack this contact into its rows of the tables of :func:`phmech.contact.kernels.pack`."""
        raise NotImplementedError


class PointPlane(Contact):
    """A sphere of radius ``radius`` centred at a port against a fixed plane (line in 2D).

    ``g_N = n . (x - p0) - radius``; the contact point is ``x - radius n``.

    Parameters
    ----------
    port : Port
        Centre of the sphere (``radius = 0``: the port itself touches).
    normal : array
        Normal of the plane, pointing to the side where the sphere is free.
    point : array
        A point of the plane (default the origin).
    radius : float
    """

    def __init__(self, port, normal, point=None, radius=0.0, name=None, **law):
        label = port.label if isinstance(port, Port) else "?"
        super().__init__(name or f"contact({label})", **law)
        self.port = port
        dim = self._port_problems("port", port) or 2
        n = _vector("normal", normal, dim, self.problems, nonzero=True)
        self.n = np.eye(dim)[-1] if n is None else n / np.linalg.norm(n)
        self.t = tangents(self.n)
        p0 = np.zeros(dim) if point is None else _vector("point", point, dim, self.problems)
        self.p0 = np.zeros(dim) if p0 is None else p0
        self.radius = _number("radius", radius, self.problems)
        if self.r_c > 0 and dim == 2:
            self.problems.append(f"contensou_radius needs a spatial port, got {self.r_c!r} for the planar "
                                 f"port '{label}'")
        self._raise_problems()

    @property
    def size(self):
        return self.radius

    def ports(self):
        return [self.port]

    def bind(self, e_slices, ne):
        super().bind(e_slices, ne)
        body = self.port.body
        if self._floating_flexible(self.port):
            self._D = np.vstack(body.displacement_rows([self.port.position[0]]))
            #: body-frame displacement of the port from the stresses (floating beams)
            self._float_rows = np.zeros((2, ne))
            self._float_rows[:, e_slices[body.name]] = self._D
            return
        self._D = self._stress_displacement(self.port)
        if self._D is not None:
            #: ``g_N = g_N(q) + gap_rows . e``: the deformation of a beam fixed in space, recovered
            #: from its stresses (exact for motions that start undeformed)
            self.gap_rows = np.zeros(ne)
            self.gap_rows[e_slices[body.name]] = self.n @ self._D

    def stress_rows(self, get_q):
        """``n . R(q) D e``: the deflection of a floating beam (body frame, from the stresses) turned
        with its frame; the rows of a beam fixed in space; None for the other bodies."""
        if self._float_rows is None:
            return self.gap_rows
        body = self.port.body
        return self.n @ (body.rotation(get_q(body)) @ self._float_rows)

    def kernel_row(self, table, ints, floats):
        dim = self.port.dim
        ints[K.C_KIND], ints[K.C_P1] = 0, table.add(self.port, self.name)
        floats[K.F_N:K.F_N + dim], floats[K.F_P0:K.F_P0 + dim] = self.n, self.p0
        floats[K.F_A], floats[K.F_RC] = self.radius, self.r_c
        if self._D is not None:
            ints[K.C_D] = table.append(self._D)


class SphereSphere(Contact):
    """Two spheres centred at two ports (radii ``r1``, ``r2``): ``g_N = |x2 - x1| - r1 - r2``.

    The normal ``n = (x2 - x1) / |x2 - x1|`` points from sphere 1 to sphere 2;
    ``gamma_N = n . (v2 - v1)`` and the friction velocities are the relative
    velocity of the two contact points along the tangents.
    """

    def __init__(self, port1, port2, r1=0.0, r2=0.0, name=None, **law):
        labels = [p.label if isinstance(p, Port) else "?" for p in (port1, port2)]
        super().__init__(name or f"contact({labels[0]}, {labels[1]})", **law)
        self.port1, self.port2 = port1, port2
        dims = [self._port_problems("port1", port1), self._port_problems("port2", port2)]
        self.r1 = _number("r1", r1, self.problems)
        self.r2 = _number("r2", r2, self.problems)
        if None not in dims and dims[0] != dims[1]:
            self.problems.append(f"ports '{labels[0]}' and '{labels[1]}' are of different dimension "
                                 f"({dims[0]} and {dims[1]})")
        elif self.r_c > 0 and dims[0] == 2:
            self.problems.append(f"contensou_radius needs spatial ports, got {self.r_c!r} for the planar "
                                 f"ports '{labels[0]}' and '{labels[1]}'")
        if None not in dims and port1 is port2:
            self.problems.append(f"port1 and port2 are the same port '{labels[0]}'")
        self._raise_problems()

    @property
    def size(self):
        return self.r1 + self.r2

    def ports(self):
        return [self.port1, self.port2]

    def kernel_row(self, table, ints, floats):
        ints[K.C_KIND] = 1
        ints[K.C_P1], ints[K.C_P2] = table.add(self.port1, self.name), table.add(self.port2, self.name)
        floats[K.F_A], floats[K.F_B], floats[K.F_RC] = self.r1, self.r2, self.r_c
