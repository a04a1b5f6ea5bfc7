"""ReducedElasticEnergy: the elastic energy of z with x = B z + x0, by cubature."""
import numpy as np
import pytest

import simkit
from reduced_cases import bar_3d, strip_2d
from simkit.energies.elastic import MATERIALS
from simkit.terms import ElasticEnergy, Map, ReducedElasticEnergy

FD_STEP = 1e-6
GRAD_TOL = 1e-6       # relative to the largest entry


def small_mesh(dim):
    if dim == 2:
        return simkit.grid_rectangle(5, 3, 1.0, 0.5)
    return simkit.grid_box(4, 3, 3, 1.0, 0.5, 0.5)


def deformed_coordinates(B, X, rng, scale=0.05):
    """Coordinates of the rest shape in the subspace (exact: the bases below hold it), plus noise."""
    z = simkit.project_into_subspace(X.reshape(-1, 1), B)
    return z + scale * rng.standard_normal(z.shape)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("material", list(MATERIALS))
def test_gradient_and_hessian_match_finite_differences(dim, material):
    X, T = small_mesh(dim)
    _, _, B = simkit.skinning_eigenmodes(X, T, 3)
    rng = np.random.default_rng(dim)
    lI, mc = simkit.spectral_cubature(X, T, simkit.skinning_eigenmodes(X, T, 3)[0], 5)
    term = ReducedElasticEnergy(X, T, B, 1.0, 3.0, material, cI=lI, cW=mc, psd=False)
    z = deformed_coordinates(B, X, rng)
    g = term.gradient(z)
    np.testing.assert_allclose(g[:, 0], simkit.gradient_cfd(term.energy, z, FD_STEP), atol=GRAD_TOL * abs(g).max())
    H = term.hessian(z)
    H_fd = simkit.gradient_cfd(lambda y: term.gradient(y)[:, 0], z, FD_STEP)
    np.testing.assert_allclose(H, H_fd, atol=GRAD_TOL * abs(H).max())
    np.testing.assert_array_equal(H, H.T)


@pytest.mark.parametrize("mesh", [bar_3d, strip_2d])
@pytest.mark.parametrize("psd", [False, True])
def test_every_element_is_the_full_energy_through_the_basis(mesh, psd):
    """Default cubature (every element, its volume): E(B z + x0), B^T g, B^T H B exactly."""
    X, T, bI = mesh()
    _, B = simkit.linear_modal_analysis(X, T, 8, bI)
    x0 = X.reshape(-1, 1)
    rng = np.random.default_rng(5)
    z = 0.02 * rng.standard_normal((8, 1)) / np.abs(B).max()
    mu, lam = np.linspace(1.0, 2.0, len(T)), 4.0
    full = ElasticEnergy(X, T, mu, lam, psd=psd)
    reduced = ReducedElasticEnergy(X, T, B, mu, lam, x0=x0, psd=psd)
    x = B @ z + x0
    np.testing.assert_allclose(reduced.energy(z), full.energy(x), rtol=1e-12)
    np.testing.assert_allclose(reduced.gradient(z), B.T @ full.gradient(x), rtol=1e-10, atol=1e-12)
    H = B.T @ (full.hessian(x) @ B)
    np.testing.assert_allclose(reduced.hessian(z), H, atol=1e-10 * abs(H).max())


def cubature_as_full_terms(X, T, cI, cW, mu, lam, material, psd):
    """The plain full term restricted to the cubature: ElasticEnergy of the elements T[cI], each weighted by
    cW / vol through its Lame parameters (every material's density is linear in mu and lam together)."""
    scale = cW / simkit.volume(X, T[cI])[:, 0]
    return ElasticEnergy(X, T[cI], mu * scale, lam * scale, material, psd=psd)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("material", list(MATERIALS))
@pytest.mark.parametrize("psd", [False, True])
def test_the_blend_fast_path_is_the_map_of_the_full_terms_on_the_cubature(dim, material, psd):
    """Skinning bases (B = B_s kron I_d) take the blend Hessian; linear modes the general one: both equal
    E(B z + x0), B^T g and B^T H B of the full term restricted to the cubature, weighted."""
    X, T = small_mesh(dim)
    bI = np.flatnonzero(X[:, 0] == 0)
    W, _, B_skin = simkit.skinning_eigenmodes(X, T, 3, bI=bI)
    _, B_modes = simkit.linear_modal_analysis(X, T, 8, bI)
    rng = np.random.default_rng(7)
    cI = np.sort(rng.choice(len(T), len(T) // 3, replace=False))
    cW = rng.uniform(0.5, 2.0, cI.size) * simkit.volume(X, T)[cI, 0]
    mu, lam = rng.uniform(1.0, 2.0, len(T)), 3.0
    x0 = X.reshape(-1, 1)
    for B, blend in ((B_skin, True), (B_modes, False)):
        term = ReducedElasticEnergy(X, T, B, mu, lam, material, x0=x0, cI=cI, cW=cW, psd=psd)
        assert (term._blend is not None) == blend
        plain = Map(cubature_as_full_terms(X, T, cI, cW, mu[cI], lam, material, psd), B, x0)
        z = 0.05 * rng.standard_normal((B.shape[1], 1)) / abs(B).max()
        np.testing.assert_allclose(term.energy(z), plain.energy(z), rtol=1e-12)
        np.testing.assert_allclose(term.gradient(z), plain.gradient(z), rtol=1e-10, atol=1e-12 * abs(plain.gradient(z)).max())
        H = plain.hessian(z)
        H = H.toarray() if hasattr(H, "toarray") else H
        np.testing.assert_allclose(term.hessian(z), H, atol=1e-11 * abs(H).max())


def test_cubature_energy_is_the_weighted_sum_over_the_chosen_elements():
    X, T, bI = bar_3d()
    _, B = simkit.linear_modal_analysis(X, T, 4, bI)
    cI, cW = np.array([3, 100, 400]), np.array([0.5, 1.5, 2.0])
    z = np.array([[0.1], [-0.2], [0.05], [0.0]]) / np.abs(B).max()
    x = (B @ z + X.reshape(-1, 1)).reshape(-1, 3)
    term = ReducedElasticEnergy(X, T, B, 2.0, 3.0, x0=X.reshape(-1, 1), cI=cI, cW=cW)
    F = (simkit.deformation_jacobian(X, T) @ x.reshape(-1, 1)).reshape(-1, 3, 3)[cI]
    psi = simkit.energies.elastic_energy_element_F(F, 2.0, 3.0, "neo-hookean")[:, 0]
    np.testing.assert_allclose(term.energy(z), cW @ psi, rtol=1e-11)
    assert term.JB.shape == (27, 4) and term.size == 4


def test_an_inverted_cubature_element_gives_inf_and_named_errors():
    X, T = small_mesh(3)
    B = np.eye(X.size)
    term = ReducedElasticEnergy(X, T, B, 1.0, 1.0, cI=np.array([0, 5]), cW=np.array([1.0, 1.0]))
    x = X.copy()
    x[T[5, 0]] = x[T[5, 1:]].mean(axis=0) * 2 - x[T[5, 0]]       # reflect one vertex through the opposite face
    z = x.reshape(-1, 1)
    assert term.energy(z) == np.inf
    with pytest.raises(ValueError, match="z: neo-hookean is undefined"):
        term.gradient(z)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"B": np.ones((5, 2))}, ValueError, r"B: expected a basis of shape \(24, r\)"),
    ({"cI": np.array([0])}, ValueError, "cI, cW: expected both"),
    ({"cI": np.array([9]), "cW": np.array([1.0])}, ValueError, r"cI: expected indices in \[0, 6\)"),
    ({"cI": np.array([0]), "cW": np.array([0.0])}, ValueError, "cW: expected strictly positive"),
    ({"x0": np.ones(3)}, ValueError, "x0: expected 24 rows"),
    ({"material": "rubber"}, ValueError, "material: expected one of"),
    ({"psd": "yes"}, TypeError, "psd: expected True or False"),
])
def test_bad_input_raises_naming_the_argument(kwargs, error, match):
    X, T = simkit.grid_box(2, 2, 2)
    args = {"B": np.eye(24)} | kwargs
    B = args.pop("B")
    with pytest.raises(error, match=match):
        ReducedElasticEnergy(X, T, B, 1.0, 1.0, **args)
    term = ReducedElasticEnergy(X, T, np.eye(24), 1.0, 1.0)
    with pytest.raises(ValueError, match="x: expected 24 rows"):
        term.energy(np.ones(5))
