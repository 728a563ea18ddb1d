"""The floating frame of reference of a linear finite-element body, written once.

A body-fixed frame with origin ``P`` moves rigidly; the body-frame velocity of the
material point at the undeformed body-frame position ``X`` is

.. math::  v(X) = v_P + \\omega \\times X + v_f(X),

``v_f`` the elastic velocity field (its rigid motions removed by the reference
condition, e.g. ``v_f = 0`` on a clamped face).  The efforts of the body are
``e = (v_P, omega, e_f)``: the frame velocity and angular velocity in body-frame
components, then the flexible efforts ``e_f`` (elastic velocities and stresses).
Write the rigid velocity fields of the frame's efforts as ``N_a`` (the unit
translations ``e_k`` and the rotations ``e_k x X``; in the plane ``e_z x X``) and
the velocity basis functions of the flexible part as ``phi_j``.  The kinetic energy
``1/2 int rho |v|^2`` tested with the full virtual velocity gives the constant mass
matrix

.. math::

    M = \\begin{pmatrix} M_{rr} & M_{fr}^T \\\\ M_{fr} & M_{ff} \\end{pmatrix}, \\quad
    (M_{rr})_{ab} = \\int \\rho\\, N_a \\cdot N_b, \\quad
    (M_{fr})_{ja} = \\int \\rho\\, \\phi_j \\cdot N_a,

with ``M_ff`` the flexible body's own energy metric.  ``M_rr`` holds the inertia shape
integrals of the undeformed body (Shabana, *Dynamics of Multibody Systems*): the mass
``m``, the first moment ``int rho X`` and the inertia tensor ``int rho (|X|^2 I - X X^T)``;
``M_fr`` the couplings ``int rho phi`` and ``int rho X x phi``.  The rotating-frame
Newton law ``rho (v' + omega x v)`` tested with the same virtual velocity gives the
gyroscopic part of the structure

.. math::

    J(e) = J_0 - \\sum_i \\omega_i K_i, \\qquad
    K_i = \\begin{pmatrix} K^{rr}_i & -(K^{fr}_i)^T \\\\ K^{fr}_i & K^{ff}_i \\end{pmatrix}, \\quad
    (K_i)_{AB} = \\int \\rho\\, \\psi_A \\cdot (e_i \\times \\psi_B),

``psi`` running over the ``N_a`` and the ``phi_j``: every ``K_i`` is skew, so
``e^T J(e) e = 0`` and the implicit midpoint rule keeps ``H = 1/2 e^T M e`` exactly
(Brugnoli et al., Multibody Syst. Dyn. 51 (2021) 343-375).  ``J_0`` is the flexible
structure (the rigid fields carry no strain).  This is the linear floating frame: the
rotational terms use the undeformed geometry (no geometric stiffening).

The planar and spatial beams (:mod:`phmech.fem.beam`, :mod:`phmech.fem.beam3d`) and the
form-defined bodies (:class:`phmech.fem.FormBody` with ``floating=True``) all build
their blocks with the functions here.
"""
import numpy as np
import scipy.sparse as sp

from ._petsc import to_numpy

#: number of frame efforts (v_P, omega) of a planar and a spatial frame
N_FRAME = {2: 3, 3: 6}


def axes(dim):
    """The rotation axes of a frame: ``(0, 1, 2)`` in space, ``(2,)`` (the normal) in the plane."""
    return (0, 1, 2) if dim == 3 else (2,)


def cross_axis(i, a, dim, zero=0.0):
    """``e_i x a`` for a vector ``a`` given as a sequence of ``dim`` components (UFL or numbers);
    in the plane only ``i = 2`` (``e_z x a = (-a_y, a_x)``).  ``zero`` is the zero component
    (a Firedrake ``Constant`` in forms: a symbolic zero would empty an integral)."""
    if dim == 2:
        if i != 2:
            raise ValueError(f"a planar frame turns about e_z only (axis 2), got axis {i}")
        return (-a[1], a[0])
    return ((zero, -a[2], a[1]), (a[2], zero, -a[0]), (-a[1], a[0], zero))[i]


def rigid_fields(X, dim, one=1.0, zero=0.0):
    """The velocity fields of the frame's efforts at the body-frame position ``X`` (``dim``
    components): the unit translations, then the rotations ``e_i x X`` (one in the plane)."""
    trans = [tuple(one if k == l else zero for k in range(dim)) for l in range(dim)]
    return trans + [cross_axis(i, X, dim, zero) for i in axes(dim)]


def _dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def kinetic_form(rho, v, dv, dx):
    """``int rho v·dv``: the kinetic part of the energy metric."""
    return rho * _dot(v, dv) * dx


def gyroscopic_forms(rho, v, dv, dx, dim, zero=0.0):
    """The forms ``int rho dv·(e_i x v)`` of every rotation axis ``i`` (``K^ff_i``)."""
    return [rho * _dot(dv, cross_axis(i, v, dim, zero)) * dx for i in axes(dim)]


def rigid_couplings(fd, rho, dv, modes, dx, dim):
    """The inertia shape integrals between the flexible velocity test functions ``dv`` and the
    rigid velocity fields ``modes``.

    Parameters
    ----------
    fd : module
        Firedrake.
    rho : UFL expression or number
        Density of the velocity field (mass per unit of the mesh's measure).
    dv : sequence of UFL
        The ``dim`` components of the test velocity.
    modes : list of sequences of UFL
        Rigid velocity fields (:func:`rigid_fields`), one per frame effort.
    dx : UFL measure
        The measure of the body, with its domain.
    dim : {2, 3}

    Returns
    -------
    Mfr : ndarray (nf, r)
        ``int rho phi_j . N_a``.
    Kfr : list of ndarray (nf, r)
        ``int rho phi_j . (e_i x N_a)`` per rotation axis.
    Mrr : ndarray (r, r)
        ``int rho N_a . N_b``: mass, first moment, inertia tensor.
    Krr : list of ndarray (r, r)
        ``int rho N_a . (e_i x N_b)`` per rotation axis.
    """
    r = len(modes)
    zero = fd.Constant(0.0)
    Mfr = np.column_stack([to_numpy(fd.assemble(rho * _dot(dv, N) * dx)) for N in modes])
    Kfr = [np.column_stack([to_numpy(fd.assemble(rho * _dot(dv, cross_axis(i, N, dim, zero)) * dx)) for N in modes])
           for i in axes(dim)]
    Mrr = np.array([[float(fd.assemble(rho * _dot(Na, Nb) * dx)) for Nb in modes] for Na in modes])
    Krr = [np.array([[float(fd.assemble(rho * _dot(Na, cross_axis(i, Nb, dim, zero)) * dx)) for Nb in modes]
                     for Na in modes]) for i in axes(dim)]
    for k in range(r):                  # exact symmetry and skewness of the rigid blocks
        Mrr[k, k:] = Mrr[k:, k] = 0.5 * (Mrr[k, k:] + Mrr[k:, k])
    Krr = [0.5 * (K - K.T) for K in Krr]
    return Mfr, Kfr, Mrr, Krr


def frame_blocks(Mrr, Mfr, Mff, Jff, Krr, Kfr, Kff):
    """The body's ``M``, ``J0`` and gyroscopic matrices ``K_i`` from the blocks (module docstring).

    Parameters
    ----------
    Mrr, Krr : (r, r) arrays (``Krr`` one per rotation axis)
    Mfr, Kfr : (n, r) arrays over the kept flexible unknowns (``Kfr`` one per axis)
    Mff, Jff : (n, n) sparse: the flexible energy metric and structure
    Kff : list of (n, n) sparse, one per axis

    Returns
    -------
    M, J0 : scipy CSR
    K_list : list of scipy CSR (one per rotation axis, multiplied by ``omega_i``)
    """
    r = Mrr.shape[0]
    M = sp.bmat([[sp.csr_matrix(Mrr), sp.csr_matrix(Mfr).T], [sp.csr_matrix(Mfr), Mff]], format="csr")
    K_list = [sp.bmat([[sp.csr_matrix(Kr), -sp.csr_matrix(Kf).T], [sp.csr_matrix(Kf), Ki]], format="csr")
              for Kr, Kf, Ki in zip(Krr, Kfr, Kff)]
    J0 = sp.bmat([[sp.csr_matrix((r, r)), None], [None, Jff]], format="csr")
    for A in [M, J0] + K_list:
        A.eliminate_zeros()
    return M, J0, K_list


def inertia_summary(Mrr, dim):
    """Mass, centre of mass and inertia tensor about the frame origin (frame components) of the
    rigid block ``M_rr`` of :func:`rigid_couplings` (the undeformed body)."""
    m = float(Mrr[0, 0])
    if dim == 3:
        # M_rr[v, omega] = int rho e_k . (e_i x X) = -[S]x_{ki}, S the first moment
        C = Mrr[:3, 3:]
        S = np.array([C[1, 2], C[2, 0], C[0, 1]])
        return m, S / m, Mrr[3:, 3:].copy()
    S = np.array([Mrr[1, 2], -Mrr[0, 2]])
    return m, S / m, Mrr[2:, 2:].copy()
