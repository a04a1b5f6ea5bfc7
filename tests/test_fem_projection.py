"""psd=True: the analytic eigensystems give exactly the batched-eigh projection of the same Hessians."""
import numpy as np
import pytest

import simkit.energies as en
from simkit import _isotropic_eigensystem as eig
from simkit._small_matrices import components, stacked
from fem_cases import random_rotation
from simkit.energies.elastic import MATERIALS

MATCH_TOL = 1e-10


def stress_cases(dim, allow_inversion, rng):
    """F = R1 diag(s) R2^T over moderate, large, near-inverted, inverted and exactly repeated s."""
    spectra = [rng.uniform(0.6, 1.6, dim) for _ in range(6)]
    spectra += [rng.uniform(0.1, 10.0, dim) for _ in range(6)]                        # large stretch
    spectra += [np.r_[rng.uniform(0.5, 2.0, dim - 1), 1e-3], np.r_[rng.uniform(0.5, 2.0, dim - 1), 1e-2]]
    spectra += [np.full(dim, 1.0), np.full(dim, 0.7), np.full(dim, 2.5)]               # exactly repeated
    spectra += [np.r_[np.full(dim - 1, 1.3), 0.6], np.r_[1.8, np.full(dim - 1, 0.9)]]
    if allow_inversion:
        spectra += [np.r_[rng.uniform(0.5, 2.0, dim - 1), -0.4], np.r_[np.full(dim - 1, 1.1), -0.2]]
    F = [random_rotation(dim, rng) @ np.diag(s) @ random_rotation(dim, rng).T for s in spectra]
    F += [np.diag(s) for s in spectra[-5:]]                                            # exact repeats, no rounding
    F += [np.eye(dim)]
    return np.array(F)


def eigh_projection(H):
    lam, V = np.linalg.eigh(0.5 * (H + np.swapaxes(H, 1, 2)))
    return (V * np.maximum(lam, 0.0)[:, None, :]) @ np.swapaxes(V, 1, 2)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("material", MATERIALS)
def test_analytic_projection_equals_batched_eigh_projection(material, dim):
    rng = np.random.default_rng(11)
    F = stress_cases(dim, material != "neo-hookean", rng)
    t = len(F)
    mu, lam = rng.uniform(0.5, 2.0, t), rng.uniform(0.5, 20.0, t)
    H = en.elastic_hessian_element_F(F, mu, lam, material, psd=False)
    P = en.elastic_hessian_element_F(F, mu, lam, material, psd=True)
    reference = eigh_projection(H)
    scale = np.abs(H).max(axis=(1, 2), keepdims=True)
    assert (np.abs(P - reference) / scale).max() < MATCH_TOL
    np.testing.assert_array_equal(P, np.swapaxes(P, 1, 2))
    if material != "linear-elasticity":
        assert (np.linalg.eigvalsh(H).min(axis=1) < -1e-3 * scale[:, 0, 0]).any(), "no indefinite case tested"


@pytest.mark.parametrize("dim", [2, 3])
def test_rotation_variant_svd_convention(dim):
    rng = np.random.default_rng(12)
    F = np.array([random_rotation(dim, rng) @ np.diag(s) @ random_rotation(dim, rng).T
                  for s in (np.r_[np.full(dim - 1, 1.5), -0.5], rng.uniform(0.5, 2, dim))])
    U, s, V = eig.svd_rv(components(F))
    U, s, V = stacked(U), s.T, stacked(V)
    np.testing.assert_allclose(np.linalg.det(U), 1.0)
    np.testing.assert_allclose(np.linalg.det(V), 1.0)
    np.testing.assert_allclose(U * s[:, None, :] @ np.swapaxes(V, 1, 2), F, atol=1e-14)
    np.testing.assert_allclose(np.abs(s), np.linalg.svd(F, compute_uv=False), rtol=1e-13)
    assert s[0, -1] < 0 < s[1, -1]                    # det F < 0 puts the sign on the smallest value
    assert (np.abs(s[:, :-1]) >= np.abs(s[:, 1:])).all()
