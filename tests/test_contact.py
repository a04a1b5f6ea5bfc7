"""IPC barrier (element tier) and barrier contact against half-spaces: closed forms, FD, errors."""
import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sps

import simkit
from simkit import energies as en
from simkit.integrators import backward_euler
from simkit.terms import HalfSpaceContact

FD_STEP = 1e-6
GRAD_TOL = 1e-6
HESS_TOL = 1e-5
EXACT = 1e-12
D_HAT = 0.1


def random_vertices_above(rng, n, dim, points, normals, d_hat):
    """n vertices at distances in (0.1 d_hat, 2 d_hat) of each of the (at most dim) half-spaces."""
    X = rng.uniform(-1.0, 1.0, (n, dim))
    D = np.einsum("ijk,jk->ij", X[:, None, :] - points[None], normals)
    target = rng.uniform(0.1 * d_hat, 2.0 * d_hat, D.shape)
    X += (np.linalg.pinv(normals) @ (target - D).T).T           # every distance set to its target
    return X


def planes(dim, rng, k=2):
    """k nearly orthogonal half-spaces (normals near +y, +x) through the origin."""
    normals = np.eye(dim)[[1, 0]][:k] + 0.1 * rng.standard_normal((k, dim))
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    return np.zeros((k, dim)), normals


# ---------------------------------------------------------------------------------------
# element tier
# ---------------------------------------------------------------------------------------

def test_barrier_closed_form_values():
    d = np.array([D_HAT / np.e, D_HAT, 2 * D_HAT])
    b = en.ipc_barrier_energy(d, D_HAT)
    assert b.shape == (3, 1)
    np.testing.assert_allclose(b[:, 0], [D_HAT ** 2 * (1 - 1 / np.e) ** 2, 0.0, 0.0], rtol=EXACT, atol=0)
    g = en.ipc_barrier_gradient(d, D_HAT)[:, 0]
    # b'(d_hat/e) = 2 (d - d_hat) - (d - d_hat)^2 / d at ln(d/d_hat) = -1
    dd = D_HAT / np.e - D_HAT
    np.testing.assert_allclose(g, [2 * dd - dd ** 2 / (D_HAT / np.e), 0.0, 0.0], rtol=EXACT, atol=0)


def test_barrier_derivatives_match_central_differences():
    d = np.linspace(0.05, 1.3, 40) * D_HAT
    e = lambda s: en.ipc_barrier_energy(s, D_HAT)[:, 0]
    g = en.ipc_barrier_gradient(d, D_HAT)[:, 0]
    fd_g = (e(d + FD_STEP * D_HAT) - e(d - FD_STEP * D_HAT)) / (2 * FD_STEP * D_HAT)
    np.testing.assert_allclose(g, fd_g, rtol=GRAD_TOL, atol=GRAD_TOL * np.abs(g).max())
    H = en.ipc_barrier_hessian(d, D_HAT)[:, 0]
    gd = lambda s: en.ipc_barrier_gradient(s, D_HAT)[:, 0]
    fd_H = (gd(d + FD_STEP * D_HAT) - gd(d - FD_STEP * D_HAT)) / (2 * FD_STEP * D_HAT)
    np.testing.assert_allclose(H, fd_H, rtol=HESS_TOL, atol=HESS_TOL * np.abs(H).max())


def test_barrier_is_c2_at_d_hat_and_convex_decreasing_inside():
    eps = np.array([1e-2, 1e-3, 1e-4])
    d = D_HAT * (1 - eps)
    b, g, H = (f(d, D_HAT)[:, 0] for f in (en.ipc_barrier_energy, en.ipc_barrier_gradient, en.ipc_barrier_hessian))
    # b ~ d_hat^2 eps^3, b' ~ -3 d_hat eps^2, b'' ~ 6 eps near d_hat: all vanish at d_hat
    np.testing.assert_allclose(b / (D_HAT ** 2 * eps ** 3), 1.0, rtol=2e-2)
    np.testing.assert_allclose(g / (-3 * D_HAT * eps ** 2), 1.0, rtol=2e-2)
    np.testing.assert_allclose(H / (6 * eps), 1.0, rtol=2e-2)
    at = [f(np.array([D_HAT]), D_HAT).item() for f in (en.ipc_barrier_energy, en.ipc_barrier_gradient,
                                                       en.ipc_barrier_hessian)]
    assert at == [0.0, 0.0, 0.0]
    inside = np.linspace(0.01, 0.99, 50) * D_HAT
    assert (en.ipc_barrier_gradient(inside, D_HAT) < 0).all()
    assert (en.ipc_barrier_hessian(inside, D_HAT) > 0).all()


def test_barrier_is_infinite_at_contact_and_its_derivatives_refuse():
    assert en.ipc_barrier_energy(np.array([0.0, -1.0, 0.05]), D_HAT)[:2, 0].tolist() == [np.inf, np.inf]
    with pytest.raises(ValueError, match=r"^d: the barrier's gradient is undefined at d <= 0.*\[1\]"):
        en.ipc_barrier_gradient(np.array([0.05, 0.0]), D_HAT)
    with pytest.raises(ValueError, match=r"^d: the barrier's Hessian"):
        en.ipc_barrier_hessian(np.array([-0.05]), D_HAT)


@pytest.mark.parametrize("d_hat", [0.0, -1.0])
def test_barrier_rejects_non_positive_d_hat(d_hat):
    for f in (en.ipc_barrier_energy, en.ipc_barrier_gradient, en.ipc_barrier_hessian):
        with pytest.raises(ValueError, match="^d_hat: expected a finite value > 0"):
            f(np.array([0.05]), d_hat)


def test_barrier_rejects_bad_distances():
    with pytest.raises(ValueError, match=r"^d: expected distances of shape \(m,\) or \(m, 1\)"):
        en.ipc_barrier_energy(np.ones((3, 2)), D_HAT)
    with pytest.raises(ValueError, match="^d: expected finite values"):
        en.ipc_barrier_energy(np.array([np.nan]), D_HAT)
    with pytest.raises(TypeError, match="^d_hat: expected a real scalar"):
        en.ipc_barrier_energy(np.array([0.05]), "0.1")


# ---------------------------------------------------------------------------------------
# half-spaces, assembled
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 3])
def test_half_space_gradient_and_hessian_match_central_differences(dim):
    rng = np.random.default_rng(dim)
    P, N = planes(dim, rng)
    n, kappa = 7, 30.0
    X = random_vertices_above(rng, n, dim, P, N, D_HAT)
    w = rng.uniform(0.5, 2.0, n)
    vertices = np.array([0, 2, 3, 5, 6])
    args = (P, N, D_HAT, kappa, w)
    kw = {"dim": dim, "vertices": vertices}
    x = X.reshape(-1, 1)
    E = lambda y: en.half_space_barrier_energy(y, *args, **kw)
    G = lambda y: en.half_space_barrier_gradient(y, *args, **kw)[:, 0]
    g = G(x)
    assert np.count_nonzero(g) > dim, "the case must have active contacts"
    np.testing.assert_allclose(g, simkit.gradient_cfd(E, x[:, 0], FD_STEP), rtol=GRAD_TOL,
                               atol=GRAD_TOL * np.abs(g).max())
    H = en.half_space_barrier_hessian(x, *args, **kw)
    assert sps.issparse(H) and H.format == "csc" and H.shape == (n * dim, n * dim)
    fd = np.array([(G(x[:, 0] + FD_STEP * e) - G(x[:, 0] - FD_STEP * e)) / (2 * FD_STEP) for e in np.eye(n * dim)])
    np.testing.assert_allclose(H.toarray(), fd, rtol=HESS_TOL, atol=HESS_TOL * abs(H).max())
    Hd = H.toarray()
    np.testing.assert_array_equal(Hd, Hd.T)
    assert np.linalg.eigvalsh(Hd).min() >= -EXACT * abs(Hd).max()
    unlisted = np.setdiff1d(np.arange(n), vertices)
    assert not g.reshape(n, dim)[unlisted].any()


@pytest.mark.parametrize("dim", [2, 3])
def test_half_space_energy_is_the_weighted_sum_of_element_barriers(dim):
    rng = np.random.default_rng(10 + dim)
    P, N = planes(dim, rng, k=1)
    X = random_vertices_above(rng, 5, dim, P, N, D_HAT)
    w = rng.uniform(0.5, 2.0, 5)
    d = (X - P[0]) @ N[0]
    expected = 7.0 * (w * en.ipc_barrier_energy(d, D_HAT)[:, 0]).sum()
    assert expected > 0
    np.testing.assert_allclose(en.half_space_barrier_energy(X, P[0], N[0], D_HAT, 7.0, w), expected, rtol=EXACT)
    # the contact force of each vertex is along the normal, pushing outward, with magnitude -kappa w b'(d)
    f = -en.half_space_barrier_gradient(X, P[0], N[0], D_HAT, 7.0, w).reshape(5, dim)
    np.testing.assert_allclose(f, (-7.0 * w * en.ipc_barrier_gradient(d, D_HAT)[:, 0])[:, None] * N[0], rtol=EXACT)


@pytest.mark.parametrize("dim", [2, 3])
def test_term_matches_the_assembled_functions(dim):
    rng = np.random.default_rng(20 + dim)
    P, N = planes(dim, rng)
    n = 6
    X = random_vertices_above(rng, n, dim, P, N, D_HAT)
    w = rng.uniform(0.5, 2.0, n)
    term = HalfSpaceContact(n, dim, P, N, D_HAT, 5.0, w, vertices=[1, 2, 4])
    x = X.reshape(-1, 1)
    kw = {"dim": dim, "vertices": [1, 2, 4]}
    assert term.energy(x) == en.half_space_barrier_energy(x, P, N, D_HAT, 5.0, w, **kw)
    np.testing.assert_array_equal(term.gradient(x), en.half_space_barrier_gradient(x, P, N, D_HAT, 5.0, w, **kw))
    np.testing.assert_array_equal(term.hessian(x).toarray(),
                                  en.half_space_barrier_hessian(x, P, N, D_HAT, 5.0, w, **kw).toarray())
    assert term.distances(x).shape == (3, 2)
    dx = rng.standard_normal(x.shape)
    assert term.max_step(x, dx) == simkit.ccd.half_space_max_step(x, dx, P, N, dim=dim, vertices=[1, 2, 4])


def test_hessian_sparsity_does_not_depend_on_which_vertices_touch():
    term = HalfSpaceContact(3, 2, [0.0, 0.0], [0.0, 1.0], D_HAT, 1.0)
    near = np.array([[0.0, 0.05], [1.0, 0.05], [2.0, 0.05]]).reshape(-1, 1)
    far = near + np.array([0.0, 1.0] * 3).reshape(-1, 1)
    H_near, H_far = term.hessian(near), term.hessian(far)
    np.testing.assert_array_equal(H_near.indices, H_far.indices)
    np.testing.assert_array_equal(H_near.indptr, H_far.indptr)
    assert H_near.nnz == 12 and not H_far.data.any()


# ---------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------

X2 = np.array([[0.0, 0.05], [1.0, 0.5]])
GROUND = (np.array([0.0, 0.0]), np.array([0.0, 1.0]))


@pytest.mark.parametrize("f", [en.half_space_barrier_energy, en.half_space_barrier_gradient,
                               en.half_space_barrier_hessian])
def test_assembled_functions_reject_bad_parameters(f):
    with pytest.raises(ValueError, match="^d_hat: expected a finite value > 0"):
        f(X2, *GROUND, 0.0, 1.0)
    with pytest.raises(ValueError, match="^kappa: expected a finite value > 0"):
        f(X2, *GROUND, D_HAT, -1.0)
    with pytest.raises(ValueError, match="^normals: expected unit vectors, normal 0 has length 2"):
        f(X2, GROUND[0], [0.0, 2.0], D_HAT, 1.0)
    with pytest.raises(ValueError, match=r"^normals: expected one normal per point, shape \(2, 2\)"):
        f(X2, np.zeros((2, 2)), [0.0, 1.0], D_HAT, 1.0)
    with pytest.raises(ValueError, match="^points: expected 2D half-spaces for 2D positions"):
        f(X2, [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], D_HAT, 1.0)
    with pytest.raises(ValueError, match="^weight: expected strictly positive values"):
        f(X2, *GROUND, D_HAT, 1.0, [1.0, 0.0])
    with pytest.raises(ValueError, match=r"^weight: expected a scalar or one value per vertex"):
        f(X2, *GROUND, D_HAT, 1.0, [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"^vertices: expected indices in \[0, 2\)"):
        f(X2, *GROUND, D_HAT, 1.0, vertices=[0, 2])
    with pytest.raises(ValueError, match="^vertices: expected distinct vertex indices"):
        f(X2, *GROUND, D_HAT, 1.0, vertices=[1, 1])
    with pytest.raises(TypeError, match="^vertices: expected an integer index array"):
        f(X2, *GROUND, D_HAT, 1.0, vertices=[0.0])
    with pytest.raises(ValueError, match="^x: a stacked column"):
        f(X2.reshape(-1, 1), *GROUND, D_HAT, 1.0)


def test_interpenetration_is_infinite_energy_and_an_error_naming_the_vertices():
    X = np.array([[0.0, 0.05], [1.0, -0.01], [2.0, 0.5], [3.0, 0.0]])
    assert en.half_space_barrier_energy(X, *GROUND, D_HAT, 1.0) == np.inf
    for f in (en.half_space_barrier_gradient, en.half_space_barrier_hessian):
        with pytest.raises(ValueError, match=r"^x: vertices \[1, 3\] are on or behind half-space 0"):
            f(X, *GROUND, D_HAT, 1.0)
    term = HalfSpaceContact(4, 2, *GROUND, D_HAT, 1.0)
    with pytest.raises(ValueError, match=r"^x: vertices \[1, 3\] are on or behind"):
        term.max_step(X.reshape(-1, 1), np.zeros((8, 1)))
    # a vertex that is not listed may be anywhere
    assert np.isfinite(en.half_space_barrier_energy(X, *GROUND, D_HAT, 1.0, vertices=[0, 2]))


def test_term_constructor_validates_once():
    with pytest.raises(ValueError, match="^dim: expected 2 or 3"):
        HalfSpaceContact(2, 4, *GROUND, D_HAT, 1.0)
    with pytest.raises(ValueError, match="^points: expected 3D half-spaces"):
        HalfSpaceContact(2, 3, *GROUND, D_HAT, 1.0)
    with pytest.raises(ValueError, match="^kappa: expected a finite value > 0"):
        HalfSpaceContact(2, 2, *GROUND, D_HAT, 0.0)
    with pytest.raises(ValueError, match=r"^safety: expected a factor in \(0, 1\)"):
        HalfSpaceContact(2, 2, *GROUND, D_HAT, 1.0, safety=1.0)


# ---------------------------------------------------------------------------------------
# closed form through the full backward-Euler loop
# ---------------------------------------------------------------------------------------

def rest_gap_closed_form(W, kappa, d_hat):
    """Root of W = kappa [2 (d - d_hat) ln(d / d_hat) + (d - d_hat)^2 / d] on (0, d_hat)."""
    force = lambda d: kappa * (2 * (d - d_hat) * np.log(d / d_hat) + (d - d_hat) ** 2 / d) - W
    return scipy.optimize.brentq(force, 1e-12 * d_hat, d_hat * (1 - 1e-12), xtol=1e-15, rtol=1e-15)


@pytest.mark.parametrize("dim", [2, 3])
def test_dropped_particle_rests_at_the_closed_form_gap(dim):
    m, g, kappa, h = 0.5, 9.8, 100.0, 0.05
    W = m * g
    up = np.eye(dim)[1]
    ground = HalfSpaceContact(1, dim, np.zeros(dim), up, D_HAT, kappa)
    f_grav = (-W * up).reshape(-1, 1)
    energy = lambda x: ground.energy(x) - (f_grav.T @ x).item()
    gradient = lambda x: ground.gradient(x) - f_grav
    M = sps.identity(dim, format="csc") * m
    x_prev = x = (0.3 * np.eye(dim)[0] + 0.4 * up).reshape(-1, 1)
    velocity_tol = 1e-6
    min_gap = np.inf
    for _ in range(150):
        x, x_prev = backward_euler(x, x_prev, energy, gradient, ground.hessian, M, h, tolerance=velocity_tol,
                                   max_iter=50, max_step=ground.max_step,
                                   step_norm=lambda dx: np.abs(dx).max() / h), x
        min_gap = min(min_gap, x[1, 0])
    assert min_gap > 0
    np.testing.assert_allclose(np.abs(x - x_prev).max() / h, 0.0, atol=1e-7)
    np.testing.assert_allclose(x[1, 0], rest_gap_closed_form(W, kappa, D_HAT), rtol=1e-6)
    np.testing.assert_allclose(x[0, 0], 0.3, rtol=EXACT)
