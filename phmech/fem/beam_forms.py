r"""The linear Euler-Bernoulli beams' port-Hamiltonian weak forms, for a :class:`~phmech.fem.FormBody`.

Velocity-stress form on ``[0, L]``: axial velocity ``v_x`` in P1 Lagrange, transverse velocity
``v_y`` in cubic Hermite, axial force ``n`` in DG0 and bending moment ``m`` in DG1,

.. math::

    m(e, \delta e) &= \int \rho A\, (\delta v_x\, v_x + \delta v_y\, v_y)
                      + \frac{\delta n\, n}{EA} + \frac{\delta m\, m}{EI}, \\
    j(e, \delta e) &= \int -\delta v_x' \, n - \delta v_y'' \, m + \delta n\, v_x' + \delta m\, v_y''.

The derivatives act on the velocities (``d/dx`` maps P1 onto DG0, ``d2/dx2`` maps Hermite onto
DG1), so the strains are exact derivatives of discrete displacements and ``j`` is exactly skew.
Boundary forces and moments enter through the ends' traces (:func:`end_traces`), which are also
the velocity conditions (a clamped end removes the unknowns on which its ``v_x``, ``v_y`` and
slope traces are not zero).

The spatial beam (:func:`spatial_beam_forms`) has the same pair in both bending planes
(``v_y``, ``m_z``, stiffness ``EI_z``; ``v_z``, ``m_y``, ``EI_y``) and torsion, the spin rate
``w_x`` of the sections in P1 (rotary inertia ``rho I_p``) with the torque ``t`` in DG0
(stiffness ``GJ``): ``int rho I_p dw_x w_x + dt t / GJ`` in ``m``, ``-dw_x' t + dt w_x'`` in ``j``.
"""

#: the fields of the mixed space, in order
FIELDS = ("vx", "vy", "n", "m")
#: the fields of the spatial beam's mixed space: the planar pairs in both bending planes and torsion
SPATIAL_FIELDS = ("vx", "vy", "vz", "wx", "n", "mz", "my", "t")


def beam_space(mesh):
    """The mixed space P1 x Hermite x DG0 x DG1 of the beam on the interval ``mesh``."""
    import firedrake as fd
    return (fd.FunctionSpace(mesh, "CG", 1) * fd.FunctionSpace(mesh, "Hermite", 3)
            * fd.FunctionSpace(mesh, "DG", 0) * fd.FunctionSpace(mesh, "DG", 1))


def beam_forms(rhoA, EA, EI):
    """``(m, j)``: the energy metric and the structure (callables of the split trial and test
    functions, as :class:`~phmech.fem.FormBody` takes them)."""
    import firedrake as fd

    def m(e, de):
        (vx, vy, n, mm), (dvx, dvy, dn, dm) = e, de
        return (rhoA * (dvx * vx + dvy * vy) + dn * n / EA + dm * mm / EI) * fd.dx

    def j(e, de):
        (vx, vy, n, mm), (dvx, dvy, dn, dm) = e, de
        return (-dvx.dx(0) * n - dvy.dx(0).dx(0) * mm + dn * vx.dx(0) + dm * vy.dx(0).dx(0)) * fd.dx
    return m, j


def end_traces(marker):
    """The traces ``{"vx", "vy", "slope"}`` at the end ``marker`` (1: x = 0, 2: x = L) as linear
    forms of the split test functions: a port's velocity and rotation rate, and the velocity
    conditions of the end."""
    import firedrake as fd
    ds = fd.ds(marker)
    return {"vx": lambda de: de[0] * ds, "vy": lambda de: de[1] * ds, "slope": lambda de: de[1].dx(0) * ds}


def spatial_beam_space(mesh):
    """The mixed space of the spatial beam: P1 x Hermite x Hermite x P1 x DG0 x DG1 x DG1 x DG0."""
    import firedrake as fd
    P1, H3 = fd.FunctionSpace(mesh, "CG", 1), fd.FunctionSpace(mesh, "Hermite", 3)
    D0, D1 = fd.FunctionSpace(mesh, "DG", 0), fd.FunctionSpace(mesh, "DG", 1)
    return P1 * H3 * H3 * P1 * D0 * D1 * D1 * D0


def spatial_beam_forms(rhoA, EA, EIy, EIz, GJ, rIp):
    """``(m, j)`` of the spatial beam (module docstring)."""
    import firedrake as fd

    def d2(u):
        return u.dx(0).dx(0)

    def m(e, de):
        (vx, vy, vz, wx, n, mz, my, t), (dvx, dvy, dvz, dwx, dn, dmz, dmy, dt) = e, de
        return (rhoA * (dvx * vx + dvy * vy + dvz * vz) + rIp * dwx * wx
                + dn * n / EA + dmz * mz / EIz + dmy * my / EIy + dt * t / GJ) * fd.dx

    def j(e, de):
        (vx, vy, vz, wx, n, mz, my, t), (dvx, dvy, dvz, dwx, dn, dmz, dmy, dt) = e, de
        return (-dvx.dx(0) * n + dn * vx.dx(0) - d2(dvy) * mz + dmz * d2(vy)
                - d2(dvz) * my + dmy * d2(vz) - dwx.dx(0) * t + dt * wx.dx(0)) * fd.dx
    return m, j


def spatial_end_traces(marker):
    """The traces ``{"vx", "vy", "vz", "wx", "sy", "sz"}`` at the end ``marker``: the velocity, the
    spin rate and the slopes ``v_y'``, ``v_z'`` (the rotation rates ``-v_z'`` about ``e_2`` and
    ``v_y'`` about ``e_3``)."""
    import firedrake as fd
    ds = fd.ds(marker)
    return {"vx": lambda de: de[0] * ds, "vy": lambda de: de[1] * ds, "vz": lambda de: de[2] * ds,
            "wx": lambda de: de[3] * ds, "sy": lambda de: de[1].dx(0) * ds, "sz": lambda de: de[2].dx(0) * ds}
