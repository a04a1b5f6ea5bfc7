"""Checks of the arguments the drawing helpers take, on top of ``simkit.checks``.

One validation layer for simkit and the course (``simkit.checks``): TypeError for the wrong
kind of argument, ValueError for a wrong shape, range or value; messages "name: expected ...".
Only the checks simkit has no use for live here (scene limits, state sequences, named series).
"""
import numpy as np

from simkit import checks


def _points(X, name, n=None, dim=2):
    """(n, dim) finite positions with at least one row (exactly ``n`` when given)."""
    X = checks.positions(X, name, dims=(dim,))
    if X.shape[0] == 0:
        raise ValueError(f"{name}: expected at least one node, got shape {X.shape}")
    if n is not None and X.shape[0] != n:
        raise ValueError(f"{name}: expected {n} rows (one per node), got {X.shape[0]}")
    return X


def _indices(idx, n, name):
    """Node indices in [0, n) as a flat int array (a (p, 1) column is accepted)."""
    return checks.index_vector(np.reshape(idx, -1), name, n)


def _limits(lims, name):
    arr = checks.finite_array(lims, name)
    if arr.shape != (2,):
        raise ValueError(f"{name}: expected a pair (low, high), got shape {arr.shape}")
    lo, hi = float(arr[0]), float(arr[1])
    if not lo < hi:
        raise ValueError(f"{name}: expected low < high, got ({lo}, {hi})")
    return lo, hi


def _scene_limits(lims, name="lims"):
    if lims is None:
        return None
    if not isinstance(lims, (tuple, list, np.ndarray)) or len(lims) != 2:
        raise ValueError(f"{name}: expected ((xmin, xmax), (ymin, ymax)), got {lims!r}")
    return _limits(lims[0], f"{name}[0]"), _limits(lims[1], f"{name}[1]")


def _auto_scene_limits(points, pad=0.08):
    """((xmin, xmax), (ymin, ymax)) enclosing ``points`` (..., 2) with a relative margin: the default of ``lims``."""
    lo = points.reshape(-1, 2).min(axis=0)
    hi = points.reshape(-1, 2).max(axis=0)
    margin = pad * max(float((hi - lo).max()), 1e-9) + 1e-3
    return (lo[0] - margin, hi[0] + margin), (lo[1] - margin, hi[1] + margin)


def _states(states, name="states", dim=2):
    """(T, n, dim) finite positions per frame, from a sequence of equal-shaped arrays or one array."""
    if not isinstance(states, np.ndarray):
        states = list(states)
        if not states:
            raise ValueError(f"{name}: expected at least one (n, {dim}) array of positions, got none")
        shapes = {np.shape(s) for s in states}
        if len(shapes) != 1:
            raise ValueError(f"{name}: expected every state to have the same shape (n, {dim}), got shapes "
                             f"{sorted(shapes)}")
    arr = checks.finite_array(states, name)
    if arr.ndim != 3 or arr.shape[2] != dim or arr.shape[1] == 0:
        raise ValueError(f"{name}: expected a sequence of (n, {dim}) position arrays, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name}: expected at least one (n, {dim}) array of positions, got none")
    return arr


def _series(series, length, name, what):
    """{name: (length,) finite array} from a non-empty dict (any length when ``length`` is None)."""
    if not isinstance(series, dict):
        raise TypeError(f"{name}: expected a non-empty dict {{name: values}}, got {type(series).__name__}")
    if not series:
        raise ValueError(f"{name}: expected a non-empty dict {{name: values}}, got an empty dict")
    out = {}
    for key, v in series.items():
        v = checks.finite_array(v, f"{name}[{key!r}]")
        if v.ndim != 1:
            raise ValueError(f"{name}[{key!r}]: expected a one-dimensional array, got shape {v.shape}")
        if length is not None and v.shape[0] != length:
            raise ValueError(f"{name}[{key!r}]: expected {length} values (there are {length} {what}), "
                             f"got {v.shape[0]}")
        out[key] = v
    return out
