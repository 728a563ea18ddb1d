"""One tiny model per family of contributions, in one place.

The kernel warm-up (:mod:`phmech.warm`) steps each of them with the time-step kernels, and
the tests of the kernel families check that together they have members of every registered
family (:func:`phmech.kernels.families.families`), so a new family is covered by adding its
model here, not by editing lists elsewhere.

Each entry of :data:`TINY` is a :class:`Tiny`: a builder returning an unassembled
:class:`~phmech.System`, the span and step of a short run, optional initial efforts, and
whether it needs Firedrake.  The flexible ones take their matrices from the FE cache when
present.
"""
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np


@dataclass(frozen=True)
class Tiny:
    """A tiny model: ``build() -> System``, a run of ``t_end`` with step ``dt``."""
    build: Callable
    t_end: float
    dt: float
    e0: Optional[tuple] = None
    firedrake: bool = False


def loaded_rigid_crank_slider():
    """Planar rigid bodies, a point mass, a drive, a slide and a time-dependent force (packed load)."""
    from .crank_slider import rigid_crank_slider

    s, _, _, slider = rigid_crank_slider()
    s.apply_force(slider.port("P"), lambda t: (np.sin(t), -0.7))
    return s


def spinning_box():
    """A free spatial rigid body (quaternion kinematics, gyroscopic terms)."""
    from .. import SpatialRigidBody, System

    return System([SpatialRigidBody("box", 2.0, np.diag([0.1, 0.2, 0.3]), center=(0.1, 0.0, 0.05))])


def sprung_bodies():
    """Force elements between planar and spatial rigid bodies: springs, a torsional spring on a
    revolute joint, bushings and a damper."""
    from .. import PlanarRigidBody, SpatialRigidBody, System
    from ..joints import Revolute

    a = PlanarRigidBody("a", 1.0, 0.05, ports={"p": (0.3, 0.1)})
    b = PlanarRigidBody("b", 0.6, 0.02, position=(0.7, 0.2))
    c = SpatialRigidBody("c", 1.0, np.diag([0.02, 0.03, 0.04]), ports={"p": (0.2, 0.0, 0.1)})
    s = System([a, b, c])
    s.add_torsional_spring(s.add_joint(Revolute(a.port("P"), None)), 2.0, damping=0.1)
    s.add_spring(a.port("p"), b.port("P"), stiffness=20.0, damping=0.1, rest_length=0.4)
    s.add_bushing(b.port("P"), None, stiffness=30.0, damping=0.1)
    s.add_spring(c.port("p"), None, stiffness=10.0, at=(0.0, 0.0, 1.0))
    s.add_bushing(c.port("P"), None, stiffness=np.eye(6), damping=0.1)
    s.add_damper(c.port("p"), 0.2)
    return s


def disc_on_a_spring():
    """A disc with inertial velocities (the contact models' bodies) held by a spring."""
    from .. import System
    from ..contact.bodies import Disc

    disc = Disc("disc", 1.0, 0.005, position=(0.1, 0.3))
    s = System([disc])
    s.add_spring(disc.port("C"), None, stiffness=50.0, damping=0.3, at=(0.0, 0.0))
    return s


def spatial_double_pendulum():
    """Two bars on a spherical joint to the ground and a revolute joint between them, under
    gravity (the spatial joints' family)."""
    from .. import SpatialRigidBody, System
    from ..joints import SpatialJoint

    a = SpatialRigidBody.bar("upper", 1.0, (0.0, 0.0, 0.0), (0.4, 0.1, -0.2), section=(0.02, 0.03))
    b = SpatialRigidBody.bar("lower", 0.7, (0.4, 0.1, -0.2), (0.7, -0.1, -0.3), section=(0.02, 0.02))
    s = System([a, b])
    s.add_joint(SpatialJoint("spherical", a.port("A"), None, name="shoulder"))
    s.add_joint(SpatialJoint("revolute", a.port("B"), b.port("A"), axis=(0.0, 0.0, 1.0), name="elbow"))
    s.add_gravity((0.0, 0.0, -9.81))
    return s


def spinning_blades():
    """Two planar consistent beams (Green and linear strain) on a driven hub."""
    from .. import PlanarRigidBody, System
    from ..fem.beam_nonlinear import NonlinearFloatingBeam

    hub = PlanarRigidBody.rod("hub", 1.0, 0.2)
    a = NonlinearFloatingBeam("a", 1.0, 3, 2700.0, 1e-4, 7e10, 1e-9, frame="cantilever", position=(0.2, 0.0))
    b = NonlinearFloatingBeam("b", 0.8, 2, 2700.0, 1e-4, 7e10, 1e-9, strain="linear", position=(0.2, 0.0))
    s = System([hub, a, b])
    s.pin(hub.port("A"))
    s.drive(hub, 3.0)
    s.connect(hub.port("B"), a.port("A"))
    s.connect(hub.port("B"), b.port("A"))
    return s


def blade_on_its_frame_rate(mu=1.0, n=2):
    """A spatial consistent beam whose frame turns at the rate ``mu`` about e3 (frame-rate joint)."""
    from .. import System
    from ..fem.beam3d_nonlinear import NonlinearSpatialBeam
    from ..fem.frame_rate import FrameRate3
    from ..joints.spatial import Revolute3

    b = NonlinearSpatialBeam("blade", 1.0, n, 1.0, 1.0, 100.0, 0.01, 0.01)
    s = System([b])
    s.add_joint(Revolute3(b.port("A"), None, axis=(0, 0, 1), name="bearing"))
    s.add_joint(FrameRate3(b, 2, rate=mu, name="hub"))
    return s


def exact_beam_pendulum():
    """A geometrically exact beam welded to a pinned rigid hub, a point mass pinned at its tip,
    under gravity (the exact beams' family)."""
    from .. import PlanarRigidBody, PointMass, System
    from ..fem.beam_exact import GeometricallyExactBeam

    hub = PlanarRigidBody.rod("hub", 1.0, 0.2)
    beam = GeometricallyExactBeam("beam", 1.0, 2, 1.0, 1e-2, 1e4, 1e-6, position=(0.2, 0.0))
    tip = PointMass("tip", 0.1, (1.2, 0.0))
    s = System([hub, beam, tip])
    s.pin(hub.port("A"))
    s.connect(hub.port("B"), beam.port("A"), joint="weld")
    s.connect(beam.port("B"), tip.port("P"))
    s.add_gravity((0.0, -9.81))
    return s


def exact_spatial_pendulum():
    """A spatial geometrically exact beam on a spherical joint to the ground under gravity (the
    spatial exact beams' family)."""
    from .. import System
    from ..fem.beam_exact3d import GeometricallyExactBeam3D

    beam = GeometricallyExactBeam3D("beam", 1.0, 2, 1.0, 1e-2, 1e4, 1e-6, Iz=2e-6)
    s = System([beam])
    s.sphere(beam.port("A"), name="pivot")
    s.add_gravity((0.0, 0.0, -9.81))
    return s


def small_network():
    """Masses on springs and a dashpot under gravity, as a body of a System (network family)."""
    from .. import System
    from .. import massspring as ms

    mss = ms.MassSpringSystem2d()
    mss.gravity = [0.0, -9.81]
    a = mss.add(ms.Mass(1.0, [1.0, 0.0]))
    b = mss.add(ms.Mass(0.5, [1.5, -0.3]))
    mss.add(ms.Spring(1.0, 100.0, (mss.add(ms.Fix([0.0, 0.0])), a)))
    mss.add(ms.Spring(0.5, 60.0, (a, b)))
    mss.add(ms.Dashpot(0.1, (a, mss.add(ms.Fix([2.0, 0.0])))))
    body, loads = ms.network_body(mss)
    s = System([body])
    for ld in loads:
        s.add_load(ld)
    return s


def _crank_slider(geometric_stiffness):
    from .crank_slider import flexible_crank_slider

    return lambda: flexible_crank_slider(2, geometric_stiffness)[0]


def _hinged_beam():
    from .hinged_beam import hinged_spatial_beam

    return hinged_spatial_beam(2, geometric_stiffness=True)[0]


#: the tiny models by name
TINY = {
    "rigid crank-slider": Tiny(loaded_rigid_crank_slider, 2e-3, 1e-4),
    "spinning box": Tiny(spinning_box, 2e-2, 1e-2, e0=(0.1, 0.0, 0.2, 0.05, 5.0, 0.1)),
    "sprung bodies": Tiny(sprung_bodies, 2e-3, 1e-3),
    "disc on a spring": Tiny(disc_on_a_spring, 2e-3, 1e-3),
    "spatial double pendulum": Tiny(spatial_double_pendulum, 2e-3, 1e-3),
    "network": Tiny(small_network, 2e-2, 1e-2),
    "floating-frame crank-slider": Tiny(_crank_slider(False), 1e-3, 1e-4, firedrake=True),
    "consistent-beam crank-slider": Tiny(_crank_slider(True), 1e-3, 1e-4, firedrake=True),
    "two consistent blades": Tiny(spinning_blades, 1e-3, 1e-4, firedrake=True),
    "hinged spatial beam": Tiny(_hinged_beam, 4e-3, 1e-3, firedrake=True),
    "blade on its frame rate": Tiny(blade_on_its_frame_rate, 1e-3, 1e-4, firedrake=True),
    "exact beam pendulum": Tiny(exact_beam_pendulum, 2e-3, 1e-4, firedrake=True),
    "exact spatial pendulum": Tiny(exact_spatial_pendulum, 2e-3, 1e-4, firedrake=True),
}


def tiny_models(firedrake=True):
    """``{name: Tiny}``; without the models that need Firedrake if ``firedrake`` is False."""
    return {k: m for k, m in TINY.items() if firedrake or not m.firedrake}
