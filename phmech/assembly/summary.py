"""The text of ``print(system)`` and ``print(dae)``: what a model is made of.

Bodies (kind, configuration and effort unknowns, ports), joints (kind, the ports they join,
constraint rows), force elements, loads, the unknowns of the assembled DAE and its
redundant constraint rows, one item a line.
"""


def _table(rows, indent="  "):
    """Left-aligned columns, each as wide as its widest entry."""
    if not rows:
        return [f"{indent}(none)"]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [(indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1]).rstrip() for r in rows]


def _ports(ports, grounded):
    names = [p.label for p in ports if p is not None]
    if grounded or len(names) == 1:
        names.append("ground")
    return " - ".join(names)


def _body_rows(system):
    return [(b.name, type(b).__name__, f"q {b.nq}", f"e {b.ne}", "ports " + ", ".join(sorted(b.ports)))
            for b in system.bodies]


def _joint_rows(system):
    rows = []
    for j in system.joints:
        try:
            ports = list(j.ports())
        except NotImplementedError:
            ports = []
        rows.append((j.name, type(j).__name__, f"rows {j.n_rows}", _ports(ports, False)))
    return rows


def _force_rows(system):
    rows = []
    for f in system.forces:
        a, b = getattr(f, "a", None), getattr(f, "b", None)
        rows.append((f.name, type(f).__name__, _ports([a, b], b is None) if a is not None else ""))
    return rows


def _load_rows(system):
    rows = []
    for ld in system.loads:
        port = getattr(ld, "port", None)
        body = getattr(ld, "body", None)
        where = port.label if port is not None else (body.name if body is not None else "")
        rows.append((ld.name, type(ld).__name__, where))
    return rows


def _section(title, rows):
    return [f"{title} ({len(rows)}):", *_table(rows)]


def describe(system, dae=None, title="System"):
    """The summary of ``system`` (a :class:`~phmech.System`) and of its assembled DAE ``dae``:
    a multi-line string starting with ``title``.

    Parameters
    ----------
    system : System
    dae : DescriptorDAE, optional
        The assembled model; without it the unknowns are counted from the bodies and
        joints and the redundant rows are not known yet.
    title : str
        The first word of the first line.
    """
    counts = [(len(system.bodies), "body", "bodies"), (len(system.joints), "joint", "joints"),
              (len(system.forces), "force element", "force elements"), (len(system.loads), "load", "loads")]
    lines = [f"{title}: " + ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in counts)]
    lines += _section("bodies", _body_rows(system))
    lines += _section("joints", _joint_rows(system))
    lines += _section("force elements", _force_rows(system))
    lines += _section("loads", _load_rows(system))
    if dae is not None:
        nq, ne, nl = dae.nq, dae.ne, dae.nl
    else:
        nq = sum(b.nq for b in system.bodies)
        ne = sum(b.ne for b in system.bodies)
        nl = sum(j.n_rows for j in system.joints)
    lines.append(f"unknowns: {nq + ne + nl} = {nq} positions q + {ne} efforts e + {nl} multipliers lambda")
    if dae is None:
        lines.append("redundant rows: found at assembly (system.assemble())")
    elif dae.redundant_rows:
        lines.append(f"redundant rows ({len(dae.redundant_rows)}, multipliers set to zero): "
                     + ", ".join(f"{name}[{k}]" for name, k in dae.redundant_rows))
    else:
        lines.append("redundant rows: none")
    return "\n".join(lines)
