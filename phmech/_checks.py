"""Input checks shared by bodies, joints and loads: one clear error naming the owner."""
import numpy as np


def time_function(value, n, what, owner, allow_none=False):
    """Turn a constant or a callable into ``t -> array(n)``, checking shape and finiteness.

    ``owner`` names the object in errors (e.g. ``"joint 'motor'"``); the
    returned function has the attributes ``constant``, ``what`` and ``value``
    (the given callable, or the constant as an array: what identifies the
    parameter in a checkpoint).  With ``allow_none``, ``None`` means zero.
    """
    if value is None and allow_none:
        value = np.zeros(n)
    if callable(value):
        def fun(t):
            got = value(t)
            try:
                out = np.atleast_1d(np.asarray(got, dtype=float))
            except (TypeError, ValueError):
                raise ValueError(f"{owner}: {what}(t={t!r}) must return {n} number(s), got {got!r}") from None
            if out.shape != (n,):
                raise ValueError(f"{owner}: {what}(t) must return {n} value(s), got shape {out.shape}")
            if not np.all(np.isfinite(out)):
                raise ValueError(f"{owner}: {what}(t={t!r}) returned non-finite values {out}")
            return out
        fun.constant, fun.what, fun.value = False, what, value
        return fun
    try:
        raw = np.asarray(value)
        const = np.atleast_1d(raw.astype(float)) if raw.dtype.kind in "iuf" else None   # no bools, text
    except (TypeError, ValueError):                  # ragged lists
        const = None
    if const is None or const.shape != (n,) or not np.all(np.isfinite(const)):
        raise ValueError(f"{owner}: {what} must be {n} finite number(s), got {value!r} (or a function of time t)")
    fun = (lambda t: const)
    fun.constant, fun.what, fun.value = True, what, const
    return fun


def overridden(defaults, overrides, where):
    """``defaults`` with ``overrides`` (keyword arguments) applied; a name that is not one of
    ``defaults`` is refused (``TypeError`` naming it, the function ``where`` and the names)."""
    unknown = sorted(set(overrides) - set(defaults))
    if unknown:
        raise TypeError(f"{where}: unknown parameter(s) {', '.join(map(repr, unknown))}; the parameters are "
                        f"{', '.join(defaults)}")
    return {**defaults, **overrides}


def positive_option(solver, name, value, allow_none=False, allow_inf=False):
    """``float(value)`` if positive (and finite unless ``allow_inf``); else one clear ValueError."""
    if value is None and allow_none:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{solver}: option {name} must be a number, got {value!r}") from None
    if not (v > 0) or (np.isinf(v) and not allow_inf):
        raise ValueError(f"{solver}: option {name} must be positive{'' if allow_inf else ' and finite'}, "
                         f"got {value!r}")
    return v


def count_option(solver, name, value, allow_none=False):
    """``int(value)`` if a positive integer; else one clear ValueError."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{solver}: option {name} must be a positive integer, got {value!r}")
    return int(value)


class ConsistencyError(ValueError):
    """A model or an initial state is inconsistent; the message lists every problem."""

    def __init__(self, problems, what="model"):
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"inconsistent {what} ({len(self.problems)} problem(s)):\n{lines}")
