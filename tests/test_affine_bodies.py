"""Affine bodies (ABD): the per-body affine subspace and the orthogonality potential."""
import numpy as np
import pytest
import scipy.sparse as sps
from scipy.spatial.transform import Rotation

import simkit
from simkit.terms import AffineOrthogonality
from simkit.terms.affine_orthogonality import orthogonality_hessian_element_A

FD_STEP = 1e-6
GRAD_TOL = 1e-6


def two_boxes():
    """Two tetrahedral boxes, the second above the first: X, T, body label per vertex."""
    Xa, Ta = simkit.grid_box(3, 3, 3, 1.0, 0.5, 0.5)
    Xb, Tb = simkit.grid_box(2, 3, 2, 0.5, 0.5, 0.5)
    X = np.vstack([Xa, Xb + [0.2, 1.0, 0.0]])
    T = np.vstack([Ta, Tb + len(Xa)])
    return X, T, np.repeat([0, 1], [len(Xa), len(Xb)])


@pytest.mark.parametrize("dim", [2, 3])
def test_subspace_is_one_affine_map_of_each_bodys_rest_shape(dim):
    rng = np.random.default_rng(dim)
    X = rng.standard_normal((9, dim))
    bodies = np.array([0, 0, 1, 1, 1, 2, 2, 0, 2])
    B = simkit.affine_body_jacobian(X, bodies)
    s = dim * (dim + 1)
    assert sps.issparse(B) and B.shape == (9 * dim, 3 * s)
    z = np.zeros((3 * s, 1))
    expected = np.empty_like(X)
    for b in range(3):
        A, p = np.eye(dim) + 0.3 * rng.standard_normal((dim, dim)), rng.standard_normal(dim)
        z[b * s:b * s + dim, 0] = p
        z[b * s + dim:(b + 1) * s, 0] = (A - np.eye(dim)).ravel()        # rows of A - I
        c = X[bodies == b].mean(axis=0)
        expected[bodies == b] = c + p + (X[bodies == b] - c) @ A.T
    np.testing.assert_allclose(X + (B @ z).reshape(-1, dim), expected, atol=1e-13)
    np.testing.assert_array_equal(B @ np.zeros((3 * s, 1)), 0.0)       # z = 0 is the rest state


def test_one_body_by_default_has_twelve_coordinates():
    X, _, _ = two_boxes()
    assert simkit.affine_body_jacobian(X).shape == (X.size, 12)


@pytest.mark.parametrize("dim", [2, 3])
def test_orthogonality_is_zero_with_zero_gradient_on_rigid_motions(dim):
    rng = np.random.default_rng(7)
    term = AffineOrthogonality(np.array([0.3, 1.2]), 1e4, dim=dim)
    s = dim * (dim + 1)
    z = np.zeros((2 * s, 1))
    for b in range(2):
        R = Rotation.random(random_state=b).as_matrix() if dim == 3 else \
            np.array([[np.cos(b + 0.4), -np.sin(b + 0.4)], [np.sin(b + 0.4), np.cos(b + 0.4)]])
        z[b * s:b * s + dim, 0] = rng.standard_normal(dim)
        z[b * s + dim:(b + 1) * s, 0] = (R - np.eye(dim)).ravel()
    assert abs(term.energy(z)) < 1e-20
    np.testing.assert_allclose(term.gradient(z), 0.0, atol=1e-10)


def test_orthogonality_closed_form_under_uniform_scaling():
    """A = s I: kappa v ||(s^2 - 1) I||^2 = kappa v d (s^2 - 1)^2."""
    term = AffineOrthogonality(0.7, 2.0)
    s = 1.3
    z = np.zeros((12, 1))
    z[3:, 0] = ((s - 1) * np.eye(3)).ravel()
    np.testing.assert_allclose(term.energy(z), 2.0 * 0.7 * 3 * (s ** 2 - 1) ** 2, rtol=1e-14)


@pytest.mark.parametrize("dim", [2, 3])
def test_orthogonality_gradient_and_hessian_match_finite_differences(dim):
    rng = np.random.default_rng(dim)
    exact = AffineOrthogonality(np.array([0.5, 2.0, 1.0]), 3.0, dim=dim, psd=False)
    z = 0.4 * rng.standard_normal((exact.size, 1))
    g = exact.gradient(z)
    np.testing.assert_allclose(g[:, 0], simkit.gradient_cfd(exact.energy, z, FD_STEP), atol=GRAD_TOL * abs(g).max())
    H = exact.hessian(z).toarray()
    H_fd = simkit.gradient_cfd(lambda y: exact.gradient(y)[:, 0], z, FD_STEP)
    np.testing.assert_allclose(H, H_fd, atol=GRAD_TOL * abs(H).max())
    translations = np.concatenate([np.arange(b * exact.size // 3, b * exact.size // 3 + dim) for b in range(3)])
    np.testing.assert_array_equal(g[translations], 0.0)


def test_projected_hessian_is_psd_and_exact_where_the_exact_one_is():
    compressed = np.zeros((12, 1))
    compressed[3:, 0] = (-0.6 * np.eye(3)).ravel()            # A = 0.4 I: below a rotation, indefinite
    exact = AffineOrthogonality(1.0, 1.0, psd=False)
    projected = AffineOrthogonality(1.0, 1.0)
    assert np.linalg.eigvalsh(exact.hessian(compressed).toarray()).min() < -1e-3
    assert np.linalg.eigvalsh(projected.hessian(compressed).toarray()).min() > -1e-12
    stretched = np.zeros((12, 1))
    stretched[3:, 0] = (0.3 * np.eye(3) + 0.05).ravel()
    np.testing.assert_allclose(projected.hessian(stretched).toarray(), exact.hessian(stretched).toarray(), atol=1e-12)
    A = np.eye(3)[None] * 1.3
    assert np.linalg.eigvalsh(orthogonality_hessian_element_A(A)).min() >= 0


@pytest.mark.parametrize("call, error, match", [
    (lambda: simkit.affine_body_jacobian(np.zeros((3, 3)), np.array([0, 2, 2])), ValueError, "body 1 has none"),
    (lambda: simkit.affine_body_jacobian(np.zeros((3, 3)), np.array([0, 1])), ValueError, "one body label per vertex"),
    (lambda: simkit.affine_body_jacobian(np.zeros((3, 3)), np.array([0, 1.0, 1])), TypeError,
     "bodies: expected an int"),
    (lambda: AffineOrthogonality(np.array([1.0, 0.0]), 1.0), ValueError, "vol: expected one positive"),
    (lambda: AffineOrthogonality(1.0, -1.0), ValueError, "kappa: expected a finite value > 0"),
    (lambda: AffineOrthogonality(1.0, 1.0, dim=4), ValueError, "dim: expected 2 or 3"),
    (lambda: AffineOrthogonality(1.0, 1.0).energy(np.zeros(6)), ValueError, "x: expected 12 rows"),
])
def test_bad_input_raises_naming_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()
