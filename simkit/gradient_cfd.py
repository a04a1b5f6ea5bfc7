"""Central finite differences of arbitrary array-valued functions."""
import numpy as np

from . import _validate


def _prepare(phi, y, h):
    _validate.callables(phi=phi)
    y = _validate.finite(np.array(_validate.real_array(y, "y"), dtype=float), "y")
    if y.ndim not in (1, 2) or (y.ndim == 2 and y.shape[1] != 1):
        raise ValueError(f"y: expected shape (N,) or (N, 1), got {y.shape}")
    return y, _validate.positive_scalar(h, "h")


def _unit(y, i, h):
    e = np.zeros_like(y)
    e.reshape(-1)[i] = h
    return e


def gradient_cfd(phi, y, h):
    r"""Central-difference derivative of phi at y, one coordinate at a time.

    :math:`g_{\ldots, i} = \dfrac{\phi(y + h e_i) - \phi(y - h e_i)}{2h}`

    Parameters
    ----------
    phi : callable
        ``phi(y)`` returning a scalar or an array of shape S.
    y : (N,) or (N, 1) float array
        Evaluation point (phi receives arrays of this shape).
    h : float
        Step, > 0.

    Returns
    -------
    g : S + (N,) float array
        Shape (N,) for a scalar phi.
    """
    y, h = _prepare(phi, y, h)
    cols = [(np.asarray(phi(y + _unit(y, i, h)), dtype=float) - np.asarray(phi(y - _unit(y, i, h)), dtype=float))
            / (2.0 * h) for i in range(y.size)]
    return np.stack(cols, axis=-1)


def hessian_cfd(phi, y, h):
    r"""Central-difference second derivative of phi at y.

    :math:`H_{\ldots, ij} = \dfrac{\phi(y{+}he_i{+}he_j) - \phi(y{+}he_i{-}he_j) - \phi(y{-}he_i{+}he_j) + \phi(y{-}he_i{-}he_j)}{4h^2}`

    Parameters
    ----------
    phi : callable
        ``phi(y)`` returning a scalar or an array of shape S.
    y : (N,) or (N, 1) float array
        Evaluation point.
    h : float
        Step, > 0.

    Returns
    -------
    H : S + (N, N) float array
        Symmetric in its last two axes by construction.
    """
    y, h = _prepare(phi, y, h)

    def value(p):
        return np.asarray(phi(p), dtype=float)

    def second_difference(i, j):
        ei, ej = _unit(y, i, h), _unit(y, j, h)
        return (value(y + ei + ej) - value(y + ei - ej) - value(y - ei + ej) + value(y - ei - ej)) / (4.0 * h * h)

    rows, cols = np.triu_indices(y.size)
    values = np.stack([second_difference(i, j) for i, j in zip(rows, cols)], axis=-1)
    H = np.zeros(values.shape[:-1] + (y.size, y.size))
    H[..., rows, cols] = values
    H[..., cols, rows] = values
    return H
