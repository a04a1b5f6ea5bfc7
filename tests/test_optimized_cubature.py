"""optimized_cubature (An, Kim and James 2008: greedy elements, NNLS weights) and modal_training_poses."""
import numpy as np
import pytest
import scipy as sp

import simkit
from reduced_cases import bar_3d, strip_2d
from simkit.terms import ReducedElasticEnergy

MU, LAM = 1.0e5, 1.5e5
RHO = 1000.0


def model(mesh=bar_3d, k=4):
    """A clamped mesh in k skinning weights: X, T, B, x0, the exact term (every element), K and M at rest."""
    X, T, bI = mesh()
    d = X.shape[1]
    _, _, B = simkit.skinning_eigenmodes(X, T, k, bI=bI)
    x0 = X.reshape(-1, 1)
    exact = ReducedElasticEnergy(X, T, B, MU, LAM, x0=x0)
    M = sp.sparse.kron(simkit.massmatrix(X, T, RHO), sp.sparse.eye(d))
    K = exact.hessian(np.zeros((B.shape[1], 1)))
    return X, T, B, x0, exact, K, (B.T @ M @ B).toarray()


def force_error(X, T, B, x0, exact, Z, cI, cW):
    """Root-mean-square relative error of the cubature's reduced forces over the poses (the fit's own measure)."""
    cubature = ReducedElasticEnergy(X, T, B, MU, LAM, x0=x0, cI=cI, cW=cW)
    errors = [np.linalg.norm(cubature.gradient(z) - exact.gradient(z)) / np.linalg.norm(exact.gradient(z))
              for z in Z.T]
    return np.sqrt(np.mean(np.square(errors)))


@pytest.mark.parametrize("mesh", [bar_3d, strip_2d])
def test_training_forces_are_reproduced_to_the_tolerance(mesh):
    X, T, B, x0, exact, K, M = model(mesh)
    Z = simkit.modal_training_poses(B, K, M, 10, 0.05)
    cI, cW = simkit.optimized_cubature(X, T, B, Z, len(T), MU, LAM, x0=x0, tolerance=0.01)
    assert force_error(X, T, B, x0, exact, Z, cI, cW) < 0.01
    assert cI.size < len(T) / 2                                        # stopped at the tolerance, far from all
    assert np.all(cW > 0) and np.all(np.diff(cI) > 0) and cI.max() < len(T)


def test_unseen_poses_better_than_spectral_cubature_with_as_many_points():
    X, T, B, x0, exact, K, M = model()
    W = simkit.skinning_eigenmodes(X, T, 4, bI=bar_3d()[2])[0]
    Z = simkit.modal_training_poses(B, K, M, 10, 0.05)
    unseen = simkit.modal_training_poses(B, K, M, 10, 0.05, seed=1)
    cI, cW = simkit.optimized_cubature(X, T, B, Z, 60, MU, LAM, x0=x0, tolerance=1e-6)
    assert cI.size == 60
    ours = force_error(X, T, B, x0, exact, unseen, cI, cW)
    for basis in (W, X):                                                # clustered by the weights, by position
        spectral = force_error(X, T, B, x0, exact, unseen, *simkit.spectral_cubature(X, T, basis, 60))
        assert ours < spectral / 3, (ours, spectral)
    assert ours < 0.05


def test_rest_stiffness_close_to_the_exact_one():
    """The fit never sees K, but its small poses are linear: the cubature's rest stiffness is near B^T K B."""
    X, T, B, x0, exact, K, M = model()
    Z = simkit.modal_training_poses(B, K, M, 10, 0.05)
    W = simkit.skinning_eigenmodes(X, T, 4, bI=bar_3d()[2])[0]

    def stiffness_range(cI, cW):
        K_cubature = ReducedElasticEnergy(X, T, B, MU, LAM, x0=x0, cI=cI, cW=cW).hessian(np.zeros((B.shape[1], 1)))
        ratio = sp.linalg.eigh(K_cubature, K, eigvals_only=True)
        return ratio.min(), ratio.max()
    lo, hi = stiffness_range(*simkit.optimized_cubature(X, T, B, Z, 100, MU, LAM, x0=x0, tolerance=1e-6))
    assert 0.9 < lo and hi < 1.1
    for basis in (W, X):                                                # spectral: off by more than half
        lo, hi = stiffness_range(*simkit.spectral_cubature(X, T, basis, 100))
        assert lo < 0.5 or hi > 1.5


def test_an_affine_subspace_needs_one_point_weighted_by_the_volume():
    """x = A X + c: every element has the same F, so the same force column; one point of weight vol(mesh) is exact."""
    X, T, _ = bar_3d()
    B = simkit.lbs_jacobian(X, np.ones((len(X), 1))).toarray()
    rng = np.random.default_rng(2)
    rest = simkit.project_into_subspace(X.reshape(-1, 1), B)
    Z = rest + 0.05 * rng.standard_normal((B.shape[1], 6))
    cI, cW = simkit.optimized_cubature(X, T, B, Z, 5, MU, LAM, tolerance=1e-9)
    assert cI.size == 1
    np.testing.assert_allclose(cW, simkit.volume(X, T).sum(), rtol=1e-9)


def test_rest_and_rigid_poses_are_skipped():
    """A zero-force pose adds nothing to fit (any weights reproduce it); all of them is an error."""
    X, T, B, x0, exact, K, M = model()
    Z = simkit.modal_training_poses(B, K, M, 6, 0.05)
    with_rest = np.hstack([np.zeros((B.shape[1], 2)), Z])
    a = simkit.optimized_cubature(X, T, B, Z, 20, MU, LAM, x0=x0)
    b = simkit.optimized_cubature(X, T, B, with_rest, 20, MU, LAM, x0=x0)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_allclose(a[1], b[1], rtol=1e-10)
    with pytest.raises(ValueError, match="Z: every training pose has a zero reduced force"):
        simkit.optimized_cubature(X, T, B, np.zeros((B.shape[1], 3)), 20, MU, LAM, x0=x0)


def two_tets():
    X = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    return X, np.array([[0, 1, 2, 3], [1, 4, 2, 3]])


@pytest.mark.parametrize("args, kwargs, error, match", [
    ((np.eye(15), np.ones((15, 2)), 3), {}, ValueError, "k: expected between 1 and the 2"),
    ((np.eye(15), np.ones((14, 2)), 1), {}, ValueError, r"Z: expected training poses of shape \(15, s\)"),
    ((np.eye(14), np.ones((15, 2)), 1), {}, ValueError, r"B: expected a basis of shape \(15, r\)"),
    ((np.eye(15), np.full((15, 1), np.nan), 1), {}, ValueError, "Z"),
    ((np.eye(15), np.ones((15, 2)), 1), {"tolerance": 0.0}, ValueError, "tolerance"),
    ((np.eye(15), np.ones((15, 2)), 1), {"material": "rubber"}, ValueError, "material"),
    ((np.eye(15), -np.ones((15, 1)), 1), {}, ValueError, "Z: training pose 0 inverts 2 elements"),
])
def test_bad_input_raises_naming_the_argument(args, kwargs, error, match):
    X, T = two_tets()
    B, Z, k = args
    with pytest.raises(error, match=match):
        simkit.optimized_cubature(X, T, B, Z, k, MU, LAM, **kwargs)


# --- modal_training_poses ------------------------------------------------------------------------------

def test_each_mode_has_the_same_force_and_the_lowest_moves_by_the_displacement():
    X, T, B, x0, exact, K, M = model()
    Z = simkit.modal_training_poses(B, K, M, 4000, 0.05, seed=3)
    lam, V = sp.linalg.eigh(K, M)
    c = V.T @ M @ Z                                                     # modal amplitudes
    force = lam * np.sqrt(np.mean(c ** 2, axis=1))                      # spread of each mode's force lam_j c_j
    np.testing.assert_allclose(force, force.mean(), rtol=0.08)          # 4000 samples: a few percent of spread
    u1 = B @ V[:, 0]
    assert np.std(c[0]) * np.abs(u1).max() == pytest.approx(0.05, rel=0.05)


def test_rigid_modes_get_no_amplitude_and_poses_centre_on_z0():
    """Unclamped skinning weights hold the rigid motions (K v = 0): they are not sampled."""
    X, T, _ = bar_3d()
    _, _, B = simkit.skinning_eigenmodes(X, T, 3)
    B = B.toarray()
    z0 = simkit.project_into_subspace(X.reshape(-1, 1), B)
    K = ReducedElasticEnergy(X, T, B, MU, LAM).hessian(z0)
    M = B.T @ sp.sparse.kron(simkit.massmatrix(X, T, RHO), sp.sparse.eye(3)) @ B
    Z = simkit.modal_training_poses(B, K, M, 50, 0.05, z0=z0)
    lam, V = sp.linalg.eigh(K, M)
    rigid = lam < 1e-8 * lam.max()
    assert rigid.sum() >= 6
    c = V.T @ M @ (Z - z0)
    np.testing.assert_allclose(c[rigid], 0.0, atol=1e-9 * np.abs(c).max())
    assert np.all(np.abs(c[~rigid]).max(axis=1) > 0)


@pytest.mark.parametrize("call, match", [
    (lambda B, K, M: simkit.modal_training_poses(B, K[:-1], M, 3, 0.1), r"K: expected a \(48, 48\) matrix"),
    (lambda B, K, M: simkit.modal_training_poses(B, K, -M, 3, 0.1), "M: expected a symmetric positive definite"),
    (lambda B, K, M: simkit.modal_training_poses(B, K, M, 0, 0.1), "s"),
    (lambda B, K, M: simkit.modal_training_poses(B, K, M, 3, -0.1), "displacement"),
    (lambda B, K, M: simkit.modal_training_poses(B, 0 * K, M, 3, 0.1), "K: expected a stiffness with a strained mode"),
    (lambda B, K, M: simkit.modal_training_poses(B, K, M, 3, 0.1, z0=np.ones(3)), "z0: expected 48 rows"),
])
def test_training_poses_bad_input(call, match):
    _, _, B, _, _, K, M = model()
    with pytest.raises(ValueError, match=match):
        call(B, K, M)
