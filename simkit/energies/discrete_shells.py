"""Discrete-shells bending (Grinspun et al. 2003): the 3D (triangle-pair) case of ``bending``.

Density per interior edge (hinge quad (e0, e1, o0, o1), hinge edge (e0, e1))::

    psi = 1/2 * kappa * (theta - theta0)^2

with theta the signed dihedral angle of ``simkit.dihedral_angles``. Each function takes either
the raw per-hinge ``theta0, kappa`` or the physical input: the rest positions ``X0`` and a
bending modulus ``k_bend``, from which ``theta0 = dihedral_angles(X0, C)`` and
``kappa = discrete_shells_stiffness(X0, C, k_bend)`` (``3 |e|^2 / (A1 + A2)`` times the
modulus). Both then delegate to the unified ``bending_*_x``.
"""
import numpy as np

from .. import _assembly, _validate
from ..dihedral_angles import dihedral_angles
from ..discrete_shells_stiffness import discrete_shells_stiffness
from .bending import bending_energy_x, bending_gradient_x, bending_hessian_x

_rest_states = _assembly.ArrayKeyedCache()


def _rest_state(C, theta0, kappa, X0, k_bend):
    """(theta0, kappa) from exactly one of the raw pair or the physical pair (X0, k_bend)."""
    shape = np.shape(C)
    if len(shape) != 2 or shape[1] != 4:
        raise ValueError(f"C: discrete shells need 3D hinge quads of shape (c, 4), got shape {shape}")
    raw = theta0 is not None or kappa is not None
    physical = X0 is not None or k_bend is not None
    if raw == physical or (raw and (theta0 is None or kappa is None)) or (physical and (X0 is None or k_bend is None)):
        raise TypeError("theta0, kappa: pass either the raw per-hinge theta0 and kappa, or the rest "
                        "positions X0= and the bending modulus k_bend= (keywords), not a mix")
    if raw:
        return theta0, kappa
    X0 = _validate.positions(X0, "X0", dims=(3,))
    k_bend = np.asarray(k_bend, dtype=float)
    return _rest_states.get((), (X0, np.asarray(C), k_bend),
                            lambda: (dihedral_angles(X0, C), discrete_shells_stiffness(X0, C, k_bend)))


def discrete_shells_bending_energy(x, C, theta0=None, kappa=None, *, X0=None, k_bend=None):
    r"""Discrete-shells bending energy.

    Parameters
    ----------
    x : (n*3, 1) float array
        Stacked 3D positions.
    C : (c, 4) int array
        Hinge quads (e0, e1, o0, o1), e.g. ``simkit.hinge_quads(F)``.
    theta0, kappa : (c, 1) or (c,) float arrays, optional
        Raw rest dihedral angles and stiffness (>= 0) of each hinge.
    X0 : (n, 3) float array, keyword-only, optional
        Rest positions, instead of theta0 and kappa (with k_bend).
    k_bend : float or (c,) float array, keyword-only, optional
        Bending modulus, with X0.

    Returns
    -------
    energy : float
        :math:`E = \sum_h \tfrac12 \kappa_h (\theta_h - \theta_{0,h})^2`, with
        :math:`\kappa_h = k\,3\lVert e_h\rVert^2/(A_1+A_2)` from X0 and k_bend.
    """
    return bending_energy_x(x, C, *_rest_state(C, theta0, kappa, X0, k_bend))


def discrete_shells_bending_gradient(x, C, theta0=None, kappa=None, *, X0=None, k_bend=None):
    r"""Gradient of ``discrete_shells_bending_energy``.

    Parameters
    ----------
    x : (n*3, 1) float array
        Stacked 3D positions.
    C : (c, 4) int array
        Hinge quads.
    theta0, kappa : (c, 1) or (c,) float arrays, optional
        Raw rest angles and stiffness; or X0= and k_bend= as in the energy.
    X0, k_bend : keyword-only, optional
        Rest positions and bending modulus.

    Returns
    -------
    g : (n*3, 1) float array
        :math:`\nabla E = \sum_h \kappa_h (\theta_h - \theta_{0,h}) \nabla\theta_h`.
    """
    return bending_gradient_x(x, C, *_rest_state(C, theta0, kappa, X0, k_bend))


def discrete_shells_bending_hessian(x, C, theta0=None, kappa=None, *, X0=None, k_bend=None, psd=False):
    r"""Hessian of ``discrete_shells_bending_energy``.

    Parameters
    ----------
    x : (n*3, 1) float array
        Stacked 3D positions.
    C : (c, 4) int array
        Hinge quads.
    theta0, kappa : (c, 1) or (c,) float arrays, optional
        Raw rest angles and stiffness; or X0= and k_bend= as in the energy.
    X0, k_bend : keyword-only, optional
        Rest positions and bending modulus.
    psd : bool or {"exact", "gauss-newton"}, keyword-only, optional
        Default False (exact). Otherwise each 12x12 hinge block is replaced by a positive
        semi-definite one, as in ``bending_hessian_x``: True is "gauss-newton"
        (``psd_project`` of ``kappa g g^T``), "exact" is ``psd_project`` of the exact block.

    Returns
    -------
    H : (n*3, n*3) scipy.sparse.csc_matrix
        :math:`H = \sum_h \kappa_h (\nabla\theta_h \nabla\theta_h^T + (\theta_h - \theta_{0,h}) \nabla^2\theta_h)`,
        or its per-hinge projection.
    """
    return bending_hessian_x(x, C, *_rest_state(C, theta0, kappa, X0, k_bend), psd=psd)
