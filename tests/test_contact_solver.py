"""The line-search filter ``max_step=`` and the stopping measure ``step_norm=`` of Newton and the integrators."""
import numpy as np
import pytest
import scipy.sparse as sps

from simkit.integrators import backward_euler, bdf2
from simkit.solvers import newton_solver
from simkit.terms import HalfSpaceContact
from test_newton_solver import quadratic_problem

D_HAT = 0.1


def quadratic():
    Q, b, energy, gradient = quadratic_problem(seed=0, n=3)
    return Q, b, energy, gradient, (lambda x: Q)


def test_backtracking_starts_from_the_filter():
    Q, b, E, G, H = quadratic()
    x, info = newton_solver(np.zeros((3, 1)), E, G, H, max_iter=1, return_info=True, max_step=lambda x, dx: 0.3)
    assert info["alphas"] == [0.3]
    np.testing.assert_allclose(x, 0.3 * -np.linalg.solve(Q, b), rtol=1e-12)
    # without the line search the step is exactly the filter's fraction too
    _, info = newton_solver(np.zeros((3, 1)), E, G, H, do_line_search=False, return_info=True,
                            max_step=lambda x, dx: 0.3)
    assert info["alphas"] == [0.3]


def test_the_filter_sees_the_current_iterate_and_the_newton_direction():
    Q, b, E, G, H = quadratic()
    seen = []
    newton_solver(np.ones((3, 1)), E, G, H, max_step=lambda x, dx: seen.append((x.copy(), dx.copy())) or 1.0)
    x, dx = seen[0]
    np.testing.assert_array_equal(x, np.ones((3, 1)))
    np.testing.assert_allclose(dx, -np.linalg.solve(Q, Q @ x + b), rtol=1e-12)


def test_step_norm_measures_the_unscaled_direction():
    Q, b, E, G, H = quadratic()
    measured = []
    x, info = newton_solver(np.zeros((3, 1)), E, G, H, tolerance=1e-3, max_iter=100, return_info=True,
                            max_step=lambda x, dx: 0.5,
                            step_norm=lambda dx: measured.append(dx.copy()) or np.abs(dx).max())
    for dx, recorded in zip(measured, info["dx"]):
        np.testing.assert_array_equal(dx, recorded)
    # half steps shrink the direction by half per iteration: it first drops below 1e-3 after k iterations
    d0 = np.abs(np.linalg.solve(Q, b)).max()
    k = int(np.ceil(np.log2(d0 / 1e-3)))
    assert info["converged"] and info["iterations"] == k + 1
    np.testing.assert_allclose(x, -np.linalg.solve(Q, b), atol=1e-3)


def test_defaults_are_unchanged_without_the_keywords():
    Q, b, E, G, H = quadratic()
    x0 = np.zeros((3, 1))
    a, ia = newton_solver(x0, E, G, H, max_iter=5, return_info=True)
    c, ic = newton_solver(x0, E, G, H, max_iter=5, return_info=True, max_step=None, step_norm=None)
    np.testing.assert_array_equal(a, c)
    assert ia["alphas"] == ic["alphas"] and ia["iterations"] == ic["iterations"] == 2


@pytest.mark.parametrize("bad", [0.0, 1.5, -0.1, np.nan])
def test_a_filter_outside_the_unit_interval_is_an_error(bad):
    Q, b, E, G, H = quadratic()
    with pytest.raises(ValueError, match=r"^max_step: .*Newton iteration 1"):
        newton_solver(np.zeros((3, 1)), E, G, H, max_step=lambda x, dx: bad)


def test_non_callable_keywords_are_type_errors():
    Q, b, E, G, H = quadratic()
    with pytest.raises(TypeError, match="^max_step: expected a callable"):
        newton_solver(np.zeros((3, 1)), E, G, H, max_step=0.5)
    with pytest.raises(TypeError, match="^step_norm: expected a callable"):
        backward_euler(np.zeros((3, 1)), np.zeros((3, 1)), E, G, H, np.eye(3), 0.1, step_norm=2)
    with pytest.raises(TypeError):
        newton_solver(np.zeros((3, 1)), E, G, H, 1e-6, 1, True, False, lambda x, dx: 1.0)   # keyword-only


def falling_particle(y0, vy, h):
    """A 2D particle of unit mass at height y0 moving down at vy, above the ground y = 0, under gravity."""
    ground = HalfSpaceContact(1, 2, [0.0, 0.0], [0.0, 1.0], D_HAT, 10.0)
    f = np.array([[0.0], [-9.8]])
    E = lambda x: ground.energy(x) - (f.T @ x).item()
    G = lambda x: ground.gradient(x) - f
    x_curr = np.array([[0.0], [y0]])
    x_prev = x_curr - h * np.array([[0.0], [vy]])
    return ground, E, G, x_curr, x_prev


def test_backward_euler_with_the_filter_starts_free_of_contact_when_the_target_is_not():
    h = 0.1
    ground, E, G, x_curr, x_prev = falling_particle(0.05, -3.0, h)      # x_tilde at y = -0.25
    with pytest.raises(ValueError, match=r"vertices \[0\] are on or behind half-space 0"):
        backward_euler(x_curr, x_prev, E, G, ground.hessian, np.eye(2), h, max_iter=20)
    x, info = backward_euler(x_curr, x_prev, E, G, ground.hessian, np.eye(2), h, max_iter=50, return_info=True,
                             max_step=ground.max_step, step_norm=lambda dx: np.abs(dx).max() / h)
    assert info["converged"] and 0 < x[1, 0] < 0.05
    # the minimizer: inertia + gravity + barrier stationary
    r = (x - (2 * x_curr - x_prev)) / h ** 2 + G(x)
    np.testing.assert_allclose(r, 0.0, atol=1e-4)


def test_bdf2_passes_the_filter_through():
    h = 0.1
    ground, E, G, x_curr, x_prev = falling_particle(0.05, -3.0, h)
    x = bdf2(x_curr, x_prev, x_prev - (x_curr - x_prev), x_prev - 2 * (x_curr - x_prev), E, G, ground.hessian,
             np.eye(2), h, max_iter=50, max_step=ground.max_step, step_norm=lambda dx: np.abs(dx).max() / h)
    assert 0 < x[1, 0] < 0.05


def test_the_filter_prevents_a_full_step_through_the_ground():
    """Without the line search, Newton's full step from just above the ground lands below it; with the filter, never."""
    h = 0.2
    ground, E, G, x_curr, x_prev = falling_particle(0.5, -1.75, h)     # x_tilde at y = 0.15 > d_hat
    free = backward_euler(x_curr, x_prev, E, G, ground.hessian, sps.identity(2, format="csc"), h,
                          do_line_search=False)
    assert free[1, 0] < 0          # no contact is active at x_tilde, and gravity's full step goes through
    x = x_curr
    for _ in range(20):
        x = backward_euler(x_curr, x_prev, E, G, ground.hessian, sps.identity(2, format="csc"), h,
                           do_line_search=False, max_iter=20, max_step=ground.max_step,
                           step_norm=lambda dx: np.abs(dx).max() / h)
        assert x[1, 0] > 0
        x_prev, x_curr = x_curr, x


def test_a_step_that_starts_interpenetrating_names_the_vertices():
    h = 0.1
    ground = HalfSpaceContact(2, 2, [0.0, 0.0], [0.0, 1.0], D_HAT, 10.0)
    E, G = ground.energy, ground.gradient
    x_curr = np.array([[0.0], [0.5], [1.0], [-0.01]])             # vertex 1 is below the ground
    with pytest.raises(ValueError, match=r"^x: vertices \[1\] are on or behind half-space 0"):
        backward_euler(x_curr, x_curr, E, G, ground.hessian, np.eye(4), h, max_step=ground.max_step)
