"""Independent reference solutions the chapter tests compare printed numbers with.

Each model is rebuilt here from simkit's functions and the chapter's stated constants (or
solved in closed form), never from the chapter's own code, so a chapter whose model drifts
from what its text says fails its test.
"""
import numpy as np
import scipy.sparse as sps
from scipy.optimize import brentq

import simkit
from simkit import energies
from simkit.solvers import newton_solver

# chapter 14's default cantilever (its text: L = 4, EA = 2e4, EI = 50, rho = 0.2, g = -9.8, two nodes clamped)
BEAM_014 = {"L": 4.0, "EA": 2.0e4, "EI": 50.0, "rho": 0.2, "g": -9.8, "k_pin": 1e10}


def cantilever_014(N=21, L=4.0, EA=2.0e4, EI=50.0, rho=0.2, g=-9.8, k_pin=1e10):
    """Static shape (N, 2) of chapter 14's clamped beam: springs EA/l, hinges EI/l, gravity, two pinned nodes.

    Built directly from simkit's energies (``mass_springs_*_z``, ``bending_*_x``, ``dirichlet_penalty``)
    and solved by ``newton_solver`` to a step of 1e-9; raises if Newton does not converge.
    """
    X = np.column_stack([np.linspace(0.0, L, N), np.zeros(N)])
    E = np.column_stack([np.arange(N - 1), np.arange(1, N)])
    C = np.column_stack([np.arange(N - 2), np.arange(1, N - 1), np.arange(2, N)])
    l = L / (N - 1)
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    l0 = simkit.edge_lengths(X, E).reshape(-1, 1)
    k, vol = np.full_like(l0, EA / l), np.ones_like(l0)
    kappa, theta0 = np.full(N - 2, EI / l), np.zeros(N - 2)
    f = simkit.gravity_force(X, E, a=g, rho=rho).reshape(-1, 1)
    Q, b = simkit.dirichlet_penalty(np.array([0, 1]), X[[0, 1]], N, k_pin)

    def energy(x):
        return (energies.mass_springs_energy_z(x, J, k, vol, l0) + energies.bending_energy_x(x, C, theta0, kappa)
                + energies.quadratic_energy(x, Q, b) - (f.T @ x).item())

    def gradient(x):
        return (energies.mass_springs_gradient_z(x, J, k, vol, l0) + energies.bending_gradient_x(x, C, theta0, kappa)
                + energies.quadratic_gradient(x, Q, b) - f)

    def hessian(x):
        return (energies.mass_springs_hessian_z(x, J, k, vol, l0, psd=True)
                + energies.bending_hessian_x(x, C, theta0, kappa, psd=True) + energies.quadratic_hessian(Q))

    x, info = newton_solver(X.reshape(-1, 1), energy, gradient, hessian, tolerance=1e-9, max_iter=300,
                            return_info=True)
    if not info["converged"]:
        raise RuntimeError(f"cantilever_014(N={N}): Newton did not converge in 300 iterations")
    return x.reshape(N, 2)


def elastic_catenary_sag(EA, w, L0, span):
    """Irvine's elastic catenary between supports at equal height: (mid-span sag, horizontal tension H).

    H solves ``H L0 / EA + 2 (H / w) asinh(V / H) = span`` with ``V = w L0 / 2``; at mid-span
    (s = L0 / 2, where the vertical tension vanishes) the sag is
    ``w L0^2 / (8 EA) + (H / w) (sqrt(1 + (V / H)^2) - 1)``.
    """
    V = w * L0 / 2
    H = brentq(lambda H: H * L0 / EA + 2 * H / w * np.arcsinh(V / H) - span, 1e-9 * w * L0, 1e9 * w * L0,
               xtol=1e-14, rtol=1e-14)
    return w * L0 ** 2 / (8 * EA) + H / w * (np.sqrt(1 + (V / H) ** 2) - 1), H
