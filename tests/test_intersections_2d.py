"""simkit.contact.intersections_2d: exact segment crossings and vertices inside other bodies, against closed
forms on squares, a brute-force rational-arithmetic oracle on random scenes and near-degenerate
configurations, and the batched count against the single-state function."""
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from simkit import contact
from simkit.contact import count_intersections_2d, intersections_2d
from simkit.contact._orient import orient2d as _orient


def square(x0, y0, size=1.0):
    """Corners counter-clockwise and the four boundary segments."""
    X = np.array([[x0, y0], [x0 + size, y0], [x0 + size, y0 + size], [x0, y0 + size]])
    return X, np.array([[0, 1], [1, 2], [2, 3], [3, 0]])


def scene(*squares):
    """Several squares as one set of positions, segments and body labels."""
    X = np.vstack([q[0] for q in squares])
    S = np.vstack([q[1] + 4 * k for k, q in enumerate(squares)])
    return X, S, np.repeat(np.arange(len(squares)), 4)


# ---------------------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------------------

def test_overlapping_squares_cross_twice_and_hold_one_corner_of_each_other():
    X, S, bodies = scene(square(0, 0), square(0.5, 0.5))
    pairs, inside = intersections_2d(X, S, bodies)
    # A's right edge crosses B's bottom edge, A's top edge crosses B's left edge
    np.testing.assert_array_equal(pairs, [[1, 4], [2, 7]])
    np.testing.assert_array_equal(inside, [[2, 1], [4, 0]])            # (1, 1) in B, (0.5, 0.5) in A


def test_a_swallowed_body_crosses_nothing_and_every_vertex_is_inside():
    X, S, bodies = scene(square(0, 0, 3.0), square(1, 1))
    pairs, inside = intersections_2d(X, S, bodies)
    assert pairs.shape == (0, 2)
    np.testing.assert_array_equal(inside, [[4, 0], [5, 0], [6, 0], [7, 0]])


def test_touching_corners_intersect_and_a_gap_of_one_ulp_does_not():
    X, S, bodies = scene(square(0, 0), square(1, 1))
    pairs, inside = intersections_2d(X, S, bodies)
    np.testing.assert_array_equal(pairs, [[1, 4], [1, 7], [2, 4], [2, 7]])   # the edges meeting at (1, 1)
    assert inside.shape == (0, 2)                                           # on a boundary is not inside
    X[4:] += [np.spacing(1.0), 0.0]
    pairs, inside = intersections_2d(X, S, bodies)
    assert pairs.shape == (0, 2) and inside.shape == (0, 2)


def test_a_vertex_on_another_body_s_edge_is_a_touch_not_inside():
    X, S, bodies = scene(square(0, 0), square(0.25, 1.2, 0.5))
    X[4] = [0.5, 1.0]                                                     # B's corner on A's top edge
    pairs, inside = intersections_2d(X, S, bodies)
    np.testing.assert_array_equal(pairs, [[2, 4], [2, 7]])
    assert inside.shape == (0, 2)


def test_segments_of_one_body_never_count():
    X = np.array([[0, 0], [2, 2], [2, 0], [0, 2]], dtype=float)          # a self-crossing bow tie
    S = np.array([[0, 1], [1, 2], [2, 3], [3, 0]])
    pairs, inside = intersections_2d(X, S, np.zeros(4, dtype=int))
    assert pairs.shape == (0, 2) and inside.shape == (0, 2)


def test_interior_vertices_are_tested_when_bodies_are_labelled():
    X, S, bodies = scene(square(0, 0), square(0.5, 0.5))
    X = np.vstack([X, [[0.9, 0.9]]])                                      # an interior node of body 1, inside A
    pairs, inside = intersections_2d(X, S, np.r_[bodies, 1])
    assert [8, 0] in inside.tolist()
    # without labels only the vertices on segments are tested, and bodies are the segments' components
    _, inside_unlabelled = intersections_2d(X, S)
    np.testing.assert_array_equal(inside_unlabelled, [[2, 1], [4, 0]])


# ---------------------------------------------------------------------------------------
# exactness: near-degenerate orientations against rational arithmetic
# ---------------------------------------------------------------------------------------

def exact_orient(a, b, c):
    ax, ay, bx, by, cx, cy = (Fraction(float(v)) for v in (*a, *b, *c))
    d = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    return (d > 0) - (d < 0)


def test_orientation_is_exact_where_the_floating_point_determinant_is_not():
    """Points within a few ulps of a line (Shewchuk's example: the grid of floats near (0.5, 0.5)
    against the line through (12, 12) and (24, 24)): the plain determinant gets signs wrong, the
    predicate gets every one right."""
    k = np.arange(64)
    c = np.column_stack([0.5 + (k % 8) * np.spacing(0.5), 0.5 + (k // 8) * np.spacing(0.5)])
    a, b = np.broadcast_to([12.0, 12.0], c.shape), np.broadcast_to([24.0, 24.0], c.shape)
    expected = np.array([exact_orient(*abc) for abc in zip(a, b, c)])
    naive = np.sign((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]))
    assert np.any(naive != expected)                                      # the float determinant fails here
    np.testing.assert_array_equal(_orient(a, b, c), expected)
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-1, 1, (500, 2)), rng.uniform(-1, 1, (500, 2))
    t = rng.uniform(-2, 3, (500, 1))
    c = a + t * (b - a) + rng.integers(-3, 4, (500, 2)) * np.spacing(np.abs(a + t * (b - a)))
    np.testing.assert_array_equal(_orient(a, b, c), [exact_orient(*abc) for abc in zip(a, b, c)])


def test_crossings_decided_by_the_last_bit():
    """The diagonal from (0, 0) to (1, 1) against two vertical segments that end on it, then one ulp short
    of it (from above) and one ulp past it (from below)."""
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.3, 1.0], [0.3, 0.3], [0.7, 0.0], [0.7, 0.7]])
    S = np.array([[0, 1], [2, 3], [4, 5]])
    bodies = np.array([0, 0, 1, 1, 2, 2])
    pairs, _ = intersections_2d(X, S, bodies)
    assert pairs.tolist() == [[0, 1], [0, 2]]                               # both end exactly on the diagonal
    X[3, 1] = np.nextafter(0.3, 1.0)                                        # coming down: one ulp short
    X[5, 1] = np.nextafter(0.7, 1.0)                                        # coming up: one ulp past
    pairs, _ = intersections_2d(X, S, bodies)
    assert pairs.tolist() == [[0, 2]]


# ---------------------------------------------------------------------------------------
# the broad phase loses nothing: random scenes against a brute-force oracle
# ---------------------------------------------------------------------------------------

def exact_meet(p1, p2, q1, q2):
    d1, d2, d3, d4 = exact_orient(q1, q2, p1), exact_orient(q1, q2, p2), exact_orient(p1, p2, q1), exact_orient(p1, p2, q2)

    def within(p, a, b):
        return all(min(a[k], b[k]) <= p[k] <= max(a[k], b[k]) for k in range(2))

    return ((d1 * d2 < 0 and d3 * d4 < 0) or (d1 == 0 and within(p1, q1, q2)) or (d2 == 0 and within(p2, q1, q2))
            or (d3 == 0 and within(q1, p1, p2)) or (d4 == 0 and within(q2, p1, p2)))


def exact_inside(p, segments):
    """Even-odd rule along the ray towards +x, and whether p is on a segment, in rationals."""
    crossings, on = 0, False
    for a, b in segments:
        o = exact_orient(a, b, p)
        if o == 0 and all(min(a[k], b[k]) <= p[k] <= max(a[k], b[k]) for k in range(2)):
            on = True
        if (a[1] > p[1]) != (b[1] > p[1]) and (o > 0 if b[1] > a[1] else o < 0):
            crossings += 1
    return crossings % 2 == 1 and not on


def brute_force(X, S, bodies):
    seg_body = bodies[S[:, 0]]
    pairs = [[i, j] for i, j in combinations(range(len(S)), 2)
             if seg_body[i] != seg_body[j] and exact_meet(X[S[i, 0]], X[S[i, 1]], X[S[j, 0]], X[S[j, 1]])]
    inside = [[v, b] for v in range(len(X)) for b in np.unique(seg_body) if b != bodies[v]
              and exact_inside(X[v], [(X[i], X[j]) for i, j in S[seg_body == b]])]
    return np.array(pairs, dtype=int).reshape(-1, 2), np.array(inside, dtype=int).reshape(-1, 2)


def polygons(rng, count, sides, spread, snap=None):
    """`count` random star-shaped polygons of `sides` vertices each, scattered over `spread`."""
    X, S = [], []
    for k in range(count):
        angles = np.sort(rng.uniform(0, 2 * np.pi, sides))
        radii = rng.uniform(0.3, 1.0, sides)
        X.append(rng.uniform(0, spread, 2) + np.column_stack([radii * np.cos(angles), radii * np.sin(angles)]))
        S.append(k * sides + np.column_stack([np.arange(sides), (np.arange(sides) + 1) % sides]))
    X = np.vstack(X)
    if snap:
        X = np.round(X / snap) * snap                                  # shared coordinates: touches, collinear edges
    return X, np.vstack(S), np.repeat(np.arange(count), sides)


@pytest.mark.parametrize("seed, count, sides, spread, snap", [(0, 12, 5, 4.0, None), (1, 8, 7, 2.5, None),
                                                              (2, 10, 4, 3.0, 0.25), (3, 6, 6, 1.5, 0.5)])
def test_every_intersection_is_found_as_by_brute_force(seed, count, sides, spread, snap):
    X, S, bodies = polygons(np.random.default_rng(seed), count, sides, spread, snap)
    pairs, inside = intersections_2d(X, S, bodies)
    expected_pairs, expected_inside = brute_force(X, S, bodies)
    assert len(expected_pairs) and len(expected_inside)               # the scenes do interpenetrate
    np.testing.assert_array_equal(pairs, expected_pairs)
    np.testing.assert_array_equal(inside, expected_inside)


def test_a_long_segment_among_short_ones_is_binned_without_loss():
    rng = np.random.default_rng(7)
    X, S, bodies = polygons(rng, 15, 5, 6.0)
    X = np.vstack([X, [[-1.0, 3.0], [8.0, 3.2]]])                          # one thin body across the scene
    S = np.vstack([S, [[len(X) - 2, len(X) - 1]]])
    bodies = np.r_[bodies, 99, 99]
    pairs, inside = intersections_2d(X, S, bodies)
    expected_pairs, expected_inside = brute_force(X, S, bodies)
    np.testing.assert_array_equal(pairs, expected_pairs)
    np.testing.assert_array_equal(inside, expected_inside)


def test_counts_over_states_are_the_single_state_results():
    rng = np.random.default_rng(11)
    X, S, bodies = polygons(rng, 6, 5, 3.0)
    states = X[None] + np.linspace(0, 1, 7)[:, None, None] * rng.uniform(-1, 1, (1,) + X.shape)
    counts = count_intersections_2d(states, S, bodies)
    expected = [sum(len(r) for r in intersections_2d(P, S, bodies)) for P in states]
    np.testing.assert_array_equal(counts, expected)
    apart = states.copy()
    apart[:] = X + 10.0 * bodies[:, None]                                  # every body moved far from the others
    np.testing.assert_array_equal(count_intersections_2d(apart, S, bodies), 0)


# ---------------------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("X, S, bodies, error, match", [
    (np.zeros((4, 3)), [[0, 1]], None, ValueError, r"^X: expected shape \(n, dim\) with dim in \(2,\)"),
    ([[0, 0], [np.nan, 1]], [[0, 1]], None, ValueError, "^X: expected finite values"),
    (np.zeros((2, 2)), [[0, 2]], None, ValueError, r"^S: expected indices in \[0, 2\)"),
    (np.zeros((2, 2)), [[0.0, 1.0]], None, TypeError, "^S: expected an integer index array"),
    (np.zeros((2, 2)), [[0, 1]], [0], ValueError, r"^bodies: expected shape \(2,\)"),
    (np.zeros((2, 2)), [[0, 1]], [0.0, 1.0], TypeError, "^bodies: expected an integer label"),
    (np.zeros((2, 2)), [[0, 1]], [0, 1], ValueError, "^S: segment 0 joins vertices 0 and 1 of different bodies"),
])
def test_bad_input_is_named(X, S, bodies, error, match):
    with pytest.raises(error, match=match):
        intersections_2d(X, S, bodies)


def test_bad_states_are_named():
    with pytest.raises(ValueError, match=r"^states: expected shape \(T, n, 2\)"):
        count_intersections_2d(np.zeros((4, 2)), [[0, 1]])


def test_the_3d_mesh_tests_point_2d_states_here():
    X, S, bodies = scene(square(0, 0), square(0.5, 0.5))
    with pytest.raises(ValueError, match=r"^states: expected \(N, n, 3\) positions.*simkit\.contact\.intersections_2d"):
        contact.count_intersections(X[None], np.array([[0, 1, 2]]))
    with pytest.raises(ValueError, match=r"^x: expected \(n, 3\) positions.*count_intersections_2d"):
        contact.has_intersections(X, np.array([[0, 1, 2]]))


def test_no_segments_means_no_intersections():
    pairs, inside = intersections_2d(np.zeros((3, 2)), np.zeros((0, 2), dtype=int))
    assert pairs.shape == (0, 2) and inside.shape == (0, 2)
    np.testing.assert_array_equal(count_intersections_2d(np.zeros((2, 3, 2)), np.zeros((0, 2), dtype=int)),
                                  [0, 0])
