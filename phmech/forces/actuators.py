r"""Bodies attached to a point of a flexible structure: rigid masses and proof-mass actuators.

Both are rigid bodies that move with a point of a structure lying in the
plane ``z = 0`` -- a plate port (:meth:`phmech.fem.plate.PlateBase.add_patch_port`)
-- in small motions: efforts ``(v_x, v_y, v_z, omega_x, omega_y, omega_z)``,
the velocity of the attachment point and the angular velocity, all six on
the port ``"P"``.  ``System.connect(plate_port, body.port("P"), "weld")``
attaches them: the plate port carries the heave and the rotation rates
about x and y, so the weld makes the body follow them and holds its
in-plane motion and spin at zero (these rows have the body's side only).

:class:`AttachedBody`
    A rigid body with its mass matrix at the attachment point (a centre of
    mass off the point gives off-diagonal static moments).

:class:`ProofMassActuator`
    An attached casing plus a moving (proof) mass ``m`` on a spring ``k`` and
    a damper ``c`` along z above it, driven by a force ``F`` between casing
    and moving mass (``+F`` on the moving mass, ``-F`` on the casing).  With
    the casing's efforts ``e_c`` (heave ``v = v_z``), the proof mass' velocity
    ``v_m`` and the spring force ``f_s`` the pH system is

    .. math::

        M_c \dot e_c &= (f_s - F + c (v_m - v)) \, \epsilon_z + G^T\lambda, \\
        m \dot v_m &= -f_s + F - c (v_m - v), \\
        \dot f_s / k &= v_m - v ,

    ``M = diag(M_c, m, 1/k)``, a skew ``J0`` (the spring between the two
    velocities), ``R = c d d^T`` with ``d = e_{v_m} - e_v``; the energy
    ``H = e^T M e / 2`` is the kinetic energy of casing and proof mass plus
    the spring's ``f_s^2 / 2k``, the dissipation ``c (v_m - v)^2``.  The
    force enters through the port ``"drive"``, whose velocity row is the
    relative velocity ``v_m - v`` (its transpose is the input matrix of
    ``F``): :meth:`ProofMassActuator.force` returns the load.  The port
    ``"mass"`` is the proof mass' heave (a sensor, or where another body
    is carried).

Both are linear and constant: the assembly takes ``M``, ``J0`` and ``R``
as they are (no kernel of their own).  ``velocity_dofs`` and
``stress_dofs`` split the efforts as a plate's do (for the condensed modes
of :func:`phmech.fem.condensed.condensed_modes`).

Examples
--------
>>> from phmech.forces.actuators import ProofMassActuator
>>> act = ProofMassActuator("act", base_mass=[0.18, 3e-4, 3e-4], moving_mass=0.0236, stiffness=1026.0)
>>> round(act.natural_frequency(), 3)        # on a fixed base, Hz
33.185
"""
import numpy as np
import scipy.sparse as sp

from ..bodies.base import FixedBody
from .loads import PortForce


def _positive(value, allow_zero=False):
    try:
        x = float(value)
    except (TypeError, ValueError):
        return False
    return bool(np.isfinite(x) and (x >= 0 if allow_zero else x > 0)) and not isinstance(value, bool)


def _mass_matrix(value):
    """``value`` as a 3 x 3 or 6 x 6 array (3 or 6 numbers: the diagonal), or None when it is not usable."""
    try:
        a = np.asarray(value, float)
    except (TypeError, ValueError):
        return None
    if a.shape in ((3,), (6,)):
        a = np.diag(a)
    return a if a.shape in ((3, 3), (6, 6)) and np.all(np.isfinite(a)) else None


def _check_mass_matrix(M, value, what):
    """Problems of a mass matrix (empty when it is symmetric positive definite)."""
    if M is None:
        return [f"{what} must be a 3x3 or 6x6 array (or its diagonal) of finite numbers, got {value!r}"]
    if not np.allclose(M, M.T, rtol=1e-12, atol=0.0) or np.linalg.eigvalsh(0.5 * (M + M.T)).min() <= 0:
        return [f"{what} must be symmetric positive definite, got {M.tolist()!r}"]
    return []


def rigid_mass_matrix(M):
    """The 6 x 6 mass matrix in ``(v_x, v_y, v_z, omega_x, omega_y, omega_z)`` at the attachment point.

    A 6 x 6 matrix is returned as it is.  A 3 x 3 matrix in (heave, roll rate,
    pitch rate) is completed for the in-plane motion and the spin of a flat
    body: the heave mass along x and y, ``J_zz = J_xx + J_yy``, no coupling
    (attached to a plate these motions are held at zero by the weld, and
    these entries do not enter the results).
    """
    M = np.asarray(M, float)
    if M.shape == (6, 6):
        return M.copy()
    out = np.zeros((6, 6))
    out[2:5, 2:5] = M
    out[0, 0] = out[1, 1] = M[0, 0]
    out[5, 5] = M[1, 1] + M[2, 2]
    return out


class AttachedBody(FixedBody):
    """A rigid body moving with a point of a plate, in small motions.

    Efforts ``e = (v_x, v_y, v_z, omega_x, omega_y, omega_z)``: the velocity
    of the attachment point and the angular velocity; port ``"P"`` carries
    all six (``Y = I`` on the first three, ``W = I`` on the last three).

    Parameters
    ----------
    name : str
    mass_matrix : array_like, shape (6, 6), (3, 3), (6,) or (3,)
        Mass matrix at the attachment point, symmetric positive definite: 6 x 6
        in ``e``, or 3 x 3 in (heave, roll rate, pitch rate) completed by
        :func:`rigid_mass_matrix` (a vector: the diagonal).
    position : (x, y)
        The attachment point [m] (the port's position).
    """

    dim = 3

    def __init__(self, name, mass_matrix, position=(0.0, 0.0)):
        super().__init__(name)
        M = _mass_matrix(mass_matrix)
        problems = _check_mass_matrix(M, mass_matrix, "mass matrix")
        problems += self._check_position(position)
        if problems:
            raise ValueError(f"body '{name}': " + "; ".join(problems))
        self._setup(rigid_mass_matrix(M), np.zeros((6, 6)), position)

    @staticmethod
    def _check_position(position):
        try:
            p = np.asarray(position, float)
        except (TypeError, ValueError):
            p = None
        if p is None or p.shape != (2,) or not np.all(np.isfinite(p)):
            return [f"position must be 2 finite numbers (x, y), got {position!r}"]
        return []

    def _setup(self, M, J0, position, labels=()):
        self.M = sp.csr_matrix(M)
        self.J0 = sp.csr_matrix(J0)
        self.e_labels = ["v_x", "v_y", "v_z", "omega_x", "omega_y", "omega_z"] + list(labels)
        Y = np.zeros((3, self.ne))
        W = np.zeros((3, self.ne))
        Y[:, :3] = W[:, 3:6] = np.eye(3)
        self.add_port("P", Y, W, np.r_[np.asarray(position, float), 0.0])

    @property
    def translation_dofs(self):
        return np.arange(3)

    @property
    def velocity_dofs(self):
        """Efforts that are velocities (kinetic energy)."""
        return np.arange(6)

    @property
    def stress_dofs(self):
        """Efforts that are forces (elastic energy)."""
        return np.arange(0)


class ProofMassActuator(AttachedBody):
    """A proof-mass actuator on a plate point (see the module docstring for the model).

    Efforts ``e = (v_x, v_y, v_z, omega_x, omega_y, omega_z, v_m, f_s)``:
    the casing as an :class:`AttachedBody`, the proof mass' velocity along z
    and the spring force.

    Parameters
    ----------
    name : str
    base_mass : array_like
        Mass matrix of the casing at the attachment point (as ``mass_matrix``
        of :class:`AttachedBody`).
    moving_mass : float
        The proof mass ``m`` [kg] (> 0).
    stiffness : float
        The spring ``k`` [N/m] between casing and proof mass (> 0).
    damping : float
        The damper ``c`` [N s/m] in parallel with the spring (>= 0).
    position : (x, y)
        The attachment point [m].
    """

    #: indices of the proof mass' velocity and of the spring force in ``e``
    I_VM, I_FS = 6, 7

    def __init__(self, name, base_mass, moving_mass, stiffness, damping=0.0, position=(0.0, 0.0)):
        FixedBody.__init__(self, name)
        M3 = _mass_matrix(base_mass)
        problems = _check_mass_matrix(M3, base_mass, "base_mass")
        for what, value, zero in (("moving_mass", moving_mass, False), ("stiffness", stiffness, False),
                                  ("damping", damping, True)):
            if not _positive(value, zero):
                problems.append(f"{what} must be a {'non-negative' if zero else 'positive'} finite number, "
                                f"got {value!r}")
        problems += self._check_position(position)
        if problems:
            raise ValueError(f"actuator '{name}': " + "; ".join(problems))
        self.moving_mass, self.stiffness, self.damping = float(moving_mass), float(stiffness), float(damping)
        iv, im, fs = 2, self.I_VM, self.I_FS
        M = np.zeros((8, 8))
        M[:6, :6] = rigid_mass_matrix(M3)
        M[im, im], M[fs, fs] = self.moving_mass, 1.0 / self.stiffness
        J0 = np.zeros((8, 8))
        # m v_m' = -f_s + ...,  f_s' / k = v_m - v_z,  casing heave: + f_s
        J0[im, fs], J0[fs, im] = -1.0, 1.0
        J0[iv, fs], J0[fs, iv] = 1.0, -1.0
        self._setup(M, J0, position, ["v_m", "f_s"])
        d = np.zeros(8)
        d[iv], d[im] = -1.0, 1.0
        self.R = sp.csr_matrix(self.damping * np.outer(d, d)) if self.damping > 0 else None
        pos = self.ports["P"].position
        Yd = np.zeros((3, 8))
        Yd[2] = d
        self.add_port("drive", Yd, None, pos)
        Ym = np.zeros((3, 8))
        Ym[2, im] = 1.0
        self.add_port("mass", Ym, None, pos)

    @property
    def velocity_dofs(self):
        return np.arange(7)

    @property
    def stress_dofs(self):
        return np.array([self.I_FS])

    def force(self, F, name=None):
        """The actuator force ``F`` (a number or ``F(t)`` [N]) as a load: ``+F`` on the proof mass,
        ``-F`` on the casing (add it with ``System.add_load``)."""
        from .._checks import time_function

        f = time_function(F, 1, "force", f"actuator '{self.name}'")
        load = PortForce(self.port("drive"), lambda t: np.array([0.0, 0.0, f(t)[0]]), frame="body",
                         name=name or f"force({self.name})")
        load.fun.value, load.fun.constant = F, f.constant
        return load

    def natural_frequency(self):
        """``sqrt(k / m) / 2 pi`` [Hz]: the proof mass on a fixed casing."""
        return float(np.sqrt(self.stiffness / self.moving_mass) / (2 * np.pi))

    def energies(self, e):
        """``(kinetic, spring)`` energies [J] of efforts ``e`` (shape ``(8,)`` or ``(N, 8)``)."""
        e = np.atleast_2d(np.asarray(e, float))
        M = self.M.toarray()
        kin = 0.5 * np.einsum("ni,ij,nj->n", e[:, :7], M[:7, :7], e[:, :7])
        return kin, 0.5 * e[:, self.I_FS] ** 2 / self.stiffness

    def dissipation(self, e):
        """Dissipated power ``c (v_m - v_z)^2`` [W] of efforts ``e``."""
        e = np.atleast_2d(np.asarray(e, float))
        return self.damping * (e[:, self.I_VM] - e[:, 2]) ** 2
