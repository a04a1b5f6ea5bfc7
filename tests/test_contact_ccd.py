"""CCD of linear motions: closed forms, lower bound and tightness, grazing and parallel motions, element tier, errors.

(The comparison with the IPC Toolkit's exact CCD is in test_contact_oracle.py.)
"""
import numpy as np
import pytest

from simkit import contact
from simkit.contact import _additive_ccd
from simkit.contact.edge_edge_ccd import _distance as ee_distance
from simkit.contact.edge_edge_ccd import _edge_edge_ccd
from simkit.contact.point_edge_ccd import _distance as pe_distance
from simkit.contact.point_edge_ccd import _point_edge_ccd
from simkit.contact.point_triangle_ccd import _distance as pt_distance
from simkit.contact.point_triangle_ccd import _point_triangle_ccd

import segment_contact_reference as reference

TRIANGLE = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
EDGE = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
FAMILIES = {   # family -> (batched CCD, distance, sides, stencil size, dim)
    "point_triangle": (_point_triangle_ccd, pt_distance, ([0], [1, 2, 3]), 4, 3),
    "edge_edge": (_edge_edge_ccd, ee_distance, ([0, 1], [2, 3]), 4, 3),
    "point_edge": (_point_edge_ccd, pe_distance, ([0], [1, 2]), 3, 2),
}


def one(f, x0, x1):
    return f(np.asarray(x0, dtype=float)[None], np.asarray(x1, dtype=float)[None])[0]


def counting(distance):
    """A distance that counts the stencils it is asked about."""
    calls = []

    def wrapped(X):
        calls.append(len(X))
        return distance(X)
    return wrapped, calls


# ---------------------------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------------------------

def test_head_on_impacts_are_bounded_from_below_and_tight():
    p0, p1 = [0.25, 0.25, 1.0], [0.25, 0.25, -1.0]                  # hits the face at t = 1/2
    t = contact.point_triangle_ccd(np.array([p0]), *TRIANGLE[:, None], np.array([p1]), *TRIANGLE[:, None])[0]
    assert 0.99 * 0.5 <= t <= 0.5
    a1 = EDGE + [0.0, 0.0, 0.0]
    b0 = np.array([[0.5, -0.5, 0.8], [0.5, 0.5, 0.8]])            # crossing over A, falling 2: hits at t = 0.4
    t = contact.edge_edge_ccd(*EDGE[:, None], *b0[:, None], *a1[:, None], *(b0 - [0, 0, 2.0])[:, None])[0]
    assert 0.99 * 0.4 <= t <= 0.4
    seg = np.array([[0.0, 0.0], [2.0, 0.0]])                       # 2D: a point falling onto a moving segment
    t = contact.point_edge_ccd(np.array([[1.0, 1.0]]), *seg[:, None], np.array([[1.0, -1.0]]),
                               *(seg + [0.0, 0.5])[:, None])[0]
    assert 0.99 * 0.4 <= t <= 0.4                                  # y_p = 1 - 2t meets y = t / 2 at t = 0.4


def test_no_impact_touching_at_the_start_and_no_motion():
    x0 = np.r_[[[0.25, 0.25, 1.0]], TRIANGLE]
    assert one(_point_triangle_ccd, x0, x0 + [0.0, 0.0, 0.5]) == np.inf            # moving together
    assert one(_point_triangle_ccd, x0, x0) == np.inf                              # not moving
    away = x0.copy()
    away[0] += [3.0, 0.0, 2.0]
    assert one(_point_triangle_ccd, x0, away) == np.inf                            # moving away
    on = np.r_[[[0.25, 0.25, 0.0]], TRIANGLE]
    assert one(_point_triangle_ccd, on, on + [[0, 0, 1.0], [0] * 3, [0] * 3, [0] * 3]) == 0.0
    short = x0.copy()
    short[0] = [0.25, 0.25, 0.1]
    assert one(_point_triangle_ccd, x0, short) == np.inf                           # stops short of the face


# ---------------------------------------------------------------------------------------------
# grazing and parallel motions: bounded work, and no impact where there is none
# ---------------------------------------------------------------------------------------------

GRAZING = {   # name -> (family, x0, x1, true time of impact)
    "point sliding 1e-6 above a face": ("point_triangle", np.r_[[[-0.5, 0.2, 1e-6]], TRIANGLE],
                                         np.r_[[[1.5, 0.3, 1e-6]], TRIANGLE], np.inf),
    "point grazing down through a face": ("point_triangle", np.r_[[[-0.5, 0.2, 1e-6]], TRIANGLE],
                                           np.r_[[[1.5, 0.3, -1e-6]], TRIANGLE], 0.5),
    "point in the plane sliding past": ("point_triangle", np.r_[[[-0.5, 1.2, 0.0]], TRIANGLE],
                                         np.r_[[[1.5, 1.2, 0.0]], TRIANGLE], np.inf),
    "triangle tumbling past a point": ("point_triangle", np.r_[[[0.3, 0.3, 0.5]], TRIANGLE],
                                        np.r_[[[0.3, 0.3, 0.5]], TRIANGLE @ np.array([[1, 0, 0], [0, 0, 1.0],
                                                                                      [0, -1.0, 0]]).T
                                              + [3.0, 0.0, 0.0]], np.inf),
    "parallel edges sliding 1e-6 apart": ("edge_edge", np.r_[EDGE, EDGE + [0.2, 0.0, 1e-6]],
                                          np.r_[EDGE, EDGE + [0.7, 0.0, 1e-6]], np.inf),
    "parallel edges in a plane, closing": ("edge_edge", np.r_[EDGE, EDGE + [0.2, 1.0, 0.0]],
                                           np.r_[EDGE, EDGE + [0.2, -1.0, 0.0]], 0.5),
    "parallel edges, one dropping onto the other": ("edge_edge", np.r_[EDGE, EDGE + [0.2, 0.0, 1.0]],
                                                    np.r_[EDGE, EDGE + [0.2, 0.0, -1.0]], 0.5),
    "edge sweeping 1e-6 above another": ("edge_edge", np.r_[EDGE, [[0.5, -1.0, 1e-6], [0.5, -0.5, 1e-6]]],
                                         np.r_[EDGE, [[0.5, 0.5, 1e-6], [0.5, 1.0, 1e-6]]], np.inf),
    "2D point sliding along a segment": ("point_edge", np.array([[-0.5, 1e-6], [0.0, 0.0], [1.0, 0.0]]),
                                         np.array([[1.5, 1e-6], [0.0, 0.0], [1.0, 0.0]]), np.inf),
}


@pytest.mark.parametrize("name", GRAZING)
def test_grazing_and_parallel_motions_answer_in_a_few_iterations(name):
    family, x0, x1, toi = GRAZING[name]
    _, distance, (a, b), _, _ = FAMILIES[family]
    counted, calls = counting(distance)
    t = _additive_ccd.additive_ccd(x0[None], x1[None], counted, a, b)[0]
    if np.isinf(toi):
        assert t == np.inf
    else:
        assert 0.99 * toi <= t <= toi
    assert len(calls) <= 40, f"{len(calls)} distance evaluations"


def test_a_motion_defeating_every_certificate_stops_after_a_bounded_number_of_iterations():
    """A triangle turning a quarter turn in its plane about a, a point following edge ab's middle 1e-6 outside it.

    Coplanar throughout (no coplanarity certificate), 1e-6 apart (tiny additive steps), and the
    separating axis turns with the edge (its free time is tiny): the search stops when its
    advances stall, after about 1 / STOP iterations.
    """
    x0 = np.array([[0.5, -1e-6, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    x1 = np.array([[1e-6, 0.5, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])
    s = np.linspace(0, 1, 101)[:, None, None]
    d = pt_distance(x0 + s * (x1 - x0)).distance
    assert (d > 0.7e-6).all() and (d < 1.01e-6).all()           # no impact: it stays about 1e-6 away
    counted, calls = counting(pt_distance)
    t = _additive_ccd.additive_ccd(x0[None], x1[None], counted, [0], [1, 2, 3])[0]
    assert len(calls) <= 2 / _additive_ccd.STOP                   # it stops once its advances stall
    assert 0 < t < 1                                             # any t in [0, 1] is a lower bound here


# ---------------------------------------------------------------------------------------------
# random motions: lower bound, tightness, element tier
# ---------------------------------------------------------------------------------------------

def random_motions(family, k, seed, scale=1.5):
    m, dim = FAMILIES[family][3], FAMILIES[family][4]
    rng = np.random.default_rng(seed)
    X0 = rng.standard_normal((k, m, dim))
    return X0, X0 + scale * rng.standard_normal((k, m, dim))


@pytest.mark.parametrize("family", FAMILIES)
def test_the_state_at_the_returned_time_and_every_sampled_state_before_it_are_free(family):
    f, distance, _, _, _ = FAMILIES[family]
    X0, X1 = random_motions(family, 3000, 1)
    t = f(X0, X1)
    hit = np.isfinite(t)
    assert 20 < hit.sum() < 1000
    for s in np.linspace(0.0, 1.0, 41):
        assert (distance(X0[hit] + (s * t[hit])[:, None, None] * (X1[hit] - X0[hit])).distance > 0).all()


def test_2d_point_edge_is_a_tight_lower_bound_of_the_exact_2d_ccd():
    """Against the closed-form 2D vertex-segment impact (roots of a quadratic, tests/segment_contact_reference.py)."""
    X0, X1 = random_motions("point_edge", 2000, 2)
    ours = _point_edge_ccd(X0, X1)
    stencil = np.array([[0, 1, 2]])
    exact = np.array([reference.impact_times(x0, x1 - x0, stencil)[0] for x0, x1 in zip(X0, X1)])
    hit = np.isfinite(exact)
    assert hit.sum() > 100
    assert (ours[hit] <= exact[hit] * (1 + 1e-9)).all()
    assert (ours[hit] >= 0.8 * exact[hit]).all() and np.median(ours[hit] / exact[hit]) > 0.99
    assert (np.isinf(ours) | (ours <= 1)).all()


@pytest.mark.parametrize("family", FAMILIES)
def test_a_shorter_search_and_the_minimum_alone(family):
    """t_max restricts the search to [0, t_max]; minimum=True returns just the smallest time, the same."""
    f = FAMILIES[family][0]
    X0, X1 = random_motions(family, 3000, 4)
    full = f(X0, X1)
    assert f(X0, X1, minimum=True) == full.min()
    assert f(X0[np.isinf(full)], X1[np.isinf(full)], minimum=True) == np.inf
    half = f(X0, X1, t_max=0.5)
    assert (half[np.isfinite(half)] <= 0.5).all()
    early = full < 0.4                                        # a contact before 0.4 / 0.8 = 0.5 (full is tight)
    assert np.isfinite(half[early]).all() and np.isinf(half[full > 0.5]).mean() > 0.99
    ratio = half[early] / full[early]                         # two lower bounds, both tight but near misses
    assert np.median(np.abs(ratio - 1)) < 0.01 and (np.abs(ratio - 1) < 0.25).all()


@pytest.mark.parametrize("family", FAMILIES)
def test_fast_path_matches_the_element_tier(family):
    f, distance, (a, b), _, dim = FAMILIES[family]
    X0, X1 = random_motions(family, 300, 3)
    t = f(X0, X1)
    te = np.array([_additive_ccd.additive_ccd_element(x0, x1, distance, a, b) for x0, x1 in zip(X0, X1)])
    # the same search, up to the sums' round-off: near an impact the shortest vector's direction
    # carries round-off / d, and the two tiers may take a different (equally certified) axis
    np.testing.assert_allclose(t, te, rtol=1e-6)
    assert np.isfinite(t).sum() > 10


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------

def test_errors():
    P = np.zeros((2, 3))
    with pytest.raises(ValueError, match=r"^c1: expected the shape of p0, \(2, 3\), got \(3, 3\)"):
        contact.point_triangle_ccd(P, P, P, P, P, P, P, np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"^b1_t1: expected finite values"):
        contact.edge_edge_ccd(P, P, P, P, P, P, P, np.full((2, 3), np.inf))
    with pytest.raises(ValueError, match=r"^p0: expected k points of shape \(k, dim\) with dim in \(2, 3\)"):
        contact.point_edge_ccd(np.zeros((2, 4)), P, P, P, P, P)
