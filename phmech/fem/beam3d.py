"""A spatial Euler-Bernoulli beam with torsion in a floating frame (Firedrake).

Fields on ``[0, L]`` (body axis ``e1``): axial velocity ``v_x`` (P1) and
force ``n`` (DG0); bending in the x-y plane, ``v_y`` (Hermite) and moment
``m_z`` (DG1); bending in the x-z plane, ``v_z`` (Hermite) and ``m_y``
(DG1); torsion, spin velocity ``w_x`` (P1) and torque ``t`` (DG0).  Each
pair is the pH velocity-stress form of the planar element
(:mod:`phmech.fem.beam`), with the derivatives on the velocities.  The
body-frame velocity of the axis point ``x`` is
``v = v_P + omega x (x e1) + v_f(x)`` and the spin of its section
``omega_1 + w_x(x)`` (torsional rotary inertia ``rho I_p``, whose spin
angular momentum ``h e1`` enters the frame's rotation equations through the
rotating-frame term ``-omega x h e1``; the rotary inertia of bending is
neglected, as in Euler-Bernoulli theory).

Frame condition: cantilever at x = 0 (``v_f``, both slopes and ``w_x``
vanish there).  Ports ``A`` (x = 0) and ``B`` (x = L) give the body-frame
velocity (3 rows) and angular velocity ``omega + (w_x, -v_z', v_y')``.

The beam is a :class:`~phmech.fem.form_body.FormBody` of the forms of
:func:`phmech.fem.beam_forms.spatial_beam_forms` in a floating frame, the spin
rate ``w_x`` a section-spin field of the frame (its rotary inertia ``rho I_p``
and the rotating-frame term of its momentum, :mod:`phmech.fem.form_frame`); its
matrices and port rows are kept in the FE cache under the beam's parameters.
"""

from ..bodies.base import Body, SpatialFrameBody
from ..bodies.picture import AxisPicture
from .beam import END_MARKERS, AxisBeam
from .beam_common import _check_positive, axis_first_moment, check_n_elem
from .beam_forms import SPATIAL_FIELDS, spatial_beam_forms, spatial_beam_space, spatial_end_traces


class FloatingSpatialBeam(AxisPicture, SpatialFrameBody, AxisBeam):
    """Spatial floating-frame beam (pH subsystem), cantilever deformation field.

    Parameters
    ----------
    name : str
    L, n_elem : length and number of elements.
    rho, A, E : density, section area, Young's modulus (any consistent units).
    Iy, Iz : second moments for bending in the x-z and the x-y plane.
    G, Jt : shear modulus and torsion constant (default: ``G = E / 2.6``,
        ``Jt = Iy + Iz``).
    Ip : polar moment for the torsional rotary inertia (default ``Iy + Iz``).
    position, orientation : frame origin and quaternion of the frame.
    geometric_stiffness : bool
        True builds the geometrically consistent beam instead
        (:class:`~phmech.fem.beam3d_nonlinear.NonlinearSpatialBeam`: exact
        rotating-frame inertia, Green-Lagrange axial strain).
    """

    KIND = "FloatingSpatialBeam"
    FIELDS = SPATIAL_FIELDS
    AXIS_FIELDS = ("vx", "vy", "vz")
    PAIRS = (("vx", "n"), ("vy", "mz"), ("vz", "my"))
    FIREDRAKE_ATTRIBUTES = ("space", "mesh", "_trial", "_test", "forms", "_fixed", "_fixed_forms")
    _frame_base = SpatialFrameBody
    port_position = Body.port_position

    def __new__(cls, *args, geometric_stiffness=False, **kwargs):
        if geometric_stiffness:
            from .beam3d_nonlinear import NonlinearSpatialBeam
            return NonlinearSpatialBeam(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, name, L, n_elem, rho, A, E, Iy, Iz, G=None, Jt=None, Ip=None,
                 position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0), geometric_stiffness=False):
        n_elem = check_n_elem(name, n_elem, fields=8)
        G = E / 2.6 if G is None else G
        Jt = Iy + Iz if Jt is None else Jt
        Ip = Iy + Iz if Ip is None else Ip
        _check_positive(name, L=L, rho=rho, A=A, E=E, Iy=Iy, Iz=Iz, G=G, Jt=Jt, Ip=Ip)
        self.L, self.n_elem = float(L), int(n_elem)
        self.coef = tuple(float(c) for c in (rho * A, E * A, E * Iy, E * Iz, G * Jt, rho * Ip))
        self.rhoA, self.EA, self.EIy, self.EIz, self.GJ, self.rIp = self.coef
        params = {"L": self.L, "n_elem": self.n_elem, "coef": list(self.coef)}
        self._init_defined(name, params, velocity=(0, 1, 2), dim=3, floating=True, density=self.rhoA,
                           spin=((SPATIAL_FIELDS.index("wx"), 0, self.rIp),),
                           position=position, orientation=orientation)
        self._name_fields()

    # -- the form body ---------------------------------------------------------
    def _definition(self):
        import firedrake as fd
        m, j = spatial_beam_forms(*self.coef)
        clamp = spatial_end_traces(END_MARKERS["A"])          # the cantilever frame condition
        return {"space": spatial_beam_space(fd.IntervalMesh(self.n_elem, self.L)), "m": m, "j": j,
                "fixed": [clamp[k] for k in ("vx", "vy", "vz", "wx", "sy", "sz")]}

    def _port_forms(self):
        out = {}
        for end, xe in (("A", 0.0), ("B", self.L)):
            t = spatial_end_traces(END_MARKERS[end])
            rot_y = (lambda f: (lambda de: -f(de)))(t["sz"])         # -v_z' about e_2
            out[end] = ([t["vx"], t["vy"], t["vz"]], [t["wx"], rot_y, t["sy"]], (xe, 0.0, 0.0))
        return out

    def first_moment(self):
        """``(s0, rows, "e")``: first moment of mass about the frame origin ``s0 + rows @ e`` (frame
        components; the displacement recovered from the stresses, :meth:`displacement_rows`)."""
        return (*axis_first_moment(self, self.rhoA), "e")

    @property
    def _mesh(self):
        """The Firedrake mesh (built on first use when the model came from the FE cache)."""
        return self.mesh
