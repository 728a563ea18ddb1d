"""Redundant joint rows found by leaf elimination and per-loop sweeps, against the definition.

A row is redundant when its distance to the span of the rows kept before it
is at most ``REDUNDANCY_TOL`` of its norm.  The reference below evaluates
that definition directly (least squares against the kept rows of the whole
matrix), independently of :mod:`phmech.assembly.redundancy`.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from phmech import ConsistencyError, SpatialRigidBody, System
from phmech.assembly.redundancy import REDUNDANCY_TOL, independent_rows
from phmech.joints import Revolute3


def reference_active(G, tol=REDUNDANCY_TOL):
    """Kept rows by the definition: distance to the span of the rows kept before."""
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    keep = []
    for i, r in enumerate(G):
        if keep:
            K = G[keep].T
            x = np.linalg.lstsq(K, r, rcond=None)[0]
            dist = np.linalg.norm(r - K @ x)
        else:
            dist = np.linalg.norm(r)
        if dist > tol * np.linalg.norm(r):
            keep.append(i)
    out = np.zeros(len(G), bool)
    out[keep] = True
    return out


def groups(dae):
    L = dae.layout
    return (np.repeat(np.arange(len(L.joints)), [j.n_rows for j in L.joints]),
            np.repeat(np.arange(len(L.bodies)), [b.ne for b in L.bodies]))


def check_against_reference(system):
    dae = system.assemble()
    G = dae.G(dae.q0)
    expected = reference_active(G)
    assert np.array_equal(dae.active, expected), (np.flatnonzero(dae.active != expected), dae.redundant_rows)
    return dae


# -- mechanisms ----------------------------------------------------------------
def chain(n, closed=False, section=(0.05, 0.05), bend=0.0):
    """``n`` bars end to end along x (each turned by ``bend`` about z), spherical joints, the
    first at the ground; ``closed``: the last bar's end on a spherical joint to the ground too."""
    pts = [np.zeros(3)]
    for i in range(n):
        a = bend * i
        pts.append(pts[-1] + (np.cos(a), np.sin(a), 0.0))
    bars = [SpatialRigidBody.bar(f"bar{i}", 1.0, pts[i], pts[i + 1], section=section) for i in range(n)]
    s = System(bars)
    s.sphere(bars[0].port("A"), name="J0")
    for i in range(1, n):
        s.sphere(bars[i - 1].port("B"), bars[i].port("A"), name=f"J{i}")
    if closed:
        s.sphere(bars[-1].port("B"), name=f"J{n}")
    s.add_gravity((0.0, 0.0, -9.81))
    return s


def test_open_chain_is_eliminated_without_a_sweep():
    """An open chain is a tree: every joint is removed at a leaf, no dense sweep is left,
    and the rows are independent (rank = number of rows)."""
    s = chain(40)
    dae = s.assemble()
    G = dae.G(dae.q0)
    found = independent_rows(G, *groups(dae))
    assert found.loops == [] and found.active.all() and not dae.redundant_rows
    assert np.linalg.matrix_rank(sp.csr_matrix(G).toarray()) == dae.nl


@pytest.mark.parametrize("n, bend", [(1, 0.0), (6, 0.0), (6, 0.4)], ids=["one bar", "straight", "bent"])
def test_chain_pinned_at_both_ends(n, bend):
    """Pinned at both ends: a straight chain between its end points can only spin about its
    line (the distance along it is fixed twice: one redundant row); a bent one is a regular
    loop through the ground (no redundant row)."""
    s = chain(n, closed=True, bend=bend)
    dae = check_against_reference(s)
    G = sp.csr_matrix(dae.G(dae.q0)).toarray()
    assert len(dae.redundant_rows) == dae.nl - np.linalg.matrix_rank(G)
    assert len(dae.redundant_rows) == (1 if bend == 0.0 else 0)


def test_bricard_and_four_bar_in_space_as_the_definition():
    from tests.assembly.test_assembly import bricard
    from tests.cases.test_spatial_mechanisms import spatial_four_bar
    dae = check_against_reference(bricard()[0])
    assert [n for n, _ in dae.redundant_rows] == ["J6"]
    for driven in (False, True):
        dae = check_against_reference(spatial_four_bar(driven)[0])
        assert len(dae.redundant_rows) == 3


def test_duplicated_joints_in_a_chain():
    """A joint given twice in the middle of a chain and at its free end: the copy's rows are
    redundant, every other row is kept, and the motion has zero multipliers in the copies."""
    bars = [SpatialRigidBody.bar(f"bar{i}", 1.0, (i, 0.0, 0.0), (i + 1.0, 0.0, 0.0), section=(0.05, 0.05))
            for i in range(5)]
    s = System(bars)
    s.sphere(bars[0].port("A"), name="J0")
    for i in range(1, 5):
        s.sphere(bars[i - 1].port("B"), bars[i].port("A"), name=f"J{i}")
    s.sphere(bars[1].port("B"), bars[2].port("A"), name="J2 again")
    s.add_joint(Revolute3(bars[3].port("B"), bars[4].port("A"), axis=(0.0, 0.0, 1.0), name="hinge"))
    s.add_gravity((0.0, 0.0, -9.81))
    dae = check_against_reference(s)
    assert dae.redundant_rows[:3] == [("J2 again", 0), ("J2 again", 1), ("J2 again", 2)]
    # the hinge repeats J4's three translation rows; its two rotation rows are new
    assert dae.redundant_rows[3:] == [("hinge", 0), ("hinge", 1), ("hinge", 2)]
    r = s.simulate(0.05, dt=1e-3)
    assert np.max(np.abs(r.lam("J2 again"))) == 0.0


def test_contradictory_velocity_on_a_redundant_row_still_refused():
    """A redundant row of a loop prescribing a velocity the kept rows contradict."""
    links = [SpatialRigidBody.bar(f"bar{i}", 1.0, (i, 0.0, 0.0), (i + 1.0, 0.0, 0.0), section=(0.05, 0.05))
             for i in range(3)]
    s = System(links)
    z = (0.0, 0.0, 1.0)
    s.add_joint(Revolute3(links[0].port("A"), None, axis=z, name="A", rate=1.0))
    s.add_joint(Revolute3(links[0].port("A"), None, axis=z, name="A twin", rate=2.0))
    for i in range(1, 3):
        s.add_joint(Revolute3(links[i - 1].port("B"), links[i].port("A"), axis=z, name=f"J{i}"))
    with pytest.raises(ConsistencyError, match="joint 'A twin': row 5 is redundant but prescribes a velocity "
                                               "that contradicts the other joints"):
        s.assemble()


# -- random matrices -----------------------------------------------------------
def random_mechanism(rng, n_bodies, n_joints, n_dependent, tree=False):
    """A random constraint matrix with the block pattern of bodies (3 or 6 columns) and
    joints (1 to 5 rows on one or two bodies, random pairs; with ``tree`` the first
    ``n_bodies`` joints join body ``k`` to an earlier body or the ground, in random order,
    and the others close loops); then ``n_dependent`` joints whose rows are random
    combinations of two earlier joints' rows, placed at random positions after them."""
    widths = rng.choice([3, 6], n_bodies)
    starts = np.r_[0, np.cumsum(widths)]
    blocks = []
    for k in range(n_joints):
        if tree and k < n_bodies:
            b1, b2 = k, (int(rng.integers(0, k)) if k and rng.random() < 0.9 else None)
        else:
            b1 = int(rng.integers(0, n_bodies))
            b2 = int(rng.integers(0, n_bodies)) if rng.random() < 0.8 else None
        m = int(rng.integers(1, 6 if not (tree and k < n_bodies) else widths[b1] + 1))
        R = np.zeros((m, starts[-1]))
        for b in {b1, b2} - {None}:
            R[:, starts[b]:starts[b + 1]] = rng.standard_normal((m, widths[b]))
            if rng.random() < 0.1:                 # a rank-deficient block
                R[-1, starts[b]:starts[b + 1]] = R[0, starts[b]:starts[b + 1]]
        blocks.append(R)
    if tree:
        rng.shuffle(blocks)
    for _ in range(n_dependent):
        picks = rng.choice(len(blocks), size=min(2, len(blocks)), replace=False)
        rows = np.vstack([blocks[p] for p in picks])
        m = int(rng.integers(1, 4))
        dep = rng.standard_normal((m, rows.shape[0])) @ rows
        if rng.random() < 0.3:
            dep[-1] += 1e-3 * rng.standard_normal(dep.shape[1])  # nearly, not exactly, dependent
        blocks.insert(int(rng.integers(max(picks) + 1, len(blocks) + 1)), dep)
    row_groups = np.repeat(np.arange(len(blocks)), [len(B) for B in blocks])
    col_groups = np.repeat(np.arange(n_bodies), widths)
    return sp.csr_matrix(np.vstack(blocks)), row_groups, col_groups


@pytest.mark.parametrize("tree", [False, True], ids=["random pairs", "trees with loops"])
@pytest.mark.parametrize("seed", range(12))
def test_random_sparse_matrices_as_the_definition(seed, tree):
    rng = np.random.default_rng(seed)
    nb = int(rng.integers(2, 15))
    G, rg, cg = random_mechanism(rng, n_bodies=nb, n_joints=nb + int(rng.integers(0, 3)) if tree else
                                 int(rng.integers(1, 12)), n_dependent=int(rng.integers(0, 4)), tree=tree)
    found = independent_rows(G, rg, cg)
    nonzero = np.asarray(abs(G).sum(axis=1)).ravel() > 0
    expected = reference_active(G[nonzero])
    assert np.array_equal(found.active[nonzero], expected)
    assert not found.active[~nonzero].any() and np.array_equal(found.zero_rows, np.flatnonzero(~nonzero))
    assert found.active.sum() == np.linalg.matrix_rank(G.toarray())


# -- the times in Result.stats -----------------------------------------------------
def test_stats_keep_kernel_compilation_out_of_the_stepping_time():
    """A kernel compiled during the run (here by a callback after the first step) is counted
    in ``kernel_time``, not in ``wall_time``; set-up (with the assembly made before the call),
    kernels and steps add up to at most the whole time."""
    import time

    numba = pytest.importorskip("numba")
    from tests.mechanisms import rigid_crank_slider
    tic = time.perf_counter()
    s = rigid_crank_slider()[0]
    s.assemble()
    spent = []

    def compile_once(solver):
        if not spent:
            kernel = numba.njit(lambda x: 2.0 * x + 1.0)       # a new function: compiled here
            tic = time.perf_counter()
            assert kernel(1.0) == 3.0
            spent.append(time.perf_counter() - tic)
    r = s.simulate(0.002, dt=1e-4, callbacks=[compile_once])
    total = time.perf_counter() - tic
    st = r.stats
    assert min(st["wall_time"], st["setup_time"], st["kernel_time"]) >= 0.0
    assert st["kernel_time"] >= 0.5 * spent[0] > 0.0
    assert st["wall_time"] <= total - 0.5 * spent[0]
    assert st["wall_time"] + st["setup_time"] + st["kernel_time"] <= total


def test_stats_report_the_model_set_up_made_before_the_run_once():
    """The assembly and initial state a script makes before ``simulate`` (as the validation cases
    do) are counted in the first result's ``setup_time``/``kernel_time`` and in no later one;
    a solver's own set-up does not count them twice."""
    import time

    from tests.mechanisms import rigid_crank_slider
    s = rigid_crank_slider()[0]
    tic = time.perf_counter()
    dae = s.assemble()
    y0 = dae.initial_state()
    before = time.perf_counter() - tic
    pending = dae.setup_clock.setup + dae.setup_clock.kernel
    assert 0.0 < pending <= before
    tic = time.perf_counter()
    first = s.simulate(0.002, dt=1e-4, y0=y0).stats
    during = time.perf_counter() - tic
    assert dae.setup_clock.take() == (0.0, 0.0)               # reported, not kept for the next run
    assert first["setup_time"] + first["kernel_time"] >= pending
    assert first["setup_time"] + first["kernel_time"] + first["wall_time"] <= during + pending
    s.simulate(0.002, dt=1e-4)                                # its initial state: reported by it
    assert dae.setup_clock.take() == (0.0, 0.0)
