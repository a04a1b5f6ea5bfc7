"""The hinge element tier (one hinge, written plainly) is right, and it is the oracle of the fast path.

The reference functions (``simkit.dihedral_angles_2d*``, ``simkit.dihedral_angles_3d*``) are
checked against central differences, a hand-computed fold and the invariants of an angle; then
``simkit.dihedral_angles`` and ``simkit.energies.bending_*_x`` (the fused batched kernels) must
equal them, assembled hinge by hinge, on random hinges: generic, near flat and strongly folded.
"""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit import energies

FD_STEP = 1e-6
FD_TOL = 1e-6           # central differences of the element gradient / Hessian, relative to the largest entry
ORACLE_TOL = 1e-9       # fast path against the oracle, relative to the largest entry
HINGES = 40

ANGLE = {2: simkit.dihedral_angles_2d, 3: simkit.dihedral_angles_3d}
GRADIENT = {2: simkit.dihedral_angles_2d_gradient_element, 3: simkit.dihedral_angles_3d_gradient_element}
HESSIAN = {2: simkit.dihedral_angles_2d_hessian_element, 3: simkit.dihedral_angles_3d_hessian_element}


def _rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q * np.sign(np.linalg.det(q))           # a proper rotation: a reflection would flip theta


def random_hinges(dim, angles, rng):
    """Independent hinges (X (c*(dim+1), dim), C) with prescribed angles, random shapes and poses."""
    X = []
    for theta in angles:
        if dim == 2:
            l1, l2 = rng.uniform(0.3, 2.0, size=2)
            heading = rng.uniform(-np.pi, np.pi)
            x0 = rng.normal(size=2)
            x1 = x0 + l1 * np.array([np.cos(heading), np.sin(heading)])
            x2 = x1 + l2 * np.array([np.cos(heading + theta), np.sin(heading + theta)])
            X += [x0, x1, x2]
        else:
            length = rng.uniform(0.3, 2.0)
            a0, a1 = rng.uniform(-0.5, 1.5, size=2)          # feet of the apexes along the edge, past its ends too
            r0, r1 = rng.uniform(0.2, 1.5, size=2)           # apex heights
            # flat: o0 at -y, o1 at +y; then o1 turned by theta about the edge (+x)
            o1 = np.array([a1 * length, r1 * np.cos(theta), r1 * np.sin(theta)])
            quad = np.array([[0.0, 0, 0], [length, 0, 0], [a0 * length, -r0, 0], o1])
            X += list(quad @ _rotation(rng).T + rng.normal(size=3))
    X = np.array(X)
    return X, np.arange(len(X)).reshape(-1, dim + 1)


def angle_families(rng):
    """Generic, near-flat and strongly folded angles (both signs), HINGES of each."""
    generic = rng.uniform(-2.0, 2.0, HINGES)
    flat = rng.choice([-1, 1], HINGES) * 10.0 ** rng.uniform(-9, -3, HINGES)
    folded = rng.choice([-1, 1], HINGES) * rng.uniform(2.6, 3.1, HINGES)
    return {"generic": generic, "near flat": flat, "strongly folded": folded}


@pytest.mark.parametrize("dim", [2, 3])
def test_reference_angle_is_the_prescribed_fold(dim):
    rng = np.random.default_rng(dim)
    for family, angles in angle_families(rng).items():
        X, C = random_hinges(dim, angles, rng)
        np.testing.assert_allclose(ANGLE[dim](X, C).ravel(), angles, rtol=1e-9, atol=1e-12, err_msg=family)


@pytest.mark.parametrize("dim", [2, 3])
def test_reference_derivatives_match_central_differences(dim):
    rng = np.random.default_rng(10 + dim)
    q = dim + 1
    for family, angles in angle_families(rng).items():
        X, C = random_hinges(dim, angles[:6], rng)
        for h in range(len(C)):
            P = X[C[h]]
            one = np.arange(q)[None]
            g = GRADIENT[dim](P, one)[0]
            H = HESSIAN[dim](P, one)[0]
            g_fd = simkit.gradient_cfd(lambda p: ANGLE[dim](p.reshape(q, dim), one)[0, 0], P.ravel(), FD_STEP)
            H_fd = simkit.gradient_cfd(lambda p: GRADIENT[dim](p.reshape(q, dim), one)[0], P.ravel(), FD_STEP)
            np.testing.assert_allclose(g, g_fd, atol=FD_TOL * np.abs(g).max(), err_msg=family)
            np.testing.assert_allclose(H, H_fd, atol=FD_TOL * np.abs(H).max(), err_msg=family)


@pytest.mark.parametrize("dim", [2, 3])
def test_reference_derivatives_are_invariant_under_rigid_motions(dim):
    """Translations are null vectors of g and H; H is symmetric; a rotation rotates g."""
    rng = np.random.default_rng(20 + dim)
    X, C = random_hinges(dim, angle_families(rng)["generic"], rng)
    q = dim + 1
    g, H = GRADIENT[dim](X, C), HESSIAN[dim](X, C)
    translations = np.kron(np.ones((q, 1)), np.eye(dim))                 # (q*dim, dim)
    np.testing.assert_allclose(g @ translations, 0.0, atol=1e-12 * np.abs(g).max())
    np.testing.assert_allclose(H @ translations, 0.0, atol=1e-11 * np.abs(H).max())
    np.testing.assert_allclose(H, np.swapaxes(H, 1, 2), atol=1e-13 * np.abs(H).max())
    R = _rotation(rng)[:dim, :dim] if dim == 3 else np.array([[0.6, -0.8], [0.8, 0.6]])
    np.testing.assert_allclose(GRADIENT[dim](X @ R.T, C).reshape(-1, q, dim),
                               g.reshape(-1, q, dim) @ R.T, atol=1e-12 * np.abs(g).max())


def test_reference_3d_gradient_on_a_hand_computed_fold():
    """Edge (0,0,0)-(1,0,0), apexes at unit height, o1 turned by +pi/2 about the edge from the flat quad."""
    X = np.array([[0.0, 0, 0], [1.0, 0, 0], [0.5, 0, -1.0], [0.5, -1.0, 0]])
    C = np.array([[0, 1, 2, 3]])
    np.testing.assert_allclose(simkit.dihedral_angles_3d(X, C), [[np.pi / 2]], rtol=1e-14)
    g = simkit.dihedral_angles_3d_gradient_element(X, C).reshape(4, 3)
    n0, n1 = np.array([0.0, 1, 0]), np.array([0.0, 0, 1])                # unit normals n0 = e x a, n1 = b x e
    np.testing.assert_allclose(g[2], -n0 / 1.0, atol=1e-14)              # -n0 / h0, h0 = 1
    np.testing.assert_allclose(g[3], -n1 / 1.0, atol=1e-14)              # -n1 / h1: o1 turns about +x
    np.testing.assert_allclose(g[0] + g[1], -(g[2] + g[3]), atol=1e-14)


def test_reference_rejects_degenerate_hinges_and_wrong_dimensions():
    X = np.array([[0.0, 0, 0], [1.0, 0, 0], [0.5, 0, 0], [0.5, 1.0, 0]])  # o0 on the edge line
    with pytest.raises(ValueError, match="C: hinge 0 has a collapsed flap"):
        simkit.dihedral_angles_3d_hessian_element(X, np.array([[0, 1, 2, 3]]))
    with pytest.raises(ValueError, match="C: hinge 0 has a collapsed edge"):
        simkit.dihedral_angles_2d_gradient_element(np.array([[0.0, 0], [0, 0], [1, 1]]), np.array([[0, 1, 2]]))
    with pytest.raises(ValueError, match="X: the 2D element tier"):
        simkit.dihedral_angles_2d_gradient_element(X, np.array([[0, 1, 2, 3]]))
    with pytest.raises(ValueError, match="C:"):
        simkit.dihedral_angles_3d_gradient_element(X, np.array([[0, 1, 2]]))


@pytest.mark.parametrize("dim", [2, 3])
def test_dispatchers_pick_the_dimension_from_the_positions(dim):
    rng = np.random.default_rng(30 + dim)
    X, C = random_hinges(dim, angle_families(rng)["generic"][:5], rng)
    np.testing.assert_array_equal(simkit.dihedral_angles_gradient_element(X, C), GRADIENT[dim](X, C))
    np.testing.assert_array_equal(simkit.dihedral_angles_hessian_element(X, C), HESSIAN[dim](X, C))


# ---------------------------------------------------------------------------------------
# the fast path against the oracle
# ---------------------------------------------------------------------------------------

def dofs(C, dim):
    """(c, q*dim) stacked-coordinate indices of every hinge's corners."""
    return (C[:, :, None] * dim + np.arange(dim)).reshape(len(C), -1)


def oracle_bending(X, C, theta0, kappa, psd=False):
    """Energy, gradient and Hessian of sum 1/2 kappa (theta - theta0)^2, from the element tier.

    ``psd``: False (exact blocks), "exact" (``psd_project`` of each exact block) or
    "gauss-newton" (``psd_project`` of ``kappa grad(theta) grad(theta)^T``, curvature dropped).
    """
    dim = X.shape[1]
    d = (ANGLE[dim](X, C) - theta0).ravel()
    g, H = GRADIENT[dim](X, C), HESSIAN[dim](X, C)
    curvature = 0.0 if psd == "gauss-newton" else d[:, None, None] * H
    blocks = kappa[:, None, None] * (g[:, :, None] * g[:, None, :] + curvature)
    if psd:
        blocks = simkit.psd_project(blocks)
    gradient = np.zeros(X.size)
    np.add.at(gradient, dofs(C, dim), (kappa * d)[:, None] * g)
    return 0.5 * (kappa * d ** 2).sum(), gradient.reshape(-1, 1), assemble(C, dim, X.size, blocks)


def assemble(C, dim, N, blocks):
    """Dense (N, N) sum of per-hinge (c, q*dim, q*dim) blocks scattered to their corners' coordinates."""
    idx = dofs(C, dim)
    rows = np.broadcast_to(idx[:, :, None], blocks.shape)
    cols = np.broadcast_to(idx[:, None, :], blocks.shape)
    return sps.coo_matrix((blocks.ravel(), (rows.ravel(), cols.ravel())), shape=(N, N)).toarray()


def hinge_sets(dim):
    """(name, X, C): independent hinges of each angle family, and a perturbed mesh with shared nodes."""
    rng = np.random.default_rng(40 + dim)
    for family, angles in angle_families(rng).items():
        yield (family, *random_hinges(dim, angles, rng))
    if dim == 3:
        V, F = simkit.grid_sheet(6, 5, 1.0, 0.8)
        V = V + 0.05 * rng.normal(size=V.shape)
        yield "shared nodes", V, simkit.hinge_quads(F)
    else:
        t = np.linspace(0, 3 * np.pi, 25)
        yield "shared nodes", np.column_stack([t, np.sin(t)]) + 0.02 * rng.normal(size=(25, 2)), \
            np.column_stack([np.arange(23), np.arange(1, 24), np.arange(2, 25)])


@pytest.mark.parametrize("dim", [2, 3])
def test_fast_angles_equal_the_oracle(dim):
    for name, X, C in hinge_sets(dim):
        np.testing.assert_allclose(simkit.dihedral_angles(X, C), ANGLE[dim](X, C), rtol=1e-12, atol=1e-14,
                                   err_msg=name)


@pytest.mark.parametrize("psd", [False, "exact", "gauss-newton", True])
@pytest.mark.parametrize("dim", [2, 3])
def test_fast_bending_energy_gradient_and_hessian_equal_the_oracle(dim, psd):
    rng = np.random.default_rng(50 + dim)
    for name, X, C in hinge_sets(dim):
        c = len(C)
        theta0 = rng.uniform(-0.3, 0.3, c) * (name != "strongly folded")   # keep |theta - theta0| < pi
        kappa = rng.uniform(0.5, 2.0, c)
        projection = energies.bending.DEFAULT_PROJECTION[dim] if psd is True else psd
        E, g, H = oracle_bending(X, C, theta0.reshape(-1, 1), kappa, psd=projection)
        x = X.reshape(-1, 1)
        assert energies.bending_energy_x(x, C, theta0, kappa) == pytest.approx(E, rel=1e-12)
        np.testing.assert_allclose(energies.bending_gradient_x(x, C, theta0, kappa), g,
                                   atol=ORACLE_TOL * np.abs(g).max(), err_msg=name)
        H_fast = energies.bending_hessian_x(x, C, theta0, kappa, psd=psd).toarray()
        np.testing.assert_allclose(H_fast, H, atol=ORACLE_TOL * np.abs(H).max(), err_msg=f"{name}, psd={psd}")


def test_the_oracle_comparison_can_fail():
    """A fast Hessian without the curvature term kappa (theta - theta0) hess(theta) is caught."""
    rng = np.random.default_rng(60)
    X, C = random_hinges(3, angle_families(rng)["generic"], rng)
    kappa = np.ones(len(C))
    _, _, H = oracle_bending(X, C, np.zeros((len(C), 1)), kappa)
    g = simkit.dihedral_angles_3d_gradient_element(X, C)
    gauss_newton = assemble(C, 3, X.size, g[:, :, None] * g[:, None, :])
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(gauss_newton, H, atol=ORACLE_TOL * np.abs(H).max())


@pytest.mark.parametrize("dim", [2, 3])
def test_the_element_tier_refuses_exactly_the_hinges_the_fast_path_clamps(dim):
    """One tolerance decides whether a hinge is degenerate: the fast path's zero gradient is the tier's error."""
    from simkit._hinge_angle import SLIVER_TOLERANCE
    for scale in (1e-3, 1.0, 1e3):
        for height, collapsed in ((0.1 * SLIVER_TOLERANCE, True), (10 * SLIVER_TOLERANCE, False)):
            if dim == 2:          # the first edge shrinks to `height` of the second
                X = scale * np.array([[0.0, 0.0], [height, 0.0], [height, 1.0]])
                C, element = np.array([[0, 1, 2]]), simkit.dihedral_angles_2d_gradient_element
            else:                 # apex o0 at `height` from the hinge edge
                X = scale * np.array([[0.0, 0, 0], [1.0, 0, 0], [0.5, height, 0.0], [0.5, 0.0, 1.0]])
                C, element = np.array([[0, 1, 2, 3]]), simkit.dihedral_angles_3d_gradient_element
            fast = simkit.energies.bending_gradient_x(X.reshape(-1, 1), C, 0.3, 1.0)
            assert (np.abs(fast).max() == 0.0) == collapsed, (scale, height)
            if collapsed:
                with pytest.raises(ValueError, match="^C: hinge 0 has a collapsed"):
                    element(X, C)
            else:
                assert np.isfinite(element(X, C)).all()
