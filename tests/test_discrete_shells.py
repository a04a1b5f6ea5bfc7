"""Discrete-shells bending from the physical input (rest mesh + modulus) on cloth-like sheets."""
import numpy as np
import pytest

import simkit
from simkit.energies import (bending_energy_x, discrete_shells_bending_energy, discrete_shells_bending_gradient,
                             discrete_shells_bending_hessian)

ROUNDOFF = 1e-12
FD_STEP = 1e-6
FD_TOL = 1e-6
K_BEND = 0.7


def _sheet(n=7):
    V, F = simkit.grid_sheet(n, n, 1.0, 1.0)
    return V, simkit.hinge_quads(F)


def _rigid(X, seed):
    rng = np.random.default_rng(seed)
    R = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    R *= np.sign(np.linalg.det(R))
    return X @ R.T + rng.standard_normal(3)


def _roll(V, R):
    """The flat sheet (y = 0) wrapped isometrically around a cylinder of radius R along z."""
    phi = V[:, 0] / R
    return np.column_stack([R * np.sin(phi), R * (np.cos(phi) - 1.0), V[:, 2]])


def test_physical_input_equals_raw_theta0_and_kappa():
    V, C = _sheet()
    x = _roll(V, 0.8).reshape(-1, 1)
    theta0, kappa = simkit.dihedral_angles(V, C), simkit.discrete_shells_stiffness(V, C, K_BEND)
    assert discrete_shells_bending_energy(x, C, X0=V, k_bend=K_BEND) == bending_energy_x(x, C, theta0, kappa)
    np.testing.assert_array_equal(discrete_shells_bending_gradient(x, C, X0=V, k_bend=K_BEND),
                                  discrete_shells_bending_gradient(x, C, theta0, kappa))
    np.testing.assert_array_equal(discrete_shells_bending_hessian(x, C, X0=V, k_bend=K_BEND, psd=True).toarray(),
                                  discrete_shells_bending_hessian(x, C, theta0, kappa, psd=True).toarray())


@pytest.mark.parametrize("kwargs", [{}, {"theta0": 0.0}, {"theta0": 0.0, "kappa": 1.0, "k_bend": 1.0},
                                    {"k_bend": 1.0}])
def test_raw_and_physical_inputs_do_not_mix(kwargs):
    V, C = _sheet(3)
    with pytest.raises(TypeError, match="theta0, kappa"):
        discrete_shells_bending_energy(V.reshape(-1, 1), C, **kwargs)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rest_sheet_under_any_rigid_motion_has_zero_energy_and_gradient(seed):
    V, C = _sheet()
    x = _rigid(V, seed).reshape(-1, 1)
    assert abs(discrete_shells_bending_energy(x, C, X0=V, k_bend=K_BEND)) < ROUNDOFF
    np.testing.assert_allclose(discrete_shells_bending_gradient(x, C, X0=V, k_bend=K_BEND), 0.0, atol=1e-10)


def test_crumpled_sheet_derivatives_match_central_differences_and_are_rigid_invariant():
    V, C = _sheet(5)
    rng = np.random.default_rng(3)
    X = V + 0.15 * rng.standard_normal(V.shape)
    x = X.reshape(-1, 1)
    energy = lambda y: discrete_shells_bending_energy(y, C, X0=V, k_bend=K_BEND)
    g = discrete_shells_bending_gradient(x, C, X0=V, k_bend=K_BEND)
    np.testing.assert_allclose(g.ravel(), simkit.gradient_cfd(energy, x, FD_STEP), rtol=FD_TOL, atol=FD_TOL)
    H = discrete_shells_bending_hessian(x, C, X0=V, k_bend=K_BEND).toarray()
    H_fd = simkit.gradient_cfd(lambda y: discrete_shells_bending_gradient(y, C, X0=V, k_bend=K_BEND).ravel(),
                               x, FD_STEP)
    np.testing.assert_allclose(H, H_fd, rtol=FD_TOL, atol=FD_TOL)
    np.testing.assert_allclose(energy(_rigid(X, 4).reshape(-1, 1)), energy(x), rtol=1e-10)


def test_cylinder_energy_times_radius_squared_is_constant_over_a_decade():
    V, F = simkit.grid_sheet(21, 21, 1.0, 1.0)
    C = simkit.hinge_quads(F)
    radii = np.geomspace(1.0, 10.0, 5)
    scaled = np.array([discrete_shells_bending_energy(_roll(V, R).reshape(-1, 1), C, X0=V, k_bend=K_BEND) * R**2
                       for R in radii])
    assert scaled.min() > 0
    assert np.ptp(scaled) / scaled.mean() < 0.01
    assert (simkit.dihedral_angles(_roll(V, 2.0), C) > -ROUNDOFF).all()   # bends away from the +y normals


@pytest.mark.parametrize("psd", [False, True])
def test_gradient_and_hessian_rotate_with_the_sheet(psd):
    V, C = _sheet(6)
    X = V + 0.1 * np.random.default_rng(8).standard_normal(V.shape)
    rng = np.random.default_rng(9)
    R = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    R *= np.sign(np.linalg.det(R))
    moved = X @ R.T + rng.standard_normal(3)
    RR = np.kron(np.eye(len(V)), R)
    kwargs = {"X0": V, "k_bend": K_BEND}
    g, g_moved = (discrete_shells_bending_gradient(Y.reshape(-1, 1), C, **kwargs) for Y in (X, moved))
    np.testing.assert_allclose(g_moved, RR @ g, atol=1e-10 * np.abs(g).max())
    H, H_moved = (discrete_shells_bending_hessian(Y.reshape(-1, 1), C, psd=psd, **kwargs).toarray() for Y in (X, moved))
    np.testing.assert_allclose(H_moved, RR @ H @ RR.T, atol=1e-10 * np.abs(H).max())
