"""The fast P1 Hessian path equals the generic one (J's local rows times the element dP/dF)."""
import numpy as np
import pytest

import simkit
from simkit import _assembly
from simkit import _isotropic_eigensystem as eig
from simkit.energies import _hyperelastic as he
from simkit.energies.elastic import MATERIALS
from simkit._small_matrices import components

ROUNDOFF = 1e-12


@pytest.mark.parametrize("psd", [False, True])
@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("material", MATERIALS)
def test_p1_blocks_equal_the_generic_operator_assembly(material, dim, psd, monkeypatch):
    rng = np.random.default_rng(21)
    X, T = simkit.grid_rectangle(5, 4) if dim == 2 else simkit.grid_box(3, 3, 3)
    x = X + 0.1 / 4 * rng.standard_normal(X.shape)
    J, vol = simkit.deformation_jacobian(X, T), simkit.volume(X, T)[:, 0]
    mu, lam = 1.0 + rng.random(len(T)), 3.0 + rng.random(len(T))
    mat = he.material(material)
    F = components((J @ x.reshape(-1, 1)).reshape(len(T), dim, dim))
    fast = he.structure(J, dim)
    assert fast.G is not None                                   # deformation_jacobian is recognised as P1
    generic = he.Structure(operator=_assembly.operator_pattern(J, J.shape[1], dim=dim * dim))
    monkeypatch.setattr(he, "CHUNK", 7)                        # several blocks, a ragged last one
    H_fast = he.hessian(mat, fast, F, mu, lam, vol, psd).toarray()
    H_ref = he.hessian(mat, generic, F, mu, lam, vol, psd).toarray()
    np.testing.assert_allclose(H_fast, H_ref, atol=ROUNDOFF * np.abs(H_ref).max())
    np.testing.assert_array_equal(H_fast, H_fast.T)


def test_an_operator_that_is_not_p1_takes_the_generic_path():
    X, T = simkit.grid_rectangle(3, 3)
    J = simkit.deformation_jacobian(X, T).tocsr()
    J3 = (J * 2.0).tocsr()
    J3.data[0] += 1.0                                          # rows of one element no longer agree
    assert he.structure(J3, 2).G is None
    H = simkit.energies.elastic_hessian_x(X, J3, 1.0, 1.0, simkit.volume(X, T), "neo-hookean", psd=False)
    assert H.shape == (18, 18) and np.isfinite(H.data).all()



def graded_mesh(dim, base, slope, seed):
    """A small mesh stretched by ``base + slope * X_0`` along every axis (compressed where that is < 1)."""
    rng = np.random.default_rng(seed)
    X, T = simkit.grid_rectangle(6, 5) if dim == 2 else simkit.grid_box(4, 4, 4)
    x = X * (base + slope * X[:, :1]) + 0.01 * rng.standard_normal(X.shape)
    J, vol = simkit.deformation_jacobian(X, T), simkit.volume(X, T)[:, 0]
    return J, vol, components((J @ x.reshape(-1, 1)).reshape(len(T), dim, dim)), rng


def assert_fast_equals_generic(mat, J, F, mu, lam, vol, psd):
    generic = he.Structure(operator=_assembly.operator_pattern(J, J.shape[1], dim=F.shape[0] ** 2))
    H_fast = he.hessian(mat, he.structure(J, F.shape[0]), F, mu, lam, vol, psd).toarray()
    H_ref = he.hessian(mat, generic, F, mu, lam, vol, psd).toarray()
    np.testing.assert_allclose(H_fast, H_ref, atol=ROUNDOFF * np.abs(H_ref).max())
    return H_fast, np.abs(H_ref).max()


@pytest.mark.parametrize("dim", [2, 3])
def test_neo_hookean_projection_by_twist_correction_and_whole_blocks(dim, monkeypatch):
    # compressed elements (negative twist eigenvalues only: corrected in place) next to strongly
    # stretched ones (negative flip eigenvalues, indefinite A: whole projected blocks)
    J, vol, F, _ = graded_mesh(dim, 0.7, 1.2, 22)
    mu, lam = np.full(F.shape[-1], 1.0), np.full(F.shape[-1], 20.0)
    mat = he.material("neo-hookean")
    A, flip, twist = mat.eigenvalues(eig.svd_rv(F)[1], mu, lam)
    whole = (flip < 0).any(axis=0) | ~eig.positive_definite(A)
    assert whole.any() and ((twist < 0).any(axis=0) & ~whole).any() and not whole.all()
    monkeypatch.setattr(he, "CHUNK", 5)
    H, scale = assert_fast_equals_generic(mat, J, F, mu, lam, vol, True)
    assert np.linalg.eigvalsh(H).min() > -ROUNDOFF * scale


@pytest.mark.parametrize("psd", [False, True])
@pytest.mark.parametrize("dim", [2, 3])
def test_arap_closed_form_blocks_on_a_compressed_and_stretched_mesh(dim, psd):
    # negative twist eigenvalues (sigma_i + sigma_j < 2) on the compressed side, none on the other
    J, vol, F, rng = graded_mesh(dim, 0.5, 1.5, 23)
    mu = 1.0 + rng.random(F.shape[-1])
    mat = he.material("arap")
    twist = mat.eigenvalues(eig.svd_rv(F)[1], mu, mu)[2]
    assert (twist < 0).any(axis=0).any() and not (twist < 0).any(axis=0).all()
    assert_fast_equals_generic(mat, J, F, mu, mu, vol, psd)
