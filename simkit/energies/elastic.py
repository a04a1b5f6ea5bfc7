r"""Hyperelastic energies of linear (P1) triangles and tetrahedra, by material name.

The deformation gradient of element e is ``F_e = (J x).reshape(-1, d, d)[e]`` with J from
``simkit.deformation_jacobian`` (row-major, constant per element), and the energy is

.. math:: E(x) = \sum_e \mathrm{vol}_e\, \psi(F_e)

Materials (``material=``; each has its own module with the formulas): ``'linear-elasticity'``,
``'arap'``, ``'fcr'``, ``'neo-hookean'``, ``'stable-neo-hookean'``. ARAP ignores ``lam``.

In 2D the model is plane strain (a slab infinitely deep along z with no strain along z), as
in upstream simkit: with mu, lam from ``simkit.ympr_to_lame(E, nu)`` a 2D beam bends with the
plane-strain modulus ``E / (1 - nu^2)`` and vol is the area (energy per unit depth).

Tiers (upstream simkit 0.1.8's names and argument order):

- element tier ``elastic_{energy,gradient,hessian}_element_F(F, mu, lam, material)``: psi
  (t, 1), P (t, d, d) and dP/dF (t, d*d, d*d) (row-major F), no volume weights;
- global tier ``elastic_{energy,gradient,hessian}_x(X, J, mu, lam, vol, material)`` with X the
  (n, d) current positions: a float, an (n*d, 1) column and an (n*d, n*d) csc_matrix.

``psd=True`` (the default of the Hessians, keyword-only) projects each element's dP/dF onto
the positive semi-definite cone by clamping the eigenvalues of its analytic eigensystem at 0
(``simkit._isotropic_eigensystem``); upstream runs a batched eigh instead.
"""
from . import _hyperelastic as _he
from . import arap, fcr, linear_elasticity, neo_hookean, stable_neo_hookean  # noqa: F401  (registers them)

MATERIALS = tuple(_he.MATERIALS)


def elastic_energy_element_F(F, mu, lam, material):
    """Energy density of every element for the named material.

    Parameters
    ----------
    F : (t, d, d) float array
        Deformation gradients, d 2 or 3.
    mu, lam : float or (t,) / (t, 1) float arrays
        Lamé parameters per element (``simkit.ympr_to_lame``); lam is ignored by 'arap'.
    material : str
        One of ``MATERIALS``.

    Returns
    -------
    psi : (t, 1) float array
        No volume weighting.
    """
    return _he.energy_element(_he.material(material), F, mu, lam)


def elastic_gradient_element_F(F, mu, lam, material):
    """First Piola-Kirchhoff stress ``P = dpsi/dF`` of every element: (t, d, d). Arguments as the energy."""
    return _he.gradient_element(_he.material(material), F, mu, lam)


def elastic_hessian_element_F(F, mu, lam, material, *, psd=True):
    """``dP/dF`` of every element, (t, d*d, d*d), row-major F (``H[e, i*d + j, k*d + l]``).

    ``psd=True`` (upstream's default) clamps the eigenvalues of the analytic eigensystem at 0.
    """
    return _he.hessian_element(_he.material(material), F, mu, lam, psd)


def elastic_energy_x(X, J, mu, lam, vol, material):
    """Total elastic energy ``sum_e vol_e psi(F_e)``.

    Parameters
    ----------
    X : (n, d) float array
        Current node positions.
    J : (d*d*t, d*n) sparse matrix
        ``simkit.deformation_jacobian(X_rest, T)``.
    mu, lam : float or (t,) / (t, 1) float arrays
        Lamé parameters per element.
    vol : float or (t,) / (t, 1) float array
        Rest measure of each element, ``simkit.volume(X_rest, T)``.
    material : str
        One of ``MATERIALS``.

    Returns
    -------
    E : float
        ``+inf`` for neo-Hookean when an element is inverted (det F <= 0).
    """
    return _he.energy_x(_he.material(material), X, J, mu, lam, vol)


def elastic_gradient_x(X, J, mu, lam, vol, material):
    """Gradient ``J^T vec(vol P)`` of the total energy: (n*d, 1). Arguments as ``elastic_energy_x``."""
    return _he.gradient_x(_he.material(material), X, J, mu, lam, vol)


def elastic_hessian_x(X, J, mu, lam, vol, material, *, psd=True):
    """Hessian ``J^T blockdiag(vol dP/dF) J`` of the total energy: (n*d, n*d) csc_matrix.

    ``psd=True`` (default) projects each element's dP/dF first (clamped analytic eigenvalues).
    """
    return _he.hessian_x(_he.material(material), X, J, mu, lam, vol, psd)
