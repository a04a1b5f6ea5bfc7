"""Geometric operators: edge jacobian, edge lengths, lumped mass, gravity, pins, PSD projection, FD."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit

ROUNDOFF = 1e-12
FD_STEP = 1e-5
FD_TOL = 1e-8


@pytest.mark.parametrize("dim", [2, 3])
def test_edge_displacement_jacobian_maps_positions_to_edge_vectors(dim):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((7, dim))
    E = np.array([[0, 1], [3, 2], [6, 4], [5, 0]])
    J = simkit.edge_displacement_jacobian(X, E)
    assert sps.issparse(J) and J.shape == (4, 7)
    np.testing.assert_allclose(J @ X, X[E[:, 0]] - X[E[:, 1]], atol=ROUNDOFF)
    Jx = sps.kron(J, sps.eye(dim))
    np.testing.assert_allclose((Jx @ X.reshape(-1, 1)).reshape(-1, dim), X[E[:, 0]] - X[E[:, 1]], atol=ROUNDOFF)
    np.testing.assert_array_equal(J.toarray().sum(axis=1), 0.0)


@pytest.mark.parametrize("dim", [2, 3])
def test_edge_lengths_closed_form(dim):
    X = np.zeros((3, dim))
    X[1, 0] = 3.0
    X[2, :2] = [3.0, 4.0]
    l = simkit.edge_lengths(X, np.array([[0, 1], [1, 2], [0, 2]]))
    assert l.shape == (3,)
    np.testing.assert_allclose(l, [3.0, 4.0, 5.0], rtol=ROUNDOFF)


def test_massmatrix_of_a_cable_is_half_segment_at_the_ends():
    n, length, rho = 11, 4.0, 2.5
    X = np.column_stack([np.linspace(0, length, n), np.zeros(n)])
    E = np.column_stack([np.arange(n - 1), np.arange(1, n)])
    M = simkit.massmatrix(X, E, rho=rho)
    assert sps.issparse(M) and M.shape == (n, n)
    m = M.diagonal()
    seg = rho * length / (n - 1)
    np.testing.assert_allclose(m[[0, -1]], seg / 2, rtol=ROUNDOFF)
    np.testing.assert_allclose(m[1:-1], seg, rtol=ROUNDOFF)
    np.testing.assert_allclose(M.sum(), rho * length, rtol=ROUNDOFF)
    assert (M - sps.diags(m)).count_nonzero() == 0


@pytest.mark.parametrize("dim", [2, 3])
def test_massmatrix_single_triangle_is_area_over_three(dim):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((3, dim))
    e1, e2 = X[1] - X[0], X[2] - X[0]
    area = 0.5 * np.linalg.norm(np.cross(np.append(e1, 0)[:3], np.append(e2, 0)[:3]))
    rho = 1.7
    M = simkit.massmatrix(X, np.array([[0, 1, 2]]), rho=rho)
    np.testing.assert_allclose(M.diagonal(), np.full(3, rho * area / 3), rtol=ROUNDOFF)


def test_massmatrix_single_tet_is_volume_over_four():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((4, 3))
    volume = abs(np.linalg.det(np.stack([X[1] - X[0], X[2] - X[0], X[3] - X[0]]))) / 6
    for T in (np.array([[0, 1, 2, 3]]), np.array([[1, 0, 2, 3]])):
        M = simkit.massmatrix(X, T)
        np.testing.assert_allclose(M.diagonal(), np.full(4, volume / 4), rtol=ROUNDOFF)


def test_massmatrix_unit_square_of_two_triangles():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    T = np.array([[0, 1, 2], [0, 2, 3]])
    m = simkit.massmatrix(X, T, rho=3.0).diagonal()
    np.testing.assert_allclose(m, [1.0, 0.5, 1.0, 0.5], rtol=ROUNDOFF)


@pytest.mark.parametrize("dim", [2, 3])
def test_gravity_force_is_lumped_weight_along_y(dim):
    n, length, rho, a = 21, 4.0, 1.0, -9.8
    X = np.zeros((n, dim))
    X[:, 0] = np.linspace(0, length, n)
    E = np.column_stack([np.arange(n - 1), np.arange(1, n)])
    f = simkit.gravity_force(X, E, a=a, rho=rho)
    assert f.shape == (n, dim)
    np.testing.assert_allclose(f.sum(), rho * length * a, rtol=ROUNDOFF)
    np.testing.assert_allclose(f[:, 1], a * simkit.massmatrix(X, E, rho=rho).diagonal(), rtol=ROUNDOFF)
    np.testing.assert_array_equal(np.delete(f, 1, axis=1), 0.0)


@pytest.mark.parametrize("dim", [2, 3])
def test_dirichlet_penalty_equals_pin_energy_up_to_a_constant(dim):
    rng = np.random.default_rng(3)
    n, gamma = 6, 250.0
    pins = np.array([0, 4])
    y = rng.standard_normal((2, dim))
    Q, b = simkit.dirichlet_penalty(pins, y, n, gamma)
    assert Q.shape == (n * dim, n * dim) and b.shape == (n * dim, 1)
    const = 0.5 * gamma * np.sum(y**2)
    for _ in range(3):
        x = rng.standard_normal((n * dim, 1))
        quad = 0.5 * (x.T @ (Q @ x)).item() + (b.T @ x).item()
        pinned = 0.5 * gamma * np.sum((x.reshape(n, dim)[pins] - y) ** 2)
        np.testing.assert_allclose(quad + const, pinned, rtol=ROUNDOFF)


def test_psd_project_floors_eigenvalues_and_keeps_eigenvectors():
    rng = np.random.default_rng(4)
    V = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    lam = np.array([-2.0, 0.0, 5.0])
    H = (V * lam) @ V.T
    P = simkit.psd_project(H[None])
    assert P.shape == (1, 3, 3)
    np.testing.assert_allclose(P[0], (V * [1e-6, 1e-6, 5.0]) @ V.T, atol=ROUNDOFF)
    np.testing.assert_allclose(np.linalg.eigvalsh(P[0]), [1e-6, 1e-6, 5.0], atol=ROUNDOFF)


def test_psd_project_leaves_definite_blocks_unchanged():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((10, 4, 4))
    H = A @ A.transpose(0, 2, 1) + np.eye(4)
    np.testing.assert_allclose(simkit.psd_project(H), H, rtol=1e-12, atol=1e-12)


def test_gradient_cfd_shapes_and_values():
    rng = np.random.default_rng(6)
    A = rng.standard_normal((3, 4))
    x = rng.standard_normal(4)
    g = simkit.gradient_cfd(lambda y: 0.5 * y @ y, x, FD_STEP)
    assert g.shape == (4,)
    np.testing.assert_allclose(g, x, rtol=FD_TOL)
    g0 = simkit.gradient_cfd(lambda y: np.array(np.sum(np.sin(y))), x, FD_STEP)
    assert g0.shape == (4,)
    np.testing.assert_allclose(g0, np.cos(x), rtol=1e-9)
    Jac = simkit.gradient_cfd(lambda y: A @ y, x, FD_STEP)
    assert Jac.shape == (3, 4)
    np.testing.assert_allclose(Jac, A, rtol=FD_TOL)
    col = simkit.gradient_cfd(lambda y: (A @ y).reshape(-1, 1), x.reshape(-1, 1), FD_STEP)
    assert col.shape == (3, 1, 4)


def test_hessian_cfd_of_a_cubic():
    rng = np.random.default_rng(7)
    x = rng.standard_normal(3)
    H = simkit.hessian_cfd(lambda y: y[0] ** 2 * y[1] + y[2] ** 3, x, 1e-4)
    expected = np.array([[2 * x[1], 2 * x[0], 0], [2 * x[0], 0, 0], [0, 0, 6 * x[2]]])
    assert H.shape == (3, 3)
    np.testing.assert_allclose(H, expected, atol=1e-7)
