"""linear_modal_analysis: K b = E M b with clamped vertices eliminated, upstream's values under its defaults."""
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sps

import simkit
from reduced_cases import bar_3d, strip_2d
from simkit import _eigen
from simkit import energies as en

UPSTREAM = json.loads((Path(__file__).parent / "data" / "upstream_reduced_0_1_8.json").read_text())
UPSTREAM_RTOL = 1e-6          # the bar for upstream's eigenvalues
ROUND_OFF = 1e-10             # eigen-residuals relative to ||K|| ||b||


def stiffness_and_mass(X, T, bI, mu, lam, rho=1.0):
    """K and M on the free degrees of freedom, built from the FEM tier (the function's own inputs)."""
    n, d = X.shape
    K = en.elastic_hessian_x(X, simkit.deformation_jacobian(X, T), mu, lam, simkit.volume(X, T),
                             "linear-elasticity", psd=False)
    M = sps.kron(simkit.massmatrix(X, T, rho), sps.identity(d)).tocsc()
    keep = np.setdiff1d(np.arange(n * d), (np.asarray(bI)[:, None] * d + np.arange(d)).ravel())
    return K[keep][:, keep].toarray(), M[keep][:, keep].toarray(), keep


def unit_triangle():
    return np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([[0, 1, 2]])


# --- upstream's own tests (simkit tests/test_linear_modal_analysis.py), ported -------------------

def test_upstream_returns_eigenvalues_and_shapes():
    X, T = unit_triangle()
    E, B = simkit.linear_modal_analysis(X, T, k=2, bI=np.array([0]))
    assert E.shape == (2,) and B.shape == (6, 2)
    assert np.isfinite(E).all() and np.isfinite(B).all() and (E >= 0).all()


def test_upstream_pinned_vertex_rows_are_zero():
    X, T = unit_triangle()
    _, B = simkit.linear_modal_analysis(X, T, k=2, bI=np.array([0]))
    np.testing.assert_allclose(B[0:2], 0.0, atol=1e-12)


# --- upstream's eigenvalues ---------------------------------------------------------------------

@pytest.mark.parametrize("case, k, clamped", [("modal_3d_clamped_k8", 8, True), ("modal_3d_free_k10", 10, False),
                                               ("modal_2d_clamped_k6", 6, True)])
def test_defaults_reproduce_upstreams_eigenvalues(case, k, clamped):
    X, T, bI = bar_3d() if "3d" in case else strip_2d()
    E, _ = simkit.linear_modal_analysis(X, T, k, bI if clamped else None)
    reference = np.array(UPSTREAM[case])
    rigid = np.abs(reference) < 1e-9                 # the free body's six rigid motions
    assert rigid.sum() == (0 if clamped else 6)
    np.testing.assert_allclose(E[~rigid], reference[~rigid], rtol=UPSTREAM_RTOL)
    np.testing.assert_allclose(E[rigid], 0.0, atol=1e-9)


def test_defaults_shift_a_clamped_problem_as_upstream_does():
    """Upstream's E is omega^2 + 1e-6 (K + 1e-6 M) for unit constants; physical constants give omega^2."""
    X, T, bI = bar_3d()
    E_up, B_up = simkit.linear_modal_analysis(X, T, 5, bI)
    E, B = simkit.linear_modal_analysis(X, T, 5, bI, mu=1.0, lam=1.0)
    np.testing.assert_allclose(E_up, E + 1e-6, rtol=1e-9)
    np.testing.assert_allclose(np.abs(B_up.T @ sps.kron(simkit.massmatrix(X, T), sps.identity(3)) @ B),
                               np.eye(5), atol=1e-6)


# --- the eigenproblem itself ----------------------------------------------------------------------

@pytest.mark.parametrize("mesh", [bar_3d, strip_2d])
def test_eigenpairs_solve_the_generalized_problem_to_round_off(mesh):
    X, T, bI = mesh()
    mu, lam, rho = 3.0e5, 7.0e5, 1200.0
    E, B = simkit.linear_modal_analysis(X, T, 6, bI, mu=mu, lam=lam, rho=rho)
    K, M, keep = stiffness_and_mass(X, T, bI, mu, lam, rho)
    Bf = B[keep]
    residual = np.linalg.norm(K @ Bf - M @ Bf * E, axis=0) / (np.linalg.norm(K, 2) * np.linalg.norm(Bf, axis=0))
    assert residual.max() < ROUND_OFF
    np.testing.assert_allclose(Bf.T @ M @ Bf, np.eye(6), atol=1e-10)
    np.testing.assert_array_equal(np.delete(B, keep, axis=0), 0.0)
    assert np.all(np.diff(E) >= 0)


@pytest.mark.parametrize("mesh, clamped", [(bar_3d, True), (bar_3d, False), (strip_2d, True)])
def test_agrees_with_a_dense_eigh(mesh, clamped):
    """bar_3d has 576 / 624 free unknowns (the sparse shift-invert path), strip_2d 160 (dense)."""
    X, T, bI = mesh()
    bI = bI if clamped else np.array([], dtype=int)
    E, B = simkit.linear_modal_analysis(X, T, 9, bI, mu=2.0, lam=5.0, rho=3.0)
    K, M, keep = stiffness_and_mass(X, T, bI, 2.0, 5.0, 3.0)
    E_dense, B_dense = scipy.linalg.eigh(K, M, subset_by_index=[0, 8])
    np.testing.assert_allclose(E, E_dense, rtol=1e-9, atol=1e-9 * E_dense.max())
    gap = np.abs(E_dense[:, None] - E_dense[None, :]) + np.diag(np.full(9, np.inf))
    for j in np.flatnonzero(gap.min(axis=1) > 1e-6 * E_dense.max()):    # degenerate pairs may mix
        assert abs(abs(B[keep, j] @ M @ B_dense[:, j]) - 1.0) < 1e-8


def test_free_body_has_rigid_modes_at_zero():
    X, T, _ = bar_3d()
    E, B = simkit.linear_modal_analysis(X, T, 7, mu=1.0, lam=1.0)
    assert np.abs(E[:6]).max() < 1e-9 * E[6]
    rigid = B[:, :6]
    # the rigid modes span translations: a uniform shift lies in their span
    shift = np.tile([1.0, 2.0, -1.0], len(X))
    coef, *_ = np.linalg.lstsq(rigid, shift, rcond=None)
    np.testing.assert_allclose(rigid @ coef, shift, atol=1e-8)


def test_physical_units_scale_like_omega_squared():
    """E = omega^2 scales with mu / rho and with 1 / length^2."""
    X, T, bI = strip_2d()
    E, _ = simkit.linear_modal_analysis(X, T, 4, bI, mu=1e6, lam=2e6, rho=1000.0)
    E_stiff, _ = simkit.linear_modal_analysis(X, T, 4, bI, mu=4e6, lam=8e6, rho=2000.0)
    E_big, _ = simkit.linear_modal_analysis(3.0 * X, T, 4, bI, mu=1e6, lam=2e6, rho=1000.0)
    np.testing.assert_allclose(E_stiff, 2.0 * E, rtol=1e-10)
    np.testing.assert_allclose(E_big, E / 9.0, rtol=1e-10)


def test_cantilever_fundamental_frequency_is_euler_bernoulli():
    """Plane strain, L/h = 10, 80 x 8 cells: omega_1 within 3% of (1.8751)^2 sqrt(E' I / (rho A L^4))."""
    L, h, Y, nu, rho = 1.0, 0.1, 1e7, 0.3, 1000.0
    X, T = simkit.grid_rectangle(81, 9, L, h)
    mu, lam = simkit.ympr_to_lame(Y, nu)
    E, _ = simkit.linear_modal_analysis(X, T, 1, np.flatnonzero(X[:, 0] == 0), mu=mu, lam=lam, rho=rho)
    Yp = Y / (1 - nu ** 2)
    omega_eb = 1.8751 ** 2 * np.sqrt(Yp * h ** 3 / 12 / (rho * h * L ** 4))
    assert abs(np.sqrt(E[0]) / omega_eb - 1) < 0.03


# --- bad input -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, error, match", [
    ({"k": 0}, ValueError, "k: expected at least 1"),
    ({"k": 8}, ValueError, "k: expected at most 6 modes, the number of free degrees of freedom"),
    ({"k": 2.0}, TypeError, "k: expected an integer"),
    ({"k": 2, "bI": np.array([4])}, ValueError, r"bI: expected indices in \[0, 4\)"),
    ({"k": 2, "bI": np.array([-1])}, ValueError, "bI: expected indices"),
    ({"k": 2, "mu": 1.0}, ValueError, "mu, lam: expected both"),
    ({"k": 2, "rho": 0.0}, ValueError, "rho: expected strictly positive"),
])
def test_bad_input_raises_naming_the_argument(kwargs, error, match):
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    T = np.array([[0, 1, 2], [1, 3, 2]])
    kwargs = {"bI": np.array([0])} | kwargs
    with pytest.raises(error, match=match):
        simkit.linear_modal_analysis(X, T, **kwargs)


def test_every_free_mode_of_a_tiny_mesh():
    """k = all free degrees of freedom (the dense path) gives the full spectrum."""
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    T = np.array([[0, 1, 2], [1, 3, 2]])
    E, B = simkit.linear_modal_analysis(X, T, 6, np.array([0]), mu=1.0, lam=1.0)
    K, M, keep = stiffness_and_mass(X, T, [0], 1.0, 1.0)
    E_dense = scipy.linalg.eigh(K, M, eigvals_only=True)
    np.testing.assert_allclose(E, E_dense, rtol=1e-12, atol=1e-13 * E_dense.max())    # E[0]: the rotation


def test_sign_convention_largest_entry_positive():
    """Each column's largest entry is positive; where mirror-image entries tie for it (to SIGN_RTOL), the first."""
    X, T, bI = bar_3d()
    _, B = simkit.linear_modal_analysis(X, T, 4, bI)
    magnitude = np.abs(B)
    tied = magnitude >= (1 - _eigen.SIGN_RTOL) * magnitude.max(axis=0)
    assert (B[np.argmax(tied, axis=0), np.arange(4)] > 0).all()
    assert np.any(tied.sum(axis=0) > 1) and np.any(B[tied] < 0)     # a mode whose extremes are +a and -a
    assert _eigen.DENSE_SIZE < 576      # so bar_3d exercises the sparse path
