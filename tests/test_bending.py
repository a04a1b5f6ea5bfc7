"""Hinge bending (2D triples, 3D quads) and the discrete-shells wrappers."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit.energies import (bending_energy_x, bending_gradient_x, bending_hessian_x,
                             discrete_shells_bending_energy, discrete_shells_bending_gradient,
                             discrete_shells_bending_hessian)

FD_STEP = 1e-6
GRAD_TOL = 1e-6
HESS_TOL = 1e-6
ROUNDOFF = 1e-12
FLOOR = 1e-6


def rel_err(a, b):
    return np.linalg.norm(np.asarray(a) - np.asarray(b)) / np.linalg.norm(np.asarray(b))


def random_hinges(dim, seed, n=9):
    """Random positions (stacked), hinges sharing nodes, rest angles and stiffness, away from rest."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, dim))
    if dim == 2:
        C = np.column_stack([np.arange(n - 2), np.arange(1, n - 1), np.arange(2, n)])
    else:
        C = np.array([[0, 1, 2, 3], [1, 2, 3, 4], [4, 2, 3, 5], [5, 3, 4, 6], [6, 4, 5, 7], [8, 5, 6, 7]])
    theta0 = rng.uniform(-0.5, 0.5, (len(C), 1))
    kappa = rng.uniform(0.5, 2.0, (len(C), 1))
    return X.reshape(-1, 1), C, theta0, kappa


def arc(N, total_turn, length=4.0):
    """A polyline of N nodes bent into a circular arc with the given total turning angle."""
    l = length / (N - 1)
    dphi = total_turn / (N - 1)
    headings = -0.5 * total_turn + dphi * np.arange(N - 1) + dphi / 2
    steps = l * np.column_stack([np.cos(headings), np.sin(headings)])
    return np.vstack([np.zeros(2), np.cumsum(steps, axis=0)])


@pytest.mark.parametrize("dim", [2, 3])
def test_gradient_and_hessian_match_central_differences(dim):
    x, C, theta0, kappa = random_hinges(dim, seed=dim)
    g = bending_gradient_x(x, C, theta0, kappa)
    assert g.shape == x.shape
    g_fd = simkit.gradient_cfd(lambda y: bending_energy_x(y, C, theta0, kappa), x, FD_STEP)
    assert rel_err(g.ravel(), g_fd) < GRAD_TOL
    H = bending_hessian_x(x, C, theta0, kappa)
    assert sps.issparse(H) and H.format == "csc" and H.shape == (x.size, x.size)
    H_fd = simkit.gradient_cfd(lambda y: bending_gradient_x(y, C, theta0, kappa).ravel(), x, FD_STEP)
    assert rel_err(H.toarray(), H_fd) < HESS_TOL
    np.testing.assert_allclose(H.toarray(), H.toarray().T, atol=ROUNDOFF)


def _projected_reference(x, C, theta0, kappa):
    """sum over hinges of psd_project(exact hinge block), each block read off a one-hinge Hessian."""
    dim = 2 if C.shape[1] == 3 else 3
    H = np.zeros((x.size, x.size))
    for i in range(len(C)):
        dofs = (C[i][:, None] * dim + np.arange(dim)).ravel()
        block = bending_hessian_x(x, C[i:i + 1], theta0[i:i + 1], kappa[i:i + 1]).toarray()[np.ix_(dofs, dofs)]
        H[np.ix_(dofs, dofs)] += simkit.psd_project(block[None])[0]
    return H


@pytest.mark.parametrize("dim", [2, 3])
def test_projected_hessian_equals_psd_project_of_each_hinge_block(dim):
    x, C, theta0, kappa = random_hinges(dim, seed=10 + dim)
    theta0 = theta0 + 1.5
    H = bending_hessian_x(x, C, theta0, kappa, psd="exact").toarray()
    H_ref = _projected_reference(x, C, theta0, kappa)
    np.testing.assert_allclose(H, H_ref, atol=ROUNDOFF * np.abs(H_ref).max())
    assert np.linalg.eigvalsh(H).min() > -ROUNDOFF
    assert np.linalg.eigvalsh(bending_hessian_x(x, C, theta0, kappa).toarray()).min() < 0


def test_2d_closed_form_projection_at_rest_and_for_many_random_hinges():
    rng = np.random.default_rng(20)
    n = 60
    X = rng.standard_normal((n, 2))
    C = rng.permuted(np.tile(np.arange(n), (40, 1)), axis=1)[:, :3]
    theta0 = rng.uniform(-3, 3, (40, 1))
    kappa = rng.uniform(0.1, 5.0, (40, 1))
    x = X.reshape(-1, 1)
    H = bending_hessian_x(x, C, theta0, kappa, psd="exact").toarray()
    H_ref = _projected_reference(x, C, theta0, kappa)
    np.testing.assert_allclose(H, H_ref, atol=ROUNDOFF * np.abs(H_ref).max())
    at_rest = simkit.dihedral_angles(X, C)
    H0 = bending_hessian_x(x, C, at_rest, kappa, psd="exact").toarray()
    np.testing.assert_allclose(H0, _projected_reference(x, C, at_rest, kappa), atol=ROUNDOFF * np.abs(H0).max())


def test_straight_beam_has_zero_energy_and_gradient():
    N = 21
    X = np.column_stack([np.linspace(0, 4, N), np.zeros(N)])
    C = np.column_stack([np.arange(N - 2), np.arange(1, N - 1), np.arange(2, N)])
    theta0 = simkit.dihedral_angles(X, C)
    np.testing.assert_array_equal(theta0, 0.0)
    kappa = np.full((N - 2, 1), 250.0)
    x = X.reshape(-1, 1)
    assert bending_energy_x(x, C, theta0, kappa) == 0.0
    np.testing.assert_allclose(bending_gradient_x(x, C, theta0, kappa), 0.0, atol=ROUNDOFF)
    lam = np.linalg.eigvalsh(bending_hessian_x(x, C, theta0, kappa).toarray())
    assert lam.min() > -ROUNDOFF * lam.max()


def test_arc_energy_is_quadratic_in_the_total_turn():
    N, k = 21, 250.0
    C = np.column_stack([np.arange(N - 2), np.arange(1, N - 1), np.arange(2, N)])
    kappa = np.full((N - 2, 1), k)
    turns = np.linspace(0.0, 2.5, 11)
    energy = np.array([bending_energy_x(arc(N, t).reshape(-1, 1), C, 0.0, kappa) for t in turns])
    np.testing.assert_allclose(energy, 0.5 * k * (N - 2) * (turns / (N - 1)) ** 2, rtol=1e-10, atol=ROUNDOFF)
    assert np.all(np.diff(energy) > 0)


def test_folded_quad_energy_closed_form_and_discrete_shells_wrappers():
    beta, k = 0.8, 3.0
    X = np.array([[0.5, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, -np.cos(beta), -np.sin(beta)]])
    x = X.reshape(-1, 1)
    C = np.array([[1, 2, 0, 3]])
    np.testing.assert_allclose(bending_energy_x(x, C, 0.0, k), 0.5 * k * beta**2, rtol=ROUNDOFF)
    flat = X.copy()
    flat[3] = [0.5, -1.0, 0.0]
    assert bending_energy_x(flat.reshape(-1, 1), C, 0.0, k) == 0.0
    np.testing.assert_allclose(bending_gradient_x(flat.reshape(-1, 1), C, 0.0, k), 0.0, atol=ROUNDOFF)
    np.testing.assert_allclose(discrete_shells_bending_energy(x, C, 0.0, k), bending_energy_x(x, C, 0.0, k))
    np.testing.assert_array_equal(discrete_shells_bending_gradient(x, C, 0.0, k), bending_gradient_x(x, C, 0.0, k))
    for psd in (False, True):
        np.testing.assert_array_equal(discrete_shells_bending_hessian(x, C, 0.0, k, psd=psd).toarray(),
                                      bending_hessian_x(x, C, 0.0, k, psd=psd).toarray())


def test_discrete_shells_rejects_2d_triples():
    x = np.zeros((6, 1))
    with pytest.raises(ValueError, match="C"):
        discrete_shells_bending_energy(x, np.array([[0, 1, 2]]), 0.0, 1.0)


def test_angle_difference_is_wrapped_across_the_branch_cut():
    eps = 0.01
    X = np.array([[0.0, 0.0], [1.0, 0.0], [1.0 - np.cos(eps), -np.sin(eps)]])
    C = np.array([[0, 1, 2]])
    theta = simkit.dihedral_angles(X, C)[0, 0]
    np.testing.assert_allclose(theta, -(np.pi - eps), rtol=ROUNDOFF)
    energy = bending_energy_x(X.reshape(-1, 1), C, np.pi - eps, 2.0)
    np.testing.assert_allclose(energy, 0.5 * 2.0 * (2 * eps) ** 2, rtol=1e-9)


@pytest.mark.parametrize("dim", [2, 3])
def test_degenerate_hinge_is_finite(dim):
    x, C, theta0, kappa = random_hinges(dim, seed=30 + dim)
    X = x.reshape(-1, dim)
    X[C[0, 2]] = X[C[0, 1]]
    x = X.reshape(-1, 1)
    g = bending_gradient_x(x, C, theta0, kappa)
    H = bending_hessian_x(x, C, theta0, kappa).toarray()
    H_psd = bending_hessian_x(x, C, theta0, kappa, psd=True).toarray()
    assert np.isfinite(bending_energy_x(x, C, theta0, kappa))
    assert np.isfinite(g).all() and np.isfinite(H).all() and np.isfinite(H_psd).all()
    one = bending_hessian_x(x, C[:1], theta0[:1], kappa[:1], psd=True).toarray()
    dofs = (C[0][:, None] * dim + np.arange(dim)).ravel()
    np.testing.assert_allclose(one[np.ix_(dofs, dofs)], FLOOR * np.eye(dofs.size), atol=ROUNDOFF)
    np.testing.assert_array_equal(bending_gradient_x(x, C[:1], theta0[:1], kappa[:1]), 0.0)
