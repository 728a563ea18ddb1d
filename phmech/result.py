"""The results object returned by the solver driver (:func:`phmech.solvers.solve`)."""
import csv
import os

import numpy as np


class Result:
    """A trajectory of an assembled system.

    Attributes
    ----------
    t : ndarray, shape (N,)
    y : ndarray, shape (N, n)
        States ``(q, e, lam)`` at the output times.
    dae : DescriptorDAE
        The system the trajectory belongs to (for per-body views).
    solver : str
    stats : dict
        Solver statistics: ``nsteps``, ``nreject``, ``nfev``, ``njev``,
        ``nlu``, the times in seconds ``wall_time`` (the steps),
        ``setup_time`` (before the first step, with the model's assembly and
        initial state when no earlier result reported them) and
        ``kernel_time`` (loading or compiling the compiled kernels), and
        solver-specific entries.
    message : str
        ``"success"``, or ``"terminated by an event"``.
    work : ndarray or None
        Cumulative supplied work at the output times, when the solver
        records it exactly (the implicit midpoint rule, the nonsmooth
        schemes); at a time between step points it follows the energy of
        the dense output (:func:`phmech.solvers.base.balanced_work`).
    t_events, y_events : list of ndarray or None
        Per event function of the run: the times of its zero crossings and
        the states there (``None`` when the run had no events).
    options : dict
        The solver's options of the run.
    t0, t_end : float
        The run's span (a restarted run keeps the original ``t0``).
    solver_state : dict or None
        What the solver needs to continue (:meth:`save`, ``restart=``);
        ``None`` for solvers that cannot continue a run.
    model_identity : dict or None
        The model identification of a loaded result
        (:func:`phmech.io.checkpoint.model_identity`).
    """

    def __init__(self, t, y, dae, solver, stats, message="success"):
        self.t = np.asarray(t, float)
        self.y = np.asarray(y, float)
        self.dae = dae
        self.solver = solver
        self.stats = dict(stats)
        self.message = message
        #: cumulative supplied work at the output times when the solver records it exactly
        self.work = None
        self.t_events = None
        self.y_events = None
        #: the solver's options, the run's span and the state to continue from (set by the driver)
        self.options = {}
        self.t0 = float(self.t[0]) if len(self.t) else 0.0
        self.t_end = float(self.t[-1]) if len(self.t) else 0.0
        self.solver_state = None
        self.model_identity = None
        self.labels = None

    def __repr__(self):
        return (f"Result(solver={self.solver!r}, {len(self.t)} points, t=[{self.t[0]:g}, {self.t[-1]:g}], "
                f"wall_time={self.stats.get('wall_time', float('nan')):.3g} s)")

    # -- per body / joint views -------------------------------------------
    def _body(self, body):
        return body if isinstance(body, str) else body.name

    def q(self, body):
        """Configuration history of a body, shape (N, nq)."""
        return self.y[:, self.dae.sq][:, self.dae.q_slices[self._body(body)]]

    def e(self, body):
        """Effort (velocity and stress) history of a body, shape (N, ne)."""
        return self.y[:, self.dae.se][:, self.dae.e_slices[self._body(body)]]

    def lam(self, joint):
        """Multiplier (constraint force, inertial components) history of a joint."""
        name = joint if isinstance(joint, str) else joint.name
        return self.y[:, self.dae.sl][:, self.dae.lam_slices[name]]

    def port_velocity(self, port):
        """Inertial velocity history of a port, ``R(q) Y e``: shape (N, 2) for planar ports,
        (N, 3) for spatial ones."""
        body = port.body
        qb, eb = self.q(body), self.e(body)
        out = np.empty((len(self.t), port.dim))
        for k in range(len(self.t)):
            out[k] = body.rotation(qb[k]) @ (port.Y @ eb[k])
        return out

    # -- energy ------------------------------------------------------------
    def hamiltonian(self):
        """Stored energy H(t) [J]."""
        return np.atleast_1d(self.dae.hamiltonian(self.y))

    def power(self):
        """Power supplied through drivers and loads minus dissipation, P(t) [W]."""
        return np.array([self.dae.power(t, y) for t, y in zip(self.t, self.y)])

    def port_powers(self):
        """Power through every port (joint drivers, loads), dict name -> array over time."""
        rows = [self.dae.power_terms(t, y) for t, y in zip(self.t, self.y)]
        return {k: np.array([r[k] for r in rows]) for k in rows[0]} if rows else {}

    def energy_balance(self):
        """``H(t) - H(t_1) - int_{t_1}^t P``, ``t_1`` the first row: zero up to the integration error.

        The supplied work is the solver's own record, kept over every step
        whatever the output times: the midpoint rule's exact discrete work;
        Radau IIA's and generalized-alpha's quadrature of the power over each
        step (:class:`phmech.solvers.base.QuadratureWork`); IDA's and
        Radau5DAE's work integrated with the state.  A row between step points
        has the balance interpolated linearly from the two step points around
        it (:func:`phmech.solvers.base.balanced_work`), so the midpoint rule's
        balance holds on every row and the others' is their energy error at the
        steps.  Without a record (a problem that supplies no power, a result
        loaded from an older file) the work is integrated with the trapezoidal
        rule over the output points, which should then be dense.
        """
        H = self.hamiltonian()
        if self.work is not None:
            W = self.work - self.work[0]       # from the first row (t_eval need not start at t0)
        else:
            P = self.power()
            W = np.concatenate([[0.0], np.cumsum(0.5 * (P[1:] + P[:-1]) * np.diff(self.t))])
        return H - H[0] - W

    def constraint_residual(self):
        """Max-norm of the velocity constraint residual at each output time."""
        return np.array([np.max(np.abs(self.dae.constraint_residual(t, y)), initial=0.0)
                         for t, y in zip(self.t, self.y)])

    # -- keeping and continuing a run ----------------------------------------
    def save(self, path):
        """Write the result to an HDF5 checkpoint (:mod:`phmech.io.checkpoint`); returns ``path``.

        Holds the trajectory, labels, solver name, options and statistics,
        the work record, the solver state to continue from (midpoint, radau)
        and the model's identification; continue with
        ``solve(..., restart=path)`` or ``System.simulate(..., restart=path)``.
        """
        from .io import checkpoint
        if self.dae is not None:
            identity, labels = checkpoint.model_identity(self.dae), self.dae.labels()
        elif self.model_identity is not None and self.labels is not None:
            identity, labels = self.model_identity, self.labels
        else:
            raise ValueError("Result.save: the result has neither a model nor a stored model identity")
        return checkpoint.save_run(path, self.t, self.y, self.work, labels, self.solver, self.options,
                                   self.stats, self.solver_state, identity, self.t0, self.t_end,
                                   self.message, self.t_events, self.y_events)

    @classmethod
    def load(cls, path, model=None):
        """Read a result written by :meth:`save` (or a periodic checkpoint).

        Parameters
        ----------
        path : str
        model : System or assembled problem, optional
            Attach the result to this model (for the per-body views and
            energies); a model other than the stored one is refused with a
            :class:`~phmech.io.checkpoint.CheckpointError` listing the differences.

        A truncated or corrupted file raises :class:`~phmech.io.checkpoint.CheckpointError`.
        """
        from .io import checkpoint
        meta, arrays = checkpoint.read(path)
        if model is not None:
            model = model.assemble() if hasattr(model, "assemble") else model
            checkpoint.compare_identity(meta["model"], model, f"checkpoint {path!r}")
        return cls.from_checkpoint(meta, arrays, model)

    @classmethod
    def from_checkpoint(cls, meta, arrays, problem=None):
        """A result from the parts :func:`phmech.io.checkpoint.read` returns."""
        from .io.checkpoint import join_state
        res = cls(arrays["t"], arrays["y"], problem, meta["solver"], meta["stats"], meta["message"])
        res.work = arrays.get("work")
        res.options, res.t0, res.t_end = dict(meta["options"]), float(meta["t0"]), float(meta["t_end"])
        res.solver_state = join_state(meta["state"], arrays) if meta.get("has_state") else None
        res.model_identity, res.labels = meta["model"], list(meta["labels"])
        if meta.get("n_events") is not None:
            res.t_events = [np.array(arrays.get(f"events/t{i}", np.zeros(0))) for i in range(meta["n_events"])]
            res.y_events = [np.array(arrays.get(f"events/y{i}", np.zeros((0, res.y.shape[1]))))
                            for i in range(meta["n_events"])]
        return res

    # -- output ------------------------------------------------------------
    def to_pvd(self, path, n_points=21, every=1, scale=1.0, max_frames=None, folder=None):
        """Write the mechanism for ParaView: a ``.pvd`` collection of ``.vtu`` frames.

        Rigid bodies as the segments between their ports, beams as their
        current axes (``n_points`` each), plates as triangulated surfaces,
        networks as lines between their masses; the deformation drawn
        magnified by ``scale``; velocity, displacement and a plate's
        deflection as point data, each body's stored energy and a plate's
        bending moments as cell data; every ``every``-th output row (at most
        ``max_frames``), the frames in ``folder`` (default ``<stem>/`` beside the
        ``.pvd``).  See :func:`phmech.io.paraview.write_pvd`; returns the
        written paths.
        """
        from .io.paraview import write_pvd
        return write_pvd(self, path, n_points=n_points, every=every, scale=scale, max_frames=max_frames,
                         folder=folder)

    def animate(self, path=None, **options):
        """Animate the mechanism: write ``path`` (``.mp4`` with ffmpeg, ``.gif``) or, without a path,
        return an animation a notebook shows inline (``html=True``: its HTML text).

        At most ``max_frames=100`` frames by default, evenly sampled.  See
        :func:`phmech.io.animation.animate` for the options (``every``,
        ``max_frames``, ``scale``, ``fps``, ``plane``, ``progress``, ...).
        """
        from .io.animation import animate
        return animate(self, path, **options)

    def to_html(self, path, **options):
        """Write a self-contained HTML viewer of the run (three.js, inlined: no server, no network):
        shaded bodies, joints, ground grid and length scale, surfaces coloured by a field, orbit,
        zoom, time slider, play/pause and speed.

        See :func:`phmech.io.html_viewer.write_html` for the options (``max_frames``,
        ``scale``, ``n_points``, ``colors``, ``title``, ``fps``, ``field``); returns ``path``.
        """
        from .io.html_viewer import write_html
        return write_html(self, path, **options)

    def show(self, path=None, **options):
        """An interactive 3D view of the run: in a notebook, the page of :meth:`to_html` inline;
        elsewhere that page written to ``path`` (default: a temporary file), saying where.

        See :func:`phmech.io.html_viewer.show` (``height``) and
        :func:`~phmech.io.html_viewer.write_html` for the options; returns the inline view
        (:class:`~phmech.io.html_viewer.InlineView`, which a notebook shows) or the written path.
        """
        from .io.html_viewer import show
        return show(self, path, **options)

    def to_csv(self, path, columns=None):
        """Write ``columns`` (dict name -> array of length N) with a time column; without
        ``columns``, every variable of the state under its label (``body.q.x``, ``body.e.vx``,
        ``joint.lam0``, as :meth:`DescriptorDAE.labels`) and the stored energy ``hamiltonian``.

        Refuses to write non-finite numbers: a NaN in the output is an error.
        """
        if columns is None:
            columns = dict(zip(self.dae.labels(), self.y.T))
            columns["hamiltonian"] = self.hamiltonian()
        if "t" in columns:
            raise ValueError("to_csv: column 't' is the time, written first; give your column another name")
        cols = {"t": self.t, **{k: np.asarray(v, float) for k, v in columns.items()}}
        for k, v in cols.items():
            if v.shape != self.t.shape:
                raise ValueError(f"to_csv: column '{k}' has shape {v.shape}, expected {self.t.shape}")
            if not np.all(np.isfinite(v)):
                raise ValueError(f"to_csv: column '{k}' has non-finite values; not writing {path}")
        try:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        except OSError as err:
            raise ValueError(f"to_csv: cannot create the directory of {path}: {err}") from None
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(list(cols))
            for row in zip(*cols.values()):
                w.writerow([f"{x:.12g}" for x in row])
        return path
