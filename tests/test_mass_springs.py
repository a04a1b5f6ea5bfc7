"""Mass springs: Hooke's law, derivatives against central differences, tiers, projection, degeneracy."""
import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sps

import simkit
from simkit.energies import (mass_springs_energy_element_d, mass_springs_energy_x, mass_springs_energy_z,
                             mass_springs_gradient_element_d, mass_springs_gradient_x, mass_springs_gradient_z,
                             mass_springs_hessian_element_d, mass_springs_hessian_x, mass_springs_hessian_z)

FD_STEP = 1e-6
GRAD_TOL = 1e-6
HESS_TOL = 1e-6
ROUNDOFF = 1e-12


def rel_err(a, b):
    return np.linalg.norm(np.asarray(a) - np.asarray(b)) / np.linalg.norm(np.asarray(b))


def random_network(dim, seed, n=8, m=14):
    """A random spring network in a non-rest state: positions, edges, ym, vol, l0, stacked J."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, dim))
    E = np.column_stack([np.arange(n), (np.arange(n) + 1) % n])
    extra = rng.choice(n, size=(m - n, 2), replace=True)
    extra = extra[extra[:, 0] != extra[:, 1]]
    E = np.vstack([E, extra])
    ym = rng.uniform(0.5, 2.0, (len(E), 1))
    vol = rng.uniform(0.5, 2.0, (len(E), 1))
    l0 = simkit.edge_lengths(X, E).reshape(-1, 1) * rng.uniform(0.5, 1.5, (len(E), 1))
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(dim)).tocsc()
    return X.reshape(-1, 1), E, ym, vol, l0, J


def test_hookes_law_on_a_single_anchored_spring():
    k, l0 = 3.0, 1.0
    lengths = np.linspace(0.02, 2.0, 200)
    d = np.column_stack([lengths, np.zeros_like(lengths)])
    ym = np.full((200, 1), k)
    rest = np.full((200, 1), l0)
    psi = mass_springs_energy_element_d(d, ym, rest)
    force = -mass_springs_gradient_element_d(d, ym, rest)
    assert psi.shape == (200, 1) and force.shape == (200, 2)
    np.testing.assert_allclose(psi[:, 0], 0.5 * k * (lengths - l0) ** 2, atol=ROUNDOFF)
    np.testing.assert_allclose(force[:, 0], -k * (lengths - l0), atol=ROUNDOFF)
    np.testing.assert_allclose(force[:, 1], 0.0, atol=ROUNDOFF)


def test_chapter_calls_of_the_element_tier():
    d = np.array([[1.3, 0.4]])
    ym, rest = np.array([[2.0]]), np.array([[1.0]])
    e = mass_springs_energy_element_d(d, ym, rest).item()
    g = mass_springs_gradient_element_d(d, ym, rest).reshape(-1, 1)
    H = mass_springs_hessian_element_d(d, ym, rest)[0]
    l = np.linalg.norm(d)
    np.testing.assert_allclose(e, 0.5 * 2.0 * (l - 1.0) ** 2, rtol=ROUNDOFF)
    np.testing.assert_allclose(g, 2.0 * (l - 1.0) * d.T / l, rtol=ROUNDOFF)
    assert H.shape == (2, 2)


@pytest.mark.parametrize("dim", [2, 3])
def test_element_tier_derivatives_match_central_differences(dim):
    rng = np.random.default_rng(10 + dim)
    d = rng.standard_normal((5, dim))
    ym = rng.uniform(0.5, 2.0, 5)
    l0 = rng.uniform(0.3, 2.5, 5)
    g = mass_springs_gradient_element_d(d, ym, l0)
    g_fd = simkit.gradient_cfd(lambda y: mass_springs_energy_element_d(y.reshape(5, dim), ym, l0).sum(),
                               d.ravel(), FD_STEP)
    assert rel_err(g.ravel(), g_fd) < GRAD_TOL
    H = mass_springs_hessian_element_d(d, ym, l0)
    H_fd = simkit.gradient_cfd(lambda y: mass_springs_gradient_element_d(y.reshape(5, dim), ym, l0).ravel(),
                               d.ravel(), FD_STEP)
    assert rel_err(scipy.linalg.block_diag(*H), H_fd) < HESS_TOL


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("tier", ["x", "z"])
def test_global_tiers_match_central_differences(dim, tier):
    x, E, ym, vol, l0, J = random_network(dim, seed=20 + dim)
    topo = E if tier == "x" else J
    kw = {"dim": dim} if tier == "x" else {}
    energy = mass_springs_energy_x if tier == "x" else mass_springs_energy_z
    gradient = mass_springs_gradient_x if tier == "x" else mass_springs_gradient_z
    hessian = mass_springs_hessian_x if tier == "x" else mass_springs_hessian_z
    g = gradient(x, topo, ym, vol, l0, **kw)
    assert g.shape == x.shape
    g_fd = simkit.gradient_cfd(lambda y: energy(y, topo, ym, vol, l0, **kw), x, FD_STEP)
    assert rel_err(g.ravel(), g_fd) < GRAD_TOL
    H = hessian(x, topo, ym, vol, l0, psd=False, **kw)
    assert sps.issparse(H) and H.format == "csc" and H.shape == (x.size, x.size)
    H_fd = simkit.gradient_cfd(lambda y: gradient(y, topo, ym, vol, l0, **kw).ravel(), x, FD_STEP)
    assert rel_err(H.toarray(), H_fd) < HESS_TOL


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("psd", [False, True])
def test_tiers_agree_with_each_other_and_with_the_element_sum(dim, psd):
    x, E, ym, vol, l0, J = random_network(dim, seed=30 + dim)
    d = (J @ x).reshape(-1, dim)
    e_elem = float(vol.ravel() @ mass_springs_energy_element_d(d, ym, l0).ravel())
    np.testing.assert_allclose(mass_springs_energy_x(x, E, ym, vol, l0, dim=dim), e_elem, rtol=ROUNDOFF)
    np.testing.assert_allclose(mass_springs_energy_z(x, J, ym, vol, l0), e_elem, rtol=ROUNDOFF)
    g_elem = J.T @ (vol * mass_springs_gradient_element_d(d, ym, l0)).reshape(-1, 1)
    np.testing.assert_allclose(mass_springs_gradient_x(x, E, ym, vol, l0, dim=dim), g_elem, atol=ROUNDOFF)
    np.testing.assert_allclose(mass_springs_gradient_z(x, J, ym, vol, l0), g_elem, atol=ROUNDOFF)
    blocks = vol[:, :, None] * mass_springs_hessian_element_d(d, ym, l0)
    if psd:
        blocks = simkit.psd_project(blocks)
    H_elem = (J.T @ sps.csc_matrix(scipy.linalg.block_diag(*blocks)) @ J).toarray()
    np.testing.assert_allclose(mass_springs_hessian_x(x, E, ym, vol, l0, psd=psd, dim=dim).toarray(), H_elem,
                               atol=1e-10)
    np.testing.assert_allclose(mass_springs_hessian_z(x, J, ym, vol, l0, psd=psd).toarray(), H_elem, atol=1e-10)


@pytest.mark.parametrize("dim", [2, 3])
def test_z_tier_with_reduced_coordinates_is_the_chain_rule(dim):
    x, E, ym, vol, l0, J = random_network(dim, seed=40 + dim)
    rng = np.random.default_rng(41)
    B = rng.standard_normal((x.size, 3))
    z = np.linalg.lstsq(B, x, rcond=None)[0]
    Jr = J @ B
    xr = B @ z
    np.testing.assert_allclose(mass_springs_energy_z(z, Jr, ym, vol, l0, dim=dim),
                               mass_springs_energy_z(xr, J, ym, vol, l0), rtol=ROUNDOFF)
    np.testing.assert_allclose(mass_springs_gradient_z(z, Jr, ym, vol, l0, dim=dim),
                               B.T @ mass_springs_gradient_z(xr, J, ym, vol, l0), rtol=1e-10, atol=ROUNDOFF)
    np.testing.assert_allclose(mass_springs_hessian_z(z, Jr, ym, vol, l0, psd=False, dim=dim).toarray(),
                               B.T @ mass_springs_hessian_z(xr, J, ym, vol, l0, psd=False).toarray() @ B,
                               rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dim", [2, 3])
def test_zero_energy_and_gradient_at_rest(dim):
    x, E, ym, vol, _, J = random_network(dim, seed=50 + dim)
    l0 = simkit.edge_lengths(x.reshape(-1, dim), E)
    assert mass_springs_energy_x(x, E, ym, vol, l0, dim=dim) < ROUNDOFF
    np.testing.assert_allclose(mass_springs_gradient_z(x, J, ym, vol, l0), 0.0, atol=ROUNDOFF)


@pytest.mark.parametrize("dim", [2, 3])
def test_compressed_spring_exact_hessian_is_indefinite_projected_is_not(dim):
    d = np.zeros((1, dim))
    d[0, 0] = 0.5
    H = mass_springs_hessian_element_d(d, [[2.0]], [[1.0]])[0]
    lam = np.linalg.eigvalsh(H)
    np.testing.assert_allclose(lam, np.sort([2.0] + [2.0 * (1 - 1.0 / 0.5)] * (dim - 1)), rtol=ROUNDOFF)
    assert lam.min() < 0
    E = np.array([[0, 1]])
    x = np.zeros((2 * dim, 1))
    x[dim] = 0.5
    H_psd = mass_springs_hessian_x(x, E, [2.0], [1.0], [1.0], psd=True, dim=dim).toarray()
    H_exact = mass_springs_hessian_x(x, E, [2.0], [1.0], [1.0], psd=False, dim=dim).toarray()
    assert np.linalg.eigvalsh(H_exact).min() < -1.0
    assert np.linalg.eigvalsh(H_psd).min() > -ROUNDOFF


@pytest.mark.parametrize("dim", [2, 3])
def test_closed_form_projection_equals_psd_project(dim):
    x, E, ym, vol, l0, J = random_network(dim, seed=60 + dim, n=12, m=30)
    vol[0] = 1e-9
    d = (J @ x).reshape(-1, dim)
    expected = simkit.psd_project(vol[:, :, None] * mass_springs_hessian_element_d(d, ym, l0))
    H_elem = (J.T @ sps.csc_matrix(scipy.linalg.block_diag(*expected)) @ J).toarray()
    H = mass_springs_hessian_z(x, J, ym, vol, l0, psd=True).toarray()
    np.testing.assert_allclose(H, H_elem, rtol=ROUNDOFF, atol=ROUNDOFF * np.abs(H_elem).max())


@pytest.mark.parametrize("dim", [2, 3])
def test_degenerate_spring_is_finite_and_documented(dim):
    d = np.zeros((1, dim))
    ym, l0 = np.array([3.0]), np.array([0.5])
    np.testing.assert_allclose(mass_springs_energy_element_d(d, ym, l0), [[0.5 * 3.0 * 0.25]], rtol=ROUNDOFF)
    np.testing.assert_array_equal(mass_springs_gradient_element_d(d, ym, l0), 0.0)
    np.testing.assert_array_equal(mass_springs_hessian_element_d(d, ym, l0)[0], 3.0 * np.eye(dim))
    x = np.zeros((2 * dim, 1))
    E = np.array([[0, 1]])
    H = mass_springs_hessian_x(x, E, ym, [2.0], l0, psd=True, dim=dim)
    g = mass_springs_gradient_x(x, E, ym, [2.0], l0, dim=dim)
    assert np.isfinite(H.toarray()).all() and np.isfinite(g).all()
    np.testing.assert_allclose(np.linalg.eigvalsh(H.toarray()), np.sort([0.0] * dim + [12.0] * dim), atol=ROUNDOFF)
    tiny = np.full((1, dim), 1e-320)
    assert np.isfinite(mass_springs_hessian_element_d(tiny, ym, l0)).all()
