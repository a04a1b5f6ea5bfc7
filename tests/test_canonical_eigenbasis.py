"""Reduced bases that are the same on every machine: canonical eigenvectors (simkit._eigen.canonical_basis).

An eigensolver returns each eigenvector with an arbitrary sign and a cluster of equal eigenvalues in an
arbitrary orthonormal basis, and LAPACK and ARPACK choose differently with the BLAS thread count or kernel.
The symmetric bar (24 tetrahedra per cube: a quarter turn about its axis maps the mesh to itself) has exactly
equal pairs, an unclamped body six rigid modes at 0. Its modes, skinning weights, training poses and fitted
cubature are computed in subprocesses under different BLAS settings and must agree to round-off; the same
properties are checked in-process against a basis rotated on purpose.
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy as sp

import simkit
from reduced_cases import bar_3d, symmetric_bar
from simkit import _eigen
from simkit.terms import ReducedElasticEnergy
from test_linear_modal_analysis import stiffness_and_mass

MU, LAM, RHO = 1.0e5, 1.5e5, 1000.0
AGREE = 1e-9                  # bases, poses and weights of two BLAS settings, relative to their largest entry
SETTINGS = {"one thread": {"OPENBLAS_NUM_THREADS": "1"}, "two threads": {"OPENBLAS_NUM_THREADS": "2"},
            "SandyBridge kernel": {"OPENBLAS_NUM_THREADS": "2", "OPENBLAS_CORETYPE": "SandyBridge"}}


def poses_and_cubature(X, T, bI):
    """Training poses of the clamped 4-weight skinning subspace and the optimized cubature fitted to them."""
    _, _, B = simkit.skinning_eigenmodes(X, T, 4, bI=bI)
    x0 = X.reshape(-1, 1)
    K = ReducedElasticEnergy(X, T, B, MU, LAM, x0=x0).hessian(np.zeros((B.shape[1], 1)))
    M = (B.T @ sp.sparse.kron(simkit.massmatrix(X, T, RHO), sp.sparse.eye(3)) @ B).toarray()
    Z = simkit.modal_training_poses(B, K, M, 10, 0.05)
    return Z, *simkit.optimized_cubature(X, T, B, Z, 60, MU, LAM, x0=x0, tolerance=1e-6)


def pipeline():
    """The reduced-model pipeline: every array a machine must reproduce, by name.

    On the symmetric bar:
    - modes: clamped, k = 5 cuts the second pair (the sparse path: 348 unknowns); free, k = 8: six rigid modes,
      torsion and one of the first bending pair;
    - skinning weights: clamped, k = 3 cuts the first pair (dense path), and k = 6 on a finer bar (sparse path,
      373 vertices) cutting a pair;
    - the spectral cubature of chapter 019's bar by its 6 clamped skinning weights (k-means, 144 clusters; elements
      with equal features but for round-off, which went to another element under SandyBridge);
    - training poses and the optimized cubature of the clamped 4-weight subspace (a pair inside it).
    On the other tests' bar (``grid_box``: no pairs, but modes whose extremes are mirror images), its training
    poses and cubature, which differed between one and two BLAS threads.
    """
    X, T, bI = symmetric_bar()
    out = {}
    out["E_clamped"], out["B_clamped"] = simkit.linear_modal_analysis(X, T, 5, bI, mu=MU, lam=LAM, rho=RHO)
    out["E_free"], out["B_free"] = simkit.linear_modal_analysis(X, T, 8, mu=MU, lam=LAM, rho=RHO)
    out["W_3"], out["E_3"], _ = simkit.skinning_eigenmodes(X, T, 3, bI=bI)
    Xf, Tf, bIf = symmetric_bar((6, 3, 3), (1.5, 0.75, 0.75))
    out["W_fine"], out["E_fine"], _ = simkit.skinning_eigenmodes(Xf, Tf, 6, bI=bIf)
    Xc, Tc = simkit.grid_box(25, 7, 7, 1.2, 0.3, 0.3)             # chapter 019's bar, whose cubature changed
    Wc = simkit.skinning_eigenmodes(Xc, Tc, 6, bI=np.flatnonzero(Xc[:, 0] == 0))[0]
    out["lI_spectral"], out["mc_spectral"] = simkit.spectral_cubature(Xc, Tc, Wc, 144)
    out["Z"], out["cI"], out["cW"] = poses_and_cubature(X, T, bI)
    out["Z_bar"], out["cI_bar"], out["cW_bar"] = poses_and_cubature(*bar_3d())
    return out


def run_pipeline(tmp_path, name, settings):
    """The pipeline in a fresh interpreter under the given BLAS environment: its arrays."""
    path = tmp_path / f"{name.replace(' ', '_')}.npz"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("OPENBLAS_", "OMP_"))} | settings
    subprocess.run([sys.executable, __file__, str(path)], env=env, check=True, cwd=Path(__file__).parent,
                   capture_output=True)
    with np.load(path) as data:
        return dict(data)


def differences(a, b):
    """Largest difference of each array between two runs, relative to its largest entry (index arrays: equal)."""
    assert a.keys() == b.keys()
    return {key: float(np.abs(a[key] - b[key]).max() / np.abs(a[key]).max()) if a[key].dtype.kind == "f"
            else float(not np.array_equal(a[key], b[key])) for key in a}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("canonical")
    return {name: run_pipeline(tmp_path, name, settings) for name, settings in SETTINGS.items()}


# the tests reading `runs` share one xdist worker (`make test` runs --dist loadgroup): split over two,
# each worker ran the three pipelines again, 13-16 s of CPU
ON_ONE_WORKER = pytest.mark.xdist_group("canonical_eigenbasis_runs")


@ON_ONE_WORKER
@pytest.mark.parametrize("other", ["two threads", "SandyBridge kernel"])
def test_every_array_agrees_to_round_off_under_other_blas_settings(runs, other):
    worst = differences(runs["one thread"], runs[other])
    assert max(worst.values()) < AGREE, worst


@ON_ONE_WORKER
def test_the_bars_have_the_clusters_the_pipeline_must_settle(runs):
    """Exact pairs where k cuts, the rigid cluster, and pairs inside the training subspace: else the check is idle."""
    X, T, bI = symmetric_bar()
    one = runs["one thread"]

    def pair_at(E, i):
        return abs(E[i + 1] - E[i]) < 1e-9 * E[i + 1]
    E6, _ = simkit.linear_modal_analysis(X, T, 6, bI, mu=MU, lam=LAM, rho=RHO)
    assert pair_at(E6, 0) and pair_at(E6, 4)                          # k = 5 cuts the pair (4, 5)
    E9, _ = simkit.linear_modal_analysis(X, T, 9, mu=MU, lam=LAM, rho=RHO)
    assert np.abs(E9[:6]).max() < 1e-9 * E9[6] and pair_at(E9, 7)      # k = 8 cuts the pair (7, 8)
    np.testing.assert_allclose(one["E_free"], E9[:8], rtol=1e-9, atol=1e-9 * E9[6])
    E4 = simkit.skinning_eigenmodes(X, T, 4, bI=bI)[1]
    assert pair_at(E4, 2)                                             # k = 3 cuts it; k = 4 holds it
    Xf, Tf, bIf = symmetric_bar((6, 3, 3), (1.5, 0.75, 0.75))
    assert len(Xf) - len(bIf) > _eigen.DENSE_SIZE
    assert pair_at(simkit.skinning_eigenmodes(Xf, Tf, 7, bI=bIf)[1], 5)


# --- in-process: the canonical basis does not depend on the solver's basis -----------------------------------

def rotated_within_clusters(E, B, scale, seed):
    """B with each cluster's columns turned by a random orthogonal matrix and each column's sign flipped at random:
    another basis a solver could have returned."""
    rng = np.random.default_rng(seed)
    starts, ends = _eigen.clusters(E, scale)
    B = B * rng.choice([-1.0, 1.0], B.shape[1])
    for s, e in zip(starts, ends):
        B[:, s:e] = B[:, s:e] @ np.linalg.qr(rng.standard_normal((e - s, e - s)))[0]
    return B


@pytest.mark.parametrize("k", [4, 5, 6])
def test_canonical_basis_is_the_same_for_any_basis_of_the_clusters(k):
    """Dense eigenpairs of the clamped symmetric bar (a pair at 4, 5): any rotation of the solver's basis within the
    clusters gives the same canonical basis, also when k cuts a cluster; the columns stay M-orthonormal eigenvectors."""
    X, T, bI = symmetric_bar()
    K, M, _ = stiffness_and_mass(X, T, bI, MU, LAM, RHO)
    E, V = sp.linalg.eigh(K, M, subset_by_index=[0, 7])
    scale = _eigen.operator_scale(sp.sparse.csr_matrix(K), M.diagonal())
    reference = _eigen.canonical_basis(E, V, M @ V, k, scale)
    for seed in range(3):
        W = rotated_within_clusters(E, V, scale, seed)
        assert np.abs(W - V).max() > 0.1                              # really another basis
        np.testing.assert_allclose(_eigen.canonical_basis(E, W, M @ W, k, scale), reference, atol=1e-12)
    np.testing.assert_allclose(reference.T @ M @ reference, np.eye(k), atol=1e-12)
    residual = K @ reference - M @ reference * E[:k]
    assert np.abs(residual).max() < 1e-9 * np.abs(K @ reference).max()


def test_solver_basis_differs_without_the_canonical_step():
    """The realistic bug: the solver's own basis of a pair is not fixed by the problem. A rotated basis solves the
    eigenproblem as well, and the largest-entry sign rule alone does not bring it back."""
    X, T, bI = symmetric_bar()
    K, M, _ = stiffness_and_mass(X, T, bI, MU, LAM, RHO)
    E, V = sp.linalg.eigh(K, M, subset_by_index=[0, 5])
    W = rotated_within_clusters(E, V, 1.0, 0)
    assert np.abs(_eigen.normalize_signs(W) - _eigen.normalize_signs(V)).max() > 0.1
    np.testing.assert_allclose(K @ W, M @ W * E, atol=1e-9 * np.abs(K @ W).max())


def test_sign_rule_reads_the_first_of_tied_extremes():
    """Extremes that are mirror images (-a, +a but for round-off): the first decides, whichever is larger; a clear
    largest entry decides alone."""
    for last in (1.0 - 1e-13, 1.0 + 1e-13):
        b = np.array([[0.1, 0.5], [-1.0, -0.9], [0.3, 0.2], [last, 0.0]])
        np.testing.assert_array_equal(_eigen.normalize_signs(b), -b)


def test_clusters_join_round_off_and_zero_and_split_real_gaps():
    E = np.array([-1e-14, 2e-14, 1e-13, 1.0, 1.0 + 1e-12, 1.0 + 1e-3, 2.0, 2.0 + 1e-9, 2.0 + 3e-9])
    starts, ends = _eigen.clusters(E, scale=100.0)
    np.testing.assert_array_equal(starts, [0, 3, 5, 6])
    np.testing.assert_array_equal(ends, [3, 5, 6, 9])


if __name__ == "__main__":        # the subprocess of run_pipeline: write the pipeline's arrays to the given path
    np.savez(sys.argv[1], **pipeline())
