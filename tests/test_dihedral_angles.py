"""Signed hinge angles of known 2D and 3D configurations, and their symmetries."""
import numpy as np
import pytest

import simkit

ROUNDOFF = 1e-12


@pytest.mark.parametrize("x2, expected", [
    ([2.0, 0.0], 0.0),
    ([1.0, 1.0], np.pi / 2),
    ([1.0, -1.0], -np.pi / 2),
    ([2.0, 1.0], np.pi / 4),
    ([2.0, -1.0], -np.pi / 4),
    ([0.0, 0.0], np.pi),
])
def test_2d_turning_angle_of_known_triples(x2, expected):
    X = np.array([[0.0, 0.0], [1.0, 0.0], x2])
    theta = simkit.dihedral_angles(X, np.array([[0, 1, 2]]))
    assert theta.shape == (1, 1)
    np.testing.assert_allclose(theta[0, 0], expected, atol=ROUNDOFF)


def test_2d_angles_of_a_regular_polygon_sum_to_two_pi():
    k = 7
    t = 2 * np.pi * np.arange(k) / k
    X = np.column_stack([np.cos(t), np.sin(t)])
    C = np.column_stack([np.arange(k), (np.arange(k) + 1) % k, (np.arange(k) + 2) % k])
    theta = simkit.dihedral_angles(X, C)
    np.testing.assert_allclose(theta, 2 * np.pi / k, rtol=ROUNDOFF)
    np.testing.assert_allclose(simkit.dihedral_angles(X, C[:, ::-1]), -2 * np.pi / k, rtol=ROUNDOFF)


def _quad(beta):
    """Hinge edge e0 -> e1 along +x, apex o0 in the +y half plane, apex o1 turned by beta about +x."""
    return np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 1.0, 0.0],
                     [0.5, -np.cos(beta), -np.sin(beta)]])


@pytest.mark.parametrize("beta", [0.0, 0.3, -0.3, np.pi / 2, -np.pi / 2, 2.5, -2.5])
def test_3d_dihedral_angle_of_a_folded_quad(beta):
    theta = simkit.dihedral_angles(_quad(beta), np.array([[0, 1, 2, 3]]))
    assert theta.shape == (1, 1)
    np.testing.assert_allclose(theta[0, 0], beta, atol=ROUNDOFF)


def test_3d_flat_quad_is_zero_and_angle_is_rigid_invariant():
    rng = np.random.default_rng(0)
    C = np.array([[0, 1, 2, 3]])
    np.testing.assert_allclose(simkit.dihedral_angles(_quad(0.0), C), 0.0, atol=ROUNDOFF)
    X = rng.standard_normal((4, 3))
    R = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    R *= np.sign(np.linalg.det(R))
    moved = 2.5 * X @ R.T + rng.standard_normal(3)
    np.testing.assert_allclose(simkit.dihedral_angles(moved, C), simkit.dihedral_angles(X, C), atol=1e-12)
    np.testing.assert_allclose(simkit.dihedral_angles(-X, C), -simkit.dihedral_angles(X, C), atol=1e-12)


def test_3d_quad_orientation_conventions():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((4, 3))
    # (e0, e1, o0, o1); walking the edge the other way with the apexes swapped is the same hinge,
    # swapping the apexes alone mirrors it
    theta = simkit.dihedral_angles(X, np.array([[0, 1, 2, 3], [1, 0, 3, 2], [0, 1, 3, 2]]))[:, 0]
    np.testing.assert_allclose(theta[1], theta[0], atol=ROUNDOFF)
    np.testing.assert_allclose(theta[2], -theta[0], atol=ROUNDOFF)


def test_3d_folded_cloth_strip():
    beta = 0.7
    X = np.array([[0, 1, 0], [0, 0, 0], [1, 0, 0], [1, 1, 0]], dtype=float)
    X = np.vstack([X, [0.0, -np.cos(beta), -np.sin(beta)], [1.0, -np.cos(beta), -np.sin(beta)]])
    # the angle depends on the flap directions only, not on where the apexes sit along the hinge
    theta = simkit.dihedral_angles(X, np.array([[1, 2, 0, 4], [1, 2, 3, 4]]))
    np.testing.assert_allclose(theta[:, 0], beta, atol=ROUNDOFF)
