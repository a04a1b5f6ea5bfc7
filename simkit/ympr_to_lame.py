"""Lamé parameters from Young's modulus and Poisson's ratio."""
import numpy as np

from . import _validate


def ympr_to_lame(ym, pr):
    r"""Shear modulus and first Lamé parameter of an isotropic material (3D formulas).

    :math:`\mu = \frac{E}{2(1+\nu)},\quad \lambda = \frac{E\nu}{(1+\nu)(1-2\nu)}`

    In 2D simkit's elements are plane strain (a slab infinitely deep along z), so these 3D
    formulas apply unchanged; a 2D beam then bends with the plane-strain modulus
    :math:`E' = E / (1 - \nu^2)`.

    Parameters
    ----------
    ym : float or array
        Young's modulus E, > 0.
    pr : float or array
        Poisson's ratio nu, in the open interval (-1, 0.5) (0.5 is incompressible: lam = inf).

    Returns
    -------
    mu, lam : float or array
        Floats for scalar input, else arrays of the broadcast shape.
    """
    E = _validate.finite_array(ym, "ym")
    nu = _validate.finite_array(pr, "pr")
    if E.size and not (E > 0).all():
        raise ValueError(f"ym: expected Young's modulus > 0, found min {E.min():g}")
    if nu.size and not ((nu > -1) & (nu < 0.5)).all():
        bad = nu[(nu <= -1) | (nu >= 0.5)].reshape(-1)[0]
        raise ValueError(f"pr: expected Poisson's ratio in the open interval (-1, 0.5), found {bad:g}")
    try:
        E, nu = np.broadcast_arrays(E, nu)
    except ValueError:
        raise ValueError(f"ym, pr: shapes {E.shape} and {nu.shape} do not broadcast") from None
    mu = E / (2.0 * (1.0 + nu))
    lam = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))
    if mu.ndim == 0:
        return float(mu), float(lam)
    return mu, lam
