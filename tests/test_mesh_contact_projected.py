"""MeshContact(psd="project"): the exact barrier blocks with their negative eigenvalues clamped to 0.

The Gauss-Newton Hessian (psd=True) drops b' hess d, the stiffness against turning a face into a
point resting a hair above it. In a pile of elastic cubes, Newton's steps built on it keep turning
the resting cube and the CCD filter cuts every one of them short: the step never converges. The
projected exact blocks (IPC's projected Newton) converge on the same scene.
"""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit.contact import barrier_potential as potential
from mesh_contact_scenes import D_HAT, folded_sheet, two_sheets
from simkit.integrators import simulate
from simkit.terms import ElasticEnergy, Gravity, Held, MeshContact, Sum

KAPPA = 1e3
EIG_TOL = 1e-9             # relative to the largest eigenvalue: round-off of a dense eigensolver


def _eigenvalues(H):
    return np.linalg.eigvalsh(H.toarray())


@pytest.mark.parametrize("scene", [two_sheets, folded_sheet])
def test_projected_hessian_is_psd_and_the_exact_one_raised(scene):
    X, F, E = scene()
    x = X.reshape(-1, 1)
    exact = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, psd=False).hessian(x)
    projected = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, psd="project").hessian(x)
    scale = np.abs(_eigenvalues(projected)).max()
    assert _eigenvalues(exact).min() < -1e-6 * scale              # the exact Hessian is indefinite here
    assert _eigenvalues(projected).min() >= -EIG_TOL * scale
    # clamping raises each block's eigenvalues, so projected - exact is a sum of PSD blocks
    assert _eigenvalues(projected - exact).min() >= -EIG_TOL * scale
    np.testing.assert_allclose((projected - projected.T).toarray(), 0.0, atol=1e-12 * scale)


@pytest.mark.parametrize("scene", [two_sheets, folded_sheet])
def test_rank_five_projection_is_the_clamp_of_each_exact_block(scene):
    """Each block clamped through its rank-5 factors (a QR and a 5x5 eigensolver) equals the 12x12
    eigenvalue clamp of the exact block, in every kind of collision the scene has."""
    X, F, E = scene()
    term = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, psd="project")
    collisions = term.collisions(X.reshape(-1, 1))
    assert {g.name for g in collisions.groups} >= {"point-triangle", "edge-edge"}
    for g in collisions.groups:
        exact = potential._exact_blocks(collisions, g, D_HAT, KAPPA)
        want = simkit.psd_project(exact, floor=0.0)
        got = potential._projected_blocks(collisions, g, D_HAT, KAPPA)
        scale = np.abs(np.linalg.eigvalsh(0.5 * (exact + exact.transpose(0, 2, 1)))).max(axis=1)
        assert np.all(np.abs(got - want).max(axis=(1, 2)) <= 1e-9 * scale), g.name
        assert np.any(np.abs(want - exact).max(axis=(1, 2)) > 1e-6 * scale), g.name    # some block was clamped


def test_projected_hessian_keeps_energy_and_gradient():
    X, F, E = two_sheets()
    x = X.reshape(-1, 1)
    a = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F)
    b = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, psd="project")
    assert a.energy(x) == b.energy(x)
    np.testing.assert_array_equal(a.gradient(x), b.gradient(x))


def test_psd_rejects_other_strings():
    X, F, E = two_sheets(m=3)
    with pytest.raises(ValueError, match="psd: expected True, False or 'project'"):
        MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, psd="clamp")
    with pytest.raises(TypeError, match="psd"):
        MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, psd=1)


def _rotation(axis, degrees):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    t = np.radians(degrees)
    return np.eye(3) + np.sin(t) * K + (1 - np.cos(t)) * K @ K


def _two_cubes(psd, steps):
    """A neo-Hookean cube resting on a ground, a second one dropped onto its edge, tilted 20 degrees:
    backward Euler at 1/30 s, Newton to 1e-2 m/s. Returns the trajectory."""
    side, h = 0.2, 1 / 30
    Xb, Tb = simkit.grid_box(3, 3, 3, side, side, side)
    Xb = Xb - side / 2
    cubes = [Xb + [0.0, side / 2 + 0.005, 0.0], Xb @ _rotation([1, 0, 1], 20).T + [0.1, 0.4, 0.03]]
    Xs, T = simkit.combine_meshes(cubes, [Tb, Tb])
    ns = len(Xs)
    ground = np.array([[-1, 0, -1], [1, 0, -1], [1, 0, 1], [-1, 0, 1]]) * 0.6 + [0.1, 0.0, 0.13]
    X = np.vstack([Xs, ground])
    F = np.vstack([simkit.boundary_faces(T), np.array([[0, 2, 1], [0, 3, 2]]) + ns])
    mass = np.concatenate([simkit.massmatrix(Xs, T, rho=500.0).diagonal(), np.ones(4)])
    bodies = np.repeat([0, 1, 2], [27, 27, 4])
    contact = MeshContact(X, 0.01, KAPPA, edges=simkit.edges(F), faces=F, weight=mass, bodies=bodies,
                          fixed=np.arange(ns, ns + 4), psd=psd)
    mu, lam = simkit.ympr_to_lame(2e5, 0.3)
    weight = np.zeros_like(X)
    weight[:ns, 1] = -9.8 * mass[:ns]
    held = Held(Sum(ElasticEnergy(X, T, mu, lam), Gravity(weight), contact), X, np.arange(3 * ns, 3 * ns + 12))
    M = sps.diags(np.repeat(mass, 3)).tocsc()
    return simulate(held, held.project(M), X.reshape(-1, 1)[held.free], h, steps, tolerance=1e-2, max_iter=60,
                    step_norm=lambda dx: np.abs(dx).max() / h)


def test_projected_newton_converges_where_gauss_newton_stalls():
    steps = 4                                       # the cube lands on the other's edge in the 4th step
    assert _two_cubes(True, steps).unconverged >= 1
    projected = _two_cubes("project", steps)
    assert projected.unconverged == 0 and projected.iterations.max() < 20
