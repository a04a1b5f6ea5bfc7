"""The unchecked hinge-bending kernels: the one copy of the bending formula, on validated hinges.

``psi(theta) = 1/2 kappa (theta - theta0)^2`` per hinge (``theta - theta0`` wrapped into
[-pi, pi)), its derivative in theta, and the total energy and per-hinge gradients of positions
``Xt`` (dim, n), hinge by hinge in cache-sized chunks. The public tiers
(``simkit.energies.bending``) validate and call these; ``simkit.terms.Bending`` calls them on
the hinges it validated once.
"""
import numpy as np

from .._hinge_angle import angle_difference, chunks, hinges


def psi(theta, theta0, kappa):
    return 0.5 * kappa * angle_difference(theta, theta0) ** 2


def dpsi(theta, theta0, kappa):
    return kappa * angle_difference(theta, theta0)


def energy(Xt, C, theta0, kappa):
    """Total bending energy of positions Xt (dim, n), transposed and contiguous: float."""
    return float(sum(psi(hinges(Xt, C[sl]).theta, theta0[sl], kappa[sl]).sum() for sl in chunks(C.shape[0])))


def gradient_values(Xt, C, theta0, kappa):
    """Each hinge's gradient on its own nodes, (q*dim, c) node-major rows, for ``_assembly.vector_scatter``."""
    g = np.empty((Xt.shape[0] * C.shape[1], C.shape[0]))
    for sl in chunks(C.shape[0]):
        h = hinges(Xt, C[sl])
        g[:, sl] = h.gradient(dpsi(h.theta, theta0[sl], kappa[sl]))
    return g
