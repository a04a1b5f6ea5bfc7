"""Chapter 011, section 3, written against simkit alone: the printed figures are acceptance values."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit.solvers import newton_solver

N_NODES, CABLE_LENGTH, K_CABLE, RHO, GRAVITY, K_PIN = 21, 4.0, 400.0, 1.0, -9.8, 1e5
NEWTON_TOL, NEWTON_MAX_ITERS = 1e-9, 50
DT, N_STEPS, STEP_ITERS, STEP_TOL = 0.04, 250, 20, 1e-6
FD_STEP, FD_NOISE, SEED = 1e-5, 0.1, 0
MONOTONE_TOL = 1e-6

X = np.column_stack([np.linspace(0.0, CABLE_LENGTH, N_NODES), np.zeros(N_NODES)])
E = np.column_stack([np.arange(N_NODES - 1), np.arange(1, N_NODES)])
PINS = np.array([0, N_NODES - 1])
n, dim = X.shape
J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(dim)).tocsc()
l0 = simkit.edge_lengths(X, E).reshape(-1, 1)
vol = np.ones((len(E), 1))
M_nodes = simkit.massmatrix(X, E, rho=RHO)
M = sps.kron(M_nodes, sps.eye(dim)).tocsc()
f_g = simkit.gravity_force(X, E, a=GRAVITY, rho=RHO).reshape(-1, 1)
Q_pin, b_pin = simkit.dirichlet_penalty(PINS, X[PINS], n, K_PIN)
x_rest = X.reshape(-1, 1).copy()


def cable_system(k, x_curr=None, x_prev=None, h=DT):
    """Springs + pins + gravity (+ Backward-Euler inertia when x_curr, x_prev are given)."""
    ym = np.full((len(E), 1), k)
    en = simkit.energies
    dynamic = x_curr is not None

    def energy(x):
        e = en.mass_springs_energy_z(x, J, ym, vol, l0) + en.quadratic_energy(x, Q_pin, b_pin) - (f_g.T @ x).item()
        return e + (en.kinetic_energy_be(x, x_curr, x_prev, M, h) if dynamic else 0.0)

    def gradient(x):
        g = en.mass_springs_gradient_z(x, J, ym, vol, l0) + en.quadratic_gradient(x, Q_pin, b_pin) - f_g
        return g + (en.kinetic_gradient_be(x, x_curr, x_prev, M, h) if dynamic else 0.0)

    def hessian(x):
        H = en.mass_springs_hessian_z(x, J, ym, vol, l0, psd=True) + en.quadratic_hessian(Q_pin)
        return H + (en.kinetic_hessian_be(M, h) if dynamic else 0.0 * M)

    return energy, gradient, hessian


def sag(x):
    return -x.reshape(n, dim)[:, 1].min()


@pytest.fixture(scope="module")
def static():
    energy, gradient, hessian = cable_system(K_CABLE)
    x, iterations = x_rest.copy(), 0
    for _ in range(NEWTON_MAX_ITERS):
        x_next = newton_solver(x, energy, gradient, hessian, max_iter=1)
        step = np.linalg.norm(x_next - x)
        x, iterations = x_next, iterations + 1
        if step < NEWTON_TOL:
            break
    return x, iterations, energy(x), np.linalg.norm(gradient(x))


def test_operators():
    assert J.shape == (40, 42)
    assert f"{M_nodes.sum():.3f}" == "4.000"
    assert f"{f_g.sum():.3f}" == "-39.200"


def test_gradient_check_of_the_dynamic_system():
    rng = np.random.default_rng(SEED)
    noise = FD_NOISE * rng.standard_normal((n, dim))
    noise[PINS] = 0.0
    x_test = (X + noise).reshape(-1, 1)
    step_energy, step_gradient, _ = cable_system(K_CABLE, x_curr=x_rest, x_prev=x_rest)
    g_fd = simkit.gradient_cfd(lambda y: np.array(step_energy(y.reshape(-1, 1))), x_test.ravel(), FD_STEP)
    g = step_gradient(x_test)
    assert np.linalg.norm(g - g_fd.reshape(-1, 1)) / np.linalg.norm(g) <= 1e-6


def test_static_solve_takes_seven_newton_iterations(static):
    x, iterations, _, grad_norm = static
    assert iterations == 7
    assert f"{sag(x):.3f}" == "1.258"
    assert grad_norm < 1e-8


def test_tension_at_equilibrium(static):
    x = static[0]
    tension = K_CABLE * (simkit.edge_lengths(x.reshape(n, dim), E) - l0.ravel())
    assert f"{tension.min():.1f}" == "14.4"
    assert f"{tension.max():.1f}" == "23.5"
    assert np.argmax(tension) in (0, len(E) - 1)


def test_dynamic_backward_euler_run(static):
    x_static, _, phi_star, _ = static
    phi_energy = cable_system(K_CABLE)[0]
    x_curr, x_prev = x_rest.copy(), x_rest.copy()
    sags, total = [], [phi_energy(x_rest) - phi_star]
    for _ in range(N_STEPS):
        energy, gradient, hessian = cable_system(K_CABLE, x_curr=x_curr, x_prev=x_prev)
        x_tilde = simkit.energies.be_target(x_curr, x_prev, DT)
        x_next = newton_solver(x_tilde, energy, gradient, hessian, max_iter=STEP_ITERS, tolerance=STEP_TOL)
        x_prev, x_curr = x_curr, x_next
        v = simkit.energies.velocity_be(x_curr, x_prev, DT)
        ke = 0.5 * (v.T @ M @ v).item()
        sags.append(sag(x_curr))
        total.append(ke + phi_energy(x_curr) - phi_star)
    assert f"{max(sags):.3f}" == "1.981"
    assert f"{sags[-1]:.3f}" == "1.268"
    assert f"{ke:.1e}" == "1.7e-04"
    assert np.all(np.diff(total) <= MONOTONE_TOL)
    distance = np.linalg.norm((x_curr - x_static).reshape(n, dim), axis=1).max()
    assert f"{distance:.1e}" == "1.0e-02"


def test_backward_euler_integrator_reproduces_the_dynamic_step():
    energy, gradient, hessian = cable_system(K_CABLE)
    x_curr, x_prev = x_rest.copy(), x_rest.copy()
    for _ in range(3):
        x_next = simkit.integrators.backward_euler(x_curr, x_prev, energy, gradient, hessian, M, DT,
                                                   tolerance=STEP_TOL, max_iter=STEP_ITERS)
        step_energy, step_gradient, step_hessian = cable_system(K_CABLE, x_curr=x_curr, x_prev=x_prev)
        reference = newton_solver(simkit.energies.be_target(x_curr, x_prev, DT), step_energy, step_gradient,
                                  step_hessian, max_iter=STEP_ITERS, tolerance=STEP_TOL)
        np.testing.assert_allclose(x_next, reference, rtol=1e-12, atol=1e-12)
        x_prev, x_curr = x_curr, x_next


@pytest.mark.parametrize("k, expected", [(100.0, "2.374"), (400.0, "1.258"), (1600.0, "0.744")])
def test_stiffness_sweep(k, expected):
    energy, gradient, hessian = cable_system(k)
    x = newton_solver(x_rest.copy(), energy, gradient, hessian, max_iter=NEWTON_MAX_ITERS, tolerance=NEWTON_TOL)
    assert f"{sag(x):.3f}" == expected
