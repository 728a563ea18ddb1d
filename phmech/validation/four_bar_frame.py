"""An independent classical model of the flexible four-bar (numpy only).

Displacement-based Euler-Bernoulli frame elements (axial + bending, nodal
displacements and rotation) with consistent mass matrices, assembled
directly in the global frame; revolute joints share the translational
degrees of freedom of the two link ends and keep separate rotations; the
crank end at the ground is clamped, the follower end pinned; the lumped
joint masses act on the translational degrees of freedom of the joint
nodes.  The natural frequencies solve ``K phi = omega^2 M phi``.  Used to
cross-check :mod:`phmech.validation.four_bar`; nothing is shared with the
pH model except the data and the loop closure.
"""
import numpy as np
import scipy.linalg as sla

from ..mechanisms.four_bar import E_MOD, LINKS, M_JOINT, RHO, configuration


def _element(L, rhoA, EA, EI, c, s):
    m_ax = rhoA * L / 6 * np.array([[2, 1], [1, 2]])
    k_ax = EA / L * np.array([[1, -1], [-1, 1]])
    m_b = rhoA * L / 420 * np.array([[156, 22 * L, 54, -13 * L], [22 * L, 4 * L**2, 13 * L, -3 * L**2],
                                     [54, 13 * L, 156, -22 * L], [-13 * L, -3 * L**2, -22 * L, 4 * L**2]])
    k_b = EI / L**3 * np.array([[12, 6 * L, -12, 6 * L], [6 * L, 4 * L**2, -6 * L, 2 * L**2],
                                [-12, -6 * L, 12, -6 * L], [6 * L, 2 * L**2, -6 * L, 4 * L**2]])
    # local dofs (u1, v1, t1, u2, v2, t2)
    Ml, Kl = np.zeros((6, 6)), np.zeros((6, 6))
    ia, ib = [0, 3], [1, 2, 4, 5]
    Ml[np.ix_(ia, ia)], Kl[np.ix_(ia, ia)] = m_ax, k_ax
    Ml[np.ix_(ib, ib)], Kl[np.ix_(ib, ib)] = m_b, k_b
    R = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]])
    T = sla.block_diag(R, R)
    return T.T @ Ml @ T, T.T @ Kl @ T


def frequencies(theta1, n_elem=32, k=3, links=LINKS):
    """Lowest ``k`` angular frequencies [rad/s] at crank angle ``theta1``."""
    _, _, phi = configuration(theta1, links)
    # node numbering: each link has its own nodes; joint nodes share translations
    dof = 0

    def new_trans():
        nonlocal dof
        dof += 2
        return [dof - 2, dof - 1]

    def new_rot():
        nonlocal dof
        dof += 1
        return dof - 1

    ground_A, joint_P, joint_Q, ground_B = new_trans(), new_trans(), new_trans(), new_trans()
    maps = []
    for name, ang in zip(("crank", "coupler", "follower"), phi):
        ends = {"crank": (ground_A, joint_P), "coupler": (joint_P, joint_Q), "follower": (joint_Q, ground_B)}[name]
        nodes = [ends[0]] + [new_trans() for _ in range(n_elem - 1)] + [ends[1]]
        rots = [new_rot() for _ in range(n_elem + 1)]
        maps.append((name, ang, nodes, rots))
    M = np.zeros((dof, dof))
    K = np.zeros((dof, dof))
    crank_root_rot = None
    for name, ang, nodes, rots in maps:
        L, A, EI = links[name]
        le = L / n_elem
        c, s = np.cos(ang), np.sin(ang)
        Me, Ke = _element(le, RHO * A, E_MOD * A, EI, c, s)
        for e in range(n_elem):
            idx = nodes[e] + [rots[e]] + nodes[e + 1] + [rots[e + 1]]
            M[np.ix_(idx, idx)] += Me
            K[np.ix_(idx, idx)] += Ke
        if name == "crank":
            crank_root_rot = rots[0]
    for node in (joint_P, joint_Q):
        M[node, node] += M_JOINT
    fixed = set(ground_A) | {crank_root_rot} | set(ground_B)
    free = np.array([i for i in range(dof) if i not in fixed])
    w2 = sla.eigh(K[np.ix_(free, free)], M[np.ix_(free, free)], eigvals_only=True, subset_by_index=[0, k - 1])
    return np.sqrt(w2)
