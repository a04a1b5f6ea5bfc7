"""Central finite differences of arbitrary array-valued functions."""
import numpy as np

from . import _validate


def _prepare(f, x, h):
    _validate.callables(f=f)
    x = _validate.finite(np.array(x, dtype=float), "x")
    if x.ndim not in (1, 2) or (x.ndim == 2 and x.shape[1] != 1):
        raise ValueError(f"x: expected shape (N,) or (N, 1), got {x.shape}")
    return x, _validate.positive_scalar(h, "h")


def _unit(x, i, h):
    e = np.zeros_like(x)
    e.reshape(-1)[i] = h
    return e


def gradient_cfd(f, x, h):
    """Central-difference derivative of f at x, one coordinate at a time.

    Parameters
    ----------
    f : callable
        ``f(x)`` returning a scalar or an array of shape S.
    x : (N,) or (N, 1) float array
        Evaluation point (f receives arrays of this shape).
    h : float
        Step, > 0.

    Returns
    -------
    g : S + (N,) float array
        ``g[..., i] = (f(x + h e_i) - f(x - h e_i)) / (2 h)``; shape (N,) for scalar f.
    """
    x, h = _prepare(f, x, h)
    cols = [(np.asarray(f(x + _unit(x, i, h)), dtype=float) - np.asarray(f(x - _unit(x, i, h)), dtype=float))
            / (2.0 * h) for i in range(x.size)]
    return np.stack(cols, axis=-1)


def hessian_cfd(f, x, h):
    """Central-difference second derivative of f at x.

    Parameters
    ----------
    f : callable
        ``f(x)`` returning a scalar or an array of shape S.
    x : (N,) or (N, 1) float array
        Evaluation point.
    h : float
        Step, > 0.

    Returns
    -------
    H : S + (N, N) float array
        ``H[..., i, j] = (f(x+h e_i+h e_j) - f(x+h e_i-h e_j) - f(x-h e_i+h e_j) + f(x-h e_i-h e_j)) / (4 h^2)``,
        symmetric by construction.
    """
    x, h = _prepare(f, x, h)

    def value(y):
        return np.asarray(f(y), dtype=float)

    def second_difference(i, j):
        ei, ej = _unit(x, i, h), _unit(x, j, h)
        return (value(x + ei + ej) - value(x + ei - ej) - value(x - ei + ej) + value(x - ei - ej)) / (4.0 * h * h)

    rows, cols = np.triu_indices(x.size)
    values = np.stack([second_difference(i, j) for i, j in zip(rows, cols)], axis=-1)
    H = np.zeros(values.shape[:-1] + (x.size, x.size))
    H[..., rows, cols] = values
    H[..., cols, rows] = values
    return H
