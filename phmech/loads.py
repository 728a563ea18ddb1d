"""Applied loads: forces and moments at ports, and gravity.

A load acts on one body and provides, on a few columns of the body's
efforts, the generalized force ``f(t, q)`` (the input ``B(q) u(t)`` of the
pH system) and its exact derivative with respect to ``q``.  The power it
supplies is ``e . f``.  Potential forces also give their potential
``V(q)``, so that ``H + V`` can be checked for conservation.
"""
import numpy as np

from ._checks import time_function


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

    def force(self, t, q, e=None):
        """Generalized force on the columns ``cols``."""
        u = self.fun(t)
        if self.inertial:
            u = self.body.rotation(q).T @ u
        return self.A.T @ u

    def force_q(self, t, q, e=None):
        """Exact ``d force / d q`` (None: independent of ``q``)."""
        if not self.inertial:
            return None
        out = np.zeros((len(self.cols), self.body.nq))
        u = self.fun(t)
        idx, dR = self.body.rotation_derivatives(q)
        for k, i in enumerate(idx):
            out[:, i] = self.A.T @ (dR[k].T @ u)
        return out

    def force_e(self, t, q, e=None):
        """Exact ``d force / d e`` (None: independent of ``e``)."""
        return None

    def potential(self, q):
        """Potential ``V(q)`` of a conservative load, or None."""
        return None

    def check(self):
        return []

    def identity_parameters(self):
        """The load's values, ``{name: value}`` (constants or functions of time) and its frame;
        part of a checkpoint's model identity (:func:`phmech.checkpoint.model_identity`)."""
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


class Gravity(Load):
    """Gravity ``g`` on a whole body: ``f = M[translation, :]^T R^T g``.

    The body-frame velocity field of a unit frame translation is the unit
    vector, so the gravity power ``int rho g . v`` is ``e^T M[:, translation] R^T g``
    for any body, rigid or flexible.  The potential ``V = -g . (m x_P + R s)``
    (``s`` the first moment about the frame origin) is given for bodies
    without flexible variables; for flexible bodies the work of gravity on
    the deformation is part of the supplied work instead.
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
        Mt = body.M.tocsr()[body.translation_dofs, :].toarray()
        self.cols = np.flatnonzero(np.any(Mt != 0, axis=0))
        self.A = Mt[:, self.cols]
        self.mass = float(Mt[0, body.translation_dofs[0]])
        self._rigid = len(body.frame_dofs) == body.ne
        self._first_moment = self.mass * np.asarray(getattr(body, "center", np.zeros(body.dim)), float)

    def identity_parameters(self):
        return {"g": self.g}

    def potential(self, q):
        if not self._rigid:
            return None
        return -float(self.g @ (self.mass * self.body.position(q)
                                + self.body.rotation(q) @ self._first_moment))
