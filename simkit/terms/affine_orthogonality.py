r"""ABD's orthogonality potential: the stiffness that keeps each affine body nearly rigid.

Lan et al. 2022 ("Affine Body Dynamics", eq. 7): :math:`V_\perp = \kappa\, \bar v\, \lVert A A^\top - I \rVert_F^2`
per body, with :math:`\bar v` its rest volume and A its affine map; zero exactly on rotations.
In the coordinates of ``simkit.affine_body_jacobian`` ``A = I + D``, D the body's last dim^2
coordinates (rows of D, ABD's ``a_i``).
"""
import numpy as np

from .. import _assembly, _validate
from .base import Term


def orthogonality_energy_element_A(A):
    r""":math:`\lVert A A^\top - I \rVert_F^2` of every body's map A (nb, d, d): (nb,)."""
    S = A @ np.swapaxes(A, 1, 2) - np.eye(A.shape[1])
    return np.einsum("bij,bij->b", S, S)


def orthogonality_gradient_element_A(A):
    r""":math:`4 (A A^\top - I) A`: (nb, d, d)."""
    S = A @ np.swapaxes(A, 1, 2) - np.eye(A.shape[1])
    return 4.0 * S @ A


def orthogonality_hessian_element_A(A):
    r"""Exact Hessian in row-major vec(A): (nb, d*d, d*d).

    :math:`H_{(ij),(kl)} = 4\,[\delta_{ik} (A^\top A)_{lj} + A_{il} A_{kj} + (A A^\top - I)_{ik} \delta_{jl}]`
    """
    nb, d, _ = A.shape
    eye = np.eye(d)
    S = A @ np.swapaxes(A, 1, 2) - eye
    AtA = np.swapaxes(A, 1, 2) @ A
    H = (np.einsum("ik,blj->bijkl", eye, AtA) + np.einsum("bil,bkj->bijkl", A, A)
         + np.einsum("bik,jl->bijkl", S, eye))
    return 4.0 * H.reshape(nb, d * d, d * d)


class AffineOrthogonality(Term):
    r"""Orthogonality potential of affine bodies, a term of their coordinates z.

    :math:`E(z) = \sum_b \kappa\, \bar v_b\, \lVert A_b A_b^\top - I \rVert_F^2`, :math:`A_b = I + D_b(z)`

    Parameters
    ----------
    vol : float or (nb,) float array
        Rest volume (area in 2D) of each body, > 0, e.g.
        ``np.bincount(bodies[T[:, 0]], weights=simkit.volume(X, T)[:, 0])``.
    kappa : float
        Stiffness in Pa (ABD suggests 100 MPa to 100 GPa for near-rigid solids), > 0.
    dim : int, optional, keyword-only
        2 or 3 (default): each body has dim (dim + 1) coordinates.
    psd : bool, optional, keyword-only
        Project each body's Hessian onto the PSD cone (eigenvalues clamped at 0; default True).
        The exact Hessian is indefinite once a body is compressed below a rotation.

    Attributes
    ----------
    vol : (nb,) float array
    kappa : float
    size : int
        nb * dim * (dim + 1).
    """

    def __init__(self, vol, kappa, *, dim=3, psd=True):
        dim = _validate.integer(dim, "dim")
        if dim not in (2, 3):
            raise ValueError(f"dim: expected 2 or 3, got {dim}")
        vol = _validate.finite_array(vol, "vol").reshape(-1)
        if vol.size == 0 or not vol.min() > 0:
            raise ValueError(f"vol: expected one positive rest volume per body, got {vol}")
        self.vol, self.kappa, self.dim = vol, _validate.positive_scalar(kappa, "kappa"), dim
        self.psd = _validate.boolean(psd, "psd")
        s = dim * (dim + 1)
        self.size = vol.size * s
        self._dofs = np.arange(vol.size)[:, None] * s + dim + np.arange(dim * dim)[None, :]   # (nb, dim^2)
        self._weight = self.kappa * self.vol

    def maps(self, z):
        """The affine maps ``A_b = I + D_b`` of every body, (nb, dim, dim)."""
        z = self._x(z)
        return np.eye(self.dim) + z[self._dofs, 0].reshape(-1, self.dim, self.dim)

    def energy(self, z):
        """Total potential, float."""
        return float(self._weight @ orthogonality_energy_element_A(self.maps(z)))

    def gradient(self, z):
        """Gradient (size, 1): ``4 kappa v (A A^T - I) A`` on each body's map coordinates, zero on translations."""
        G = orthogonality_gradient_element_A(self.maps(z)) * self._weight[:, None, None]
        return _assembly.assemble_vector(G.reshape(G.shape[0], -1), self._dofs, self.size)

    def hessian(self, z):
        """Hessian (size, size) csc_matrix, block diagonal over the bodies (projected if ``psd``)."""
        H = orthogonality_hessian_element_A(self.maps(z))
        if self.psd:
            lam, Q = np.linalg.eigh(H)
            H = (Q * np.maximum(lam, 0.0)[:, None, :]) @ np.swapaxes(Q, 1, 2)
        return _assembly.assemble_matrix(H * self._weight[:, None, None], self._dofs, self.size)
