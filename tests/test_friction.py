"""Lagged smoothed Coulomb friction: the interpolant, FD of the assembled potential, closed forms on a slope."""
import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sps

import simkit
from simkit import energies as en
from simkit.integrators import backward_euler
from simkit import terms
from simkit.terms import Friction, HalfSpaceContact

FD_STEP = 1e-7
GRAD_TOL = 1e-6
HESS_TOL = 1e-5
EXACT = 1e-12
EPS_V, H = 0.01, 0.02
T = EPS_V * H


# ---------------------------------------------------------------------------------------
# the interpolant (element tier)
# ---------------------------------------------------------------------------------------

def test_interpolant_closed_forms_and_smoothness_at_the_threshold():
    y = np.array([0.0, 0.5 * T, T, 3 * T])
    f0 = en.stick_slip_friction_interpolant(y, EPS_V, H)[:, 0]
    f1 = en.stick_slip_friction_interpolant_gradient(y, EPS_V, H)[:, 0]
    df1 = en.stick_slip_friction_interpolant_hessian(y, EPS_V, H)[:, 0]
    np.testing.assert_allclose(f0, [T / 3, T * (-1 / 24 + 1 / 4 + 1 / 3), T, 3 * T], rtol=EXACT)
    np.testing.assert_allclose(f1, [0.0, 0.75, 1.0, 1.0], rtol=EXACT, atol=EXACT)
    np.testing.assert_allclose(df1, [2 / T, 1 / T, 0.0, 0.0], rtol=EXACT, atol=EXACT)
    below, above = T * (1 - 1e-7), T * (1 + 1e-7)               # f0, f1 continuous across t: C1 smoothing of |u|
    for f in (en.stick_slip_friction_interpolant, en.stick_slip_friction_interpolant_gradient):
        lo, hi = f(np.array([below, above]), EPS_V, H)[:, 0]
        assert abs(hi - lo) < 1e-6 * max(T, 1.0)


def test_interpolant_derivatives_match_central_differences():
    y = np.linspace(0.01, 2.0, 30) * T
    step = 1e-6 * T
    for f, df in ((en.stick_slip_friction_interpolant, en.stick_slip_friction_interpolant_gradient),
                  (en.stick_slip_friction_interpolant_gradient, en.stick_slip_friction_interpolant_hessian)):
        fd = (f(y + step, EPS_V, H) - f(y - step, EPS_V, H)) / (2 * step)
        keep = np.abs(y - T) > 2 * step                          # f1' jumps at t
        np.testing.assert_allclose(df(y, EPS_V, H)[keep], fd[keep], rtol=1e-6, atol=1e-6 * np.abs(fd).max())


def test_interpolant_errors():
    with pytest.raises(ValueError, match="^epsilon_v: expected a finite value > 0"):
        en.stick_slip_friction_interpolant(np.array([0.1]), 0.0, H)
    with pytest.raises(ValueError, match="^h: expected a finite value > 0"):
        en.stick_slip_friction_interpolant(np.array([0.1]), EPS_V, -1.0)
    with pytest.raises(ValueError, match=r"^y: expected norms \|u\| >= 0"):
        en.stick_slip_friction_interpolant(np.array([-0.1]), EPS_V, H)


# ---------------------------------------------------------------------------------------
# the assembled potential
# ---------------------------------------------------------------------------------------

def random_frame(rng, n, dim, k, q):
    nodes = np.stack([rng.choice(n, q, replace=False) for _ in range(k)])
    s = rng.uniform(0, 1, k)
    coefficients = np.stack([np.ones(k), -(1 - s), -s], axis=1)[:, :q]
    normals = rng.standard_normal((k, dim))
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    return nodes, coefficients, en.friction.tangent_basis(normals), rng.uniform(0.5, 2.0, k)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("q", [1, 3])
def test_friction_gradient_and_hessian_match_central_differences(dim, q):
    rng = np.random.default_rng(10 * dim + q)
    n, k, mu = 6, 5, 0.4
    X0 = rng.standard_normal((n, dim))
    frame = en.friction_frame(*random_frame(rng, n, dim, k, q), X0)
    # displacements straddling the smoothing threshold: some contacts stick, some slide
    directions = rng.standard_normal((n, dim))
    X = X0 + directions / np.linalg.norm(directions, axis=1, keepdims=True) * T * rng.uniform(0.05, 3.0, (n, 1))
    y = np.linalg.norm(frame.displacements(X), axis=1)
    assert (y < T).any() and (y > T).any()
    x = X.reshape(-1)
    E = lambda y: en.friction_energy(y.reshape(n, dim), frame, mu, EPS_V, H)
    G = lambda y: en.friction_gradient(y.reshape(n, dim), frame, mu, EPS_V, H)[:, 0]
    g = G(x)
    np.testing.assert_allclose(g, simkit.gradient_cfd(E, x, 1e-3 * T), rtol=GRAD_TOL, atol=GRAD_TOL * np.abs(g).max())
    Hm = en.friction_hessian(X, frame, mu, EPS_V, H)
    assert sps.issparse(Hm) and Hm.shape == (n * dim, n * dim)
    step = 1e-4 * T
    fd = np.array([(G(x + step * e) - G(x - step * e)) / (2 * step) for e in np.eye(n * dim)])
    Hd = Hm.toarray()
    scale = mu * 2.0 / T                       # the stiffest entry possible: mu lambda f1'(0), lambda <= 2
    assert np.abs(Hd).max() > 1e-3 * scale
    np.testing.assert_allclose(Hd, fd, rtol=HESS_TOL, atol=HESS_TOL * scale)
    np.testing.assert_array_equal(Hd, Hd.T)
    assert np.linalg.eigvalsh(Hd).min() >= -1e-10 * np.abs(Hd).max()


@pytest.mark.parametrize("dim", [2, 3])
def test_friction_force_is_coulomb_when_sliding_and_zero_at_rest(dim):
    frame = en.friction_frame([[0]], [[1.0]], en.friction.tangent_basis(np.eye(dim)[[1]]), [2.0], np.zeros((1, dim)))
    slide = np.eye(dim)[[0]] * 5 * T
    f = -en.friction_gradient(slide, frame, 0.3, EPS_V, H).reshape(-1)
    np.testing.assert_allclose(f, -0.3 * 2.0 * np.eye(dim)[0], rtol=EXACT)     # mu lambda, against the motion
    assert not en.friction_gradient(np.zeros((1, dim)), frame, 0.3, EPS_V, H).any()
    normal_only = np.eye(dim)[[1]] * 5 * T                                     # no tangential motion: no friction
    assert not en.friction_gradient(normal_only, frame, 0.3, EPS_V, H).any()
    np.testing.assert_allclose(en.friction_hessian(np.zeros((1, dim)), frame, 0.3, EPS_V, H).toarray(),
                               0.3 * 2.0 * (2 / T) * np.diag(1.0 - np.eye(dim)[1]), rtol=EXACT)


def test_half_space_frame_lags_the_barrier_force_and_the_tangent():
    ground = HalfSpaceContact(3, 2, [0.0, 0.0], [0.0, 1.0], 0.1, 50.0, [1.0, 2.0, 3.0])
    X = np.array([[0.0, 0.05], [1.0, 0.02], [2.0, 0.5]])
    frame = ground.friction_frame(X.reshape(-1, 1))
    np.testing.assert_array_equal(frame.nodes, [[0], [1]])                    # vertex 2 is beyond d_hat
    force = -ground.gradient(X.reshape(-1, 1)).reshape(3, 2)[:2, 1]
    np.testing.assert_allclose(frame.normal_force, force, rtol=EXACT)
    np.testing.assert_allclose(np.abs(frame.tangents[:, :, 0]), [[1.0, 0.0], [1.0, 0.0]], atol=EXACT)


@pytest.mark.parametrize("dim", [2, 3])
def test_friction_without_active_contact_is_zero(dim):
    """A step that starts with every vertex beyond d_hat has no friction: zero energy, force and Hessian."""
    normal = np.eye(dim)[1]
    ground = HalfSpaceContact(3, dim, np.zeros(dim), normal, 0.1, 50.0)
    x = (np.arange(3 * dim, dtype=float).reshape(3, dim) + 5.0 * normal).reshape(-1, 1)
    friction = Friction(ground, 0.3, EPS_V, H)
    friction.update(x)
    moved = x + 0.01
    assert friction.energy(moved) == 0.0
    np.testing.assert_array_equal(friction.gradient(moved), np.zeros((3 * dim, 1)))
    H_moved = friction.hessian(moved)
    assert H_moved.shape == (3 * dim, 3 * dim)
    assert H_moved.nnz == 0 or abs(H_moved).max() == 0.0


def test_friction_errors():
    frame_args = ([[0]], [[1.0]], en.friction.tangent_basis(np.array([[0.0, 1.0]])), [1.0], np.zeros((1, 2)))
    frame = en.friction_frame(*frame_args)
    with pytest.raises(ValueError, match="^mu: expected a friction coefficient >= 0"):
        en.friction_energy(np.zeros((1, 2)), frame, -0.1, EPS_V, H)
    with pytest.raises(TypeError, match="^frame: expected a FrictionFrame"):
        en.friction_energy(np.zeros((1, 2)), {"nodes": [[0]]}, 0.1, EPS_V, H)
    with pytest.raises(ValueError, match="^tangents: expected an orthonormal basis"):
        en.friction_frame([[0]], [[1.0]], np.array([[[2.0], [0.0]]]), [1.0], np.zeros((1, 2)))
    with pytest.raises(ValueError, match=r"^coefficients: expected shape \(1, 1\)"):
        en.friction_frame([[0]], [[1.0, 2.0]], *frame_args[2:])
    with pytest.raises(ValueError, match="^normal_force: expected non-negative values"):
        en.friction_frame(*frame_args[:3], [-1.0], np.zeros((1, 2)))
    with pytest.raises(ValueError, match="^normals: expected unit vectors, normal 0 has length 2"):
        en.friction.tangent_basis(np.array([[0.0, 2.0]]))
    with pytest.raises(ValueError, match=r"^x: expected positions of shape \(1, 2\)"):
        en.friction_energy(np.zeros((2, 2)), frame, 0.1, EPS_V, H)
    term = Friction(HalfSpaceContact(1, 2, [0.0, 0.0], [0.0, 1.0], 0.1, 1.0), 0.2, EPS_V, H)
    with pytest.raises(RuntimeError, match=r"call update\(x_n\)"):
        term.energy(np.zeros((2, 1)))
    with pytest.raises(TypeError, match="^contact: expected a contact term"):
        Friction(object(), 0.2, EPS_V, H)
    with pytest.raises(ValueError, match="^epsilon_v"):
        Friction(HalfSpaceContact(1, 2, [0.0, 0.0], [0.0, 1.0], 0.1, 1.0), 0.2, 0.0, H)


# ---------------------------------------------------------------------------------------
# closed forms: a block on a slope of tan(theta) = 0.3, backward Euler with one lag update per step
# ---------------------------------------------------------------------------------------

TAN = 0.3
THETA = np.arctan(TAN)
G_ACC, D_HAT, KAPPA, MASS = 9.8, 0.01, 1e3, 1.0


def slope_run(mu, steps, h=0.01, eps_v=0.01):
    """Speeds along the slope of a particle starting at rest in normal equilibrium."""
    normal = np.array([-np.sin(THETA), np.cos(THETA)])
    W_n = MASS * G_ACC * np.cos(THETA)
    gap = scipy.optimize.brentq(lambda d: -KAPPA * en.ipc_barrier_gradient(np.array([d]), D_HAT).item() - W_n,
                                1e-9 * D_HAT, D_HAT * (1 - 1e-12), xtol=1e-16, rtol=1e-15)
    slope = HalfSpaceContact(1, 2, [0.0, 0.0], normal, D_HAT, KAPPA)
    friction = Friction(slope, mu, eps_v, h)
    f_g = np.array([[0.0], [-MASS * G_ACC]])
    E = lambda x: slope.energy(x) + friction.energy(x) - (f_g.T @ x).item()
    G = lambda x: slope.gradient(x) + friction.gradient(x) - f_g
    Hs = lambda x: slope.hessian(x) + friction.hessian(x)
    M = sps.identity(2, format="csc") * MASS
    x = x_prev = (gap * normal).reshape(-1, 1)
    along = np.array([np.cos(THETA), np.sin(THETA)])
    speeds = []
    for _ in range(steps):
        friction.update(x)
        x, x_prev = backward_euler(x, x_prev, E, G, Hs, M, h, tolerance=1e-9, max_iter=50, max_step=slope.max_step,
                                   step_norm=lambda dx: np.abs(dx).max() / h), x
        speeds.append(-(along @ (x - x_prev)[:, 0]) / h)           # down the slope
    return np.array(speeds)


def test_sliding_block_accelerates_at_the_closed_form():
    h = 0.01
    v = slope_run(0.1, 60, h)
    a = np.diff(v[20:]) / h
    closed = G_ACC * (np.sin(THETA) - 0.1 * np.cos(THETA))
    np.testing.assert_allclose(a, closed, rtol=1e-8)           # exact, to the Newton tolerance


def test_sticking_block_creeps_at_the_closed_form():
    v = slope_run(0.5, 200)
    closed = 0.01 * (1 - np.sqrt(1 - TAN / 0.5))
    np.testing.assert_allclose(v[-20:], closed, rtol=1e-8)


def test_friction_without_active_contact_is_an_exact_zero_term():
    """Every vertex beyond d_hat at x_n: Friction adds float zeros, so a Sum with it equals the Sum without it."""
    ground = terms.HalfSpaceContact(2, 2, [0.0, 0.0], [0.0, 1.0], 0.01, 1e3)
    friction = terms.Friction(ground, 0.5, 1e-3, 1 / 60).update(np.array([[0.0], [1.0], [0.3], [2.0]]))
    assert len(friction.frame.normal_force) == 0
    x = np.array([[0.1], [0.9], [0.35], [1.9]])
    gravity = terms.Gravity(np.array([[0.0, -9.8], [0.0, -9.8]]))
    assert friction.energy(x) == 0.0
    g = friction.gradient(x)
    assert g.dtype == np.float64 and g.shape == (4, 1) and not g.any()
    assert friction.hessian(x).shape == (4, 4) and friction.hessian(x).nnz == 0
    with_friction, without = terms.Sum(gravity, ground, friction), terms.Sum(gravity, ground)
    assert with_friction.energy(x) == without.energy(x)
    np.testing.assert_array_equal(with_friction.gradient(x), without.gradient(x))
    np.testing.assert_array_equal(with_friction.hessian(x).toarray(), without.hessian(x).toarray())
