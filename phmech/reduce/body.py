"""The reduced body: a pH body of the projected matrices that keeps its basis for recovery.

A :class:`ReducedBody` is a :class:`~phmech.bodies.base.Body` like any other
(``M``, ``J0``, ``R``, gyroscopic slots, ports of rows on its efforts): it
joins a :class:`~phmech.System`, runs in the compiled residual and the
midpoint rule's steps, and draws itself by its ports.  Its efforts are
``e_r = (e_f, v_r, s_r)``: the full body's frame efforts (a floating body's
frame stays unreduced, with its kinematics), the velocity coordinates and the
stress coordinates of :mod:`phmech.reduce.basis`.  A body reduced on mean axes
(:func:`~phmech.reduce.modal_reduction` with ``frame="mean_axis"``) has the same
floating frame, whose kinematics need no reference condition: its frame is the
mean axes, its elastic coordinates move the full body's frame efforts too
(``e_f + V_f v_r``, :attr:`Basis.Vf <phmech.reduce.basis.Basis>`), and its
metric has no rigid-elastic inertia coupling.  :meth:`ReducedBody.recover`
gives the full body's efforts ``V e_r`` (velocities and stresses on the
mesh: ``full_body.field(reduced.recover(e_r))`` is the Firedrake function
where Firedrake is at hand), :meth:`ReducedBody.displacement` the full
displacement field ``V_v s_r``.  A body reduced from a Firedrake mesh keeps
that mesh (:class:`~phmech.reduce.picture.FullMesh`: vertices, cells and the
vertices' velocity rows) and draws the whole deforming mesh
(:mod:`phmech.reduce.picture`), in ParaView too, without Firedrake; other
reduced bodies draw themselves by their ports.

:meth:`ReducedBody.save` writes it to HDF5 (:mod:`phmech.reduce.store`) and
:meth:`ReducedBody.load` reads it back with numpy and h5py only.
"""
import hashlib

import numpy as np
import scipy.sparse as sp

from ..bodies.base import Body, FixedBody, FloatingFrameBody, SpatialFrameBody
from .basis import Basis, ReductionError
from .picture import FullMesh, mesh_mode_picture, mesh_picture
from .store import ReducedFileError, read, write

#: the frame kinds of a reduced body and their frame classes
FRAMES = {"fixed": None, "planar": FloatingFrameBody, "spatial": SpatialFrameBody}


def frame_kind(body):
    """``"fixed"``, ``"planar"`` or ``"spatial"``: the configuration of ``body``."""
    if body.nq == 0 and not len(body.frame_dofs):
        return "fixed"
    for kind in ("spatial", "planar"):
        if isinstance(body, FRAMES[kind]):
            return kind
    raise ReductionError(f"body '{body.name}' ({type(body).__name__}): its configuration is no floating frame "
                         f"(nq = {body.nq}); the reduction takes fixed bodies and bodies in a floating frame")


def _hash_array(a):
    a = sp.csr_matrix(a, dtype=float) if sp.issparse(a) else np.asarray(a, float)
    h = hashlib.sha256(repr(a.shape).encode())
    if sp.issparse(a):
        a.sum_duplicates()
        a.sort_indices()
        for arr in (a.indptr.astype(np.int64), a.indices.astype(np.int64), a.data):
            h.update(np.ascontiguousarray(arr).tobytes())
    else:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:32]


def full_identity(body):
    """What identifies the full model a reduction was made of: its kind and name, the FE
    cache key of its forms, mesh and parameters (a form body, a plate: ``_key``), and the
    hashes of its matrices and port rows."""
    ident = {"body": body.name, "type": type(body).__name__, "ne": int(body.ne), "nq": int(body.nq)}
    key = getattr(body, "_key", None)
    if isinstance(key, str):
        ident["fe_key"] = hashlib.sha256(key.encode()).hexdigest()[:32]
    ident["matrices"] = {k: _hash_array(getattr(body, k)) for k in ("M", "J0", "R")
                         if getattr(body, k, None) is not None}
    ident["ports"] = {p.name: _hash_array(p.Y if p.W is None else np.vstack([p.Y, p.W]))
                      for p in body.ports.values()}
    return ident


def _difference(stored, now):
    """What differs between two identities (:func:`full_identity`), scalars first."""
    keys = sorted(set(stored) | set(now), key=lambda k: (isinstance(stored.get(k, now.get(k)), dict), k))
    out = []
    for k in keys:
        a, b = stored.get(k), now.get(k)
        if a == b:
            continue
        if k == "fe_key":
            out.append("its forms, mesh or parameters (the FE key)")
        elif isinstance(a, dict) and isinstance(b, dict):
            out.append(f"{k} " + ", ".join(sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))))
        else:
            out.append(f"{k}: {a!r} in the file, {b!r} in the body")
    return out


class ReducedBody(FixedBody):
    """A reduced pH body (module docstring); made by :func:`phmech.reduce.craig_bampton` or
    :func:`phmech.reduce.modal_reduction`, or read by :meth:`load`.

    Parameters
    ----------
    name : str
    M, J0 : ndarray
        Reduced energy metric (SPD) and structure (skew).
    R : ndarray or None
        Reduced dissipation (PSD).
    basis : :class:`~phmech.reduce.basis.Basis`
        ``V`` of the full efforts ``e = V e_r``.
    ports : list of ``(name, Y, W, position, exact)``
        Reduced port rows; ``exact``: an interface port (its static response is exact).
    frame : {"fixed", "planar", "spatial"}
    dim : {2, 3}
    identity : dict
        The full model's identity (:func:`full_identity`).
    info : dict
        The reduction's record (method, interface, modes, frequencies of the normal modes).
    K_list : list of ndarray, optional
        Reduced gyroscopic matrices of a floating frame.
    q0 : ndarray, optional
        The frame's initial configuration.
    extras : dict, optional
        ``mass``, ``center``, ``inertia``, ``first_moment`` (``(s0, rows)`` on ``e_r``),
        ``momentum_rows``, ``translation_dofs`` of the full body, projected.
    mesh : :class:`~phmech.reduce.picture.FullMesh`, optional
        The full body's mesh, drawn by :meth:`picture` (default: the ports' poly-line).
    """

    KIND = "reduced_body"

    def __new__(cls, *args, **kwargs):
        frame = kwargs.get("frame", args[6] if len(args) > 6 else "fixed")
        if cls is ReducedBody and frame != "fixed":
            cls = reduced_class(frame)
        return super().__new__(cls)

    def __init__(self, name, M, J0, R, basis, ports=(), frame="fixed", dim=3, identity=None, info=None,
                 K_list=(), q0=None, extras=None, mesh=None):
        Body.__init__(self, name)
        if frame not in FRAMES:
            raise ReductionError(f"body '{name}': frame must be one of {sorted(FRAMES)}, got {frame!r}")
        self.frame = frame
        self.dim = int(dim)
        self.basis = basis
        self.M = sp.csr_matrix(np.asarray(M, float))
        self.J0 = sp.csr_matrix(np.asarray(J0, float))
        self.R = None if R is None or not np.any(R) else sp.csr_matrix(np.asarray(R, float))
        self.K_list = [sp.csr_matrix(np.asarray(K, float)) for K in K_list]
        self.identity = dict(identity or {})
        self.info = dict(info or {})
        self.extras = dict(extras or {})
        if mesh is not None and not isinstance(mesh, FullMesh):
            raise ReductionError(f"body '{name}': mesh must be a FullMesh or None, got {type(mesh).__name__}")
        #: the full body's mesh (:class:`~phmech.reduce.picture.FullMesh`), or None
        self.full_mesh = mesh
        self._vertex_basis = None
        if mesh is not None:
            self.vertex_basis()             # its rows checked against the basis
        nf = len(basis.rf)
        frame_labels = [f"f{i}" for i in range(nf)]
        self.e_labels = (frame_labels + [f"v{i}" for i in range(len(basis.rv))]
                         + [f"s{i}" for i in range(len(basis.rs))])
        if frame == "fixed":
            self.q_labels, self.q0 = [], np.zeros(0)
        else:
            planar = FRAMES[frame] is FloatingFrameBody
            self.q_labels = ["x", "y", "theta"] if planar else ["x", "y", "z", "p0", "p1", "p2", "p3"]
            self.q0 = np.asarray(q0, float).copy()
        for k in ("mass", "center", "inertia"):
            if k in self.extras:
                setattr(self, k, self.extras[k])
        #: ports that were interface ports of the reduction
        self.exact_ports = set()
        for pname, Y, W, position, exact in ports:
            self.add_port(pname, Y, W, position)
            if exact:
                self.exact_ports.add(pname)

    # -- the protocol ---------------------------------------------------------------
    @property
    def translation_dofs(self):
        return np.asarray(self.extras.get("translation_dofs", np.arange(0)), int)

    def first_moment(self):
        """The full body's first moment of mass ``(s0, rows V, "e")`` (None where it has none)."""
        fm = self.extras.get("first_moment")
        return None if fm is None else (np.asarray(fm[0], float), np.asarray(fm[1], float), "e")

    def port(self, name):
        try:
            return self.ports[name]
        except KeyError:
            full = self.info.get("full_ports", [])
            if name in full:
                raise KeyError(f"body '{self.name}': port '{name}' of the full body '{self.identity.get('body')}' "
                               "was removed by the reduction (it is no interface port, so its motion and a load "
                               f"there are not represented); reduce with it in interface= (ports kept: "
                               f"{sorted(self.ports)})") from None
            raise KeyError(f"body '{self.name}' has no port '{name}'; its ports are {sorted(self.ports)}") from None

    def hamiltonian(self, e):
        e = np.asarray(e)
        return 0.5 * np.einsum("...i,...i->...", e, (self.M @ e.T).T)

    # -- picture ----------------------------------------------------------------------
    def picture(self, t, Q, E, rows, n_points=21, scale=1.0):
        """A function ``k -> Part``: the full mesh at ``rows[k]``, deformed by the recovered
        displacement (``scale`` times; :func:`phmech.reduce.picture.mesh_picture`), or without a
        kept mesh the poly-line through the ports."""
        if self.full_mesh is None:
            return Body.picture(self, t, Q, E, rows, n_points, scale)
        return mesh_picture(self, t, Q, E, rows, scale)

    def mode_picture(self, q, u, n_points=21):
        """The mesh's vertices (or the ports) moved by the small motion ``u``."""
        if self.full_mesh is None:
            return Body.mode_picture(self, q, u, n_points)
        return mesh_mode_picture(self, q, u)

    def vertex_basis(self):
        """``(n, 3, n_r)``: the kept mesh's vertex velocities (body-frame x, y, z) of unit
        velocity coordinates, the rows of ``V_v`` (:meth:`FullMesh.vertex_basis`); None without a
        kept mesh."""
        if self.full_mesh is None:
            return None
        if self._vertex_basis is None:
            try:
                self._vertex_basis = self.full_mesh.vertex_basis(self.basis)
            except ValueError as err:
                raise ReductionError(f"body '{self.name}': {err}") from None
        return self._vertex_basis

    # -- recovery ---------------------------------------------------------------------
    def recover(self, e_r):
        """The full body's efforts ``V e_r`` (one row per row of ``e_r``)."""
        return self.basis.full(e_r)

    def displacement(self, e_r):
        """The full displacement ``V_v s_r`` on the full body's velocity unknowns
        (``body.velocity_dofs``) of a motion that started undeformed.

        Of a body reduced on mean axes this is the displacement relative to the full body's own
        frame (its reference condition), which is the mean axes moved rigidly by
        :meth:`frame_displacement`."""
        if not self.info.get("modal_stresses", False):
            raise ReductionError(f"body '{self.name}': its stress coordinates are no modal displacements "
                                 "(the velocity basis held a motion without strain)")
        e_r = np.asarray(e_r, float)
        return e_r[..., self.basis.rs] @ self.basis.Vv.T

    def frame_displacement(self, e_r):
        """``V_f s_r``: the rigid displacement (frame components, as the frame efforts: translation,
        then rotation) of the full body's own frame relative to the reduced body's, zero unless the
        modes move the frame (mean axes, :func:`phmech.reduce.modal_reduction`)."""
        if not self.info.get("modal_stresses", False):
            raise ReductionError(f"body '{self.name}': its stress coordinates are no modal displacements "
                                 "(the velocity basis held a motion without strain)")
        e_r = np.asarray(e_r, float)
        return e_r[..., self.basis.rs] @ self.basis.Vf.T

    def load_vector(self, b, exact=True, tol=1e-8):
        """The reduced input column ``V^T b`` of a load column ``b`` on the full body's efforts
        (e.g. ``full_body.load_vector(form)``), for
        :class:`~phmech.fem.plate.PlateLoad`-like loads on this body.

        With ``exact`` (default) the load must act through the interface: ``b``'s velocity
        part in the span of the interface rows ``G^T`` (whose static response the basis holds
        exactly); a load elsewhere, on unknowns the reduction removed, is an error naming its
        part outside the interface.  ``exact=False`` projects any load (modal truncation)."""
        owner = f"body '{self.name}'"
        b = np.asarray(b, float)
        if b.shape != (self.basis.ne,) or not np.all(np.isfinite(b)):
            raise ReductionError(f"{owner}: a load column must be {self.basis.ne} finite numbers on the full body's "
                                 f"efforts, got shape {b.shape}")
        if exact and self.info.get("method") in ("craig_bampton", "modal_attachment"):
            G = self.info_rows()
            bv = b[self.basis.v]
            bs = b[self.basis.s]
            norm = np.linalg.norm(b)
            if norm > 0:
                if G.shape[0]:
                    c, *_ = np.linalg.lstsq(G.T, bv, rcond=None)
                    off = np.linalg.norm(bv - G.T @ c)
                else:
                    off = np.linalg.norm(bv)
                off = np.hypot(off, np.linalg.norm(bs)) / norm
                if off > tol:
                    raise ReductionError(f"{owner}: the load acts on unknowns the reduction removed ({off:.2e} of it "
                                         f"lies outside the interface {self.info.get('interface')}); add a port "
                                         "there to interface=, or pass exact=False to project it on the modes")
        return self.basis.columns(b[:, None])[:, 0]

    def info_rows(self):
        """The interface rows ``G`` on the full velocities (kept with the basis)."""
        return np.asarray(self.extras.get("G", np.zeros((0, len(self.basis.v)))), float)

    def natural_frequencies(self, k=None):
        """The angular frequencies [rad/s] of the reduced body alone (free ports), ascending: the
        positive imaginary parts of the eigenvalues of ``(J0, M)`` (dense).  A body in a floating
        frame is free and at rest (no joints, no gravity: its rigid motions are the zero
        frequencies, left out), so these are its free-free frequencies; for a body in joints or
        under loads linearize a System."""
        Lc = np.linalg.cholesky(self.M.toarray())
        A = np.linalg.solve(Lc, np.linalg.solve(Lc, self.J0.toarray()).T).T
        w = np.linalg.eigvalsh(-1j * A)
        w = np.sort(w[w > 1e-9 * max(abs(w).max(), 1e-300)])
        return w if k is None else w[:k]

    # -- file -----------------------------------------------------------------------------
    def save(self, path):
        """Write the reduced body to ``path`` (HDF5: matrices, basis, ports, identity, versions)."""
        from ..io.provenance import provenance
        b = self.basis
        arrays = {"M": self.M.toarray(), "J0": self.J0.toarray(),
                  "R": np.zeros((self.ne, self.ne)) if self.R is None else self.R.toarray(),
                  "K": np.array([K.toarray() for K in self.K_list]).reshape(len(self.K_list), self.ne, self.ne),
                  "basis/f": b.f, "basis/v": b.v, "basis/s": b.s, "basis/Vv": b.Vv, "basis/Vs": b.Vs,
                  "q0": np.asarray(self.q0, float)}
        if b.moves_frame:
            arrays["basis/Vf"] = b.Vf
        ports = []
        for i, (pname, p) in enumerate(self.ports.items()):
            arrays[f"ports/{i}/Y"] = p.Y
            if p.W is not None:
                arrays[f"ports/{i}/W"] = p.W
            arrays[f"ports/{i}/position"] = p.position
            ports.append({"name": pname, "W": p.W is not None, "exact": pname in self.exact_ports})
        extras = {}
        for k, v in self.extras.items():
            if k == "first_moment":
                arrays["extras/first_moment/s0"], arrays["extras/first_moment/rows"] = (np.asarray(x, float) for x in v)
                extras[k] = True
            elif v is not None:
                arrays[f"extras/{k}"] = np.asarray(v)
                extras[k] = True
        meta = {"kind": self.KIND, "name": self.name, "frame": self.frame, "dim": self.dim, "ne_full": b.ne,
                "ports": ports, "identity": self.identity, "info": self.info, "extras": sorted(extras),
                "provenance": provenance()}
        if self.full_mesh is not None:
            mesh_arrays, meta["mesh"] = self.full_mesh.arrays()
            arrays.update(mesh_arrays)
        return write(path, meta, arrays)

    @classmethod
    def load(cls, path, body=None):
        """The reduced body of the file ``path`` (needs numpy and h5py only).

        Parameters
        ----------
        path : str
        body : Body, optional
            The full body: the file must have been reduced from this model (same FE key,
            matrices and port rows), else an error names what differs.

        Raises
        ------
        ReducedFileError
            Missing, damaged, of another version, or of another model than ``body``.
        """
        meta, a = read(path)
        try:
            if meta.get("kind") != cls.KIND:
                raise ReducedFileError(f"reduced body file {path!r} holds a {meta.get('kind')!r}")
            basis = Basis(meta["ne_full"], a["basis/f"], a["basis/v"], a["basis/s"], a["basis/Vv"], a["basis/Vs"],
                          a.get("basis/Vf"))
            ports = [(p["name"], a[f"ports/{i}/Y"], a.get(f"ports/{i}/W") if p["W"] else None,
                      a[f"ports/{i}/position"], p["exact"]) for i, p in enumerate(meta["ports"])]
            extras = {}
            for k in meta["extras"]:
                extras[k] = ((a["extras/first_moment/s0"], a["extras/first_moment/rows"]) if k == "first_moment"
                             else a[f"extras/{k}"])
            R = a["R"]
            mesh = FullMesh.from_arrays(meta["mesh"], a) if meta.get("mesh") is not None else None
            red = ReducedBody(meta["name"], a["M"], a["J0"], R if np.any(R) else None, basis, ports,
                              frame=meta["frame"], dim=meta["dim"], identity=meta["identity"], info=meta["info"],
                              K_list=list(a["K"]), q0=a["q0"], extras=extras, mesh=mesh)
        except ReducedFileError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise ReducedFileError(f"reduced body file {path!r} lacks or garbles an entry ({type(err).__name__}: "
                                   f"{err})") from None
        problems = red.check()
        if problems:
            raise ReducedFileError(f"reduced body file {path!r}: " + "; ".join(problems))
        if body is not None:
            red.check_identity(body, path)
        return red

    def check_identity(self, body, where=None):
        """Raise :class:`~phmech.reduce.store.ReducedFileError` when ``body`` is not the model this
        body was reduced from (another mesh, other forms or parameters, other ports)."""
        diff = _difference(self.identity, full_identity(body))
        if diff:
            src = f"reduced body file {where!r}" if where else f"reduced body '{self.name}'"
            raise ReducedFileError(f"{src} was reduced from another model than body '{body.name}': it differs in "
                                   + "; ".join(diff))


_CLASSES = {}


def reduced_class(frame):
    """The reduced body class of a floating ``frame`` (``"planar"`` or ``"spatial"``): the frame's
    kinematics before :class:`ReducedBody`'s (made once, kept in this module under its name)."""
    if frame not in _CLASSES:
        base = FRAMES[frame]
        name = f"{frame.capitalize()}ReducedBody"
        _CLASSES[frame] = type(name, (base, ReducedBody), {
            "__init__": ReducedBody.__init__, "__module__": __name__, "__qualname__": name,
            "port_position": Body.port_position, "translation_dofs": ReducedBody.translation_dofs,
            "port": ReducedBody.port, "picture": ReducedBody.picture, "mode_picture": ReducedBody.mode_picture,
            "__doc__": ReducedBody.__doc__})
        globals()[name] = _CLASSES[frame]
    return _CLASSES[frame]


# made at import, so that reduced bodies in a floating frame pickle by their class' name
PlanarReducedBody = reduced_class("planar")
SpatialReducedBody = reduced_class("spatial")
