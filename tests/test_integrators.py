"""Integrators on the chapter's spring oscillator: amplification, exact linear maps, order of accuracy."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit

K, MASS, L0, U0 = 1.0, 1.0, 1.0, 0.3
DT = 0.1
N_STEPS = 188
MAP_TOL = 1e-12
ORDER_TOL = 0.1
ROUNDOFF = 1e-12
SCHEMES = ["forward_euler", "backward_euler", "bdf2"]


def anchored_spring(k=K, l0=L0):
    """Energy, gradient and dense 2x2 Hessian of one spring from the origin to a free mass."""
    ym, rest = np.array([[k]]), np.array([[l0]])
    en = simkit.energies

    def energy(x):
        return en.mass_springs_energy_element_d(x.reshape(1, 2), ym, rest).item()

    def gradient(x):
        return en.mass_springs_gradient_element_d(x.reshape(1, 2), ym, rest).reshape(-1, 1)

    def hessian(x):
        return en.mass_springs_hessian_element_d(x.reshape(1, 2), ym, rest)[0]

    return energy, gradient, hessian


def simulate(scheme, h, n_steps, u_history=(U0, U0, U0, U0)):
    """March a scheme from the stretch history (u_0, u_-1, u_-2, u_-3), at rest by default.

    Returns the (n_steps + 1, 2) array of (u, v), v_0 = 0 as in the chapter.
    """
    energy, gradient, hessian = anchored_spring()
    M = MASS * sps.eye(2).tocsc()
    hist = [np.array([[L0 + u], [0.0]]) for u in u_history[::-1]]
    v = np.zeros((2, 1))
    states = [(u_history[0], 0.0)]
    for _ in range(n_steps):
        if scheme == "forward_euler":
            x, v = simkit.integrators.forward_euler(hist[-1], v, gradient, M, h)
        elif scheme == "backward_euler":
            x = simkit.integrators.backward_euler(hist[-1], hist[-2], energy, gradient, hessian, M, h)
            v = simkit.energies.velocity_be(x, hist[-1], h)
        else:
            x = simkit.integrators.bdf2(hist[-1], hist[-2], hist[-3], hist[-4], energy, gradient, hessian, M, h)
            v = simkit.energies.velocity_bdf2(x, hist[-1], hist[-2], h)
        hist.append(x)
        states.append((x[0, 0] - L0, v[0, 0]))
    return np.array(states)


def step_map(scheme, h):
    A = np.array([[0.0, 1.0], [-K / MASS, 0.0]])
    I2 = np.eye(2)
    if scheme == "forward_euler":
        return I2 + h * A
    if scheme == "backward_euler":
        return np.linalg.inv(I2 - h * A)
    B = np.linalg.inv(3 * I2 - 2 * h * A)
    return np.block([[4 * B, -B], [I2, np.zeros((2, 2))]])


@pytest.mark.parametrize("scheme, amplification", list(zip(SCHEMES, [1.00499, 0.99504, 0.99998])))
def test_trajectory_is_the_linear_map_and_amplification(scheme, amplification):
    G = step_map(scheme, DT)
    np.testing.assert_allclose(np.abs(np.linalg.eigvals(G)).max(), amplification, atol=5e-6)
    z = np.tile([U0, 0.0], G.shape[0] // 2)
    expected = [z[:2]]
    for _ in range(N_STEPS):
        z = G @ z
        expected.append(z[:2])
    traj = simulate(scheme, DT, N_STEPS)
    assert np.abs(traj - np.array(expected)).max() <= MAP_TOL


@pytest.mark.parametrize("scheme, ratio", [("forward_euler", np.sqrt(1 + DT**2)),
                                           ("backward_euler", 1 / np.sqrt(1 + DT**2))])
def test_one_step_schemes_scale_the_phase_radius_every_step(scheme, ratio):
    traj = simulate(scheme, DT, 50)
    radius = np.linalg.norm(traj, axis=1)
    np.testing.assert_allclose(radius[1:] / radius[:-1], ratio, rtol=1e-12)
    np.testing.assert_allclose(ratio, 1.00499 if scheme == "forward_euler" else 0.99504, atol=5e-6)


@pytest.mark.parametrize("scheme, order", [("backward_euler", 1.0), ("bdf2", 2.0)])
def test_observed_order_of_accuracy(scheme, order):
    """Errors at T against u = u0 cos(t) as h halves.

    The history is the exact solution at t = 0, -h, -2h, -3h: a history "at rest" perturbs
    BDF2's starting velocity v_-1 by O(h) and would cap its global error at first order.
    """
    T = 2.0
    steps = [0.04, 0.02, 0.01, 0.005]
    errors = []
    for h in steps:
        traj = simulate(scheme, h, int(round(T / h)), u_history=U0 * np.cos(h * np.arange(4)))
        errors.append(np.hypot(traj[-1, 0] - U0 * np.cos(T), traj[-1, 1] + U0 * np.sin(T)))
    observed = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    np.testing.assert_allclose(observed, order, atol=ORDER_TOL)


def test_forward_euler_step_with_a_nonuniform_lumped_mass():
    rng = np.random.default_rng(0)
    x, v = rng.standard_normal((4, 1)), rng.standard_normal((4, 1))
    m = np.array([1.0, 2.0, 3.0, 4.0])
    K4 = np.diag([1.0, 3.0, 2.0, 5.0])
    x1, v1 = simkit.integrators.forward_euler(x, v, lambda y: K4 @ y, sps.diags(m), 0.05)
    np.testing.assert_allclose(x1, x + 0.05 * v, rtol=ROUNDOFF)
    np.testing.assert_allclose(v1, v - 0.05 * (K4 @ x) / m[:, None], rtol=ROUNDOFF)


def test_backward_euler_minimizes_inertia_plus_potential():
    energy, gradient, hessian = anchored_spring(k=5.0)
    M = sps.diags([2.0, 3.0]).tocsc()
    x_curr, x_prev = np.array([[1.4], [0.3]]), np.array([[1.3], [0.25]])
    h = 0.05
    x = simkit.integrators.backward_euler(x_curr, x_prev, energy, gradient, hessian, M, h, tolerance=1e-12,
                                          max_iter=50)
    residual = M @ (x - (2 * x_curr - x_prev)) / h**2 + gradient(x)
    np.testing.assert_allclose(residual, 0.0, atol=1e-9)


# ---------------------------------------------------------------------------------------
# a term as the potential: the same step as upstream's three callables
# ---------------------------------------------------------------------------------------

def _cable(dim=2, n=6):
    X = np.column_stack([np.linspace(0.0, 1.0, n), np.zeros(n)])
    E = np.column_stack([np.arange(n - 1), np.arange(1, n)])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(dim)).tocsc()
    l0 = simkit.edge_lengths(X, E).reshape(-1, 1)
    potential = (simkit.terms.SpringEnergy(J, 100.0, l0.copy(), l0) + simkit.terms.Gravity(
        simkit.gravity_force(X, E, rho=0.5)) + simkit.terms.PenaltySpring(n, 2, 1e4).set([0, n - 1], X[[0, n - 1]]))
    M = sps.kron(simkit.massmatrix(X, E, rho=0.5), sps.eye(dim)).tocsc()
    x = X.reshape(-1, 1)
    return potential, M, x + 0.01 * np.sin(np.arange(x.shape[0]))[:, None], x


@pytest.mark.parametrize("scheme", ["backward_euler", "bdf2"])
def test_a_term_steps_exactly_as_its_three_callables(scheme):
    potential, M, x_curr, x_prev = _cable()
    history = (x_curr, x_prev) if scheme == "backward_euler" else (x_curr, x_prev, x_prev, x_prev)
    step = getattr(simkit.integrators, scheme)
    a, info_a = step(*history, potential, M, 0.02, tolerance=1e-10, max_iter=20, return_info=True)
    b, info_b = step(*history, potential.energy, potential.gradient, potential.hessian, M, 0.02, 1e-10, 20,
                     return_info=True)
    np.testing.assert_array_equal(a, b)
    assert info_a["iterations"] == info_b["iterations"] > 1 and info_a["converged"]


def test_a_term_brings_its_own_filter():
    ground = simkit.terms.HalfSpaceContact(1, 2, [0.0, 0.0], [0.0, 1.0], 0.1, 10.0)
    potential = ground + simkit.terms.Gravity(np.array([[0.0], [-9.8]]))
    x_curr, x_prev, h = np.array([[0.0], [0.05]]), np.array([[0.0], [0.35]]), 0.1     # x_tilde at y = -0.25
    x = simkit.integrators.backward_euler(x_curr, x_prev, potential, np.eye(2), h, max_iter=50,
                                          step_norm=lambda dx: np.abs(dx).max() / h)
    y = simkit.integrators.backward_euler(x_curr, x_prev, potential.energy, potential.gradient, potential.hessian,
                                          np.eye(2), h, max_iter=50, max_step=potential.max_step,
                                          step_norm=lambda dx: np.abs(dx).max() / h)
    np.testing.assert_array_equal(x, y)
    assert 0 < x[1, 0] < 0.05


def test_a_term_with_positional_options_or_a_second_filter_is_refused():
    potential, M, x_curr, x_prev = _cable()
    with pytest.raises(TypeError, match=r"^backward_euler: with a term, call backward_euler\(..., term, M, h\)"):
        simkit.integrators.backward_euler(x_curr, x_prev, potential, M, 0.02, 1e-6)
    with pytest.raises(TypeError, match="^max_step: a term brings its own line-search filter"):
        simkit.integrators.bdf2(x_curr, x_prev, x_prev, x_prev, potential, M, 0.02, max_step=lambda x, dx: 1.0)
    with pytest.raises(TypeError, match="^backward_euler: with a term, expected backward_euler"):
        simkit.integrators.backward_euler(x_curr, x_prev, potential, M)
    with pytest.raises(ValueError, match="^energy_func: the term acts on 12 coordinates, but x_curr has 4 rows"):
        simkit.integrators.backward_euler(x_curr[:4], x_prev[:4], potential, M, 0.02)
    with pytest.raises(TypeError, match=r"^backward_euler: expected \(energy_func, gradient_func, hessian_func, M, h\)"):
        simkit.integrators.backward_euler(x_curr, x_prev, potential.energy, potential.gradient, potential.hessian, M)
