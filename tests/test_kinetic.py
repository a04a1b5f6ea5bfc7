"""Inertia terms: targets, velocities, derivatives, and that their minimizers are the schemes."""
import numpy as np
import pytest
import scipy.sparse as sps
import scipy.sparse.linalg

import simkit
from simkit.energies import (bdf2_target, be_target, kinetic_energy_bdf2, kinetic_energy_be, kinetic_gradient_bdf2,
                             kinetic_gradient_be, kinetic_hessian_bdf2, kinetic_hessian_be, velocity_bdf2,
                             velocity_be)

FD_STEP = 1e-6
GRAD_TOL = 1e-7
ROUNDOFF = 1e-12
H_STEP = 0.05


def history(seed, n=5, k=4):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((n, 1)) for _ in range(k)]


def lumped(n, seed=0):
    return sps.diags(np.random.default_rng(seed).uniform(0.5, 2.0, n), format="csc")


def test_be_target_and_velocity():
    x1, x0 = history(0, k=2)
    np.testing.assert_allclose(be_target(x1, x0, H_STEP), 2 * x1 - x0, rtol=ROUNDOFF)
    v = velocity_be(x1, x0, H_STEP)
    np.testing.assert_allclose(v, (x1 - x0) / H_STEP, rtol=ROUNDOFF)
    np.testing.assert_allclose(be_target(x1, x0, H_STEP), x1 + H_STEP * v, rtol=ROUNDOFF, atol=ROUNDOFF)


def test_bdf2_velocity_is_exact_for_quadratic_motion():
    t = np.array([0.0, -H_STEP, -2 * H_STEP])
    a, b, c = 0.7, -1.3, 2.1
    pos = [np.array([[a * ti**2 + b * ti + c]]) for ti in t]
    np.testing.assert_allclose(velocity_bdf2(*pos, H_STEP), [[b]], rtol=1e-12)


def test_bdf2_target_formula():
    xs = history(1)
    v_n = velocity_bdf2(xs[0], xs[1], xs[2], H_STEP)
    v_1 = velocity_bdf2(xs[1], xs[2], xs[3], H_STEP)
    expected = 4 / 3 * xs[0] - 1 / 3 * xs[1] + 2 / 9 * H_STEP * (4 * v_n - v_1)
    np.testing.assert_allclose(bdf2_target(*xs, H_STEP), expected, rtol=ROUNDOFF)
    rest = [xs[0]] * 4
    np.testing.assert_allclose(bdf2_target(*rest, H_STEP), xs[0], rtol=ROUNDOFF)


@pytest.mark.parametrize("scheme", ["be", "bdf2"])
def test_inertia_derivatives_match_central_differences(scheme):
    xs = history(2)
    M = lumped(5)
    x = np.random.default_rng(3).standard_normal((5, 1))
    if scheme == "be":
        args = (xs[0], xs[1], M, H_STEP)
        energy, gradient, H = kinetic_energy_be, kinetic_gradient_be, kinetic_hessian_be(M, H_STEP)
        target, coeff = be_target(xs[0], xs[1], H_STEP), 1.0
    else:
        args = (*xs, M, H_STEP)
        energy, gradient, H = kinetic_energy_bdf2, kinetic_gradient_bdf2, kinetic_hessian_bdf2(M, H_STEP)
        target, coeff = bdf2_target(*xs, H_STEP), 9 / 4
    r = x - target
    np.testing.assert_allclose(energy(x, *args), 0.5 * coeff / H_STEP**2 * (r.T @ M @ r).item(), rtol=ROUNDOFF)
    g = gradient(x, *args)
    g_fd = simkit.gradient_cfd(lambda y: energy(y, *args), x, FD_STEP)
    np.testing.assert_allclose(g.ravel(), g_fd, rtol=GRAD_TOL)
    np.testing.assert_allclose(H.toarray(), coeff / H_STEP**2 * M.toarray(), rtol=ROUNDOFF)
    Hg_fd = simkit.gradient_cfd(lambda y: gradient(y, *args).ravel(), x, FD_STEP)
    np.testing.assert_allclose(H.toarray(), Hg_fd, rtol=GRAD_TOL, atol=GRAD_TOL * np.abs(Hg_fd).max())


def test_bdf2_minimizer_satisfies_the_bdf2_equations():
    """For Phi = 1/2 k |x|^2 the minimizer of inertia + Phi solves both BDF2 difference equations."""
    xs = history(4)
    k = 3.0
    M = lumped(5, seed=5)
    m = M.diagonal().reshape(-1, 1)
    H = kinetic_hessian_bdf2(M, H_STEP) + k * sps.eye(5)
    rhs = kinetic_hessian_bdf2(M, H_STEP) @ bdf2_target(*xs, H_STEP)
    x_next = scipy.sparse.linalg.spsolve(H.tocsc(), rhs).reshape(-1, 1)
    v_next = velocity_bdf2(x_next, xs[0], xs[1], H_STEP)
    v_n = velocity_bdf2(xs[0], xs[1], xs[2], H_STEP)
    v_1 = velocity_bdf2(xs[1], xs[2], xs[3], H_STEP)
    np.testing.assert_allclose(3 * v_next - 4 * v_n + v_1, -2 * H_STEP * k * x_next / m, rtol=1e-9)


def test_kinetic_hessian_keeps_dense_inputs_dense():
    M = np.diag([1.0, 2.0])
    H = kinetic_hessian_be(M, 0.5)
    assert isinstance(H, np.ndarray)
    np.testing.assert_allclose(H, M / 0.25, rtol=ROUNDOFF)
