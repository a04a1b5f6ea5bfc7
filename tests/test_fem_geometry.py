"""FEM geometry: deformation Jacobian, volumes, Lamé parameters, mesh helpers, masses of tets."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit

ROUNDOFF = 1e-12


def meshes():
    X2, T2 = simkit.grid_rectangle(5, 4, 2.0, 1.5)
    X3, T3 = simkit.grid_box(3, 4, 2, 2.0, 3.0, 1.0)
    return [(X2, T2), (X3, T3)]


@pytest.mark.parametrize("mesh", meshes(), ids=["2d", "3d"])
def test_deformation_jacobian_maps_an_affine_motion_to_its_matrix(mesh):
    X, T = mesh
    rng = np.random.default_rng(0)
    dim = X.shape[1]
    X = X + 0.05 * rng.standard_normal(X.shape)           # distorted, still positively oriented
    J = simkit.deformation_jacobian(X, T)
    assert sps.issparse(J) and J.format == "csc" and J.shape == (dim * dim * len(T), dim * len(X))
    assert J.nnz == len(T) * dim * dim * (dim + 1)
    A, b = rng.standard_normal((dim, dim)), rng.standard_normal(dim)
    F = (J @ (X @ A.T + b).reshape(-1, 1)).reshape(-1, dim, dim)
    np.testing.assert_allclose(F, np.broadcast_to(A, F.shape), atol=ROUNDOFF)
    np.testing.assert_allclose((J @ X.reshape(-1, 1)).reshape(-1, dim, dim), np.broadcast_to(np.eye(dim), F.shape),
                               atol=ROUNDOFF)


def test_deformation_jacobian_of_one_triangle_by_hand():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 1.0]])
    J = simkit.deformation_jacobian(X, np.array([[0, 1, 2]])).toarray()
    # F = Ds Dm^-1 with Dm = diag(2, 1): F_00 = (x1 - x0) / 2, F_01 = x2 - x0 (x components)
    np.testing.assert_allclose(J[0], [-0.5, 0, 0.5, 0, 0, 0])
    np.testing.assert_allclose(J[1], [-1, 0, 0, 0, 1, 0])
    np.testing.assert_allclose(J[2], [0, -0.5, 0, 0.5, 0, 0])
    np.testing.assert_allclose(J[3], [0, -1, 0, 0, 0, 1])


@pytest.mark.parametrize("mesh", meshes(), ids=["2d", "3d"])
def test_volume_sums_to_the_domain_and_matches_the_mass(mesh):
    X, T = mesh
    vol = simkit.volume(X, T)
    assert vol.shape == (len(T), 1)
    np.testing.assert_allclose(vol.sum(), np.prod(X.max(axis=0) - X.min(axis=0)), rtol=ROUNDOFF)
    rho = 3.5
    M = simkit.massmatrix(X, T, rho=rho)
    np.testing.assert_allclose(M.diagonal().sum(), rho * vol.sum(), rtol=ROUNDOFF)   # tet masses sum to rho V
    assert (M.diagonal() > 0).all()
    f = simkit.gravity_force(X, T, a=-9.8, rho=rho)
    np.testing.assert_allclose(f[:, 1].sum(), -9.8 * rho * vol.sum(), rtol=ROUNDOFF)


def test_volume_of_edges_and_surface_triangles_is_unsigned():
    X = np.array([[0.0, 0, 0], [1, 0, 0], [0, 2, 0]])
    np.testing.assert_allclose(simkit.volume(X, np.array([[0, 1], [2, 0]])), [[1.0], [2.0]])
    np.testing.assert_allclose(simkit.volume(X, np.array([[0, 2, 1]])), [[1.0]])


@pytest.mark.parametrize("mesh", meshes(), ids=["2d", "3d"])
def test_negatively_oriented_or_degenerate_simplices_are_named(mesh):
    X, T = mesh
    bad = T.copy()
    bad[[3, 7]] = bad[[3, 7]][:, [1, 0] + list(range(2, T.shape[1]))]
    for f in (simkit.volume, simkit.deformation_jacobian):
        with pytest.raises(ValueError, match=r"T: .*2 of .* negatively oriented.*\[3, 7\]"):
            f(X, bad)
    flat = X.copy()
    flat[:, -1] = 0.0                                     # every element collapses
    with pytest.raises(ValueError, match="degenerate"):
        simkit.volume(flat, T)
    with pytest.raises(ValueError, match="T"):
        simkit.deformation_jacobian(X, T[:, :-1])


def test_grid_rectangle_layout_and_diagonals():
    for diagonals in ("alternating", "right", "left"):
        X, T = simkit.grid_rectangle(4, 3, 3.0, 2.0, diagonals=diagonals)
        assert X.shape == (12, 2) and T.shape == (12, 3)
        np.testing.assert_allclose(X[3], [3.0, 0.0])
        np.testing.assert_allclose(X[-1], [3.0, 2.0])
        assert (simkit.volume(X, T) > 0).all()
        assert len(simkit.edges(T)) == 4 * 2 + 3 * 3 + 6      # horizontal + vertical + one diagonal per cell
    same = {tuple(sorted(t)) for t in simkit.grid_rectangle(3, 3, diagonals="right")[1]}
    alt = {tuple(sorted(t)) for t in simkit.grid_rectangle(3, 3, diagonals="alternating")[1]}
    assert same != alt


def test_grid_box_six_equal_positive_tets_per_cube_and_conforming():
    X, T = simkit.grid_box(3, 3, 3, 2.0, 2.0, 2.0)
    assert X.shape == (27, 3) and T.shape == (48, 4)
    np.testing.assert_allclose(simkit.volume(X, T), 1.0 / 6.0, rtol=ROUNDOFF)
    F = simkit.boundary_faces(T)
    assert len(F) == 6 * 4 * 2                             # 6 sides, 4 squares each, 2 triangles per square


def test_boundary_faces_point_outwards_and_cover_the_surface():
    X, T = simkit.grid_box(4, 3, 2, 3.0, 2.0, 1.0)
    F = simkit.boundary_faces(T)
    n = np.cross(X[F[:, 1]] - X[F[:, 0]], X[F[:, 2]] - X[F[:, 0]])
    np.testing.assert_allclose(0.5 * np.linalg.norm(n, axis=1).sum(), 2 * (6 + 3 + 2), rtol=ROUNDOFF)
    np.testing.assert_allclose(n.sum(axis=0), 0.0, atol=ROUNDOFF)   # a closed surface
    outward = np.einsum("ij,ij->i", n, X[F].mean(axis=1) - X.mean(axis=0))
    assert (outward > 0).all()
    # divergence theorem: sum over faces of (centroid . n) / 6 is the enclosed volume
    np.testing.assert_allclose(np.einsum("ij,ij->", X[F].mean(axis=1), n) / 6.0, 6.0, rtol=ROUNDOFF)


def test_ympr_to_lame_closed_forms_and_errors():
    mu, lam = simkit.ympr_to_lame(2.6, 0.3)
    assert isinstance(mu, float)
    assert mu == pytest.approx(1.0) and lam == pytest.approx(2.6 * 0.3 / (1.3 * 0.4))
    mu, lam = simkit.ympr_to_lame(np.array([1.0, 2.0]), 0.25)
    np.testing.assert_allclose(mu, [0.4, 0.8])
    for pr in (0.5, -1.0, 0.7):
        with pytest.raises(ValueError, match="pr"):
            simkit.ympr_to_lame(1.0, pr)
    with pytest.raises(ValueError, match="ym"):
        simkit.ympr_to_lame(-1.0, 0.3)
