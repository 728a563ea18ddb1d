"""Generalized-alpha method (Chung & Hulbert 1993) for constrained second-order systems.

Problem form
------------
The solver integrates

.. math::

    M \\ddot q = f(t, q, \\dot q) - G(q)^T \\lambda, \\qquad g(q) = 0,
    \\qquad G = \\partial g / \\partial q ,

given by an object with the interface of :class:`SecondOrderProblem`
(constant sparse ``M``; ``force`` with exact ``df/dq``, ``df/dv``; ``g``,
``G`` and the curvature terms ``d(G^T w)/dq``, ``d(G v)/dq`` and
``(G v)' - G q''``).  The mass-spring networks of :mod:`phmech.massspring`
provide it; so can any model with a displacement form.  The driver's state
is ``y = (q, v, lam)``.

Any other problem of the driver ``E y' = f(t, y)`` -- the assembled pH
systems (:class:`~phmech.assembly.DescriptorDAE`: ``q' = T(q) e``,
``M e' = f + G^T lam``, ``0 = w - G e``) and :class:`~phmech.solvers.problem.DAEProblem`
-- is integrated in the equivalent first-order form of the method (Jansen,
Whiting & Hulbert, Comput. Methods Appl. Mech. Engrg. 190 (2000) 305-319,
eqs. 7-9, 17, 19): with ``x`` the differential variables (``q, e``) and
``x'`` their rates,

    x+ = x + h x' + h gamma (x'+ - x'),
    E x'_{n+alpha_m} = f_d(t_{n+alpha_f}, y_{n+alpha_f}),    f_a(t+, y+) = 0,

``alpha_m = (3 - rho)/(2 (1 + rho))``, ``alpha_f = 1/(1 + rho)``,
``gamma = 1/2 + alpha_m - alpha_f``: second order, spectral radius
``rho_inf`` at infinity (``rho_inf = 1`` is the implicit midpoint rule
with the constraint at the step's end).  The multipliers are interpolated
like the differential variables (``lam_{n+alpha_f}`` acts in the step)
and the velocity constraint holds at every step point.  It is the
method's form for first-order systems, not Chung & Hulbert's
second-order one: the pH state has no second-order variable (efforts of
stresses, rotation parameters with ``q' = T(q) e``).  The start uses the
consistent ``x'(t0)`` of ``problem.derivative``.  The test set
(``tests/solvers/test_genalpha.py``) shows second order in ``q``, ``e`` and
``lam`` on an assembled pendulum and on an index-2 DAE.  For assembled
systems whose residual is completely compiled the Newton iteration of a
step runs as one compiled call (:mod:`phmech.solvers.genalpha_kernels`;
``compiled=False`` selects the Python iteration it reproduces).

Method
------
With ``a`` the algorithmic acceleration (Chung & Hulbert 1993, eqs. 8-10,
in the form of Arnold & Bruls 2007, eqs. 9-10)::

    q+ = q + h v + h^2 (1/2 - beta) a + h^2 beta a+  (+ G(q+)^T nu)
    v+ = v + h (1 - gamma) a + h gamma a+
    (1 - alpha_m) a+ + alpha_m a = (1 - alpha_f) qdd+ + alpha_f qdd
    M qdd+ = f(t+, q+, v+) - G(q+)^T lam+

with ``alpha_m = (2 rho - 1)/(rho + 1)``, ``alpha_f = rho/(rho + 1)``,
``gamma = 1/2 + alpha_f - alpha_m``, ``beta = (gamma + 1/2)^2 / 4``
(Chung & Hulbert eqs. 17, 25): second order, spectral radius ``rho_inf``
at ``omega h -> infinity``.  For linear problems the method is exactly
Chung & Hulbert's (the equation of motion at ``t+`` and the alpha-average
of the accelerations give their eq. 8); :func:`amplification_matrix` is
their eq. 19 and :func:`spectral_properties` their damping ratio and
period definitions (eq. 24).

Constraints: the stabilized index-2 (GGL) form (Gear, Gupta & Leimkuhler
1985, applied to the generalized-alpha method by Arnold, Bruls & Cardona,
Numer. Math. 129 (2015), Sect. 3): both ``g(q+) = 0`` and
``G(q+) v+ = 0`` are imposed, the position update gets the correction
``G^T nu`` with a second multiplier ``nu``.  No drift on either level, no
order reduction in ``lam`` (second order in ``q``, ``v`` and ``lam`` in the
tests), and it runs with ``rho_inf = 1`` (the trapezoidal rule on the plain
index-3 form is unstable there, Cardona & Geradin, Comput. Struct. 33 (1989)).  Newton's method runs on ``(q+, lam / beta', nu)`` with the
dynamic rows divided by ``beta' = (1 - alpha_m)/((1 - alpha_f) h^2 beta)``
and the velocity rows by ``gamma/(h beta)``: the scaling of Bottasso,
Bauchau & Cardona (2007) and Arnold & Bruls (2007), which keeps the
iteration matrix ``O(1)`` as ``h -> 0``.

The start is consistent: ``qdd0`` and ``lam0`` solve ``[M G^T; G 0]
[qdd; lam] = [f; -(G v)' + G qdd]`` and ``a0 = qdd0`` -- without it the
method is first order for ``rho_inf < 1``.  A continued run passes the
previous :meth:`GeneralizedAlpha.restart_data` as ``acc0`` (and ``lam`` in
``y0``): ``(qdd, a)`` and the point where the kept iteration matrix was
factorized, which the continued run factorizes again, so that a run split
into pieces equals the uninterrupted one to round-off.
"""
import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from ..math.sizes import DENSE_MAX
from ._dense import superlu
from ._newton import GENALPHA_SLOW, converged as newton_converged, slow
from .base import QuadratureWork, Solver, SolverError, count_option, positive_option
from .genalpha_first_order import FirstOrderForm, first_order_parameters  # noqa: F401 (public)



class _DenseLU:
    def __init__(self, lu_piv):
        self.lu_piv = lu_piv

    def solve(self, b):
        return sla.lu_solve(self.lu_piv, b, check_finite=False)


def parameters(rho_inf):
    """``(alpha_m, alpha_f, gamma, beta)`` of Chung & Hulbert (1993, eqs. 17, 25) for ``rho_inf``."""
    r = float(rho_inf)
    am, af = (2 * r - 1) / (r + 1), r / (r + 1)
    gamma = 0.5 + af - am
    return am, af, gamma, 0.25 * (gamma + 0.5) ** 2


def amplification_matrix(omega_h, rho_inf, xi=0.0):
    """Amplification matrix of ``(q, h v, h^2 a)`` for ``qdd + 2 xi w qdd + w^2 q = 0``
    (Chung & Hulbert 1993, eq. 19, from their eqs. 8-10 with ``Omega = omega h``)."""
    am, af, g, b = parameters(rho_inf)
    W = float(omega_h)
    # unknowns x = (q+, h v+, h^2 a+); rows: q update, v update, alpha-balance of the equation of motion
    A1 = np.array([[1.0, 0.0, -b], [0.0, 1.0, -g],
                   [(1 - af) * W ** 2, (1 - af) * 2 * xi * W, 1 - am]])
    A0 = np.array([[1.0, 1.0, 0.5 - b], [0.0, 1.0, 1 - g],
                   [-af * W ** 2, -af * 2 * xi * W, -am]])
    return np.linalg.solve(A1, A0)


def spectral_properties(omega_h, rho_inf):
    """``(rho, xi_bar, period_error)``: spectral radius, algorithmic damping ratio and
    relative period elongation ``(T_bar - T)/T`` of the undamped oscillator
    (Chung & Hulbert 1993, eq. 24: principal roots ``A +- iB``,
    ``Omega_bar = atan(B/A)``, ``xi_bar = -ln(A^2 + B^2)/(2 Omega_bar)``).  For small ``Omega``
    the series of the principal root gives ``xi_bar = (1 - rho)^3 / (2 (1 + rho)^3) Omega^3`` and
    ``(T_bar - T)/T = (11 rho^2 - 14 rho + 11) / (24 (1 + rho)^2) Omega^2`` (``Omega^2/12`` for
    the trapezoidal rule)."""
    lam = np.linalg.eigvals(amplification_matrix(omega_h, rho_inf))
    rho = float(np.max(np.abs(lam)))
    z = lam[np.argmax(lam.imag)]
    if abs(z.imag) < 1e-14:
        return rho, np.nan, np.nan
    Wb = np.arctan2(z.imag, z.real)
    return rho, float(-np.log(abs(z) ** 2) / (2 * Wb)), float(omega_h / Wb - 1.0)


def _hermite(s, h, p0, p1, m0, m1):
    """Cubic Hermite interpolant at ``s = (t - t0)/h`` from values ``p`` and rates ``m`` at both ends."""
    return (np.multiply.outer(2 * s ** 3 - 3 * s ** 2 + 1, p0) + np.multiply.outer((s ** 3 - 2 * s ** 2 + s) * h, m0)
            + np.multiply.outer(-2 * s ** 3 + 3 * s ** 2, p1) + np.multiply.outer((s ** 3 - s ** 2) * h, m1))


class SecondOrderProblem:
    """Base of problems ``M q'' = f(t, q, v) - G(q)^T lam``, ``g(q) = 0`` (see the module docstring).

    Subclasses set ``nq``, ``nl``, ``M`` and implement ``force``,
    ``force_jacobians``, ``g``, ``G``, ``constraint_hessian(q, w)``
    (``d(G^T w)/dq``), ``constraint_velocity_jacobian(q, v)`` (``d(G v)/dq``)
    and ``constraint_curvature(q, v)`` (``(G v)' - G q''``).  This base adds
    the first-order :class:`~phmech.solvers.problem.Problem` contract for
    ``y = (q, v, lam)`` in index-2 form (``q' = v``, ``M v' = f - G^T lam``,
    ``0 = -G v``), so the other solvers of the driver run the same model.
    """

    def _layout(self):
        nq, nl = self.nq, self.nl
        self.ne = nq
        self.n = 2 * nq + nl
        self.sq, self.se, self.sl = slice(0, nq), slice(nq, 2 * nq), slice(2 * nq, 2 * nq + nl)
        self.M = sp.csr_matrix(self.M)
        self.E = sp.block_diag([sp.identity(nq), self.M, sp.csr_matrix((nl, nl))], format="csr")

    def split(self, y):
        return y[self.sq], y[self.se], y[self.sl]

    def f(self, t, y):
        q, v, lam = self.split(y)
        G = self.G(q)
        return np.r_[v, self.force(t, q, v) - G.T @ lam, -(G @ v)]

    def jacobian(self, t, y):
        q, v, lam = self.split(y)
        K, C = self.force_jacobians(t, q, v)
        G = self.G(q)
        nq, nl = self.nq, self.nl
        return sp.bmat([[None, sp.identity(nq), sp.csr_matrix((nq, nl))],
                        [K - self.constraint_hessian(q, lam), C, -G.T],
                        [-self.constraint_velocity_jacobian(q, v), -G, None]], format="csc")

    def accelerations(self, t, q, v):
        """Consistent ``(qdd, lam)`` from ``[M G^T; G 0] [qdd; lam] = [f; -(G v)' + G qdd]``."""
        G = self.G(q)
        A = sp.bmat([[self.M, G.T], [G, None]], format="csc") if self.nl else sp.csc_matrix(self.M)
        rhs = np.r_[self.force(t, q, v), -self.constraint_curvature(q, v)]
        try:
            x = splu(A).solve(rhs)
        except RuntimeError as err:
            raise ValueError(f"the constraint rows are dependent or a mass is zero ({err})") from None
        return x[:self.nq], x[self.nq:]

    def derivative(self, t, y):
        q, v, lam = self.split(y)
        return np.r_[v, self.accelerations(t, q, v)[0], np.zeros(self.nl)]

    def constraint_residual(self, t, y):
        q, v, lam = self.split(y)
        return self.G(q) @ v

    def power(self, t, y):
        return 0.0


class GeneralizedAlpha(FirstOrderForm, QuadratureWork, Solver):
    """Fixed-step generalized-alpha method (see the module docstring).

    Parameters
    ----------
    problem : SecondOrderProblem, or any problem ``E y' = f(t, y)`` of the driver
        (integrated in the first-order form, see the module docstring; ``form`` says which).
    t0, y0, t_bound
        See :class:`~phmech.solvers.base.Solver`; ``y0 = (q, v, lam)``, the
        position and velocity constraints met (``lam`` is used only with ``acc0``).
    dt : float
        Step size; each interval between breakpoints is divided into equal steps near ``dt``.
    rho_inf : float in [0, 1]
        Spectral radius at infinite frequency (1: no numerical damping).
    acc0 : (qdd, a), (qdd, a, point) or None
        Acceleration and algorithmic acceleration to continue a run with
        (first-order form: ``(x', x')``, the rates of the differential variables),
        optionally with the point of the kept iteration matrix (:meth:`restart_data`);
        default: consistent accelerations from the equations of motion (``a0 = qdd0``).
    newton_tol : float
        Relative tolerance of the Newton increments.
    max_newton : int
    reuse_jacobian : bool or None
        Keep the factorized iteration matrix over steps of equal size until
        the Newton contraction slows down (default); ``False`` factorizes it
        anew in every step.  Kept, a chain of 100 masses steps 2.7 times
        faster, a 12 x 12 lattice 2.3 (3.6 in 3D), at the Newton tolerance
        either way (``python benchmarks/mass_spring.py``).
    compiled : bool
        First-order form: run the Newton iteration of a step as one compiled call
        (:func:`~phmech.solvers.genalpha_kernels.genalpha_newton`, dense factors) when the
        problem's residual is completely compiled
        (:meth:`~phmech.assembly.dae.DescriptorDAE.compiled_residual` ``.pure``) and it has at
        most :data:`phmech.math.sizes.DENSE_MAX` unknowns; ``False``: the Python
        iteration (the reference, same tests in the same order).  No effect in the
        second-order form.
    """

    name = "genalpha"
    REQUIRED = ("force", "force_jacobians", "g", "G", "constraint_hessian", "constraint_velocity_jacobian",
                "constraint_curvature")

    def __init__(self, problem, t0, y0, t_bound=None, dt=None, rho_inf=0.9, acc0=None, newton_tol=1e-12,
                 max_newton=10, reuse_jacobian=None, compiled=True, **unknown):
        self.refuse_unknown(unknown)
        missing = [m for m in self.REQUIRED if not hasattr(problem, m)]
        first = [m for m in ("E", "f", "jacobian", "derivative", "nl") if not hasattr(problem, m)]
        if missing and first:
            raise ValueError(f"genalpha: the problem {type(problem).__name__} is neither a second-order problem "
                             f"(missing {missing}) nor a descriptor problem E y' = f(t, y) (missing {first})")
        #: "second-order" (Chung & Hulbert) or "first-order" (Jansen, Whiting & Hulbert)
        self.form = "first-order" if missing else "second-order"
        super().__init__(problem, t0, y0, t_bound)
        self._init_work()
        if dt is None:
            raise ValueError("genalpha: a positive step size dt is required, got None")
        self.dt = positive_option(self.name, "dt", dt)
        try:
            r = float(rho_inf)
        except (TypeError, ValueError):
            r = np.nan
        if not 0.0 <= r <= 1.0:
            raise ValueError(f"genalpha: option rho_inf must be a number in [0, 1], got {rho_inf!r}")
        self.rho_inf = r
        self.am, self.af, self.gamma, self.beta = parameters(r)
        self.newton_tol = positive_option(self.name, "newton_tol", newton_tol)
        self.max_newton = count_option(self.name, "max_newton", max_newton)
        self._interval = None
        self._h_last = None
        self._lu, self._lu_h, self._lu_fresh = None, None, False
        self._lu_point = self._lu_pending = None
        if self.form == "first-order":
            self.reuse_jacobian = reuse_jacobian is not False
            self._init_first_order(acc0, compiled)
            return
        d = problem
        q, v, lam = d.split(self.y)
        gq, gv = d.g(q), d.G(q) @ v
        scale = max(1.0, float(np.max(np.abs(q), initial=0.0)))
        if d.nl and (np.max(np.abs(gq)) > 1e-8 * scale or np.max(np.abs(gv)) > 1e-8 * max(1.0, np.max(np.abs(v)))):
            k = int(np.argmax(np.abs(gq)) if np.max(np.abs(gq)) > 1e-8 * scale else np.argmax(np.abs(gv)))
            raise ValueError(f"genalpha: inconsistent initial state: constraint {d.labels()[d.sl][k]} has "
                             f"position residual {gq[k]:.3g} and velocity residual {gv[k]:.3g}")
        if acc0 is None:
            try:
                self.qdd, lam = d.accelerations(t0, q, v)
            except ValueError as err:
                raise SolverError(self.name, t0, f"no consistent initial acceleration: {err}") from None
            self.a = self.qdd.copy()
            self.y[d.sl] = lam
        else:
            qdd, a = (np.array(x, dtype=float) for x in acc0[:2])
            if qdd.shape != (d.nq,) or a.shape != (d.nq,):
                raise ValueError(f"genalpha: acc0 must be two arrays of length {d.nq}")
            self.qdd, self.a = qdd, a
            self._lu_pending = acc0[2] if len(acc0) > 2 else None
        self.m_mean = max(float(np.mean(np.abs(d.M.diagonal()))), 1e-300)
        self.y_old = self.y.copy()
        self.qdd_old = self.qdd.copy()
        self._interval = None
        self._h_last = None
        self.reuse_jacobian = reuse_jacobian is not False

    def restart_data(self):
        """``(qdd, a)`` at ``t`` (first-order form: ``(x', x')``), in the second-order form with the
        point where the kept iteration matrix was factorized (None without one): pass as ``acc0``
        to continue the run exactly."""
        if self.form == "first-order":
            return self.xd.copy(), self.xd.copy()
        kept = self.reuse_jacobian and self._lu is not None
        return self.qdd.copy(), self.a.copy(), (*self._lu_point, self._lu_h) if kept else None

    def _step_times(self):
        """``(h, t1)`` of the next step: equal steps between breakpoints, times ``t_start + k h``."""
        h = self.h
        last = self.t_bound - self.t < h * (1 + 1e-9)
        if last and abs(self.t_bound - self.t - h) > 1e-9 * h:
            h = self.t_bound - self.t      # t_bound moved inside a step; otherwise keep the exact equal step
        self._k += 1
        return h, (self.t_bound if last else self._interval[0] + self._k * h)

    def _start_interval(self):
        span = self.t_bound - self.t
        self.h = span / max(1, int(round(span / self.dt)))
        self._interval = (self.t, self.t_bound)
        self._k = 0                      # steps taken in the interval (times t_start + k h, no accumulation)

    def _step(self):
        if self._interval is None or self._interval[1] != self.t_bound:
            self._start_interval()
        if self.form == "first-order":
            self._step_first_order()
        else:
            self._step_second_order()
        self._record_work((self.t_old, self.t), (self.y_old, self.y))

    def _step_second_order(self):
        d = self.problem
        nl = d.nl
        h, t1 = self._step_times()
        am, af, g, b = self.am, self.af, self.gamma, self.beta
        q0, v0, lam0 = d.split(self.y)
        qdd0, a0 = self.qdd, self.a
        base_q = q0 + h * v0 + h * h * (0.5 - b) * a0
        base_v = v0 + h * (1 - g) * a0
        bp = (1 - am) / ((1 - af) * h * h * b)          # d qdd+ / d q+
        cv = g / (h * b)                                # d v+ / d q+
        q_scale = max(float(np.max(np.abs(q0), initial=0.0)), h * float(np.max(np.abs(v0), initial=0.0)), 1e-8)

        def kin(U):
            a1 = (U - base_q) / (h * h * b)
            return a1, base_v + h * g * a1, ((1 - am) * a1 + am * a0 - af * qdd0) / (1 - af)

        pending = self._lu_pending
        if pending is not None:         # a continued run: the matrix the previous piece kept
            self._lu_pending = None
            if self.reuse_jacobian and pending[-1] == h:
                t_p, q_p, v_p, lam_p, nu_p = pending[:5]
                self._lu, self._lu_h = self._factor(t_p, q_p, v_p, lam_p, nu_p, d.G(q_p), bp, cv), h
        lu = self._lu if (self.reuse_jacobian and self._lu_h == h) else None
        for attempt in range(2):
            # predictor: unchanged acceleration
            a1 = ((1 - af) * qdd0 + af * qdd0 - am * a0) / (1 - am)
            q = base_q + h * h * b * a1
            lt, nu = lam0 / bp, np.zeros(nl)
            q, lt, nu, lu, err, ok = self._newton(t1, h, q, lt, nu, lu, kin, bp, cv, q_scale)
            if ok:
                break
            if attempt == 0 and self._lu_fresh:
                break                           # a fresh matrix did not help either
            lu = None
        if not ok:
            raise SolverError(self.name, self.t, f"Newton iteration did not converge (last relative increment "
                              f"{err:.3g} after {self.max_newton} iterations, also with a fresh iteration "
                              "matrix): reduce dt")
        self._lu, self._lu_h = lu, h
        G = d.G(q)
        a1, v, qdd = kin(q - G.T @ nu)
        self.t_old, self.y_old, self.qdd_old = self.t, self.y, self.qdd
        self.y = np.r_[q, v, bp * lt]
        self.qdd, self.a = qdd, a1
        self._h_last = t1 - self.t_old
        self.t = t1
        self.nsteps += 1

    def _factor(self, t1, q, v, lam, nu, G, bp, cv):
        """LU of the scaled iteration matrix (dense LAPACK for problems of up to
        :data:`DENSE_MAX` unknowns ``y = (q, v, lam)``, as the other solvers decide)."""
        d, M = self.problem, self.problem.M
        nq, nl = d.nq, d.nl
        self._lu_point = (t1, q.copy(), v.copy(), lam.copy(), nu.copy())
        K, C = d.force_jacobians(t1, q, v)
        self.njev += 1
        dense = 2 * nq + nl <= DENSE_MAX
        cast = (lambda A: A.toarray() if sp.issparse(A) else np.asarray(A)) if dense else sp.csr_matrix
        K, C, M = cast(K), cast(C), cast(M)
        D = M - (cv / bp) * C
        why = "dependent constraints or a mass without stiffness and mass"
        if not nl:          # no constraints: the one block, without the block assembly
            return self._lu_of(D - K / bp if dense else sp.csc_matrix(D - K / bp), why)
        G = cast(G)
        eye = np.eye(nq) if dense else sp.identity(nq, format="csr")
        I_H = eye - cast(d.constraint_hessian(q, nu))
        J11 = D @ I_H + (cast(d.constraint_hessian(q, lam)) - K) / bp
        rows = [[J11, G.T, -D @ G.T], [G, None, None],
                [cast(d.constraint_velocity_jacobian(q, v)) / cv + G @ I_H, None, -(G @ G.T)]]
        if dense:
            Z = [np.zeros((nq, nl)), np.zeros((nl, nl))]
            J = np.block([[b if b is not None else Z[i > 0] for b in row] for i, row in enumerate(rows)])
        else:
            J = sp.bmat(rows, format="csc")
        return self._lu_of(J, why)

    def _lu_of(self, A, why):
        """LU factorization (dense LAPACK or SuperLU after the type of ``A``); a singular ``A`` is a SolverError."""
        try:
            if sp.issparse(A):
                out = superlu(A)
            else:
                lu_piv = sla.lu_factor(A, check_finite=True)
                if np.min(np.abs(np.diag(lu_piv[0]))) == 0:
                    raise RuntimeError("exactly singular")
                out = _DenseLU(lu_piv)
        except (RuntimeError, ValueError, np.linalg.LinAlgError) as err:
            raise SolverError(self.name, self.t, f"singular iteration matrix ({err}): {why}") from None
        self.nlu += 1
        return out

    def _newton(self, t1, h, q, lt, nu, lu, kin, bp, cv, q_scale):
        """Newton iteration on ``(q+, lam / beta', nu)``; returns the iterates, the LU used,
        the last relative increment and whether it converged."""
        d, M = self.problem, self.problem.M
        nq, nl = d.nq, d.nl
        self._lu_fresh = lu is None
        prev = None
        err = np.inf
        for it in range(self.max_newton):
            with np.errstate(all="ignore"):
                G = d.G(q)
                U = q - G.T @ nu
                a1, v, qdd = kin(U)
                lam = bp * lt
                f = d.force(t1, q, v)
                self.nfev += 1
                r = np.r_[(M @ qdd + G.T @ lam - f) / bp, d.g(q), (G @ v) / cv]
            if not np.all(np.isfinite(r)):
                raise SolverError(self.name, self.t, "the residual became non-finite (the Newton iterates "
                                  "diverged or a spring has zero length): reduce dt")
            if lu is None:
                lu = self._factor(t1, q, v, lam, nu, G, bp, cv)
                self._lu_fresh = True
            dx = lu.solve(r)
            q = q - dx[:nq]
            lt = lt - dx[nq:nq + nl]
            nu = nu - dx[nq + nl:]
            # lam / beta' has units of mass x length: compare it through the mean mass
            err = max(float(np.max(np.abs(dx[:nq]), initial=0.0)),
                      float(np.max(np.abs(dx[nq:nq + nl]), initial=0.0)) / self.m_mean,
                      float(np.max(np.abs(dx[nq + nl:]), initial=0.0))) / q_scale
            if not np.isfinite(err):
                raise SolverError(self.name, self.t, "the Newton increment became non-finite")
            if newton_converged(err, prev or 0.0, self.newton_tol, self._lu_fresh):
                break
            if slow(err, prev or 0.0, it, *GENALPHA_SLOW):
                lu = None                       # slow contraction: fresh iteration matrix
            prev = err
        else:
            return q, lt, nu, lu, err, False
        return q, lt, nu, lu, err, True

    def dense_output(self):
        """Cubic Hermite interpolation of ``q`` (from ``q, v``) and ``v`` (from ``v, qdd``), or in the
        first-order form of the differential variables from their rates; multipliers linear."""
        t0, h, y0, y1 = self.t_old, self._h_last, self.y_old, self.y
        if self.form == "first-order":
            nd = self.nd
            parts = [(y0[:nd], y1[:nd], self.xd_old, self.xd)]
        else:
            d = self.problem
            (q0, v0, _), (q1, v1, _) = d.split(y0), d.split(y1)
            parts = [(q0, q1, v0, v1), (v0, v1, self.qdd_old, self.qdd)]
            nd = 2 * d.nq

        def interp(t):
            s = (np.asarray(t, float) - t0) / h
            lam = np.multiply.outer(1 - s, y0[nd:]) + np.multiply.outer(s, y1[nd:])
            return np.concatenate([_hermite(s, h, *p) for p in parts] + [lam], axis=-1)
        return interp
