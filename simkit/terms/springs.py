r"""Strain-normalized mass springs: the stretch term of rods, beams and cloth.

Density per spring, in its length :math:`l_e = \lVert (J x)_e \rVert`::

    psi_e = vol_e * 1/2 * ym_e * ((l_e - l0_e) / l0_e)^2

so the axial stiffness ``d^2 psi_e / d l_e^2 = ym_e vol_e / l0_e^2``: ``ym = EA`` and
``vol = l0`` give the ``EA / l`` springs of a discretized rod. It is simkit's (unnormalized)
``mass_springs_*_z`` with stiffness ``ym / l0^2``.
"""
import numpy as np
import scipy.sparse as sps

from .. import _assembly, _validate
from ..energies._spring_kernels import dpsi, psi, weighted_blocks
from .base import Term


class SpringEnergy(Term):
    r"""Strain-normalized mass springs, on simkit's ``mass_springs_*_z``.

    :math:`\Psi(x) = \sum_e v_e \tfrac{1}{2} Y_e \left(\frac{l_e - l_{0,e}}{l_{0,e}}\right)^2`, :math:`l_e = \lVert (J x)_e \rVert`

    The axial stiffness of spring e is ``d^2 Psi / d l_e^2 = ym_e * vol_e / l0_e^2``, so
    ``ym = EA`` and ``vol = l0`` give the ``EA / l`` springs of a discretized rod. simkit's
    (unnormalized) stiffness is ``ym / l0^2``; the Hessian is the PSD-projected one.

    Parameters
    ----------
    J : (m*dim, n*dim) sparse matrix or array
        Stacked edge-vector operator, ``d = J x``. The number of springs m and their
        dimension come from J: its ``kron(B, I_dim)`` structure (dim 2 or 3), or `dim`.
    ym : (m, 1) or (m,) float array, or a scalar
        Young's-modulus-like stiffness per spring (e.g. ``EA``), >= 0; one value means every spring.
    vol : (m, 1) or (m,) float array, or a scalar
        Quadrature weight per spring (e.g. its rest length), >= 0.
    l0 : (m, 1) or (m,) float array, or a scalar
        Rest length per spring, > 0.
    dim : int, optional, keyword-only
        Spatial dimension, for an operator without ``kron(B, I_dim)`` structure.
    """

    def __init__(self, J, ym, vol, l0, *, dim=None):
        shape = J.shape if sps.issparse(J) or isinstance(J, np.ndarray) else None
        if shape is None or len(shape) != 2:
            raise TypeError(f"J: expected a 2D sparse matrix or array of shape (m*dim, n*dim), got "
                            f"{type(J).__name__} of shape {shape}")
        self.J = sps.csc_matrix(J)
        self._operator = _assembly.operator_pattern(self.J, shape[1], dim)
        m = self._operator.m
        self.dim = self._operator.dim
        self.ym = _validate.element_param(ym, "ym", m, what="spring")
        self.vol = _validate.element_param(vol, "vol", m, what="spring")
        self.l0 = _validate.element_param(l0, "l0", m, positive=True, what="spring")
        self._k = self.ym / self.l0 ** 2
        self.size = shape[1]

    def energy(self, x):
        """Total spring energy, float."""
        d = self._operator.edge_vectors(self._x(x))
        return float(self.vol @ psi(d, self._k, self.l0))

    def gradient(self, x):
        """Gradient, (N, 1) float array."""
        d = self._operator.edge_vectors(self._x(x))
        return self._operator.transpose_apply(self.vol[:, None] * dpsi(d, self._k, self.l0))

    def hessian(self, x):
        """PSD-projected Hessian, (N, N) sparse matrix."""
        d = self._operator.edge_vectors(self._x(x))
        Jl = self._operator.local
        B = weighted_blocks(d, self._k, self.vol, self.l0, True)
        return self._operator.pattern.matrix(np.swapaxes(Jl, 1, 2) @ B @ Jl)
