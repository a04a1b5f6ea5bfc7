"""Continuous collision detection: closed-form times of impact and the safety factor."""
import numpy as np
import pytest

from simkit import ccd

EXACT = 1e-12
GROUND = (np.array([0.0, 0.0]), np.array([0.0, 1.0]))


def test_vertex_falling_onto_a_plane_stops_at_safety_times_the_time_of_impact():
    x = np.array([[0.0, 1.0], [2.0, 3.0]])
    dx = np.array([[0.5, -2.0], [0.0, -1.0]])            # impact at t = 0.5 (vertex 0) and t = 3 (vertex 1)
    assert ccd.half_space_max_step(x, dx, *GROUND) == pytest.approx(0.45, rel=EXACT)
    assert ccd.half_space_max_step(x, dx, *GROUND, safety=0.5) == pytest.approx(0.25, rel=EXACT)
    alpha = ccd.half_space_max_step(x, dx, *GROUND)
    np.testing.assert_allclose((x + alpha * dx)[0, 1], 0.1, rtol=EXACT)   # (1 - safety) of the gap remains


def test_full_step_when_nothing_is_reached():
    x = np.array([[0.0, 1.0]])
    assert ccd.half_space_max_step(x, np.array([[5.0, 3.0]]), *GROUND) == 1.0      # moving away
    assert ccd.half_space_max_step(x, np.array([[5.0, -0.5]]), *GROUND) == 1.0     # stops short
    assert ccd.half_space_max_step(x, np.zeros((1, 2)), *GROUND) == 1.0


def test_the_nearest_of_several_half_spaces_and_3d():
    points = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    normals = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])     # floor y >= 0 and wall x <= 1
    x = np.array([[0.0, 1.0, 0.0]])
    dx = np.array([[4.0, -2.0, 7.0]])                           # reaches the wall at t = 1/4, the floor at 1/2
    assert ccd.half_space_max_step(x, dx, points, normals) == pytest.approx(0.9 * 0.25, rel=EXACT)
    stacked = ccd.half_space_max_step(x.reshape(-1, 1), dx.reshape(-1, 1), points, normals, dim=3)
    assert stacked == pytest.approx(0.9 * 0.25, rel=EXACT)
    assert ccd.half_space_max_step(x, dx, points, normals, vertices=[]) == 1.0


def test_errors():
    x = np.array([[0.0, 1.0], [1.0, -0.5]])
    with pytest.raises(ValueError, match=r"^x: vertices \[1\] are on or behind half-space 0"):
        ccd.half_space_max_step(x, np.zeros((2, 2)), *GROUND)
    with pytest.raises(ValueError, match=r"^dx: expected positions of shape \(1, 2\)"):
        ccd.half_space_max_step(x[:1], np.zeros((2, 2)), *GROUND)
    with pytest.raises(ValueError, match=r"^safety: expected a factor in \(0, 1\)"):
        ccd.half_space_max_step(x[:1], np.zeros((1, 2)), *GROUND, safety=0.0)
    with pytest.raises(ValueError, match="^normals: expected unit vectors"):
        ccd.half_space_max_step(x[:1], np.zeros((1, 2)), GROUND[0], [0.0, 0.5])
