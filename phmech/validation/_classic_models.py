"""Classic rigid and flexible multibody benchmarks in descriptor form.

Two problems of the Test Set for IVP Solvers (Mazzia, Iavernaro, Magherini;
University of Bari), written as ``M(p) p'' = f(t, p, p') - G(p)^T lambda``
with the holonomic constraints ``g(t, p) = 0``:

* :class:`SimeonCrank` -- Simeon's flexible slider crank (problem "crank";
  B. Simeon, Math. Modelling of Systems 2, 1996): crank angle ``phi1``,
  rod angle ``phi2``, slider position ``x3`` and four elastic coordinates of
  the connecting rod (two lateral modes, two longitudinal nodes);
* :class:`AndrewsSqueezer` -- Andrews' squeezing mechanism (problem
  "andrews"; Hairer & Wanner, Solving ODEs II, sec. VII.7): seven rigid
  bodies, six constraints, a constant motor torque and a spring.

Each model offers the index-2 form of the test set (positions ``p``,
velocities ``v``, accelerations ``w`` and multipliers ``lambda``, the latter
two algebraic; velocity constraints ``G(p) v + g_t = 0``) as a
:class:`~phmech.solvers.problem.DAEProblem`, and the ODE form in ``(p, v)`` whose
right-hand side solves the augmented system

    [ M   G^T ] [ w      ]   [ f      ]
    [ G   0   ] [ lambda ] = [ -gamma ]

at every call (``gamma = (d/dt G) v``, from a complex-step directional
derivative, exact to rounding).  All model functions accept complex
arguments, so the Jacobians are complex-step derivatives as well.  The mass
matrices, forces and constraint Jacobians are the kernels of
:mod:`~phmech.validation._classic_compiled` (one implementation for the
Python problems here and the compiled ones).

Data, initial values and reference solutions are those published by the
test set (the reference solutions are at ``t_end`` and in the test set's
component order).
"""
import numpy as np

from ..solvers.problem import DAEProblem
from . import _classic_compiled as K

#: complex-step size
_H = 1e-30


def _common(*xs):
    """The arrays ``xs`` in one floating type (real, or complex where one of them is)."""
    dtype = np.result_type(*xs, float)
    return [np.asarray(x, dtype) for x in xs]


class ConstrainedMBS:
    """Common machinery of a constrained mechanical system with ``np`` coordinates.

    Subclasses define ``n_p``, ``n_c``, ``labels_p``, :meth:`mass`,
    :meth:`forces`, :meth:`constraint`, :meth:`constraint_jacobian`,
    :meth:`constraint_rate` (``g_t``, the explicit time derivative of the
    position constraints; zero by default) and the initial state ``y0``
    of the index-2 form.
    """

    n_p = 0
    n_c = 0
    labels_p = ()

    def _set_parameters(self, params, positive):
        """``self.par`` = defaults ``DATA`` updated by ``params``; every problem is named."""
        name = type(self).__name__
        unknown = set(params) - set(self.DATA)
        if unknown:
            raise ValueError(f"{name}: unknown parameter(s) {sorted(unknown)}; choose from {sorted(self.DATA)}")
        self.par = {**self.DATA, **params}
        bad = [f"{k}={self.par[k]}" for k in positive if not self.par[k] > 0]
        if bad:
            raise ValueError(f"{name}: parameter(s) must be positive: {', '.join(bad)}")

    # -- model (to be provided) -------------------------------------------
    def mass(self, p):
        raise NotImplementedError

    def forces(self, t, p, v):
        raise NotImplementedError

    def constraint(self, t, p):
        raise NotImplementedError

    def constraint_jacobian(self, p):
        raise NotImplementedError

    def constraint_rate(self, t):
        """``d g / d t`` at fixed ``p`` (rheonomic constraints)."""
        return np.zeros(self.n_c)

    # -- derived quantities -----------------------------------------------
    def gamma(self, p, v):
        """``(d/dt G(p)) v = sum_k dG/dp_k v_k v`` (complex-step derivative)."""
        Gc = self.constraint_jacobian(np.asarray(p, complex) + 1j * _H * np.asarray(v).real)
        return (Gc.imag / _H) @ np.asarray(v).real

    def constraint_residuals(self, t, y):
        """Position, velocity and acceleration constraint residuals of a full state.

        ``y`` holds at least ``(p, v)``; the acceleration level needs ``w``
        too (the index-2 state), otherwise ``w`` is computed from the
        augmented system.
        """
        n = self.n_p
        p, v = y[:n], y[n:2 * n]
        w = y[2 * n:3 * n] if len(y) >= 3 * n else self.accelerations(t, p, v)[0]
        G = self.constraint_jacobian(p)
        return (self.constraint(t, p), G @ v + self.constraint_rate(t),
                G @ w + self.gamma(p, v))

    def accelerations(self, t, p, v):
        """Accelerations ``w`` and multipliers ``lambda`` from the augmented system."""
        n, m = self.n_p, self.n_c
        G = self.constraint_jacobian(p)
        A = np.zeros((n + m, n + m))
        A[:n, :n] = self.mass(p)
        A[:n, n:] = G.T
        A[n:, :n] = G
        rhs = np.concatenate([self.forces(t, p, v), -self.gamma(p, v)])
        sol = np.linalg.solve(A, rhs)
        return sol[:n], sol[n:]

    def kinetic_energy(self, p, v):
        """``v^T M(p) v / 2``."""
        return 0.5 * v @ self.mass(p) @ v

    def consistent_state(self, t, p, v, project=True):
        """The index-2 state ``(p, v, w, lambda)`` with ``w``, ``lambda`` consistent to ``(p, v)``.

        With ``project`` the velocities are first moved (least-norm change)
        onto the velocity constraints ``G v + g_t = 0``; the published
        initial velocities satisfy them only to their 9 printed digits.
        """
        p, v = np.array(p, float), np.array(v, float)
        if project:
            G = self.constraint_jacobian(p)
            v = v - G.T @ np.linalg.solve(G @ G.T, G @ v + self.constraint_rate(t))
        w, lam = self.accelerations(t, p, v)
        return np.concatenate([p, v, w, lam])

    # -- index-2 form ------------------------------------------------------
    def _index2_rhs(self, t, y):
        n = self.n_p
        p, v, w, lam = y[:n], y[n:2 * n], y[2 * n:3 * n], y[3 * n:]
        dyn = self.forces(t, p, v) - self.mass(p) @ w - self.constraint_jacobian(p).T @ lam
        vel = self.constraint_jacobian(p) @ v + self.constraint_rate(t)
        return np.concatenate([v, w, dyn, vel])

    def _index2_jac(self, t, y):
        n, N = self.n_p, len(y)
        J = np.zeros((N, N))
        J[:2 * n, n:3 * n] = np.eye(2 * n)
        G = self.constraint_jacobian(y[:n].real)
        J[2 * n:3 * n, 2 * n:3 * n] = -self.mass(y[:n].real)
        J[2 * n:3 * n, 3 * n:] = -G.T
        J[3 * n:, n:2 * n] = G
        for k in range(2 * n):  # p and v columns of the nonlinear rows: complex step
            yc = np.asarray(y, complex)
            yc[k] += 1j * _H
            J[2 * n:, k] = self._index2_rhs(t, yc)[2 * n:].imag / _H
        return J

    def index2_problem(self, compiled=True):
        """The test set's index-2 DAE ``(p, v, w, lambda)`` as a :class:`DAEProblem`.

        With ``compiled`` (and numba installed) the right-hand side and
        Jacobian are the compiled kernels of
        :mod:`phmech.validation._classic_compiled` (same equations; the
        methods of this class stay the reference).
        """
        n, m = self.n_p, self.n_c
        fns = None
        if compiled:
            from ._classic_compiled import index2_functions
            fns = index2_functions(self)
        f, jac = fns if fns is not None else (self._index2_rhs, self._index2_jac)
        N = 3 * n + m
        E = np.diag(np.r_[np.ones(2 * n), np.zeros(n + m)])
        labels = (list(self.labels_p) + [f"v_{s}" for s in self.labels_p]
                  + [f"w_{s}" for s in self.labels_p] + [f"lambda{i + 1}" for i in range(m)])
        assert len(labels) == N
        problem = DAEProblem(E, f, jac=jac, n_alg=n + m, labels=labels)
        if fns is not None:              # Radau IIA's stage iteration compiled as well
            from ._classic_compiled import compiled_rhs
            problem.compiled_rhs = compiled_rhs(self)
        return problem

    # -- ODE form ----------------------------------------------------------
    def ode_rhs(self, t, x):
        """``d/dt (p, v) = (v, w(p, v))`` of the ODE (index-0) form."""
        n = self.n_p
        w, _ = self.accelerations(t, x[:n], x[n:])
        return np.concatenate([x[n:], w])

    def ode_jac(self, t, x, eps=1e-7):
        """Finite-difference Jacobian of :meth:`ode_rhs` (forward differences)."""
        f0 = self.ode_rhs(t, x)
        J = np.empty((len(x), len(x)))
        for k in range(len(x)):
            h = eps * max(1.0, abs(x[k]))
            xp = x.copy()
            xp[k] += h
            J[:, k] = (self.ode_rhs(t, xp) - f0) / h
        return J

    def ode_problem(self):
        """The ODE form as a :class:`DAEProblem` (``E = I``, no algebraic variables)."""
        n = 2 * self.n_p
        labels = list(self.labels_p) + [f"v_{s}" for s in self.labels_p]
        return DAEProblem(np.eye(n), self.ode_rhs, jac=self.ode_jac, n_alg=0, labels=labels)

    def mass_eigenvalues(self, p=None):
        """Eigenvalues of the (symmetric) mass matrix at ``p`` (default: the initial state)."""
        p = self.y0[:self.n_p] if p is None else p
        return np.linalg.eigvalsh(self.mass(p))


class SimeonCrank(ConstrainedMBS):
    """Simeon's flexible slider crank (IVP test set "crank", linear stiffness, undamped).

    Coordinates ``p = (phi1, phi2, x3, q1, q2, q3, q4)``: crank and rod
    angles [rad], slider position [m], lateral modal amplitudes ``q1``,
    ``q2`` and longitudinal nodal displacements ``q3`` (mid-rod) and ``q4``
    (rod end) [m].  Constraints: vertical and horizontal closure at the
    slider, ``phi1 = omega t``.  The FE data (including the test set's
    value 3.1415927 of pi) follow the published problem.

    Parameters
    ----------
    **params
        Overrides of :attr:`DATA` (e.g. ``omega``, ``grav``).
    """

    DATA = dict(m1=0.36, m2=0.151104, m3=0.075552, l1=0.15, l2=0.30, j1=0.002727,
                j2=0.0045339259, ee=0.20e12, bb=0.008, hh=0.008, rho=7870.0, grav=0.0,
                omega=150.0)
    #: the value of pi of the published FE data
    PI = 3.1415927
    n_p, n_c = 7, 3
    labels_p = ("phi1", "phi2", "x3", "q1", "q2", "q3", "q4")
    #: published consistent initial values (test set default case: nonzero elastic state)
    Y0 = np.array([0, 0, 0.450016933, 0, 0, 0.103339863e-4, 0.169327969e-4,
                   0.150000000e3, -0.749957670e2, -0.268938672e-5, 0.444896105,
                   0.463434311e-2, -0.178591076e-5, -0.268938672e-5,
                   0, -1.344541576008661e-3, -5.062194923138079e3, -6.833142732779555e-5,
                   1.449382650173157e-8, -4.268463211410861, 2.098334687947376e-1,
                   -6.397251492537153e-08, 3.824589508329281e2, -4.376060460948886e-09])
    #: published reference solution at t = 0.1 s (MEBDFI, rtol = atol = 1e-14)
    REFERENCE = np.array([
        0.1500000000000104e2, -0.3311734988256260, 0.1697373328427860, 0.1893192899613509e-3,
        0.2375751249879174e-4, -0.5323896770569702e-5, -0.8363313279112129e-5,
        0.1500000000000000e3, 0.6025346755138369e2, -0.8753116326670527e1,
        -0.3005541400289738e-1, -0.5500431812571696e-2, 0.4974111734266989e-3,
        0.1105560003626645e-2, 0.0, 0.6488737541276957e4, 0.2167938629509884e4,
        0.3391137060286523e2, 0.1715134772216488, -0.1422449408912512e1,
        0.1003946428124810e1, -0.6232935833287916e2, -0.1637920993367306e3,
        0.2529857947066878e2])
    T_END = 0.1

    def __init__(self, **params):
        self._set_parameters(params, [k for k in self.DATA if k != "grav"])
        P, pi = self.par, self.PI
        L2, bh = P["l2"], P["bb"] * P["hh"]
        fm, fk, fb = P["rho"] * bh * L2, P["ee"] * bh / L2, bh * L2
        self.MQ = fm * np.array([[0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 8, 1], [0, 0, 1, 2]])
        s = (P["hh"] / L2) ** 2
        self.KQ = fk * np.array([[pi**4 / 24 * s, 0, 0, 0], [0, pi**4 * 2 / 3 * s, 0, 0],
                                 [0, 0, 16 / 3, -8 / 3], [0, 0, -8 / 3, 7 / 3]])
        b13, b14, b24 = 16 / pi**3, 8 / pi**3 - 1 / pi, 0.5 / pi
        self.BQ = fb * np.array([[0, 0, -b13, b14], [0, 0, 0, b24], [b13, 0, 0, 0], [-b14, -b24, 0, 0]])
        self.c1 = fb * np.array([0, 0, 2 / 3, 1 / 6])
        self.c2 = fb * np.array([2 / pi, 0, 0, 0])
        self.c12 = L2 * fb * np.array([0, 0, 1 / 3, 1 / 6])
        self.c21 = L2 * fb * np.array([1 / pi, -0.5 / pi, 0, 0])
        self.m12 = 0.5 * P["l1"] * L2 * P["m2"]
        self.M0 = np.zeros((7, 7))
        self.M0[0, 0] = P["j1"] + P["m2"] * P["l1"]**2
        self.M0[1, 1] = P["j2"]
        self.M0[2, 2] = P["m3"]
        self.M0[3:, 3:] = self.MQ
        self.y0 = self.Y0.copy()
        self.t_end = self.T_END
        #: the model's data for the kernels of :mod:`~phmech.validation._classic_compiled` (``A, V, S``)
        self.kernel_data = K.crank_data(self)

    def mass(self, p):
        return K.crank_M(*_common(p), *self.kernel_data)

    def forces(self, t, p, v):
        return K.crank_f(*_common(p, v), *self.kernel_data)

    def constraint(self, t, p):
        L1, L2 = self.par["l1"], self.par["l2"]
        r = L2 + p[6]
        return np.array([L1 * np.sin(p[0]) + r * np.sin(p[1]),
                         p[2] - L1 * np.cos(p[0]) - r * np.cos(p[1]),
                         p[0] - self.par["omega"] * t])

    def constraint_jacobian(self, p):
        return K.crank_G(*_common(p), self.par["l1"], self.par["l2"])

    def constraint_rate(self, t):
        return np.array([0.0, 0.0, -self.par["omega"]])


class AndrewsSqueezer(ConstrainedMBS):
    """Andrews' squeezing mechanism (IVP test set "andrews"; Hairer & Wanner II, VII.7).

    Coordinates ``p = (beta, theta, gamma, phi, delta, omega, epsilon)``
    [rad] of the seven bodies; six closure constraints (points E and G of
    the three loops through the fixed points B and A); the crank ``beta``
    is driven by the constant torque ``mom`` and body 3 carries the spring
    of stiffness ``c0`` and rest length ``l0`` anchored at C.

    Parameters
    ----------
    **params
        Overrides of :attr:`DATA`.
    """

    DATA = dict(m1=0.04325, m2=0.00365, m3=0.02373, m4=0.00706, m5=0.07050, m6=0.00706,
                m7=0.05498, xa=-0.06934, ya=-0.00227, xb=-0.03635, yb=0.03273, xc=0.014,
                yc=0.072, c0=4530.0, i1=2.194e-6, i2=4.410e-7, i3=5.255e-6, i4=5.667e-7,
                i5=1.169e-5, i6=5.667e-7, i7=1.912e-5, d=28e-3, da=115e-4, e=2e-2, ea=1421e-5,
                rr=7e-3, ra=92e-5, l0=7785e-5, ss=35e-3, sa=1874e-5, sb=1043e-5, sc=18e-3,
                sd=2e-2, ta=2308e-5, tb=916e-5, u=4e-2, ua=1228e-5, ub=449e-5, zf=2e-2,
                zt=4e-2, fa=1421e-5, mom=33e-3)
    n_p, n_c = 7, 6
    labels_p = ("beta", "theta", "gamma", "phi", "delta", "omega", "epsilon")
    #: published consistent initial values of the test set (index-3 form: p, v, w, lambda)
    Y0 = np.array([-0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
                   0.222668390165885884674473185609, 0.487364979543842550225598953530,
                   -0.222668390165885884674473185609, 1.23054744454982119249735015568,
                   0, 0, 0, 0, 0, 0, 0,
                   14222.4439199541138705911625887, -10666.8329399655854029433719415,
                   0, 0, 0, 0, 0,
                   98.5668703962410896057654982170, -6.12268834425566265503114393122,
                   0, 0, 0, 0])
    #: published reference solution at t = 0.03 s (PSIDE, rtol = atol = 1e-14)
    REFERENCE = np.array([
        0.1581077119629904e2, -0.1575637105984298e2, 0.4082224013073101e-1,
        -0.5347301163226948, 0.5244099658805304, 0.5347301163226948, 0.1048080741042263e1,
        0.1139920302151208e4, -0.1424379294994111e4, 0.1103291221937134e2,
        0.1929337464421385e2, 0.5735699284790808, -0.1929337464421385e2, 0.3231791658026955,
        -0.2463176316945196e5, 0.5185037701610329e5, 0.3241025686413781e6,
        0.5667493645176213e6, 0.1674362929479361e5, -0.5667493645176222e6,
        0.9826520791458422e4, 0.1991753333731910e3, -0.2975531228015052e2,
        0.2306654119098399e2, 0.3145271365475927e2, 0.2264249232082739e2,
        0.1161740700019673e2])
    T_END = 0.03

    def __init__(self, **params):
        self._set_parameters(params, ("m1", "m2", "m3", "m4", "m5", "m6", "m7", "c0", "l0"))
        #: the parameters for the kernels of :mod:`~phmech.validation._classic_compiled` (``ANDREWS_KEYS``)
        self.kernel_data = np.array([self.par[k] for k in K.ANDREWS_KEYS], float)
        self.y0 = self.Y0.copy()
        self.t_end = self.T_END

    def mass(self, p):
        return K.andrews_mass(*_common(p), self.kernel_data)

    def spring_point(self, p):
        """Position of the spring's attachment point D on body 3."""
        return np.array(K.andrews_spring(*_common(p), self.kernel_data)[:2])

    def spring_length(self, p):
        return K.andrews_spring(*_common(p), self.kernel_data)[2]

    def spring_energy(self, p):
        """``c0 (l - l0)^2 / 2``."""
        return 0.5 * self.par["c0"] * (self.spring_length(p) - self.par["l0"])**2

    def point_F(self, p):
        """Position of point F (end of the crank, distance ``rr`` from the motor axis O)."""
        return self.par["rr"] * np.array([np.cos(p[0]), np.sin(p[0])])

    def forces(self, t, p, v):
        return K.andrews_forces(*_common(p, v), self.kernel_data)

    def constraint(self, t, p):
        P = self.par
        rr, d, ss, e, zt, zf, u = P["rr"], P["d"], P["ss"], P["e"], P["zt"], P["zf"], P["u"]
        bt, pd, oe = p[0] + p[1], p[3] + p[4], p[5] + p[6]
        x0 = rr * np.cos(p[0]) - d * np.cos(bt)
        y0 = rr * np.sin(p[0]) - d * np.sin(bt)
        return np.array([x0 - ss * np.sin(p[2]) - P["xb"], y0 + ss * np.cos(p[2]) - P["yb"],
                         x0 - e * np.sin(pd) - zt * np.cos(p[4]) - P["xa"],
                         y0 + e * np.cos(pd) - zt * np.sin(p[4]) - P["ya"],
                         x0 - zf * np.cos(oe) - u * np.sin(p[6]) - P["xa"],
                         y0 - zf * np.sin(oe) + u * np.cos(p[6]) - P["ya"]])

    def constraint_jacobian(self, p):
        return K.andrews_G(*_common(p), self.kernel_data)

    def energy_balance(self, t, y):
        """A03 energy balance ``T + V - (T + V)(0) - mom (beta - beta0)`` along a trajectory.

        ``y`` has the states (rows) at the times ``t``; the first row is the start.
        """
        y = np.atleast_2d(y)
        n = self.n_p
        H = np.array([self.kinetic_energy(r[:n], r[n:2 * n]) + self.spring_energy(r[:n]) for r in y])
        return H - H[0] - self.par["mom"] * (y[:, 0] - y[0, 0])
