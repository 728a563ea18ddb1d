"""Force elements between bodies: springs, dampers, torsional springs and bushings.

A force element connects two ports (or a port and the ground) through a
strain ``s(q)`` with the exact rate ``s' = B(q) e`` and a stress
``sigma(s, B e)``; it adds ``-B^T sigma`` to the effort equations (see
:mod:`phmech.forces.elements_kernels`, which holds the formulas once, as compiled
kernels).  With the linear law ``sigma = K (s - s0) + D s'`` the element
is a potential ``V = 1/2 (s - s0)^T K (s - s0)`` (part of
:meth:`~phmech.assembly.energy.EnergyMixin.potential_energy` and of the
stiffness of :func:`~phmech.solvers.eigen.linearize`) and a dissipation
``s'^T D s'``.

* :class:`SpringDamper`: point to point (or to a ground point), rest
  length, stiffness, damping, or a user law ``f(length, rate)`` (the
  tension), a plain Python function that phmech compiles (``numba.njit``)
  into the element's kernels, so the model stays on the compiled path; its
  work counts as supplied power;
* :class:`TorsionalSpringDamper`: on a revolute joint (planar or
  spatial), on the relative angle since the initial configuration;
* :class:`Bushing`: stiffness and damping matrices (3 x 3 planar on
  ``(x, y, angle)``, 6 x 6 spatial on ``(displacement, rotation)``) on the
  relative displacement and rotation of port b in port a's body frame,
  unloaded in the initial configuration;
* :class:`PortDamper`: the viscous damper ``F = -c v`` between a port and
  the ground.

A port's point is ``x = r + R (s + T u)`` of its body's frame: rigid
bodies, point masses, ports of flexible bodies fixed in the frame, and the
ports of flexible bodies whose deformation ``u`` is part of the
configuration (the geometrically consistent beams, found from
:meth:`~phmech.bodies.Body.port_position`).  The linear floating-frame
beams keep their deformation in their stresses: their ports at deformable
points are refused.  Torsional springs and bushings need ports that turn
with the frame.
"""
import weakref

import numpy as np

from . import elements_kernels as K
from ..math.rotations import PlanarAngle, UnitQuaternion, quat_multiply

__all__ = ["ForceElement", "PortDamper", "SpringDamper", "TorsionalSpringDamper", "Bushing", "ForceGroup"]

_ROT_KIND = {None: 0, PlanarAngle: 1, UnitQuaternion: 2}


def _finite_number(value, what, problems, positive=False, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)):
        problems.append(f"{what} must be a number, got {value!r} (a bool is not a number)")
        return 0.0
    try:
        x = float(value)
    except (TypeError, ValueError):
        problems.append(f"{what} must be a number, got {value!r}")
        return 0.0
    if not np.isfinite(x) or x < 0 or (positive and x == 0):
        problems.append(f"{what} must be finite and {'positive' if positive else 'non-negative'}, got {value!r}")
        return 0.0
    return x


def _two_arguments(fn, what):
    """The problems of a user law ``fn(length, rate)``: not callable, or not taking two arguments."""
    import inspect
    if not callable(fn):
        return [f"{what} must be a function f(length, rate), got {fn!r}"]
    try:
        inspect.signature(fn).bind(0.0, 0.0)
    except TypeError:
        return [f"{what} must take two arguments (length, rate), got {getattr(fn, '__name__', fn)}"
                f"{inspect.signature(fn)}"]
    except ValueError:                      # no signature to check (a built-in)
        pass
    return []


def _spd_matrix(value, n, what, problems):
    """A symmetric positive semi-definite ``n x n`` matrix (a scalar means ``value * I``)."""
    if value is None:
        return np.zeros((n, n))
    if np.asarray(value).dtype.kind == "b":
        problems.append(f"{what} must be numbers, got {value!r} (a bool is not a number)")
        return np.zeros((n, n))
    a = np.asarray(value, dtype=float) if np.ndim(value) else float(value) * np.eye(n)
    if a.shape != (n, n):
        problems.append(f"{what} must be a {n}x{n} matrix, got shape {a.shape}")
        return np.zeros((n, n))
    if not np.all(np.isfinite(a)):
        problems.append(f"{what} has non-finite entries: {a.tolist()}")
        return np.zeros((n, n))
    scale = max(np.max(np.abs(a)), 1e-300)
    if np.max(np.abs(a - a.T)) > 1e-12 * scale:
        i, j = np.unravel_index(np.argmax(np.abs(a - a.T)), a.shape)
        problems.append(f"{what} is not symmetric: entry [{i}, {j}] = {float(a[i, j])!r}, "
                        f"entry [{j}, {i}] = {float(a[j, i])!r}")
        return np.zeros((n, n))
    lam = np.linalg.eigvalsh(a)
    if lam[0] < -1e-12 * scale:
        problems.append(f"{what} is not positive semi-definite: eigenvalue {lam[0]:.6g}")
        return np.zeros((n, n))
    return a


def element_frame(port):
    """``(position index, rotation kind, rotation index, offset)`` of the frame the elements place
    ``port`` in (:meth:`~phmech.bodies.base.Body.port_frame`): the port point is
    ``q[position:] + R (offset + T u)``; a port whose velocity rows are inertial (the exact beam's
    nodes) is not turned (rotation kind None)."""
    pos, kind, rot, offset = port.body.port_frame(port)
    if port.inertial_rows:
        return pos, None, -1, np.asarray(offset, float)
    return pos, kind, rot, np.asarray(offset, float)


def _frame_rotation(port, q):
    """``R`` of :func:`element_frame` in the body's configuration ``q`` (dim x dim)."""
    _, kind, rot, _ = element_frame(port)
    if kind is None:
        return np.eye(port.dim)
    return kind.matrix(np.asarray(q, float)[rot:rot + kind.n_params])


def _trace(port, problems):
    """``(columns, T)``: the deformation variables ``u`` (columns of the body's ``q``) that move
    the port point in its frame (:func:`element_frame`), ``s(q) = s + T u`` (``T`` 3 x 3,
    zero-padded), found from :meth:`~phmech.bodies.Body.port_position` (affine in ``u``); none for
    ports fixed in the frame."""
    body = port.body
    pos, kind, rot, offset = element_frame(port)
    frame = set(range(pos, pos + body.dim)) if pos >= 0 else set()
    if kind is not None:
        frame |= set(range(rot, rot + kind.n_params))
    q0 = np.asarray(body.q0, float)
    out = np.zeros((3, 3))
    if body.nq == 0:
        return np.zeros(0, np.int64), out

    def origin(q):
        return np.asarray(q[pos:pos + body.dim], float) if pos >= 0 else np.zeros(body.dim)

    def local(q):
        return _frame_rotation(port, q).T @ (body.port_position(q, port) - origin(q))

    base = local(q0)
    cols, T = [], []
    for i in range(body.nq):
        if i in frame:
            continue
        dq = np.zeros(body.nq)
        dq[i] = 1.0
        d = local(q0 + dq) - base
        if np.any(d != 0):
            if np.max(np.abs(local(q0 + 2 * dq) - base - 2 * d)) > 1e-12 * max(1.0, np.max(np.abs(d))):
                problems.append(f"port '{port.label}': its position is not affine in the configuration "
                                f"variable {i} of body '{body.name}'")
            cols.append(i)
            T.append(d)
    if len(cols) > 3:
        problems.append(f"port '{port.label}': its position depends on {len(cols)} deformation variables of "
                        f"body '{body.name}' (at most 3: a port at a node)")
        return np.zeros(0, np.int64), out
    if cols:
        out[:body.dim, :len(cols)] = np.array(T).T
    cols = np.array(cols, np.int64)
    # the elements place the port at x_P + R (s + T u): check it where the body says it is, also
    # when the frame moves (a body without a frame whose port is not its first point is refused)
    q1 = q0 + 0.1 * np.cos(np.arange(body.nq) + 1.0)
    x = origin(q1) + _frame_rotation(port, q1) @ (offset + out[:body.dim, :len(cols)] @ q1[cols])
    if np.max(np.abs(x - body.port_position(q1, port))) > 1e-9 * max(1.0, np.max(np.abs(x))):
        problems.append(f"port '{port.label}': its position is not the frame's point plus an affine "
                        f"displacement of body '{body.name}' (a force element needs one); use the port at "
                        "the body's first point or a joint")
        return np.zeros(0, np.int64), np.zeros((3, 3))
    return cols, out


class ForceElement:
    """Base class of the force elements (the data of :mod:`phmech.forces.elements_kernels`)."""

    #: element type of :mod:`phmech.forces.elements_kernels`
    kind = None
    #: a user law ``f(length, rate)`` (compiled by :meth:`law_handle`), or None: the linear law
    law = None
    law_derivative = None

    def law_handle(self):
        """The handle of the compiled user law for the kernels
        (:func:`~phmech.forces.elements_kernels.compile_law`), compiled once per law; a law that
        numba cannot compile raises :class:`~phmech.forces.elements_kernels.LawError` naming the
        element."""
        key = (self.law, self.law_derivative)
        done = self.__dict__.get("_law_compiled")
        if done is None or done[0] != key:
            handle, keep = K.compile_law(self.law, self.law_derivative, self.name, self.evaluate_law)
            object.__setattr__(self, "_law_compiled", (key, handle, keep))
            done = self._law_compiled
        return done[1]

    def _fail(self, problems):
        if problems:
            raise ValueError(f"force element '{self.name}': " + "; ".join(problems))

    def _watch(self, system):
        """Tell ``system`` when a parameter changes (its assembled model holds the old values)."""
        self.__dict__.setdefault("_systems", []).append(weakref.ref(system))

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if not name.startswith("_"):
            for ref in self.__dict__.get("_systems", ()):
                system = ref()
                if system is not None:
                    system._changed()

    def _ports(self, a, b, problems, rotation=False):
        from ..bodies.base import Port
        self._traces = [(np.zeros(0, np.int64), np.zeros((3, 3))), (np.zeros(0, np.int64), np.zeros((3, 3)))]
        for k, (what, p) in enumerate((("port a", a), ("port b", b))):
            if p is None and what == "port b":
                continue
            if not isinstance(p, Port):
                problems.append(f"{what} must be a port, got {p!r}")
                continue
            body = p.body
            kind = element_frame(p)[1]
            if kind not in _ROT_KIND or (body.nq < body.dim and body.nq != 0):
                problems.append(f"port '{p.label}': body '{body.name}' has no frame of a supported kind")
                continue
            if kind is None and p.inertial_rows and np.any(element_frame(p)[3] != 0.0):
                problems.append(f"port '{p.label}' lies off the point of body '{body.name}' whose inertial "
                                "velocity its efforts carry (its velocity there needs the body's rotation): "
                                "attach the element at that point")
                continue
            frame = np.asarray(body.frame_dofs)
            flexible = np.setdiff1d(np.arange(body.ne), frame)
            self._traces[k] = trace = _trace(p, problems)
            if not set(p.cols.tolist()) <= set(frame.tolist()) and not trace[0].size:
                problems.append(f"port '{p.label}' moves with the deformation of body '{body.name}', which is not "
                                "part of the body's configuration q (a force element needs a port whose point "
                                "follows from q)")
            elif rotation and p.W is None:
                problems.append(f"port '{p.label}' has no rotational degree of freedom")
            elif rotation and kind is None:
                problems.append(f"port '{p.label}' of body '{body.name}' has no frame rotation that the "
                                "elements read (its rotation rows are in its own section's or body's axes): a "
                                "torsional spring or bushing needs a port that turns with its body's frame")
            elif rotation and p.gauge is not None:
                problems.append(f"port '{p.label}' turns at a rate scaled by the frame gauge of body "
                                f"'{body.name}' (the root of a consistent spatial beam); weld a rigid body "
                                "there and attach the element to it")
            elif rotation and np.any(p.W[:, flexible] != 0):
                problems.append(f"port '{p.label}' rotates with the deformation of body '{body.name}' (a "
                                "torsional spring or bushing needs a port that turns with its body's frame)")
        if isinstance(a, Port) and isinstance(b, Port):
            if a is b:
                problems.append(f"both ends are the same port '{a.label}'")
            if a.dim != b.dim:
                problems.append(f"ports '{a.label}' and '{b.label}' are of different dimensions")
        return a.dim if isinstance(a, Port) else 2

    def ports(self):
        return [p for p in (self.a, self.b) if p is not None]

    def check(self):
        return []

    def bind(self, q_of):
        """Fix the data that depends on the initial configuration (``q_of(body) -> q``)."""

    def identity_parameters(self):
        return {}

    def _initial_configuration(self):
        """What :meth:`bind` took from the initial configuration (the unloaded state; the ground
        anchor), for the model identity: a model started elsewhere is another model."""
        if not hasattr(self, "s0"):
            return {}
        out = {"unloaded strain from the initial configuration": self.s0}
        if self.dim == 3:
            out["initial relative rotation (quaternion)"] = self._p0
        if self.b is None and self.kind == K.BUSHING:
            out["ground anchor from the initial configuration"] = self.at
        return out

    def linear_law(self):
        """``(s0, K, D)`` of the linear law (6-vector and 6 x 6 matrices)."""
        raise NotImplementedError

    def kernel_entry(self, layout):
        """``(ints, QI row, F row, port rows, global e columns)`` for the kernels (the group sets
        the offsets)."""
        ints = np.zeros(K.N_INT, np.int64)
        qi = np.full(K.NQE, -1, np.int64)
        f = np.zeros(K.N_FLOAT)
        ints[K.TYPE], ints[K.NS] = self.kind, self.ns
        ints[K.HAS_B] = int(self.b is not None)
        ints[K.LAW] = int(self.law is not None)
        ints[K.PLANAR] = int(self.dim == 2)
        pool, cols = [], []
        for k, port in enumerate(self.ports()):
            body = port.body
            q0 = layout.q_slices[body.name].start
            o = K.NQP * k
            pos, frame_kind, rot, offset = element_frame(port)
            if pos >= 0:
                qi[o:o + body.dim] = q0 + pos + np.arange(body.dim)
            kind = _ROT_KIND[frame_kind]
            ints[(K.KA, K.KB)[k]] = kind
            if kind:
                n = frame_kind.n_params
                qi[o + 3:o + 3 + n] = q0 + rot + np.arange(n)
            cols_u, T = self._traces[k]
            qi[o + 7:o + 7 + len(cols_u)] = q0 + cols_u
            f[(K.F_TA, K.F_TB)[k] + np.arange(9)] = T.ravel()
            nc = len(port.cols)
            ints[(K.NCA, K.NCB)[k]] = nc
            f[(K.F_SA, K.F_SB)[k] + np.arange(port.dim)] = offset
            Y, W = np.zeros((3, nc)), np.zeros((3, nc))
            Y[:port.dim] = port.Yc
            if port.Wc is not None:
                W[3 - port.Wc.shape[0]:] = port.Wc
            pool += [Y.ravel(), W.ravel()]
            cols.append(layout.e_slices[body.name].start + port.cols)
        f[K.F_AT:K.F_AT + self.dim] = self.at if self.b is None else 0.0
        s0, Km, Dm = self.linear_law()
        f[K.F_S0:K.F_S0 + 6] = s0
        f[K.F_K:K.F_K + 36] = Km.ravel()
        f[K.F_D:K.F_D + 36] = Dm.ravel()
        f[K.F_D1:K.F_D1 + 3], f[K.F_D2:K.F_D2 + 3] = self._d1, self._d2
        f[K.F_Q0:K.F_Q0 + 4] = self._p0
        return ints, qi, f, np.concatenate(pool), np.concatenate(cols).astype(np.int64)

    _d1 = _d2 = np.zeros(3)
    _p0 = np.array([1.0, 0.0, 0.0, 0.0])
    at = None

    @staticmethod
    def _block(values, ns):
        out = np.zeros((6, 6))
        out[:ns, :ns] = values
        return out

    def _frames(self, q_of):
        """Rotations (3 x 3) and port points (3) of both ends in the configuration ``q_of``."""
        out = []
        for p in (self.a, self.b):
            if p is None:
                R, x = np.eye(3), np.zeros(3)
                x[:self.dim] = self.at
            else:
                qb = q_of(p.body)
                R = np.eye(3)
                R[:self.dim, :self.dim] = _frame_rotation(p, qb)
                x = np.zeros(3)
                x[:self.dim] = p.body.port_position(qb, p)
            out.append((R, x))
        return out


class PortDamper(ForceElement):
    """A linear viscous damper between a port and the ground: ``F = -c v`` (inertial).

    Since ``v = R Y e``, the generalized force ``-c Y^T Y e`` does not depend on
    the rotation; its power ``-c |v|^2`` is dissipated.
    """

    kind = K.DAMPER
    ns = 3

    def __init__(self, port, c, name=None):
        self.name = name or f"damper({getattr(port, 'label', port)})"
        self._default_name = not name          # numbered by System.add_force if taken
        problems = []
        self.c = _finite_number(c, "damping coefficient", problems)
        self.a, self.b = port, None
        self.dim = self._ports(port, None, problems)
        self._fail(problems)
        self.at = np.zeros(self.dim)

    def identity_parameters(self):
        return {"c": self.c}

    def linear_law(self):
        return np.zeros(6), np.zeros((6, 6)), self._block(self.c * np.eye(3), 3)


class SpringDamper(ForceElement):
    """A point-to-point spring-damper between ports ``a`` and ``b`` (``b=None``: the ground
    point ``at``).

    The tension ``F = stiffness (l - rest_length) + damping l'`` (or ``law(l, l')``) acts
    along the line between the points, pulling them together when positive.

    Parameters
    ----------
    a, b : Port
        The ends (``b=None``: the ground point ``at``, inertial coordinates).
    stiffness, damping : float
        Non-negative.
    rest_length : float, optional
        Positive; default: the distance in the initial configuration.
    law : callable, optional
        ``law(length, rate) -> tension`` instead of the linear law: a plain Python
        function of two floats, compiled by ``numba.njit`` when the system is
        assembled (a law numba cannot compile is an error naming the element), so
        the model keeps the compiled path; its work counts as supplied power, not
        as a potential.
    law_derivative : callable, optional
        ``(dF/dlength, dF/drate)`` of the law, compiled as well; default: the complex
        step of ``law`` (which must then accept complex arguments, as arithmetic and
        numpy expressions do).
    """

    kind = K.SPRING
    ns = 1

    def __init__(self, a, b=None, stiffness=0.0, damping=0.0, rest_length=None, law=None,
                 law_derivative=None, at=None, name=None):
        self.name = name or (f"spring({getattr(a, 'label', a)}, "
                             f"{getattr(b, 'label', b) if b is not None else 'ground'})")
        self._default_name = not name          # numbered by System.add_force if taken
        problems = []
        self.k = _finite_number(stiffness, "stiffness", problems)
        self.c = _finite_number(damping, "damping", problems)
        self.rest_length = _finite_number(rest_length, "rest length", problems, positive=True, allow_none=True)
        for what, fn in (("law", law), ("law_derivative", law_derivative)):
            if fn is not None:
                problems += _two_arguments(fn, what)
        if law is not None and (self.k or self.c or rest_length is not None):
            problems.append("give either a law or stiffness, damping and rest length, not both")
        self.law, self.law_derivative = law, law_derivative
        self.a, self.b = a, b
        self.dim = self._ports(a, b, problems)
        if b is None:
            at_ = np.asarray(at if at is not None else np.nan, float)
            if at is None:
                problems.append("a spring to the ground needs its ground point 'at'")
            elif at_.shape != (self.dim,) or not np.all(np.isfinite(at_)):
                problems.append(f"ground point 'at' must be {self.dim} finite numbers, got {at!r}")
            self.at = at_
        self._fail(problems)

    def bind(self, q_of):
        (_, xa), (_, xb) = self._frames(q_of)
        length = float(np.linalg.norm(xb - xa))
        if length == 0.0:
            raise ValueError(f"force element '{self.name}': the ends coincide in the initial configuration "
                             "(the direction of the force is undefined)")
        self.s0 = length if self.rest_length is None else self.rest_length
        if self.law is not None:
            self._check_law(length)
            if self.law_derivative is None:
                self._check_complex_step(length)

    def _check_law(self, length):
        """The law (and its derivative) called once at the initial length and rest, as in a run:
        one number (a pair of numbers), or an error naming the element and what it returned."""
        args = np.array([length, 0.0])
        for what, fn, n in (("law", self.law, 0), ("law_derivative", self.law_derivative, 2)):
            if fn is None:
                continue
            call = f"{what}({length!r}, 0.0)"
            try:
                out = fn(args[0], args[1])
            except Exception as err:
                raise ValueError(f"force element '{self.name}': {call} raised {type(err).__name__}: {err}") from err
            try:
                values = np.asarray(out, dtype=complex)
            except (TypeError, ValueError):
                values = None
            if values is None or values.shape != ((n,) if n else ()):
                wanted = "the pair (dF/dlength, dF/drate)" if n else "the tension, one number"
                raise ValueError(f"force element '{self.name}': {call} returned {out!r:.80}; it must return "
                                 f"{wanted}")

    def _check_complex_step(self, length):
        """Refuse a law whose complex-step derivative is zero where its finite difference is not
        (the law drops the imaginary part of numpy's complex arguments: ``math.sinh``,
        ``float(x)`` ...), at the initial length and rest, with the arguments' types of a run."""
        import warnings
        x = np.array([length, 0.0])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", getattr(np, "exceptions", np).ComplexWarning)
                derivatives = self.evaluate_law(x[0], x[1])[1:]
        except (TypeError, ValueError):
            return                                  # refused with its own message when evaluated
        for k, what in enumerate(("length", "rate")):
            h = 1e-6 * max(abs(x[k]), 1.0)
            F = [float(np.real(self.law(*(x + step * np.eye(2)[k])))) for step in (h, -h)]
            if derivatives[k] == 0.0 and abs(F[0] - F[1]) > 1e-9 * max(abs(F[0]), abs(F[1])):
                raise ValueError(f"force element '{self.name}': the complex step gives dF/d{what} = 0 at length "
                                 f"{length!r}, rate 0, but the finite difference gives {(F[0] - F[1]) / (2 * h):.6g}: "
                                 "the law drops the imaginary part of its arguments (math.sinh, float(x), ...); "
                                 "write it with numpy functions (np.sinh) or give law_derivative=f(length, rate) "
                                 "-> (dF/dlength, dF/drate)")

    def identity_parameters(self):
        if self.law is not None:
            return {"law": self.law}
        out = {"stiffness": self.k, "damping": self.c, "rest_length": self.rest_length}
        if self.rest_length is None and hasattr(self, "s0"):     # taken from the initial configuration
            out["rest length from the initial configuration"] = self.s0
        return out

    def linear_law(self):
        s0 = np.zeros(6)
        s0[0] = getattr(self, "s0", 0.0)
        return s0, self._block([[self.k]], 1), self._block([[self.c]], 1)

    def evaluate_law(self, length, rate):
        """``(F, dF/dlength, dF/drate)`` of the user law as Python, checked finite (the kernels'
        law where they run as Python: numba missing or ``NUMBA_DISABLE_JIT=1``)."""
        F = self.law(length, rate)
        if self.law_derivative is not None:
            dl, dr = self.law_derivative(length, rate)
        else:
            h = 1e-30
            try:
                dl = np.imag(self.law(length + 1j * h, rate)) / h
                dr = np.imag(self.law(length, rate + 1j * h)) / h
            except TypeError as err:
                raise TypeError(f"force element '{self.name}': the law does not accept complex "
                                f"arguments ({err}); give law_derivative") from None
        out = (float(np.real(F)), float(np.real(dl)), float(np.real(dr)))
        if not np.all(np.isfinite(out)):
            raise ValueError(f"force element '{self.name}': law({length!r}, {rate!r}) gave non-finite "
                             f"values (force, derivatives) {out}")
        return out


def _angles(el, q_of):
    """The frame angles of a planar element's ends (0 for the ground)."""
    return [float(q_of(p.body)[p.body.rotation_index]) if p is not None else 0.0 for p in (el.a, el.b)]


def _relative_quaternion(el, q_of):
    """``conj(p_a) (x) p_b`` (unit) of the frames' quaternions of a spatial element's ends in the
    configuration ``q_of`` (the identity for the ground): the kernels' ``p_0``, taken from the
    quaternions themselves so that the relative quaternion starts at ``+1``."""
    out = []
    for p in (el.a, el.b):
        body = getattr(p, "body", None)
        if body is None or body.rotation_kind is not UnitQuaternion:
            out.append(np.array([1.0, 0.0, 0.0, 0.0]))
        else:
            k = body.rotation_index
            out.append(np.asarray(q_of(body)[k:k + 4], float))
    pa, pb = out
    p0 = quat_multiply(pa * np.array([1.0, -1.0, -1.0, -1.0]), pb)
    return p0 / np.linalg.norm(p0)


def _revolute_ports(joint, problems):
    """Ports, dimension and the spatial axis basis of a revolute joint."""
    from ..joints.base import Joint
    if isinstance(joint, Joint) and getattr(joint, "kind", None) == "revolute":
        return joint.a, joint.b
    problems.append(f"joint must be a planar or spatial revolute joint, got {joint!r}")
    return None, None


class TorsionalSpringDamper(ForceElement):
    """A torsional spring-damper on a revolute joint (planar or spatial).

    The moment ``stiffness (phi - rest_angle) + damping phi'`` acts on the
    relative angle ``phi`` of the joint's ports since the initial
    configuration, with the potential ``1/2 stiffness (phi - rest_angle)^2``.

    Planar: ``phi`` is the difference of the frame angles, which wind
    without bound.  Spatial: ``phi = 2 atan2(n . p_v, p_0)`` about the joint
    axis ``n`` from the relative quaternion ``p`` of the ports' frames
    (:mod:`phmech.forces.elements_kernels`), which follows the frames' quaternions
    and so is continuous along the motion for ``|phi| < 2 pi`` (a full turn
    either way).  On the joint's manifold it equals the joint's
    :meth:`~phmech.joints.spatial.SpatialJoint.relative_angle`, taken the
    same way.  Past a full turn it jumps to the other end of
    ``(-2 pi, 2 pi]``.
    """

    kind = K.TORSION
    ns = 1

    def __init__(self, joint, stiffness, damping=0.0, rest_angle=0.0, name=None):
        self.name = name or f"torsion({getattr(joint, 'name', joint)})"
        self._default_name = not name          # numbered by System.add_force if taken
        problems = []
        self.k = _finite_number(stiffness, "stiffness", problems)
        self.c = _finite_number(damping, "damping", problems)
        try:
            self.rest_angle = float(rest_angle)
            if not np.isfinite(self.rest_angle):
                raise ValueError
        except (TypeError, ValueError):
            problems.append(f"rest angle must be a finite number, got {rest_angle!r}")
        self.joint = joint
        self.a, self.b = _revolute_ports(joint, problems)
        if self.a is not None:
            self.dim = self._ports(self.a, self.b, problems, rotation=True)
        self._fail(problems)
        self.at = np.zeros(self.dim)

    def bind(self, q_of):
        if self.dim == 3:
            j = self.joint
            self._d1, self._d2 = j.D[:, 0].copy(), j.D[:, 1].copy()
            self._p0 = _relative_quaternion(self, q_of)
            self.s0 = self.rest_angle
        else:
            th = _angles(self, q_of)
            self.s0 = th[1] - th[0] + self.rest_angle

    def identity_parameters(self):
        return {"stiffness": self.k, "damping": self.c, "rest_angle": self.rest_angle,
                **self._initial_configuration()}

    def linear_law(self):
        s0 = np.zeros(6)
        s0[0] = getattr(self, "s0", 0.0)
        return s0, self._block([[self.k]], 1), self._block([[self.c]], 1)


class Bushing(ForceElement):
    """A bushing: stiffness and damping matrices on the relative displacement and rotation of
    port b's frame in port a's frame (``b=None``: the ground), unloaded in the initial configuration.

    Planar: 3 x 3 on ``(dx, dy, angle)`` (the angle difference of the frames,
    unbounded); spatial: 6 x 6 on ``(dx, dy, dz, theta)`` with ``theta`` the
    rotation vector of the relative rotation ``E = R_a^T R_b P0^T`` (axis times
    angle, ``E = exp([theta]x)``, in port a's frame).  A scalar means that value
    times the identity.  Both matrices must be symmetric positive semi-definite.

    The potential is ``V = 1/2 s^T K s`` with ``s = (rho - rho0, theta)``, a
    quadratic function of the rotation vector; the stress on ``theta`` is
    ``K_rt rho + K_rr theta`` and the moment on the bodies ``J^-T`` of it (the
    inverse transposed of the log map's Jacobian).  For small rotations
    ``theta = vee(E - E^T) / 2`` to third order: the linear bushing.  For large
    ones: with an isotropic ``K_rr = k I`` and no coupling a rotation by
    ``phi`` about any fixed axis is resisted by the moment ``k phi`` about that
    axis (``J^-T theta = theta``), the potential ``1/2 k phi^2``, as a torsional
    spring about that axis (not ``k sin(phi)``).  ``theta`` follows the frames'
    quaternions, so it is continuous along the motion while ``|theta| < 2 pi``
    (up to a full turn from the initial configuration); past that it jumps
    (the log map's branch).
    """

    kind = K.BUSHING

    def __init__(self, a, b=None, stiffness=None, damping=None, name=None):
        self.name = name or (f"bushing({getattr(a, 'label', a)}, "
                             f"{getattr(b, 'label', b) if b is not None else 'ground'})")
        self._default_name = not name          # numbered by System.add_force if taken
        problems = []
        self.a, self.b = a, b
        self.dim = self._ports(a, b, problems, rotation=True)
        self.ns = 3 if self.dim == 2 else 6
        self.K = _spd_matrix(stiffness, self.ns, "stiffness matrix", problems)
        self.D = _spd_matrix(damping, self.ns, "damping matrix", problems)
        self._fail(problems)

    def bind(self, q_of):
        (Ra, xa), (_, xb) = self._frames(q_of)
        if self.b is None:
            self.at = xa[:self.dim].copy()
            xb = xa
        if self.dim == 3:
            self._p0 = _relative_quaternion(self, q_of)
        rho = Ra.T @ (xb - xa)
        s0 = np.zeros(6)
        if self.dim == 2:
            th = _angles(self, q_of)
            s0[:3] = rho[0], rho[1], th[1] - th[0]
        else:
            s0[:3] = rho
        self.s0 = s0

    def identity_parameters(self):
        return {"stiffness": self.K, "damping": self.D, **self._initial_configuration()}

    def linear_law(self):
        return getattr(self, "s0", np.zeros(6)), self._block(self.K, self.ns), self._block(self.D, self.ns)


# the group of a system's elements (made by the assembly), in its own module
from .group import ForceGroup  # noqa: E402
