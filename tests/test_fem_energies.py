"""Hyperelastic energies: derivatives against central differences, tiers, invariances, projection."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
import simkit.energies as en
from fem_cases import random_rotation
from simkit.energies.elastic import MATERIALS

FD_STEP = 1e-6
GRAD_TOL = 1e-6
HESS_TOL = 1e-5
ROUNDOFF = 1e-10
ROTATION_INVARIANT = ("arap", "fcr", "neo-hookean", "stable-neo-hookean")


def rel_err(a, b):
    return np.linalg.norm(np.asarray(a) - np.asarray(b)) / max(np.linalg.norm(b), 1e-300)


def random_F(t, dim, rng, spread=0.3):
    """Deformation gradients near rotations, det F > 0."""
    F = np.stack([random_rotation(dim, rng) @ (np.eye(dim) + spread * rng.standard_normal((dim, dim)))
                  for _ in range(t)])
    dets = np.linalg.det(F)
    F[dets < 0, :, 0] *= -1
    return F


def small_mesh(dim):
    if dim == 2:
        return simkit.grid_rectangle(3, 3, 1.0, 0.8)
    return simkit.grid_box(2, 2, 2, 1.0, 0.8, 1.2)


def deformed(X, rng, amount=0.08):
    return X + amount * rng.standard_normal(X.shape)


def material_params(t, rng):
    return 1.0 + rng.random(t), 2.0 + rng.random(t)


def mesh_case(dim, rng, amount=0.08):
    """A small mesh, its operator and volumes, random Lamé parameters and a deformed state."""
    X, T = small_mesh(dim)
    mu, lam = material_params(len(T), rng)
    return X, T, simkit.deformation_jacobian(X, T), simkit.volume(X, T), mu, lam, deformed(X, rng, amount)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("material", MATERIALS)
def test_element_tier_matches_central_differences(material, dim):
    rng = np.random.default_rng(1)
    F = random_F(3, dim, rng)
    mu, lam = material_params(3, rng)
    for e in range(3):
        psi = lambda f: en.elastic_energy_element_F(f.reshape(1, dim, dim), mu[e], lam[e], material)[0, 0]
        P = en.elastic_gradient_element_F(F[e:e + 1], mu[e], lam[e], material)[0]
        assert rel_err(P.ravel(), simkit.gradient_cfd(psi, F[e].ravel(), FD_STEP)) < GRAD_TOL
        grad = lambda f: en.elastic_gradient_element_F(f.reshape(1, dim, dim), mu[e], lam[e], material).ravel()
        H = en.elastic_hessian_element_F(F[e:e + 1], mu[e], lam[e], material, psd=False)[0]
        assert rel_err(H, simkit.gradient_cfd(grad, F[e].ravel(), FD_STEP)) < HESS_TOL


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("material", MATERIALS)
def test_global_tier_matches_central_differences(material, dim):
    rng = np.random.default_rng(2)
    X, T, J, vol, mu, lam, x = mesh_case(dim, rng)
    E = lambda y: en.elastic_energy_x(y.reshape(-1, dim), J, mu, lam, vol, material)
    g = en.elastic_gradient_x(x, J, mu, lam, vol, material)
    assert g.shape == (x.size, 1)
    assert rel_err(g.ravel(), simkit.gradient_cfd(E, x.ravel(), FD_STEP)) < GRAD_TOL
    G = lambda y: en.elastic_gradient_x(y.reshape(-1, dim), J, mu, lam, vol, material).ravel()
    H = en.elastic_hessian_x(x, J, mu, lam, vol, material, psd=False)
    assert sps.issparse(H) and H.format == "csc" and H.shape == (x.size, x.size)
    assert rel_err(H.toarray(), simkit.gradient_cfd(G, x.ravel(), FD_STEP)) < HESS_TOL


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("material", MATERIALS)
def test_projected_hessian_is_symmetric_psd_and_exact_where_convex(material, dim):
    rng = np.random.default_rng(3)
    X, T, J, vol, mu, lam, x = mesh_case(dim, rng, amount=0.12)
    H = en.elastic_hessian_x(x, J, mu, lam, vol, material, psd=True).toarray()
    np.testing.assert_allclose(H, H.T, atol=ROUNDOFF * np.abs(H).max())
    assert np.linalg.eigvalsh(H).min() > -ROUNDOFF * np.abs(H).max()
    if material == "linear-elasticity":   # constant PSD Hessian: projection changes nothing
        H_exact = en.elastic_hessian_x(x, J, mu, lam, vol, material, psd=False).toarray()
        np.testing.assert_allclose(H, H_exact, atol=ROUNDOFF * np.abs(H).max())


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("material", MATERIALS)
def test_term_equals_the_x_tier(material, dim):
    rng = np.random.default_rng(4)
    X, T, J, vol, mu, lam, x = mesh_case(dim, rng)
    term = simkit.terms.ElasticEnergy(X, T, mu, lam, material)
    xs = x.reshape(-1, 1)
    assert term.energy(xs) == pytest.approx(en.elastic_energy_x(x, J, mu, lam, vol, material), rel=1e-14)
    np.testing.assert_allclose(term.gradient(xs), en.elastic_gradient_x(x, J, mu, lam, vol, material), rtol=1e-14)
    np.testing.assert_allclose(term.hessian(xs).toarray(),
                               en.elastic_hessian_x(x, J, mu, lam, vol, material).toarray(), rtol=1e-14)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("material", ROTATION_INVARIANT)
def test_rigid_motions_store_no_energy_and_make_no_force(material, dim):
    rng = np.random.default_rng(5)
    X, T, J, vol, mu, lam, x = mesh_case(dim, rng)
    Q, shift = random_rotation(dim, rng), rng.standard_normal(dim)
    moved = x @ Q.T + shift
    E0 = en.elastic_energy_x(x, J, mu, lam, vol, material)
    assert en.elastic_energy_x(moved, J, mu, lam, vol, material) == pytest.approx(E0, rel=1e-12)
    g0 = en.elastic_gradient_x(x, J, mu, lam, vol, material).reshape(-1, dim)
    g1 = en.elastic_gradient_x(moved, J, mu, lam, vol, material).reshape(-1, dim)
    np.testing.assert_allclose(g1, g0 @ Q.T, atol=1e-12 * np.abs(g0).max())   # forces rotate along
    rest = X @ Q.T + shift                                                      # a rotated rest shape
    g_rest = en.elastic_gradient_x(rest, J, mu, lam, vol, material)
    np.testing.assert_allclose(g_rest, 0.0, atol=1e-12)
    if material != "stable-neo-hookean":          # its psi(I) is a non-zero constant (upstream's form)
        assert abs(en.elastic_energy_x(rest, J, mu, lam, vol, material)) < 1e-12


@pytest.mark.parametrize("dim", [2, 3])
def test_linear_elasticity_stores_energy_under_rotation(dim):
    X, T = small_mesh(dim)
    J, vol = simkit.deformation_jacobian(X, T), simkit.volume(X, T)
    mu, lam = 1.0, 2.0
    for theta in (0.1, 0.2):
        c, s = np.cos(theta), np.sin(theta)
        Q = np.array([[c, -s], [s, c]]) if dim == 2 else np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
        E = en.elastic_energy_x(X @ Q.T, J, mu, lam, vol, "linear-elasticity")
        # eps = (Q + Q^T)/2 - I = (cos - 1) on the rotation plane: psi = (2 mu + 2 lam)(1 - cos)^2
        assert E == pytest.approx((2 * mu + 2 * lam) * (1 - c) ** 2 * vol.sum(), rel=1e-10)
        assert E > 0
