"""Closed-form hinge Hessians and their projection, against central differences and psd_project."""
import zlib

import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit import _assembly
from simkit._hinge_angle import hinges
from simkit.energies import bending_gradient_x, bending_hessian_x

FD_STEP = 1e-6
FD_TOL = 1e-6
ROUNDOFF = 1e-12
# agreement with psd_project, relative to each block's largest entry (measured: below 5e-15)
PROJ_TOL = 1e-13
SLIVER = 1e-3          # altitude of a near-collapsed flap (2D: length of a near-collapsed edge)


SCALES = {"tiny": 1e-3, "huge": 1e3}


def _hinges(kind, rng, c, dim):
    """c disjoint random hinges of a given kind, as (positions (q*c, dim), C (c, q)), q = dim + 1.

    3D quads (e0, e1, o0, o1), 2D triples (x0, x1, x2); kinds: "random", "flat" (3D: apexes on
    opposite sides in one plane; 2D: a straight line), "folded" (apexes nearly coincide: theta
    close to +-pi), "sliver" (a flap, in 2D an edge, almost collapsed), "tiny" and "huge".
    """
    q = dim + 1
    P = rng.standard_normal((c, q, dim))
    if kind == "flat" and dim == 3:
        P[:, :, 2] = 0.0
        P[:, 2, 1] = np.abs(P[:, 2, 1]) + 0.1
        P[:, 3, 1] = -np.abs(P[:, 3, 1]) - 0.1
        P[:, 1, 1] = P[:, 0, 1] = 0.0
        P[:, 1, 0] = P[:, 0, 0] + 0.5 + np.abs(P[:, 1, 0])        # keep the hinge edge away from zero length
    elif kind == "flat":
        P[:, :, 1] = 0.0
        P[:, :, 0] = np.sort(P[:, :, 0], axis=1)
    elif kind == "folded":
        P[:, q - 1] = P[:, q - 2 if dim == 3 else 0] + 1e-3 * rng.standard_normal((c, dim))
    elif kind == "sliver" and dim == 3:
        t = rng.uniform(0.2, 0.8, (c, 1))
        P[:, 2] = P[:, 0] + t * (P[:, 1] - P[:, 0]) + SLIVER * rng.standard_normal((c, 3))
    elif kind == "sliver":
        P[:, 2] = P[:, 1] + SLIVER * rng.standard_normal((c, 2))
    P *= SCALES.get(kind, 1.0)
    return P.reshape(-1, dim), np.arange(q * c).reshape(c, q)


def _blocks(H, C, dim):
    """The diagonal blocks of a block-diagonal Hessian of disjoint hinges, (c, q*dim, q*dim)."""
    dofs = (C[:, :, None] * dim + np.arange(dim)).reshape(len(C), -1)
    return H.toarray()[dofs[:, :, None], dofs[:, None, :]]


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("kind", ["random", "flat", "folded", "sliver", "tiny", "huge"])
def test_exact_hinge_blocks_match_central_differences_of_the_gradient(dim, kind):
    rng = np.random.default_rng(zlib.crc32(f"{dim} {kind}".encode()))
    X, C = _hinges(kind, rng, 4, dim)
    x = X.reshape(-1, 1)
    theta0 = rng.uniform(-1, 1, len(C))
    kappa = rng.uniform(0.5, 2.0, len(C))
    scale = np.abs(X).max() * (10 * SLIVER if kind == "sliver" else 1.0)   # the smallest feature sets the step
    H = bending_hessian_x(x, C, theta0, kappa).toarray()
    H_fd = simkit.gradient_cfd(lambda y: bending_gradient_x(y, C, theta0, kappa).ravel(), x, FD_STEP * scale)
    np.testing.assert_allclose(H, H_fd, atol=FD_TOL * np.abs(H).max(), rtol=0)
    np.testing.assert_array_equal(H, H.T)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("kind", ["random", "flat", "folded", "sliver", "tiny", "huge"])
@pytest.mark.parametrize("rest", ["away", "at rest", "kappa zero"])
def test_projected_blocks_equal_psd_project_of_the_exact_blocks(dim, kind, rest):
    rng = np.random.default_rng(zlib.crc32(f"{dim} {kind} {rest}".encode()))
    X, C = _hinges(kind, rng, 60, dim)
    x = X.reshape(-1, 1)
    theta = simkit.dihedral_angles(X, C)[:, 0]
    theta0 = theta + rng.uniform(-2.0, 2.0, len(C)) if rest == "away" else theta.copy()
    if rest == "away":
        theta0[::7] = theta[::7] + rng.uniform(-1e-9, 1e-9, theta0[::7].shape)   # just off rest
    kappa = rng.uniform(0.1, 5.0, len(C))
    if rest == "kappa zero":
        kappa[::2] = 0.0
        theta0 += 0.5
    exact = _blocks(bending_hessian_x(x, C, theta0, kappa), C, dim)
    projected = _blocks(bending_hessian_x(x, C, theta0, kappa, psd="exact"), C, dim)
    reference = simkit.psd_project(exact)
    for P, R in zip(projected, reference):
        np.testing.assert_allclose(P, R, rtol=0, atol=PROJ_TOL * np.abs(R).max())
    lam = np.linalg.eigvalsh(projected)
    assert (lam.min(axis=1) > -ROUNDOFF * lam.max(axis=1)).all()


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("kind", ["random", "flat", "folded", "sliver", "tiny", "huge"])
def test_gauss_newton_blocks_equal_psd_project_of_kappa_g_g_transpose(dim, kind):
    rng = np.random.default_rng(zlib.crc32(f"gn {dim} {kind}".encode()))
    X, C = _hinges(kind, rng, 60, dim)
    x = X.reshape(-1, 1)
    theta0 = simkit.dihedral_angles(X, C)[:, 0] + rng.uniform(-2.0, 2.0, len(C))
    kappa = rng.uniform(0.1, 5.0, len(C))
    kappa[::5] = 0.0
    h = hinges(np.ascontiguousarray(X.T), C)
    g = h.gradient(np.ones(len(C))).T                              # (c, q*dim) grad theta
    reference = simkit.psd_project(kappa[:, None, None] * g[:, :, None] * g[:, None, :])
    projected = _blocks(bending_hessian_x(x, C, theta0, kappa, psd="gauss-newton"), C, dim)
    for P, R in zip(projected, reference):
        np.testing.assert_allclose(P, R, rtol=0, atol=PROJ_TOL * np.abs(R).max())
    # independent of theta0: the curvature term is dropped, so rest angles do not enter
    np.testing.assert_array_equal(projected, _blocks(bending_hessian_x(x, C, 0 * theta0, kappa,
                                                                       psd="gauss-newton"), C, dim))


def test_psd_true_is_the_measured_default_of_each_dimension():
    rng = np.random.default_rng(11)
    for dim, default in ((2, "gauss-newton"), (3, "gauss-newton")):
        X, C = _hinges("random", rng, 10, dim)
        x, theta0, kappa = X.reshape(-1, 1), rng.uniform(-1, 1, 10), rng.uniform(0.1, 2, 10)
        np.testing.assert_array_equal(bending_hessian_x(x, C, theta0, kappa, psd=True).toarray(),
                                      bending_hessian_x(x, C, theta0, kappa, psd=default).toarray())
    with pytest.raises(ValueError, match="psd"):
        bending_hessian_x(x, C, theta0, kappa, psd="abs")
    with pytest.raises(TypeError, match="psd"):
        bending_hessian_x(x, C, theta0, kappa, psd=1)


@pytest.mark.parametrize("dim", [2, 3])
def test_a_sliver_below_the_relative_tolerance_is_degenerate_and_above_it_is_not(dim):
    """Relative test: the same sliver at any scale; 1e-9 of the edge is collapsed, 1e-7 is not."""
    from simkit._hinge_angle import SLIVER_TOLERANCE
    for scale in (1e-3, 1.0, 1e3):
        for height, collapsed in ((0.1 * SLIVER_TOLERANCE, True), (10 * SLIVER_TOLERANCE, False)):
            if dim == 3:      # flap o0 at altitude `height` over the unit hinge edge
                X = np.array([[0, 0, 0], [1, 0, 0], [0.4, height, 0], [0.5, -0.7, 0.3]]) * scale
            else:             # second edge of relative length `height`
                X = np.array([[0, 0], [1, 0], [1 + height, height]]) * scale
            C = np.arange(dim + 1)[None]
            g = bending_gradient_x(X.reshape(-1, 1), C, np.array([0.3]), np.array([1.0]))
            assert (np.abs(g).max() == 0.0) == collapsed, (scale, height)
            if not collapsed:
                assert np.isfinite(g).all()


def test_3d_hinge_hessian_has_translations_and_axial_stretch_as_null_space():
    rng = np.random.default_rng(5)
    X, C = _hinges("random", rng, 20, 3)
    hq = hinges(np.ascontiguousarray(X.T), C)
    H = _blocks(bending_hessian_x(X.reshape(-1, 1), C, hq.theta + 0.7, 1.3), C, 3)
    for block, P in zip(H, X.reshape(-1, 4, 3)):
        e_hat = (P[1] - P[0]) / np.linalg.norm(P[1] - P[0])
        axial = (np.outer(P @ e_hat, e_hat)).ravel()
        translations = np.kron(np.ones((4, 1)), np.eye(3))
        np.testing.assert_allclose(block @ np.column_stack([translations, axial]), 0.0,
                                   atol=ROUNDOFF * np.abs(block).max() * np.abs(P).max())
        lam = np.linalg.eigvalsh(block)
        # four zero, four negative and four positive eigenvalues (Wang et al. 2023's count)
        assert (np.abs(lam) < 1e-10 * np.abs(lam).max()).sum() == 4
        assert (lam < 0).sum() >= 4 and (lam > 0).sum() >= 4


@pytest.mark.parametrize("q, dim", [(4, 3), (3, 2), (2, 3)])
def test_symmetric_pattern_sums_upper_entries_like_a_dense_scatter(q, dim):
    rng = np.random.default_rng(q * 10 + dim)
    n, k = 12, 30
    T = np.array([rng.choice(n, q, replace=False) for _ in range(k)])
    T[0, 1] = T[0, 0]                                   # an element repeating a node
    B = rng.standard_normal((k, q * dim, q * dim))
    B += B.transpose(0, 2, 1)
    rows, cols = _assembly.upper_layout(q, dim)
    assert rows.size == q * (q - 1) // 2 * dim * dim + q * dim * (dim + 1) // 2
    H = _assembly.symmetric_pattern(T, dim, n * dim).matrix(B[:, rows, cols].T)
    dense = np.zeros((n * dim, n * dim))
    dofs = (T[:, :, None] * dim + np.arange(dim)).reshape(k, -1)
    for e in range(k):
        np.add.at(dense, np.ix_(dofs[e], dofs[e]), B[e])
    np.testing.assert_allclose(H.toarray(), dense, atol=ROUNDOFF * np.abs(dense).max())
    assert H.format == "csc" and H.has_canonical_format
    H2 = H.copy()
    H2.sort_indices()
    np.testing.assert_array_equal(H2.indices, H.indices)


def test_gauss_newton_default_converges_no_slower_than_the_exact_projection_to_the_same_state():
    """A falling 10 x 10 cloth, held by two corners: backward-Euler steps to ||dx|| < 1e-8."""
    V, F = simkit.grid_sheet(10, 10)
    E, C = simkit.edges(F), simkit.hinge_quads(F)
    l0 = simkit.edge_lengths(V, E)
    theta0, kappa = simkit.dihedral_angles(V, C), simkit.discrete_shells_stiffness(V, C, 1e-3)
    M = sps.kron(simkit.massmatrix(V, F, rho=0.2), np.eye(3)).tocsc()
    f_g = simkit.gravity_force(V, F, rho=0.2).reshape(-1, 1)
    Q, b = simkit.dirichlet_penalty(np.array([0, 9]), V[[0, 9]], len(V), 1e8)
    en = simkit.energies

    def run(psd):
        x = x_prev = V.reshape(-1, 1)
        iterations = 0
        for _ in range(8):
            x_next, info = simkit.integrators.backward_euler(
                x, x_prev,
                lambda y: (en.mass_springs_energy_x(y, E, 100.0, 1.0, l0, dim=3) + en.bending_energy_x(y, C, theta0, kappa)
                           + en.quadratic_energy(y, Q, b) - (f_g.T @ y).item()),
                lambda y: (en.mass_springs_gradient_x(y, E, 100.0, 1.0, l0, dim=3) + en.bending_gradient_x(y, C, theta0, kappa)
                           + en.quadratic_gradient(y, Q, b) - f_g),
                lambda y: (en.mass_springs_hessian_x(y, E, 100.0, 1.0, l0, dim=3)
                           + en.bending_hessian_x(y, C, theta0, kappa, psd=psd) + Q),
                M, 1 / 30, tolerance=1e-8, max_iter=100, return_info=True)
            assert info["converged"]
            iterations += info["iterations"]
            x_prev, x = x, x_next
        return x, iterations

    x_default, n_default = run(True)
    x_exact, n_exact = run("exact")
    assert n_default <= n_exact
    np.testing.assert_allclose(x_default, x_exact, rtol=0, atol=1e-6)
