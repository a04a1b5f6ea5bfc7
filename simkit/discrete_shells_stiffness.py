"""Discrete-shells bending stiffness of each hinge from the rest mesh."""
import numpy as np

from . import _validate


def _hinge_geometry(X, C):
    """Squared hinge-edge lengths and the areas of both triangles of each quad (e0, e1, o0, o1)."""
    e = X[C[:, 1]] - X[C[:, 0]]
    a1, a2 = (0.5 * np.linalg.norm(np.cross(e, X[C[:, apex]] - X[C[:, 0]]), axis=1) for apex in (2, 3))
    return np.einsum("ij,ij->i", e, e), a1, a2


def discrete_shells_stiffness(X, C, k_bend=1.0):
    r"""Stiffness ``kappa`` of every hinge of the discrete-shells energy (Grinspun et al. 2003).

    Parameters
    ----------
    X : (n, 3) float array
        Rest positions.
    C : (c, 4) int array
        Hinge quads (e0, e1, o0, o1), e.g. ``simkit.hinge_quads(F)``.
    k_bend : float or (c,) / (c, 1) float array, optional
        Bending modulus (>= 0), per hinge or one for all.

    Returns
    -------
    kappa : (c, 1) float array
        :math:`\kappa_h = k\,3\lVert e_h\rVert^2/(A_1+A_2)` from the rest hinge edge
        :math:`e_h` and the rest areas :math:`A_1, A_2` of its two triangles, for the density
        ``1/2 kappa (theta - theta0)^2`` of ``simkit.energies.bending_energy_x``.

    Notes
    -----
    ``3 |e|^2 / (A_1 + A_2) = 3 |e| / h`` with h the mean altitude of the two triangles onto
    e: Grinspun et al.'s weight. Their energy ``k 3 |e|^2 / A (theta - theta0)^2`` carries no
    1/2, so for the same modulus k the energy here is half of theirs. Upstream simkit 0.1.8
    weights its hinges by ``|e| / h`` (one third of this weight) in the density
    ``ym |e| / h (theta - theta0)^2`` (no 1/2): for ``ym = k`` the energy here is 3/2 of
    upstream's. Either way the weight scales as ``|e| / h``, so a rolled grid sheet's energy
    depends on its triangulation (see the cylinder test); calibrate k per mesh family.
    """
    X = _validate.positions(X, "X", dims=(3,))
    C = _validate.index_array(C, "C", 4, X.shape[0])
    k_bend = _validate.element_param(k_bend, "k_bend", C.shape[0])
    ee, a1, a2 = _hinge_geometry(X, C)
    if not (a1 + a2 > 0).all():
        h = np.flatnonzero(~(a1 + a2 > 0))[0]
        raise ValueError(f"X: both triangles of hinge {h} (vertices {C[h].tolist()}) have zero area")
    return (k_bend * 3.0 * ee / (a1 + a2)).reshape(-1, 1)
