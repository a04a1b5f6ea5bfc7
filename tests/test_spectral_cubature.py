"""spectral_cubature (upstream's scheme) and project_into_subspace (mass-norm least squares)."""
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sps
from scipy.cluster.vq import kmeans2

import simkit
from reduced_cases import bar_3d, upstream_meshes
from simkit.spectral_cubature import TIE_RTOL, _nearest_rows

UPSTREAM = json.loads((Path(__file__).parent / "data" / "upstream_reduced_0_1_8.json").read_text())


def two_tets():
    X = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    return X, np.array([[0, 1, 2, 3], [1, 4, 2, 3]])


# --- upstream's own tests (simkit tests/test_spectral_cubature.py, test_project_into_subspace.py), ported

def test_upstream_cluster_volumes_are_positive():
    X, T = two_tets()
    W = np.random.default_rng(1).standard_normal((X.shape[0], 4))
    lI, mc = simkit.spectral_cubature(X, T, W, 2)
    assert lI.shape == (2,) and mc.shape == (2,)
    assert np.all(mc > 0) and mc.sum() > 0


def test_upstream_projection_minimizes_the_distance():
    rng = np.random.default_rng(4)
    B, y = rng.standard_normal((12, 4)), rng.standard_normal(12)
    z = simkit.project_into_subspace(y, B, M=None)
    residual = B @ z.reshape(-1) - y
    assert np.linalg.norm(residual) <= np.linalg.norm(B @ rng.standard_normal(4) - y) + 1e-10
    z_alt = np.linalg.lstsq(B, y, rcond=None)[0]
    assert np.linalg.norm(B @ z.reshape(-1) - y) <= np.linalg.norm(B @ z_alt - y) + 1e-10


# --- spectral_cubature --------------------------------------------------------------------------------

def test_picks_upstreams_elements_and_weights():
    d = upstream_meshes()
    lI, mc = simkit.spectral_cubature(d["X3"], d["T3"], d["W3"], 6)
    np.testing.assert_array_equal(lI, UPSTREAM["cubature_3d_k6"]["lI"])
    np.testing.assert_allclose(mc, UPSTREAM["cubature_3d_k6"]["mc"], rtol=1e-12)


def test_weights_are_cluster_volumes_and_the_element_is_nearest_its_centroid():
    X, T, _ = bar_3d()
    W, _, _ = simkit.skinning_eigenmodes(X, T, 6)
    lI, mc, labels, centroids = simkit.spectral_cubature(X, T, W, 20, return_labels=True, return_centroids=True)
    vol = simkit.volume(X, T)[:, 0]
    np.testing.assert_allclose(mc, np.bincount(labels, weights=vol, minlength=20), rtol=1e-12)
    np.testing.assert_allclose(mc.sum(), vol.sum(), rtol=1e-12)
    Wt = W[T].mean(axis=1)
    distances = np.linalg.norm(Wt[None, :, :] - centroids[:, None, :], axis=2)
    tied = distances <= distances.min(axis=1, keepdims=True) * (1 + TIE_RTOL) + TIE_RTOL * np.abs(Wt).max()
    np.testing.assert_array_equal(lI, np.argmax(tied, axis=1))          # the nearest, or the first of a round-off tie
    np.testing.assert_allclose(distances[np.arange(20), lI], distances.min(axis=1), rtol=1e-8, atol=1e-12)
    assert labels.shape == (len(T),) and centroids.shape == (20, 6)
    assert len(simkit.spectral_cubature(X, T, W, 20, return_labels=True)) == 3


def test_rows_equal_but_for_round_off_go_to_the_first_on_every_machine():
    """Two elements with the same features but for round-off: the first represents the cluster whichever of them
    round-off puts a hair nearer its centroid (argmin alone follows the round-off: the bug that changed chapter 019's
    clustered cubature with the BLAS kernel); a real difference still decides."""
    P = np.array([[0.0, 0.0], [0.3 - 1e-15, 0.4], [0.3 + 1e-15, 0.4], [1.0, 1.0]])
    for side in (-1, 1):
        C = np.array([[0.3 + side * 3e-16, 0.4], [0.9, 0.9]])
        assert np.argmin(np.linalg.norm(P - C[0], axis=1)) == (1 if side < 0 else 2)
        np.testing.assert_array_equal(_nearest_rows(C, P), [1, 3])
    P[2] = [0.3, 0.4 + 1e-6]
    np.testing.assert_array_equal(_nearest_rows(np.array([[0.3, 0.4 + 1e-6]]), P), [2])


def test_the_clusters_are_scipys_kmeans_plus_plus_clusters():
    """The incremental k-means++ start draws scipy's centres: kmeans2(seed=0, minit="++") gives the same clusters."""
    X, T, _ = bar_3d()
    W, _, _ = simkit.skinning_eigenmodes(X, T, 6)
    Wt = W[T].mean(axis=1)
    centroids, labels = kmeans2(Wt, 40, seed=0, minit="++")
    assert np.bincount(labels, minlength=40).min() > 0
    _, _, ours, our_centroids = simkit.spectral_cubature(X, T, W, 40, return_labels=True, return_centroids=True)
    np.testing.assert_array_equal(ours, labels)
    np.testing.assert_array_equal(our_centroids, centroids)


def test_empty_clusters_are_dropped_and_every_weight_is_positive():
    """A step function as the basis: 5 distinct element averages (0, 1/4, ..., 1) for 8 clusters, so k-means leaves
    some empty; they represent no element."""
    X, T, _ = bar_3d()
    W = (X[:, :1] > 1.5).astype(float)
    Wt = W[T].mean(axis=1)
    assert np.unique(Wt).size == 5
    with warnings.catch_warnings(record=True) as caught:       # scipy also divides 0 by 0 in its start
        warnings.simplefilter("always")
        _, scipy_labels = kmeans2(Wt, 8, seed=0, minit="++")
    assert any("empty" in str(w.message) for w in caught)
    assert np.unique(scipy_labels).size < 8
    lI, mc, labels, centroids = simkit.spectral_cubature(X, T, W, 8, return_labels=True, return_centroids=True)
    c = np.unique(scipy_labels).size
    assert lI.shape == mc.shape == (c,) and centroids.shape == (c, 1)
    assert np.all(mc > 0)
    np.testing.assert_array_equal(np.unique(labels), np.arange(c))
    np.testing.assert_allclose(mc, np.bincount(labels, weights=simkit.volume(X, T)[:, 0]), rtol=1e-12)
    np.testing.assert_allclose(mc.sum(), simkit.volume(X, T).sum(), rtol=1e-12)
    constant = simkit.spectral_cubature(X, T, np.ones((len(X), 2)), 5)
    assert constant[0].shape == (1,) and constant[1][0] == pytest.approx(simkit.volume(X, T).sum(), rel=1e-12)


def test_cubature_is_exact_for_a_uniform_deformation():
    """A uniform F gives every element the same psi, and the weights sum to the volume: exact energy."""
    X, T, _ = bar_3d()
    W, _, B = simkit.skinning_eigenmodes(X, T, 6)
    lI, mc = simkit.spectral_cubature(X, T, W, 12)
    F = np.array([[1.1, 0.2, 0.0], [0.0, 0.9, 0.1], [0.05, 0.0, 1.2]])
    z = simkit.project_into_subspace((X @ F.T).reshape(-1, 1), B)
    full = simkit.terms.ElasticEnergy(X, T, 1.0, 4.0)
    cubature = simkit.terms.ReducedElasticEnergy(X, T, B, 1.0, 4.0, cI=lI, cW=mc)
    np.testing.assert_allclose(cubature.energy(z), full.energy(B @ z), rtol=1e-10)


# --- project_into_subspace -----------------------------------------------------------------------------

def test_projection_satisfies_the_mass_normal_equations():
    rng = np.random.default_rng(0)
    B = sps.random(40, 6, density=0.5, random_state=1, format="csc") + sps.eye(40, 6)
    M = sps.diags(rng.uniform(0.5, 2.0, 40))
    y = rng.standard_normal((40, 1))
    z = simkit.project_into_subspace(y, B, M)
    np.testing.assert_allclose(B.T @ M @ (B @ z - y), 0.0, atol=1e-12)
    BMB, BMy = (B.T @ M @ B).toarray(), B.T @ M @ y
    np.testing.assert_allclose(simkit.project_into_subspace(None, B, BMB=BMB, BMy=BMy), z, rtol=1e-12)
    np.testing.assert_allclose(simkit.project_into_subspace(B @ z, B, M), z, rtol=1e-10)


@pytest.mark.parametrize("call, error, match", [
    (lambda: simkit.spectral_cubature(*two_tets(), np.ones((5, 2)), 3), ValueError, "k: expected between 1 and the 2"),
    (lambda: simkit.spectral_cubature(*two_tets(), np.ones((4, 2)), 1), ValueError, r"W: expected shape \(5, p\)"),
    (lambda: simkit.spectral_cubature(*two_tets(), np.ones((5, 2)), 1, return_labels=1), TypeError, "return_labels"),
    (lambda: simkit.project_into_subspace(np.ones(5), np.ones((4, 2))), ValueError, "y: expected 4 rows"),
    (lambda: simkit.project_into_subspace(np.ones(4), np.ones((4, 2))), ValueError, "B: the basis is rank deficient"),
    (lambda: simkit.project_into_subspace(np.ones(4), np.eye(4)[:, :2], M=np.eye(3)), ValueError, r"M: expected a sq"),
])
def test_bad_input_raises_naming_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()
