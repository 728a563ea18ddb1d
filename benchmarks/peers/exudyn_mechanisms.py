"""Bricard's mechanism and the planar chain of bars in Exudyn, for the per-step comparisons.

Both models are the ones phmech runs in ``benchmarks/spatial_chain.py``:

* **Bricard** (IFToMM A04) with box links 1 x 0.1 x 0.1 m of 1 kg (the slender
  links of the benchmark have no axial inertia, which Exudyn's rigid body with
  Euler parameters cannot take), six revolute joints, gravity along -y.  The
  closure is redundant by one row, which Exudyn's Newton iteration does not
  survive (it stops in the first step, also with ``ignoreSingularJacobian``):
  the last joint is given as a generic joint without the rotation row about
  the global y axis, the row that the other five joints already hold.
* **Planar chain**: N uniform bars of 1 m and 1 kg (``I = m L^2 / 12``) end to
  end along x, the first pinned to the ground at the origin, neighbours
  pinned at their common ends; gravity 9.81 m/s^2 along -y, released at
  rest in the horizontal.  Exudyn's planar rigid body (``NodeRigidBody2D``,
  three coordinates) and its planar revolute joint.

Every function returns ``(set-up [s], time per step [s], checked value)`` for
a run with Exudyn's trapezoidal index-2 rule (the implicit midpoint rule's
counterpart), fixed step, one thread, no output files, or None when Exudyn is
not importable.
"""
import time

import numpy as np

from .exudyn_crank_slider import settings

G = 9.81
BRICARD_JOINTS = [(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)]
BRICARD_AXES = [(0, 1, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0)]


def _new_system():
    """``(exudyn, main system, start time)``, or None without Exudyn."""
    try:
        import exudyn as exu
    except ImportError:
        return None
    tic = time.perf_counter()
    return exu, exu.SystemContainer().AddSystem(), tic


def _solve(exu, mbs, dt, t_end, n_coordinates):
    sim, solver_type = settings(dt, t_end, solver="trapezoidal",
                                linear_solver="dense" if n_coordinates <= 120 else "sparse")
    tic = time.perf_counter()
    exu.SolveDynamic(mbs, sim, solverType=solver_type)
    return (time.perf_counter() - tic) / int(round(t_end / dt))


def _frame(a, b):
    """Rotation whose first column points from ``a`` to ``b`` (a bar's axis)."""
    x = np.subtract(b, a, dtype=float)
    x /= np.linalg.norm(x)
    helper = np.array([0.0, 0.0, 1.0]) if abs(x[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    y = np.cross(helper, x)
    y /= np.linalg.norm(y)
    return np.column_stack([x, y, np.cross(x, y)])


def bricard(t_end, dt):
    """Bricard's mechanism; the checked value is P3 (the point J3) at ``t_end``."""
    new = _new_system()
    if new is None:
        return None
    exu, mbs, tic = new
    from exudyn.utilities import InertiaCuboid
    ground = mbs.CreateGround(referencePosition=[0.0, 0.0, 0.0])
    inertia = InertiaCuboid(density=1.0 / 0.01, sideLengths=[1.0, 0.1, 0.1])
    links = []
    for i in range(5):
        a, b = np.array(BRICARD_JOINTS[i], float), np.array(BRICARD_JOINTS[i + 1], float)
        links.append(mbs.CreateRigidBody(inertia=inertia, referencePosition=list(0.5 * (a + b)),
                                         referenceRotationMatrix=_frame(a, b), gravity=[0.0, -G, 0.0]))
    items = [ground] + links + [ground]
    for i in range(5):
        mbs.CreateRevoluteJoint(itemNumbers=[items[i], items[i + 1]], position=list(BRICARD_JOINTS[i]),
                                axis=list(BRICARD_AXES[i]), useGlobalFrame=True)
    # J6, axis x: translations and the rotation about z held, rotations about x (the joint's) and y free
    mbs.CreateGenericJoint(itemNumbers=[links[4], ground], position=list(BRICARD_JOINTS[5]),
                           constrainedAxes=[1, 1, 1, 0, 0, 1], useGlobalFrame=True)
    mbs.Assemble()
    setup = time.perf_counter() - tic
    per_step = _solve(exu, mbs, dt, t_end, 7 * 5)
    node = mbs.GetObject(links[1])["nodeNumber"]           # link 2 ends at J3
    r = np.asarray(mbs.GetNodeOutput(node, exu.OutputVariableType.Position))
    R = np.asarray(mbs.GetNodeOutput(node, exu.OutputVariableType.RotationMatrix)).reshape(3, 3)
    return setup, per_step, r + R @ np.array([0.5, 0.0, 0.0])


def planar_chain(n, t_end, dt):
    """The planar chain of ``n`` bars; the checked value is the height of the last bar's end."""
    new = _new_system()
    if new is None:
        return None
    exu, mbs, tic = new
    import exudyn.itemInterface as ii
    ground = mbs.AddObject(ii.ObjectGround())
    m, L = 1.0, 1.0
    bodies, nodes = [], []
    for i in range(n):
        node = mbs.AddNode(ii.NodeRigidBody2D(referenceCoordinates=[i + 0.5, 0.0, 0.0]))
        body = mbs.AddObject(ii.ObjectRigidBody2D(physicsMass=m, physicsInertia=m * L ** 2 / 12, nodeNumber=node))
        mbody = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=body, localPosition=[0.0, 0.0, 0.0]))
        mbs.AddLoad(ii.Force(markerNumber=mbody, loadVector=[0.0, -m * G, 0.0]))
        nodes.append(node)
        bodies.append(body)
    left = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    for i in range(n):
        right = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=bodies[i], localPosition=[-0.5, 0.0, 0.0]))
        mbs.AddObject(ii.RevoluteJoint2D(markerNumbers=[left, right]))
        left = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=bodies[i], localPosition=[0.5, 0.0, 0.0]))
    mbs.Assemble()
    setup = time.perf_counter() - tic
    per_step = _solve(exu, mbs, dt, t_end, 3 * n)
    x, y, phi = (mbs.GetNodeOutput(nodes[-1], exu.OutputVariableType.Coordinates)
                 + np.array([n - 0.5, 0.0, 0.0]))
    return setup, per_step, float(y + 0.5 * np.sin(phi))
