"""Quadratic energy: values, derivatives and the chapter's soft-pin use."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit.energies import quadratic_energy, quadratic_gradient, quadratic_hessian

FD_STEP = 1e-6
GRAD_TOL = 1e-8
ROUNDOFF = 1e-12


@pytest.mark.parametrize("sparse", [False, True])
def test_quadratic_energy_gradient_hessian(sparse):
    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 6))
    Q = A @ A.T
    b = rng.standard_normal((6, 1))
    x = rng.standard_normal((6, 1))
    Qm = sps.csc_matrix(Q) if sparse else Q
    np.testing.assert_allclose(quadratic_energy(x, Qm, b), 0.5 * (x.T @ Q @ x).item() + (b.T @ x).item(),
                               rtol=ROUNDOFF)
    g = quadratic_gradient(x, Qm, b)
    np.testing.assert_allclose(g, Q @ x + b, rtol=ROUNDOFF)
    g_fd = simkit.gradient_cfd(lambda y: quadratic_energy(y, Qm, b), x, FD_STEP)
    np.testing.assert_allclose(g.ravel(), g_fd, rtol=GRAD_TOL, atol=GRAD_TOL)
    H = quadratic_hessian(Qm)
    assert H is Qm
    np.testing.assert_allclose(H.toarray() if sparse else H, Q, rtol=ROUNDOFF)


def test_pin_penalty_through_the_quadratic_energy_vanishes_at_the_targets():
    n = 5
    X = np.column_stack([np.arange(n, dtype=float), np.zeros(n)])
    pins = np.array([0, n - 1])
    Q, b = simkit.dirichlet_penalty(pins, X[pins], n, 1e5)
    x = X.reshape(-1, 1)
    np.testing.assert_allclose(quadratic_gradient(x, Q, b), 0.0, atol=1e-9)
    moved = x.copy()
    moved[1] += 0.01
    np.testing.assert_allclose(quadratic_energy(moved, Q, b) - quadratic_energy(x, Q, b), 0.5 * 1e5 * 1e-4,
                               rtol=1e-9)
