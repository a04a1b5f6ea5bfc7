"""simkit.integrators.simulate: the one time loop, against closed forms and the one-step integrators."""
import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sps

import simkit
from simkit import terms
from simkit.integrators import backward_euler, bdf2, simulate

G, H = 9.8, 0.01
EXACT = 1e-12


def particle(mass=2.0, y0=1.0):
    """A 2D particle under gravity: potential, dense mass matrix, start."""
    gravity = terms.Gravity(np.array([[0.0], [-mass * G]]))
    return gravity, mass * np.eye(2), np.array([[0.0], [y0]])


def test_free_fall_is_the_closed_form_and_newton_needs_two_iterations():
    gravity, M, x0 = particle()
    steps = 50
    run = simulate(gravity, M, x0, H, steps, max_iter=5)
    n = np.arange(steps + 1)
    np.testing.assert_allclose(run.states[:, 1], 1.0 - G * H ** 2 * n * (n + 1) / 2, rtol=0, atol=1e-13)
    np.testing.assert_array_equal(run.frames, n)
    np.testing.assert_allclose(run.times, n * H, rtol=EXACT)
    # one Newton step solves the quadratic step, the second measures a zero step
    np.testing.assert_array_equal(run.iterations, 2)
    assert run.converged.all() and run.unconverged == 0
    # the kinetic energy of the backward-difference velocity (n g h at step n)
    np.testing.assert_allclose(run.energies["kinetic"], 0.5 * 2.0 * (G * H * n) ** 2, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(run.v, [[0.0], [-G * H * steps]], rtol=1e-9)
    np.testing.assert_array_equal(run.x[:, 0], run.states[-1])


def test_too_few_newton_iterations_are_counted_as_unconverged():
    gravity, M, x0 = particle()
    run = simulate(gravity, M, x0, H, 7, max_iter=1)
    assert run.unconverged == 7 and not run.converged.any()
    np.testing.assert_array_equal(run.iterations, 1)


def test_recorded_frames_and_named_energies():
    X = np.column_stack([np.linspace(0.0, 1.0, 5), np.zeros(5)])
    E = np.column_stack([np.arange(4), np.arange(1, 5)])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    l0 = simkit.edge_lengths(X, E).reshape(-1, 1)
    springs = terms.SpringEnergy(J, 50.0, l0.copy(), l0)
    gravity = terms.Gravity(simkit.gravity_force(X, E, rho=0.5))
    pin = terms.PenaltySpring(5, 2, 1e4).set([0], X[[0]])
    M = sps.kron(simkit.massmatrix(X, E, rho=0.5), sps.eye(2)).tocsc()
    frames = [0, 3, 7, 10]
    run = simulate(springs + gravity + pin, M, X.reshape(-1, 1), 0.02, 10, frames=frames, max_iter=20,
                   energies={"springs": springs, "gravity": gravity})
    full = simulate(springs + gravity + pin, M, X.reshape(-1, 1), 0.02, 10, max_iter=20)
    np.testing.assert_array_equal(run.frames, frames)
    np.testing.assert_array_equal(run.states, full.states[frames])
    for k, f in enumerate(frames):
        x = run.states[k].reshape(-1, 1)
        assert run.energies["springs"][k] == springs.energy(x)
        assert run.energies["gravity"][k] == gravity.energy(x)
        v = (full.states[f] - full.states[f - 1]) / 0.02 if f else np.zeros(10)
        np.testing.assert_allclose(run.energies["kinetic"][k], 0.5 * v @ (M @ v), rtol=EXACT)
    assert set(run.energies) == {"kinetic", "springs", "gravity"}


def _hand_loop(potential, M, x0, v0, h, steps, scheme, **options):
    """The loop simulate replaces: potential.update(x_n), then the public one-step integrator."""
    history = [x0 - k * h * v0 for k in range(4)]
    states = [x0]
    for _ in range(steps):
        potential.update(history[0])
        if scheme == "bdf2":
            x = bdf2(*history, potential, M, h, **options)
        else:
            x = backward_euler(history[0], history[1], potential, M, h, **options)
        history = [x] + history[:3]
        states.append(x)
    return np.hstack(states).T


@pytest.mark.parametrize("scheme", ["backward_euler", "bdf2"])
def test_simulate_is_the_public_step_repeated_bit_for_bit(scheme):
    """Friction lagged by update, the ground's filter, springs: the loop equals the one-step integrator."""
    X = np.array([[0.0, 0.005], [0.3, 0.005], [0.15, 0.3]])          # two nodes within d_hat of the ground
    E = np.array([[0, 1], [1, 2], [2, 0]])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    l0 = simkit.edge_lengths(X, E).reshape(-1, 1)
    mass = np.array([1.0, 1.0, 0.5])
    ground = terms.HalfSpaceContact(3, 2, [0.0, 0.0], [0.0, 1.0], 0.02, 100.0, weight=mass)
    friction = terms.Friction(ground, 0.2, 1e-3, H)
    potential = (terms.SpringEnergy(J, 1e3, l0.copy(), l0) + ground + friction
                 + terms.Gravity(np.column_stack([np.zeros(3), -G * mass])))
    M = sps.diags(np.repeat(mass, 2), format="csc")
    options = dict(tolerance=1e-8, max_iter=30, step_norm=lambda dx: np.abs(dx).max() / H)
    v0 = np.tile([[2.0], [-1.0]], (3, 1))                               # thrown along and onto the ground
    run = simulate(potential, M, X.reshape(-1, 1), H, 40, v0=v0, integrator=scheme, **options)
    expected = _hand_loop(potential, M, X.reshape(-1, 1), v0, H, 40, scheme, **options)
    np.testing.assert_array_equal(run.states, expected)
    assert run.unconverged == 0 and (run.iterations > 1).any()
    slowed = np.diff(run.states[:, [0, 2]], axis=0) / H                  # friction slows the sliding nodes
    assert slowed[-1].max() < 2.0 - 0.5 * 0.2 * G * 40 * H


def test_update_is_called_with_the_start_of_every_step():
    gravity, M, x0 = particle()
    starts = []

    class Watch(terms.Term):
        size = 2

        def energy(self, x):
            return 0.0

        def gradient(self, x):
            return np.zeros_like(x)

        def hessian(self, x):
            return sps.csc_matrix((2, 2))

        def update(self, x_n):
            starts.append(x_n[1, 0])
            return self

    run = simulate(gravity + Watch(), M, x0, H, 5, max_iter=3)
    np.testing.assert_array_equal(starts, run.states[:-1, 1])


def test_a_drop_on_the_ground_never_crosses_it_and_rests_at_the_closed_form_gap():
    """The contact term's max_step filters every step by itself: 017's drop, without max_step=."""
    mass, d_hat, kappa = 1.5, 0.01, 1000.0
    gravity, M, x0 = particle(mass, y0=0.3)
    ground = terms.HalfSpaceContact(1, 2, [0.0, 0.0], [0.0, 1.0], d_hat, kappa, weight=mass)
    run = simulate(gravity + ground, M, x0, 1 / 60, 150, max_iter=50, tolerance=1e-6,
                   step_norm=lambda dx: np.abs(dx).max() * 60)
    assert run.states[:, 1].min() > 0 and run.unconverged == 0
    force = lambda d: kappa * mass * (2 * (d - d_hat) * np.log(d / d_hat) + (d - d_hat) ** 2 / d) - mass * G
    rest = scipy.optimize.brentq(force, 1e-9, d_hat, xtol=1e-15)
    np.testing.assert_allclose(run.states[-1, 1], rest, rtol=1e-6)
    # the same run without the filter goes through the ground: the filter is what holds it
    with pytest.raises(ValueError, match="behind half-space"):
        _hand_loop_unfiltered(gravity, ground, M, x0)


def _hand_loop_unfiltered(gravity, ground, M, x0):
    x = x_prev = x0
    for _ in range(150):
        x, x_prev = backward_euler(x, x_prev, lambda y: gravity.energy(y) + ground.energy(y),
                                   lambda y: gravity.gradient(y) + ground.gradient(y), ground.hessian, M, 1 / 60,
                                   max_iter=50, step_norm=lambda dx: np.abs(dx).max() * 60), x


def test_held_coordinates_record_full_states_and_match_the_callable_loop():
    """016's soft_run before the loop existed: backward_euler on Held's callables, free mass block."""
    X, T = simkit.grid_rectangle(5, 3, 1.0, 0.25)
    mu, lam = simkit.ympr_to_lame(2e3, 0.3)
    body = terms.ElasticEnergy(X, T, mu, lam, "neo-hookean", psd=False)
    weight = terms.Gravity(simkit.gravity_force(X, T, rho=10.0))
    held = terms.Held(body + weight, X, [0, 1, 10, 11])
    M = sps.kron(simkit.massmatrix(X, T, rho=10.0), sps.eye(2)).tocsc()
    M_free = held.project(M)
    q0 = X.reshape(-1, 1)[held.free]
    run = simulate(held, M_free, q0, 1 / 30, 12, tolerance=1e-5, max_iter=40,
                   energies={"gravity": weight, "elastic": body})
    q = q_prev = q0
    expected = [held.full(q0)[:, 0]]
    for _ in range(12):
        q, q_prev = backward_euler(q, q_prev, held.energy, held.gradient, held.hessian, M_free, 1 / 30,
                                   tolerance=1e-5, max_iter=40), q
        expected.append(held.full(q)[:, 0])
    np.testing.assert_array_equal(run.states, np.array(expected))
    assert run.states.shape == (13, X.size)                    # full coordinates, held ones included
    np.testing.assert_array_equal(run.states[:, held.fixed], np.tile(X.reshape(-1)[held.fixed], (13, 1)))
    assert run.energies["elastic"][-1] == body.energy(run.states[-1])
    np.testing.assert_array_equal(run.x, q)                    # the loop's own coordinates, to continue a run
    np.testing.assert_allclose(run.v, (q - q_prev) * 30, rtol=EXACT, atol=EXACT)


def test_a_reduced_basis_of_every_mode_reproduces_the_full_run():
    """x = B z with B square and orthonormal: the same dynamics in other coordinates, mass B^T M B dense."""
    X = np.column_stack([np.linspace(0.0, 1.0, 4), np.zeros(4)])
    E = np.column_stack([np.arange(3), np.arange(1, 4)])
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    l0 = simkit.edge_lengths(X, E).reshape(-1, 1)
    potential = (terms.SpringEnergy(J, 100.0, l0.copy(), l0) + terms.Gravity(simkit.gravity_force(X, E))
                 + terms.PenaltySpring(4, 2, 1e4).set([0], X[[0]]))
    M = sps.kron(simkit.massmatrix(X, E), sps.eye(2)).tocsc()
    full = simulate(potential, M, X.reshape(-1, 1), 0.02, 30, tolerance=1e-12, max_iter=50)
    B, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((8, 8)))
    reduced = terms.Map(potential, B)
    M_z = reduced.project(M)
    assert isinstance(M_z, np.ndarray)
    run = simulate(reduced, M_z, B.T @ X.reshape(-1, 1), 0.02, 30, tolerance=1e-12, max_iter=50,
                   energies={"potential": potential})
    np.testing.assert_allclose(run.states, full.states, atol=1e-9)
    np.testing.assert_allclose(run.energies["kinetic"], full.energies["kinetic"], rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(run.energies["potential"], [potential.energy(s) for s in full.states], rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"integrator": "rk4"}, ValueError, "^integrator: expected one of 'backward_euler', 'bdf2'"),
    ({"frames": [0, 11]}, ValueError, r"^frames: expected indices in \[0, 11\)"),
    ({"frames": []}, ValueError, "^frames: expected at least one step index"),
    ({"energies": {"kinetic": None}}, ValueError, "^energies: expected names other than 'kinetic'"),
    ({"energies": {"g": 3.0}}, TypeError, r"^energies\['g'\]: expected an energy term"),
    ({"energies": {"g": terms.Gravity(np.zeros(3))}}, ValueError, r"^energies\['g'\]: the term acts on 3"),
    ({"energies": [1]}, TypeError, "^energies: expected a dict"),
    ({"v0": np.zeros(3)}, ValueError, "^v0: expected 2 rows"),
    ({"tolerance": 0.0}, ValueError, "^tolerance: expected a finite value > 0"),
    ({"max_iter": 0}, ValueError, "^max_iter: expected an integer >= 1"),
    ({"step_norm": 2}, TypeError, "^step_norm: expected a callable"),
])
def test_bad_options_are_named_before_any_step(kwargs, error, match):
    gravity, M, x0 = particle()
    with pytest.raises(error, match=match):
        simulate(gravity, M, x0, H, 10, **kwargs)


def test_bad_arguments():
    gravity, M, x0 = particle()
    with pytest.raises(TypeError, match="^potential: expected an energy term"):
        simulate(lambda x: 0.0, M, x0, H, 3)
    with pytest.raises(ValueError, match="^x0: expected 2 rows, the potential's coordinates"):
        simulate(gravity, np.eye(3), np.zeros((3, 1)), H, 3)
    with pytest.raises(ValueError, match=r"^M: expected a square matrix of shape \(2, 2\)"):
        simulate(gravity, np.eye(3), x0, H, 3)
    with pytest.raises(ValueError, match="^h: expected a finite value > 0"):
        simulate(gravity, M, x0, 0.0, 3)
    with pytest.raises(ValueError, match="^steps: expected an integer >= 0"):
        simulate(gravity, M, x0, H, -1)
    assert simulate(gravity, M, x0, H, 0).states.shape == (1, 2)
