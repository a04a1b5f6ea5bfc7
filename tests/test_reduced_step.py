"""Reduced backward Euler: z through Map of the full terms, or the cubature fast path; inertia B^T M B."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit.integrators import backward_euler, simulate
from simkit.terms import ElasticEnergy, Gravity, Held, Map, ReducedElasticEnergy, Sum

H = 0.02
TIGHT = {"tolerance": 1e-12, "max_iter": 60}
MU, LAM, RHO = 1e3, 4e3, 10.0


def body(dim):
    if dim == 2:
        return simkit.grid_rectangle(4, 3, 1.0, 0.5)
    return simkit.grid_box(3, 3, 2, 1.0, 0.5, 0.5)


def full_problem(X, T, mu=MU, lam=LAM, rho=RHO):
    """Lumped M, gravity f and the full potential (neo-Hookean + gravity) of stacked x."""
    d = X.shape[1]
    M = sps.kron(simkit.massmatrix(X, T, rho), sps.identity(d), format="csc")
    f = simkit.gravity_force(X, T, rho=rho).reshape(-1, 1)
    return M, f, Sum(ElasticEnergy(X, T, mu, lam), Gravity(f))


def cubature_potential(X, T, B, f, mu=MU, lam=LAM, **cubature):
    """The fast path of the same potential in x = B z + X: ReducedElasticEnergy + Gravity(B^T f)."""
    return Sum(ReducedElasticEnergy(X, T, B, mu, lam, x0=X.reshape(-1, 1), **cubature), Gravity(B.T @ f))


@pytest.mark.parametrize("dim", [2, 3])
def test_a_reduced_run_with_every_mode_equals_the_full_run(dim):
    """Map of the full terms, B every linear mode (invertible): the same five steps as the full loop."""
    X, T = body(dim)
    N = X.size
    _, B = simkit.linear_modal_analysis(X, T, N, mu=MU, lam=LAM, rho=RHO)
    M, f, full = full_problem(X, T)
    reduced = Map(full, B, X.reshape(-1, 1))
    Mr = reduced.project(M)
    np.testing.assert_allclose(Mr, np.eye(N), atol=1e-10)                       # mass-orthonormal modes
    rng = np.random.default_rng(dim)
    x0 = X.reshape(-1, 1) + 0.02 * rng.standard_normal((N, 1))
    v0 = 0.3 * rng.standard_normal((N, 1))
    z0 = simkit.project_into_subspace(x0 - X.reshape(-1, 1), B, M)
    vz = simkit.project_into_subspace(v0, B, M)
    run_full = simulate(full, M, x0, H, 5, v0=v0, **TIGHT)
    run_reduced = simulate(reduced, Mr, z0, H, 5, v0=vz, **TIGHT)
    assert run_full.unconverged == 0 and run_reduced.unconverged == 0
    np.testing.assert_allclose(run_reduced.states, run_full.states, atol=1e-9)   # Map records full states


@pytest.mark.parametrize("dim", [2, 3])
def test_the_cubature_fast_path_with_every_element_is_the_map_of_the_full_terms(dim):
    """ReducedElasticEnergy (all elements) + Gravity(B^T f) steps as Map(full terms): skinning modes."""
    X, T = body(dim)
    _, _, B = simkit.skinning_eigenmodes(X, T, 3)
    M, f, full = full_problem(X, T)
    general = Map(full, B, X.reshape(-1, 1))
    fast = cubature_potential(X, T, B, f)
    Mr = general.project(M)
    z0 = np.zeros((B.shape[1], 1))
    vz = simkit.project_into_subspace(np.tile(np.r_[0.5, 0.2, 0.0][:dim], len(X)), B, M)
    a = simulate(general, Mr, z0, H, 4, v0=vz, **TIGHT)
    b = simulate(fast, Mr, z0, H, 4, v0=vz, **TIGHT)
    np.testing.assert_allclose(b.x, a.x, atol=1e-10)


@pytest.mark.parametrize("dim", [2, 3])
def test_a_cubature_run_is_the_map_of_the_full_terms_on_the_cubature_elements(dim):
    """An optimized cubature: the fast path steps exactly as Map of the full elastic term of the elements T[cI]
    (weights cW through the Lame parameters) plus the full gravity."""
    X, T = simkit.grid_rectangle(9, 3, 2.0, 0.5) if dim == 2 else simkit.grid_box(7, 3, 3, 2.0, 0.5, 0.5)
    bI = np.flatnonzero(X[:, 0] == 0)
    _, _, B = simkit.skinning_eigenmodes(X, T, 3, bI=bI)
    M, f, _ = full_problem(X, T)
    x0 = X.reshape(-1, 1)
    Mr = (B.T @ M @ B).toarray()
    exact = ReducedElasticEnergy(X, T, B, MU, LAM, x0=x0)
    Z = simkit.modal_training_poses(B, exact.hessian(np.zeros((B.shape[1], 1))), Mr, 6, 0.05)
    cI, cW = simkit.optimized_cubature(X, T, B, Z, len(T) // 4, MU, LAM, x0=x0)
    scale = cW / simkit.volume(X, T[cI])[:, 0]
    plain = Map(Sum(ElasticEnergy(X, T[cI], MU * scale, LAM * scale), Gravity(f)), B, x0)
    fast = cubature_potential(X, T, B, f, cI=cI, cW=cW)
    z0 = np.zeros((B.shape[1], 1))
    a = simulate(plain, Mr, z0, H, 5, **TIGHT)
    b = simulate(fast, Mr, z0, H, 5, **TIGHT)
    assert np.abs(a.x).max() > 1e-3                                    # it sags
    np.testing.assert_allclose(b.x, a.x, atol=1e-10)


def test_with_a_few_modes_the_step_is_the_galerkin_projection_of_the_full_step():
    """Ten clamped modes of a 3D bar under gravity: B^T times the full step's residual is zero at z1."""
    X, T = simkit.grid_box(9, 3, 3, 2.0, 0.5, 0.5)
    bI = np.flatnonzero(X[:, 0] == 0)
    _, B = simkit.linear_modal_analysis(X, T, 10, bI, mu=1e5, lam=4e5, rho=100.0)
    M, f, full = full_problem(X, T, 1e5, 4e5, 100.0)
    reduced = cubature_potential(X, T, B, f, 1e5, 4e5)
    Mr = B.T @ M @ B
    z0 = np.zeros((10, 1))
    z1, info = backward_euler(z0, z0, reduced, 0.5 * (Mr + Mr.T), H, return_info=True, **TIGHT)
    assert info["converged"]
    x0 = X.reshape(-1, 1)
    x1 = B @ z1 + x0
    assert np.abs((x1 - x0).reshape(-1, 3)[bI]).max() == 0.0             # the clamp holds exactly
    assert (x1 - x0).reshape(-1, 3)[:, 1].mean() < 0                     # it falls
    residual = M @ (x1 - x0) / H ** 2 + full.gradient(x1)                # the full step's objective, at rest
    scale = np.abs(M @ (x1 - x0) / H ** 2).max()
    np.testing.assert_allclose(B.T @ residual, 0.0, atol=1e-9 * scale)
    assert np.abs(residual).max() > 1e-3 * scale                         # (the full step is elsewhere)


def test_clamped_full_step_through_held_equals_every_free_mode():
    """Held (the free coordinates) against every clamped linear mode: the same step."""
    X, T = body(2)
    bI = np.flatnonzero(X[:, 0] == 0)
    fixed = (bI[:, None] * 2 + np.arange(2)).ravel()
    M, f, full = full_problem(X, T)
    held = Held(full, X.reshape(-1, 1), fixed)
    free = X.size - fixed.size
    _, B = simkit.linear_modal_analysis(X, T, free, bI, mu=MU, lam=LAM, rho=RHO)
    reduced = cubature_potential(X, T, B, f)
    y = simulate(held, held.project(M), X.reshape(-1, 1)[held.free], H, 3, **TIGHT)
    z = simulate(reduced, B.T @ M @ B, np.zeros((free, 1)), H, 3, **TIGHT)
    np.testing.assert_allclose((B @ z.x + X.reshape(-1, 1))[held.free], y.x, atol=1e-9)
