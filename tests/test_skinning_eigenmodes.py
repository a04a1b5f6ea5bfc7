"""skinning_eigenmodes, lbs_jacobian and dirichlet_laplacian: Laplacian eigenfunctions as skinning weights.

Upstream's own tests for these names (simkit's tests/test_skinning_eigenmodes.py,
test_lbs_jacobian.py, test_dirichlet_laplacian.py) are ported first.
"""
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sps

import simkit
from reduced_cases import bar_3d, strip_2d

UPSTREAM = json.loads((Path(__file__).parent / "data" / "upstream_reduced_0_1_8.json").read_text())


def unit_triangle():
    return np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([[0, 1, 2]])


def stiff_half_strip():
    """Upstream's test mesh: a 2 x 0.3 strip, 20 x 3 cells, its left half 1000x stiffer."""
    nx, ny = 21, 4
    xs, ys = np.meshgrid(np.linspace(0, 2, nx), np.linspace(0, 0.3, ny), indexing="ij")
    X = np.c_[xs.ravel(), ys.ravel()]
    idx = np.arange(nx * ny).reshape(nx, ny)
    a, b, c, d = idx[:-1, :-1].ravel(), idx[1:, :-1].ravel(), idx[1:, 1:].ravel(), idx[:-1, 1:].ravel()
    T = np.stack([np.c_[a, b, c], np.c_[a, c, d]], axis=1).reshape(-1, 3)
    mu = np.where(X[T].mean(axis=1)[:, 0] < 1.0, 1e3, 1.0)
    return X, T, mu


def random_affine(dim, rng):
    return np.eye(dim) + 0.5 * rng.standard_normal((dim, dim)), rng.standard_normal(dim)


# --- upstream's own tests (simkit tests/test_skinning_eigenmodes.py, test_lbs_jacobian.py), ported --

def test_upstream_returns_modes_and_jacobian():
    X, T = unit_triangle()
    W, E, B = simkit.skinning_eigenmodes(X, T, 2, bI=np.array([0]))
    assert W.shape == (3, 2) and E.shape == (2,) and B.shape[0] == 6
    assert np.isfinite(W).all() and np.isfinite(E).all()


def test_upstream_per_element_stiffness_makes_modes_material_aware():
    X, T, mu = stiff_half_strip()
    W_mat, _, B_mat = simkit.skinning_eigenmodes(X, T, 3, mu=mu)
    W_uni, _, _ = simkit.skinning_eigenmodes(X, T, 3)
    assert W_mat.shape == (X.shape[0], 3) and B_mat.shape == (X.size, 18)
    stiff, soft = X[:, 0] < 1.0, X[:, 0] > 1.0
    for j in (1, 2):                      # mode 0 is the constant
        assert np.ptp(W_mat[stiff, j]) < 0.05 * np.ptp(W_mat[soft, j])
        assert np.ptp(W_uni[stiff, j]) > 0.3 * np.ptp(W_uni[soft, j])


def test_upstream_lbs_jacobian_shape():
    rng = np.random.default_rng(1)
    V, W = rng.standard_normal((4, 3)), rng.random((4, 2))
    W /= W.sum(axis=1, keepdims=True)
    assert simkit.lbs_jacobian(V, W).shape == (4 * 3, 2 * 4 * 3)


def unit_tet():
    return np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), np.array([[0, 1, 2, 3]])


@pytest.mark.parametrize("mesh", [unit_triangle, unit_tet])
@pytest.mark.parametrize("vector", [False, True])
def test_upstream_dirichlet_laplacian_is_symmetric_psd_csc(mesh, vector):
    """simkit tests/test_dirichlet_laplacian.py, ported: shape, CSC, symmetry, PSD; constants in the null space."""
    X, T = mesh()
    n, dim = X.shape
    L = simkit.dirichlet_laplacian(X, T, mu=1.0, vector=vector)
    size = n * dim if vector else n
    assert L.shape == (size, size) and L.format == "csc"
    D = L.toarray()
    np.testing.assert_allclose(D, D.T, atol=1e-12)
    v = np.random.default_rng(int(vector)).standard_normal(size)
    assert v @ D @ v >= -1e-10
    np.testing.assert_allclose(D @ np.ones(size), 0.0, atol=1e-10)


# --- upstream's eigenvalues -------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["skinning_3d_free_k5", "skinning_3d_clamped_k4", "skinning_2d_mu_k4"])
def test_reproduces_upstreams_eigenvalues(case):
    if "3d" in case:
        X, T, bI = bar_3d()
        mu = 1
    else:
        X, T, _ = strip_2d()
        bI, mu = None, np.where(X[T].mean(axis=1)[:, 0] < 1.0, 1e3, 1.0)
    reference = np.array(UPSTREAM[case])
    _, E, _ = simkit.skinning_eigenmodes(X, T, reference.size, mu, bI if "clamped" in case else None)
    constant = np.abs(reference) < 1e-9
    np.testing.assert_allclose(E[~constant], reference[~constant], rtol=1e-6)
    np.testing.assert_allclose(E[constant], 0.0, atol=1e-9 * E.max())


# --- the eigenproblem -------------------------------------------------------------------------------

@pytest.mark.parametrize("mesh, clamped", [(bar_3d, False), (bar_3d, True), (strip_2d, False)])
def test_weights_solve_the_laplacian_eigenproblem(mesh, clamped):
    X, T, bI = mesh()
    W, E, _ = simkit.skinning_eigenmodes(X, T, 6, bI=bI if clamped else None)
    L = simkit.dirichlet_laplacian(X, T).toarray()
    M = simkit.massmatrix(X, T).toarray()
    keep = np.setdiff1d(np.arange(len(X)), bI) if clamped else np.arange(len(X))
    Lf, Mf, Wf = L[np.ix_(keep, keep)], M[np.ix_(keep, keep)], W[keep]
    residual = np.linalg.norm(Lf @ Wf - Mf @ Wf * E, axis=0) / (np.linalg.norm(Lf, 2) * np.linalg.norm(Wf, axis=0))
    assert residual.max() < 1e-10
    np.testing.assert_allclose(Wf.T @ Mf @ Wf, np.eye(6), atol=1e-10)
    np.testing.assert_allclose(E, scipy.linalg.eigh(Lf, Mf, subset_by_index=[0, 5], eigvals_only=True),
                               rtol=1e-9, atol=1e-10 * E.max())
    if clamped:
        np.testing.assert_array_equal(W[bI], 0.0)
    else:                                  # the first weight is the constant 1 / sqrt(total mass)
        np.testing.assert_allclose(W[:, 0], 1 / np.sqrt(M.sum()), rtol=1e-10)


@pytest.mark.parametrize("mesh", [bar_3d, strip_2d])
def test_subspace_reproduces_every_affine_map_exactly(mesh):
    X, T, _ = mesh()
    n, dim = X.shape
    W, _, B = simkit.skinning_eigenmodes(X, T, 5)
    rng = np.random.default_rng(3)
    for _ in range(3):
        A, t = random_affine(dim, rng)
        target = (X @ A.T + t).reshape(-1, 1)
        z = simkit.project_into_subspace(target, B)
        np.testing.assert_allclose(B @ z, target, atol=1e-10)
        # and explicitly: the constant mode w0 carries [A | t] / w0, the others the zero map
        Z = np.zeros((5, dim + 1, dim))
        Z[0] = np.vstack([A.T, t]) / W[0, 0]
        np.testing.assert_allclose(B @ Z.reshape(-1, 1), target, atol=1e-10)


def test_equality_constraints_hold_and_match_a_null_space_solve():
    """Aeq w = 0 as a saddle point (624 unknowns: the sparse path) against the dense null-space problem."""
    X, T, _ = bar_3d()
    M = simkit.massmatrix(X, T)
    Aeq = sps.csr_matrix(np.vstack([M.diagonal(), M.diagonal() * X[:, 0]]))   # zero mean, zero first moment
    W, E, _ = simkit.skinning_eigenmodes(X, T, 4, Aeq=Aeq)
    np.testing.assert_allclose(Aeq @ W, 0.0, atol=1e-10)
    Z = scipy.linalg.null_space(Aeq.toarray())
    L = simkit.dirichlet_laplacian(X, T).toarray()
    E_dense = scipy.linalg.eigh(Z.T @ L @ Z, Z.T @ M.toarray() @ Z, subset_by_index=[0, 3], eigvals_only=True)
    np.testing.assert_allclose(E, E_dense, rtol=1e-8)
    assert E[0] > 0.5                      # the constant mode is gone


# --- lbs_jacobian ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 3])
def test_lbs_jacobian_is_upstreams_matrix_sparse(dim):
    rng = np.random.default_rng(dim)
    n, k = 7, 3
    V, W = rng.standard_normal((n, dim)), rng.standard_normal((n, k))
    W[2] = 0.0
    J = simkit.lbs_jacobian(V, W)
    assert sps.issparse(J) and J.format == "csc"
    V1 = np.hstack([V, np.ones((n, 1))])
    dense = np.kron(np.kron(W, np.ones((1, dim + 1))) * np.kron(np.ones((1, k)), V1), np.eye(dim))
    np.testing.assert_array_equal(J.toarray(), dense)
    assert J.nnz == (n - 1) * dim * k * (dim + 1)          # upstream's zeros are not stored


def test_lbs_identity_transforms_scale_by_the_weight_sum():
    rng = np.random.default_rng(0)
    V, W = rng.standard_normal((5, 3)), rng.random((5, 2))
    z = np.tile(np.vstack([np.eye(3), np.zeros((1, 3))]), (2, 1, 1)).reshape(-1, 1)
    np.testing.assert_allclose((simkit.lbs_jacobian(V, W) @ z).reshape(5, 3), V * W.sum(axis=1, keepdims=True))


# --- dirichlet_laplacian -----------------------------------------------------------------------------

def test_dirichlet_laplacian_of_a_right_triangle():
    X, T = unit_triangle()
    L = simkit.dirichlet_laplacian(X, T).toarray()
    np.testing.assert_allclose(L, [[1.0, -0.5, -0.5], [-0.5, 0.5, 0.0], [-0.5, 0.0, 0.5]], atol=1e-15)


@pytest.mark.parametrize("mesh", [bar_3d, strip_2d])
def test_dirichlet_laplacian_integrates_linear_fields(mesh):
    """u^T L u = mu |grad u|^2 volume for a linear u, rows sum to zero, and upstream's J^T diag(mu vol) J form."""
    X, T, _ = mesh()
    n, dim = X.shape
    rng = np.random.default_rng(1)
    mu = rng.uniform(0.5, 2.0, len(T))
    L = simkit.dirichlet_laplacian(X, T, mu)
    a = rng.standard_normal(dim)
    u = X @ a
    vol = simkit.volume(X, T)[:, 0]
    np.testing.assert_allclose(u @ L @ u, (a @ a) * (mu @ vol), rtol=1e-12)
    np.testing.assert_allclose(L @ np.ones(n), 0.0, atol=1e-12)
    J = simkit.deformation_jacobian(X, T)
    LJ = (J.T @ sps.diags(np.repeat(mu * vol, dim * dim)) @ J).toarray()
    L_vec = simkit.dirichlet_laplacian(X, T, mu, vector=True).toarray()
    np.testing.assert_allclose(L_vec, LJ, atol=1e-12 * abs(LJ).max())
    averaged = sum(LJ[i::dim, i::dim] for i in range(dim)) / dim
    np.testing.assert_allclose(L.toarray(), averaged, atol=1e-12 * abs(LJ).max())


# --- bad input ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, match", [
    (lambda X, T: simkit.skinning_eigenmodes(X, T, 0), ValueError, "k: expected at least 1"),
    (lambda X, T: simkit.skinning_eigenmodes(X, T, 4), ValueError, "k: expected at most 3 modes"),
    (lambda X, T: simkit.skinning_eigenmodes(X, T, 3, bI=np.array([0])), ValueError, "k: expected at most 2"),
    (lambda X, T: simkit.skinning_eigenmodes(X, T, 1, bI=np.array([3])), ValueError, r"bI: expected indices in"),
    (lambda X, T: simkit.skinning_eigenmodes(X, T, 1, mu=-1.0), ValueError, "mu: expected non-negative"),
    (lambda X, T: simkit.skinning_eigenmodes(X, T, 1, Aeq=np.ones((1, 4))), ValueError,
     r"Aeq: expected shape \(m, 3\)"),
    (lambda X, T: simkit.lbs_jacobian(X, np.ones((4, 2))), ValueError, r"W: expected shape \(3, k\)"),
    (lambda X, T: simkit.dirichlet_laplacian(X, T, vector=1), TypeError, "vector: expected True or False"),
])
def test_bad_input_raises_naming_the_argument(call, error, match):
    X, T = unit_triangle()
    with pytest.raises(error, match=match):
        call(X, T)
