"""Compiled contact kinematics: gaps, force directions and friction velocities of all contacts.

One kernel, :func:`contact_kinematics`, evaluates for the configuration
``q`` (and, for gaps that depend on the stresses, the efforts ``u``) the
gaps ``g_N`` of all contacts and the matrix ``W = [W_N | W_F]`` of their
force directions in the layout of
:class:`~phmech.solvers.prox.ContactSet` (normal columns first, then the
friction columns contact by contact), so that ``gamma_N = W_N^T u`` and
the friction velocities are ``gamma_F = W_F^T u``.  The Moreau schemes and
the nonsmooth generalized-alpha method take them from here (through
:meth:`~phmech.contact.NonsmoothProblem.contact_arrays`); there is no
other copy of these formulas.

The data are packed by the contacts and their ports (:func:`pack`):

* a port of a body gives its inertial position ``x = x_P(q) + R(q) (r +
  T q_b)`` (``T``: body-frame displacement rows of the port linear in the
  body's configuration, zero for rigid bodies; found from
  :meth:`~phmech.bodies.Body.port_position`, which the packing checks), its
  angular-velocity rows ``A_w = R W`` (planar: ``W``) and velocity rows
  ``A_v = R Y`` (body-frame rows) or ``Y + omega x R r`` (bodies whose
  ``port_velocity`` is ``"inertial"``, :mod:`phmech.bodies.inertial`);
* a contact gives its kind, ports, normal, point, radii, friction rows
  and Contensou radius, and for a plane contact on a beam the rows ``D``
  of the port displacement recovered from the stresses
  (``g_N += n . R(q) D e``, see :mod:`phmech.contact.contacts`).
"""
import numpy as np

from ..kernels.jit import jit as _jit
from ..math.rotations import PlanarAngle, UnitQuaternion, quat_rotation

#: the codes of the orientations of the ports
_KINDS = {None: 0, PlanarAngle: 1, UnitQuaternion: 2}

# columns of the integer port table
P_DIM, P_OQ, P_ROT, P_RI, P_OE, P_NE, P_INERTIAL, P_F, P_NQ, P_TR = range(10)
# columns of the integer contact table and the float contact table
C_KIND, C_P1, C_P2, C_NF, C_FCOL, C_D = range(6)
F_N, F_P0, F_A, F_B, F_RC = 0, 3, 6, 7, 8


@_jit
def tangents_into(n, dim, T):
    """Unit tangents of the unit normal ``n`` into the rows of ``T``: one (planar, ``n`` turned by
    +90 deg) or two (spatial: ``n x a`` with ``a`` the axis of the smallest component of ``n``,
    and ``n x t_1``)."""
    if dim == 2:
        T[0, 0], T[0, 1] = -n[1], n[0]
        return
    k = 0
    for i in range(1, 3):
        if abs(n[i]) < abs(n[k]):
            k = i
    a = np.zeros(3)
    a[k] = 1.0
    t0, t1, t2 = n[1] * a[2] - n[2] * a[1], n[2] * a[0] - n[0] * a[2], n[0] * a[1] - n[1] * a[0]
    s = np.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    T[0, 0], T[0, 1], T[0, 2] = t0 / s, t1 / s, t2 / s
    T[1, 0] = n[1] * T[0, 2] - n[2] * T[0, 1]
    T[1, 1] = n[2] * T[0, 0] - n[0] * T[0, 2]
    T[1, 2] = n[0] * T[0, 1] - n[1] * T[0, 0]


@_jit
def _point_rows(Av, Aw, d, dim, V):
    """``V = `` velocity rows of the material point at inertial offset ``d`` from the point of
    ``Av``: ``v + omega x d``."""
    ne = Av.shape[1]
    for j in range(ne):
        if dim == 2:
            V[0, j] = Av[0, j] - d[1] * Aw[0, j]
            V[1, j] = Av[1, j] + d[0] * Aw[0, j]
        else:
            V[0, j] = Av[0, j] + d[2] * Aw[1, j] - d[1] * Aw[2, j]
            V[1, j] = Av[1, j] + d[0] * Aw[2, j] - d[2] * Aw[0, j]
            V[2, j] = Av[2, j] + d[1] * Aw[0, j] - d[0] * Aw[1, j]


@_jit
def _rotation(q, kind, i, dim, R):
    """``R`` of a port's body: identity (kind 0), planar angle ``q[i]`` (1), quaternion at ``i`` (2)."""
    R[:, :] = 0.0
    if kind == 0:
        for a in range(dim):
            R[a, a] = 1.0
    elif kind == 1:
        c, s = np.cos(q[i]), np.sin(q[i])
        R[0, 0], R[0, 1], R[1, 0], R[1, 1] = c, -s, s, c
    else:
        dR = np.empty((4, 3, 3))
        quat_rotation(q, i, R, dR, False)


@_jit
def port_kinematics(q, ip, fp, x, R, Av, Aw):
    """Inertial position ``x``, rotation ``R``, velocity rows ``Av`` and angular rows ``Aw`` (over
    the body's efforts) of the port with the table rows ``ip`` (integers) and data ``fp``."""
    dim, ne = ip[P_DIM], ip[P_NE]
    nw = 1 if dim == 2 else 3
    _rotation(q, ip[P_ROT], ip[P_RI], dim, R)
    f = ip[P_F]
    rb = np.zeros(3)
    for a in range(dim):
        rb[a] = fp[f + a]
    if ip[P_TR] >= 0:                       # body-frame displacement linear in the body's q
        o, nq = ip[P_TR], ip[P_NQ]
        for a in range(dim):
            for j in range(nq):
                rb[a] += fp[o + a * nq + j] * q[ip[P_OQ] + j]
    Y = fp[f + dim:f + dim + dim * ne].reshape((dim, ne))
    W = fp[f + dim + dim * ne:f + dim + (dim + nw) * ne].reshape((nw, ne))
    d = np.zeros(3)
    for a in range(dim):
        s = 0.0
        for b in range(dim):
            s += R[a, b] * rb[b]
        d[a] = s
        x[a] = d[a] + (q[ip[P_OQ] + a] if ip[P_OQ] >= 0 else 0.0)
    for j in range(ne):
        for a in range(nw):
            if dim == 2:
                Aw[a, j] = W[a, j]
            else:
                Aw[a, j] = R[a, 0] * W[0, j] + R[a, 1] * W[1, j] + R[a, 2] * W[2, j]
    if ip[P_INERTIAL]:
        _point_rows(Y, Aw, d, dim, Av)
    else:
        for a in range(dim):
            for j in range(ne):
                s = 0.0
                for b in range(dim):
                    s += R[a, b] * Y[b, j]
                Av[a, j] = s


@_jit
def contact_kinematics(q, u, dt, ports, fports, contacts, fcontacts, g, W):
    """Gaps ``g`` (nc) and force directions ``W`` (ne x columns, zeroed here) of all contacts.

    ``u``, ``dt``: the efforts and the advance ``dt W_N^T u`` of the gaps that depend on the
    stresses.  Returns -1, or the index of a sphere pair whose centres coincide (no normal)."""
    nc = contacts.shape[0]
    W[:, :] = 0.0
    x1, x2 = np.zeros(3), np.zeros(3)
    R1, R2 = np.zeros((3, 3)), np.zeros((3, 3))
    n, dd = np.zeros(3), np.zeros(3)
    T = np.zeros((2, 3))
    for c in range(nc):
        ci, cf = contacts[c], fcontacts[c]
        i1 = ports[ci[C_P1]]
        dim, ne1, o1 = i1[P_DIM], i1[P_NE], i1[P_OE]
        nw = 1 if dim == 2 else 3
        Av1, Aw1 = np.zeros((dim, ne1)), np.zeros((nw, ne1))
        port_kinematics(q, i1, fports, x1, R1, Av1, Aw1)
        nF = ci[C_NF]
        fc = ci[C_FCOL]
        if ci[C_KIND] == 0:                 # sphere at a port against a plane
            gap = -cf[F_A]
            for a in range(dim):
                n[a] = cf[F_N + a]
                gap += n[a] * (x1[a] - cf[F_P0 + a])
            for j in range(ne1):
                s = 0.0
                for a in range(dim):
                    s += n[a] * Av1[a, j]
                W[o1 + j, c] += s
            if ci[C_D] >= 0:                # displacement of a beam recovered from its stresses
                Dm = fports[ci[C_D]:ci[C_D] + dim * ne1].reshape((dim, ne1))
                for j in range(ne1):
                    s = 0.0
                    for a in range(dim):
                        nr = 0.0
                        for b in range(dim):
                            nr += n[b] * R1[b, a]
                        s += nr * Dm[a, j]
                    gap += (s + dt * W[o1 + j, c]) * u[o1 + j]
            g[c] = gap
            if nF:
                for a in range(dim):
                    dd[a] = -cf[F_A] * n[a]
                V = np.zeros((dim, ne1))
                _point_rows(Av1, Aw1, dd, dim, V)
                tangents_into(n, dim, T)
                for k in range(dim - 1):
                    for j in range(ne1):
                        s = 0.0
                        for a in range(dim):
                            s += T[k, a] * V[a, j]
                        W[o1 + j, fc + k] += s
                if nF == 3:
                    for j in range(ne1):
                        W[o1 + j, fc + 2] += cf[F_RC] * (n[0] * Aw1[0, j] + n[1] * Aw1[1, j] + n[2] * Aw1[2, j])
            continue
        # two spheres at two ports
        i2 = ports[ci[C_P2]]
        ne2, o2 = i2[P_NE], i2[P_OE]
        Av2, Aw2 = np.zeros((dim, ne2)), np.zeros((nw, ne2))
        port_kinematics(q, i2, fports, x2, R2, Av2, Aw2)
        dist = 0.0
        for a in range(dim):
            dd[a] = x2[a] - x1[a]
            dist += dd[a] * dd[a]
        dist = np.sqrt(dist)
        if dist == 0.0:
            return c
        for a in range(dim):
            n[a] = dd[a] / dist
        g[c] = dist - cf[F_A] - cf[F_B]
        for j in range(ne2):
            for a in range(dim):
                W[o2 + j, c] += n[a] * Av2[a, j]
        for j in range(ne1):
            for a in range(dim):
                W[o1 + j, c] -= n[a] * Av1[a, j]
        if nF:
            tangents_into(n, dim, T)
            V1, V2 = np.zeros((dim, ne1)), np.zeros((dim, ne2))
            for a in range(dim):
                dd[a] = -cf[F_B] * n[a]
            _point_rows(Av2, Aw2, dd, dim, V2)
            for a in range(dim):
                dd[a] = cf[F_A] * n[a]
            _point_rows(Av1, Aw1, dd, dim, V1)
            for k in range(dim - 1):
                for j in range(ne2):
                    for a in range(dim):
                        W[o2 + j, fc + k] += T[k, a] * V2[a, j]
                for j in range(ne1):
                    for a in range(dim):
                        W[o1 + j, fc + k] -= T[k, a] * V1[a, j]
            if nF == 3:
                for j in range(ne2):
                    W[o2 + j, fc + 2] += cf[F_RC] * (n[0] * Aw2[0, j] + n[1] * Aw2[1, j] + n[2] * Aw2[2, j])
                for j in range(ne1):
                    W[o1 + j, fc + 2] -= cf[F_RC] * (n[0] * Aw1[0, j] + n[1] * Aw1[1, j] + n[2] * Aw1[2, j])
    return -1


class PortTable:
    """The packed ports of the contacts of a problem (:func:`port_kinematics`' data).

    A port's data: position ``r``, rows ``Y`` and ``W`` (zero rows without ``W``) over the body's
    efforts, and the displacement rows ``T`` on the body's configuration where the body's
    :meth:`~phmech.bodies.Body.port_position` has them."""

    def __init__(self, layout):
        self.layout = layout
        self.rows, self.data, self.index = [], [], {}
        self.size = 0

    def append(self, block):
        """Append ``block`` (flattened) to the float data; its offset."""
        o = self.size
        self.data.append(np.asarray(block, float).ravel())
        self.size += self.data[-1].size
        return o

    def add(self, port, owner):
        """Row of ``port`` in the table (packed once); ``owner`` names the contact in errors."""
        if id(port) in self.index:
            return self.index[id(port)]
        body, L = port.body, self.layout
        dim, ne = port.dim, body.ne
        kind, ri = getattr(body, "port_orientation", (body.rotation_kind, body.rotation_index))
        oq = L.q_slices[body.name].start
        ip = np.full(10, -1, np.int64)
        ip[P_DIM], ip[P_OQ], ip[P_ROT] = dim, oq if body.nq else -1, _KINDS[kind]
        ip[P_RI] = oq + ri if kind is not None else 0
        ip[P_OE], ip[P_NE], ip[P_NQ] = L.e_slices[body.name].start, ne, body.nq
        ip[P_INERTIAL] = int(port.inertial_rows)
        W = np.zeros((1 if dim == 2 else 3, ne)) if port.W is None else port.W
        ip[P_F] = self.append(np.r_[port.position, np.ravel(port.Y), np.ravel(W)])
        Tr = self._displacement_rows(port, owner) if body.nq else None
        if Tr is not None:
            ip[P_TR] = self.append(Tr)
        self.rows.append(ip)
        self.index[id(port)] = len(self.rows) - 1
        return self.index[id(port)]

    @staticmethod
    def _displacement_rows(port, owner):
        """Rows ``T`` with ``port_position(q) = x_P(q) + R(q) (r + T q)``, found from the body's
        methods and checked at a moved configuration; None where ``T`` vanishes."""
        body = port.body
        q0 = np.array(body.q0, float)

        def local(q):
            return body.rotation(q).T @ (body.port_position(q, port) - body.position(q)) - port.position
        base = local(q0)
        T = np.column_stack([local(q0 + e) - base for e in np.eye(body.nq)])
        scale = max(1.0, np.abs(q0).max(), np.abs(port.position).max())
        if np.abs(base - T @ q0).max() > 1e-9 * scale:
            T = None
        else:
            q1 = q0 + 0.1 * np.sin(np.arange(1, body.nq + 1))
            if np.abs(local(q1) - T @ q1).max() <= 1e-9 * scale:
                return T if np.abs(T).max() > 1e-14 * scale else None
        raise ValueError(f"contact '{owner}': the position of port '{port.label}' is not of the form "
                         f"x(q) + R(q) (r + T q) that the contact kernels evaluate")

    def arrays(self):
        ip = np.array(self.rows, np.int64).reshape(-1, 10)
        return ip, (np.concatenate(self.data) if self.data else np.zeros(0))


def pack(contacts, layout):
    """``(ports, fports, contacts, fcontacts, columns)``: the data of :func:`contact_kinematics`
    for ``contacts`` (each packs its own row with ``kernel_row``) and the number of columns of
    ``W``."""
    table = PortTable(layout)
    nc = len(contacts)
    ci = np.full((nc, 6), -1, np.int64)
    cf = np.zeros((nc, 9))
    col = nc
    for k, c in enumerate(contacts):
        c.kernel_row(table, ci[k], cf[k])
        ci[k, C_NF], ci[k, C_FCOL] = c.nF, col
        col += c.nF
    ports, fports = table.arrays()
    return ports, fports, ci, cf, col
