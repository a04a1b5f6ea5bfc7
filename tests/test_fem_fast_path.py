"""The fast P1 Hessian path equals the generic one (J's local rows times the element dP/dF)."""
import numpy as np
import pytest

import simkit
from simkit import _assembly
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


@pytest.mark.parametrize("dim", [2, 3])
def test_neo_hookean_projection_by_twist_correction_and_whole_blocks(dim, monkeypatch):
    # compressed elements (negative twist eigenvalues only: corrected in place) next to strongly
    # stretched ones (negative flip eigenvalues, indefinite A: whole projected blocks)
    from simkit import _isotropic_eigensystem as eig
    rng = np.random.default_rng(22)
    X, T = simkit.grid_rectangle(6, 5) if dim == 2 else simkit.grid_box(4, 4, 4)
    x = X * (0.7 + 1.2 * X[:, :1]) + 0.01 * rng.standard_normal(X.shape)
    J, vol = simkit.deformation_jacobian(X, T), simkit.volume(X, T)[:, 0]
    mu, lam = np.full(len(T), 1.0), np.full(len(T), 20.0)
    F = components((J @ x.reshape(-1, 1)).reshape(len(T), dim, dim))
    mat = he.material("neo-hookean")
    A, flip, twist = mat.eigenvalues(eig.svd_rv(F)[1], mu, lam)
    whole = (flip < 0).any(axis=0) | ~eig.positive_definite(A)
    assert whole.any() and ((twist < 0).any(axis=0) & ~whole).any() and not whole.all()
    generic = he.Structure(operator=_assembly.operator_pattern(J, J.shape[1], dim=dim * dim))
    monkeypatch.setattr(he, "CHUNK", 5)
    H_fast = he.hessian(mat, he.structure(J, dim), F, mu, lam, vol, True).toarray()
    H_ref = he.hessian(mat, generic, F, mu, lam, vol, True).toarray()
    np.testing.assert_allclose(H_fast, H_ref, atol=ROUNDOFF * np.abs(H_ref).max())
    assert np.linalg.eigvalsh(H_fast).min() > -ROUNDOFF * np.abs(H_ref).max()
