"""simkit.mpm grid step: node velocities, walls, Coulomb friction and the colliders' signed distances."""
import numpy as np
import pytest

import simkit.mpm as mpm


def test_grid_velocity_is_momentum_over_mass_plus_gravity_and_zero_without_mass():
    mass = np.array([[2.0, 0.0], [0.5, 1.0]])
    momentum = np.arange(8.0).reshape(2, 2, 2)
    v = mpm.grid_velocity(mass, momentum, dt=0.1, gravity=[0.0, -10.0])
    np.testing.assert_allclose(v[0, 0], [0.0, 0.5 - 1.0])
    np.testing.assert_allclose(v[0, 1], 0.0)
    np.testing.assert_allclose(v[1, 0], [8.0, 10.0 - 1.0])
    with pytest.raises(ValueError, match=r"momentum: expected shape \(2, 2, 2\)"):
        mpm.grid_velocity(mass, momentum[..., :1])


def _field(d, seed=20):
    return np.random.default_rng(seed).normal(size=(6,) * d + (d,))


@pytest.mark.parametrize("d", [2, 3])
def test_walls(d):
    v = _field(d)
    sticky = mpm.walls(v.copy(), 2, "sticky")
    slip = mpm.walls(v.copy(), 2, "slip")
    separate = mpm.walls(v.copy(), 2, "separate")
    inner = (slice(2, 4),) * d
    for w in (sticky, slip, separate):
        np.testing.assert_array_equal(w[inner], v[inner])                  # interior untouched
    for a in range(d):
        low = (slice(2, 4),) * a + (slice(0, 2),) + (slice(2, 4),) * (d - a - 1)      # face, not edges
        high = (slice(2, 4),) * a + (slice(4, 6),) + (slice(2, 4),) * (d - a - 1)
        for face, outward in ((low, -1), (high, 1)):
            np.testing.assert_array_equal(sticky[face], 0.0)
            np.testing.assert_array_equal(slip[face][..., a], 0.0)
            np.testing.assert_array_equal(np.delete(slip[face], a, axis=-1), np.delete(v[face], a, axis=-1))
            va = v[face][..., a]
            np.testing.assert_array_equal(separate[face][..., a], np.where(va * outward > 0, 0.0, va))
    with pytest.raises(ValueError, match="condition: expected one of"):
        mpm.walls(v, 2, "sticky-ish")


def test_coulomb_friction_sticks_slides_and_lets_go():
    n = np.array([[0.0, 1.0]] * 4)
    v = np.array([[0.5, -1.0],      # |vt| 0.5 <= mu |vn| 1.0: sticks
                  [3.0, -1.0],      # slides: tangential 3 - 1 = 2
                  [3.0, 1.0],       # separating: unchanged
                  [-3.0, -2.0]])    # slides the other way: -3 + 2 = -1
    np.testing.assert_allclose(mpm.coulomb_friction(v, n, 1.0), [[0, 0], [2.0, 0], [3.0, 1.0], [-1.0, 0]])
    np.testing.assert_allclose(mpm.coulomb_friction(v, n, 0.0), [[0.5, 0], [3.0, 0], [3.0, 1.0], [-3.0, 0]])
    np.testing.assert_allclose(mpm.coulomb_friction(v, n, np.inf), [[0, 0], [0, 0], [3.0, 1.0], [0, 0]])


def test_signed_distances_are_the_closed_forms():
    y = np.array([[0.0, 0.0], [3.0, 0.5], [0.5, 3.0], [2.0, 2.0], [0.9, 0.2]])
    phi, n = mpm.Box((-1.0, -1.0), (1.0, 1.0)).signed_distance(y)
    np.testing.assert_allclose(phi, [-1.0, 2.0, 2.0, np.sqrt(2.0), -0.1])
    np.testing.assert_allclose(n[1:], [[1, 0], [0, 1], [np.sqrt(0.5)] * 2, [1, 0]])
    phi, n = mpm.Sphere((0.0, 0.0), 1.0).signed_distance(y[1:2])
    np.testing.assert_allclose(phi, np.hypot(3.0, 0.5) - 1.0)
    np.testing.assert_allclose(n, [[3.0, 0.5]] / np.hypot(3.0, 0.5))
    phi, n = mpm.Plane((0.0, 1.0), (0.0, 2.0)).signed_distance(y)
    np.testing.assert_allclose(phi, y[:, 1] - 1.0)
    np.testing.assert_allclose(n, np.broadcast_to([0.0, 1.0], y.shape))


def test_collide_changes_only_the_nodes_inside():
    v = np.zeros((5, 5, 2))
    v[..., 1] = -1.0
    v[..., 0] = 3.0
    mpm.collide(v, 0.25, mpm.Plane((0.0, 0.5), (0.0, 1.0)), friction=1.0)
    np.testing.assert_allclose(v[:, :3], np.broadcast_to([2.0, 0.0], (5, 3, 2)))       # y <= 0.5: slides
    np.testing.assert_allclose(v[:, 3:], np.broadcast_to([3.0, -1.0], (5, 2, 2)))      # above: free
    with pytest.raises(ValueError, match="friction: expected a coefficient >= 0"):
        mpm.collide(v, 0.25, mpm.Sphere((0.0, 0.0), 1.0), friction=-1.0)
