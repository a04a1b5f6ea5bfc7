"""A reduced backward-Euler step: inertia B^T M B, gravity B^T f, the elastic energy of z."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit.integrators import backward_euler
from simkit.terms import ElasticEnergy, Gravity, ReducedElasticEnergy, Sum

H = 0.02
TIGHT = {"tolerance": 1e-12, "max_iter": 60}


def body(dim):
    if dim == 2:
        return simkit.grid_rectangle(4, 3, 1.0, 0.5)
    return simkit.grid_box(3, 3, 2, 1.0, 0.5, 0.5)


def full_problem(X, T, mu=1e3, lam=4e3, rho=10.0):
    n, d = X.shape
    M = sps.kron(simkit.massmatrix(X, T, rho), sps.identity(d), format="csc")
    f = simkit.gravity_force(X, T, rho=rho).reshape(-1, 1)
    return M, f, Sum(ElasticEnergy(X, T, mu, lam), Gravity(f))


def reduced_problem(X, T, B, M, f, mu=1e3, lam=4e3, **cubature):
    """The same body in x = B z + X: B^T M B, B^T f, and the elastic energy of z."""
    Mr = B.T @ (M @ B)
    Mr = 0.5 * (Mr + Mr.T)
    potential = Sum(ReducedElasticEnergy(X, T, B, mu, lam, x0=X.reshape(-1, 1), **cubature), Gravity(B.T @ f))
    return Mr, potential


def run(step, q0, v0, steps):
    q_prev, q = q0 - H * v0, q0
    out = []
    for _ in range(steps):
        q, q_prev = step(q, q_prev), q
        out.append(q)
    return out


@pytest.mark.parametrize("dim", [2, 3])
def test_a_reduced_step_with_every_mode_equals_the_full_step(dim):
    X, T = body(dim)
    N = X.size
    E, B = simkit.linear_modal_analysis(X, T, N, mu=1e3, lam=4e3, rho=10.0)    # every mode: B is invertible
    M, f, full = full_problem(X, T)
    Mr, reduced = reduced_problem(X, T, B, M, f)
    np.testing.assert_allclose(Mr, np.eye(N), atol=1e-10)                          # mass-orthonormal modes
    rng = np.random.default_rng(dim)
    v0 = 0.3 * rng.standard_normal((N, 1))
    x0 = X.reshape(-1, 1) + 0.02 * rng.standard_normal((N, 1))
    z0 = simkit.project_into_subspace(x0 - X.reshape(-1, 1), B, M)
    vz = simkit.project_into_subspace(v0, B, M)
    xs = run(lambda x, xp: backward_euler(x, xp, full.energy, full.gradient, full.hessian, M, H, **TIGHT), x0, v0, 5)
    zs = run(lambda z, zp: backward_euler(z, zp, reduced.energy, reduced.gradient, reduced.hessian, Mr, H, **TIGHT),
             z0, vz, 5)
    for x, z in zip(xs, zs):
        np.testing.assert_allclose(B @ z + X.reshape(-1, 1), x, atol=1e-9)


def test_with_a_few_modes_the_step_is_the_galerkin_projection_of_the_full_step():
    """Ten clamped modes of a 3D bar under gravity: B^T times the full step's residual is zero at z1."""
    X, T = simkit.grid_box(9, 3, 3, 2.0, 0.5, 0.5)
    bI = np.flatnonzero(X[:, 0] == 0)
    _, B = simkit.linear_modal_analysis(X, T, 10, bI, mu=1e5, lam=4e5, rho=100.0)
    M, f, full = full_problem(X, T, 1e5, 4e5, 100.0)
    Mr, reduced = reduced_problem(X, T, B, M, f, 1e5, 4e5)
    z0 = np.zeros((10, 1))
    z1, info = backward_euler(z0, z0, reduced.energy, reduced.gradient, reduced.hessian, Mr, H, return_info=True,
                              **TIGHT)
    assert info["converged"]
    x0 = X.reshape(-1, 1)
    x1 = B @ z1 + x0
    assert np.abs((x1 - x0).reshape(-1, 3)[bI]).max() == 0.0             # the clamp holds exactly
    assert (x1 - x0).reshape(-1, 3)[:, 1].mean() < 0                     # it falls
    residual = M @ (x1 - x0) / H ** 2 + full.gradient(x1)                # the full step's objective, at rest
    scale = np.abs(M @ (x1 - x0) / H ** 2).max()
    np.testing.assert_allclose(B.T @ residual, 0.0, atol=1e-9 * scale)
    assert np.abs(residual).max() > 1e-3 * scale                         # (the full step is elsewhere)
