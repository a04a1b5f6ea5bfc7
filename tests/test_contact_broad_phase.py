"""Broad phase and collision mesh: box pairs against brute force, candidate filters, swept boxes, errors."""
import numpy as np
import pytest

import simkit
from simkit.contact import broad_phase, collision_mesh
from simkit.contact.broad_phase import box_pairs
from simkit.contact.collision_mesh import CollisionMesh


def brute_pairs(lo, hi, lo_b=None, hi_b=None):
    same = lo_b is None
    lo_b, hi_b = (lo, hi) if same else (lo_b, hi_b)
    overlap = ((lo[:, None] <= hi_b[None]) & (lo_b[None] <= hi[:, None])).all(axis=2)
    if same:
        overlap = np.triu(overlap, 1)
    return set(zip(*(a.tolist() for a in np.nonzero(overlap))))


def random_boxes(rng, k, dim, flat_axis=None):
    """Boxes of three size classes 1000x apart, some flat on one axis."""
    c = rng.uniform(0.0, 1.0, (k, dim))
    h = rng.uniform(0.0, 0.05, (k, dim)) * rng.choice([0.01, 1.0, 10.0], (k, 1))
    if flat_axis is not None:                # flat boxes on a few common levels (a sheet, a ground)
        h[:, flat_axis] = 0.0
        c[:, flat_axis] = rng.choice([0.2, 0.5], k)
    return c - h, c + h


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("count", [40, 250])           # every pair at once, and the kd-tree
def test_box_pairs_are_every_overlapping_pair_once(dim, seed, count):
    assert (count * count <= broad_phase.ALL_PAIRS) == (count == 40)
    rng = np.random.default_rng(seed)
    lo, hi = random_boxes(rng, count, dim, flat_axis=1 if seed % 2 else None)
    lo_b, hi_b = random_boxes(rng, count * 3 // 4, dim)
    pairs = box_pairs(lo, hi)
    assert len(pairs) == len(brute_pairs(lo, hi)) > 0
    assert set(map(tuple, pairs.tolist())) == brute_pairs(lo, hi)
    assert (pairs[:, 0] < pairs[:, 1]).all()
    cross = box_pairs(lo, hi, lo_b, hi_b)
    assert len(cross) == len(brute_pairs(lo, hi, lo_b, hi_b)) > 0
    assert set(map(tuple, cross.tolist())) == brute_pairs(lo, hi, lo_b, hi_b)


def test_box_pairs_touching_degenerate_and_empty():
    # touching faces count; points (degenerate boxes) inside and on the border count
    lo = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0], [3.0, 3.0]])
    hi = np.array([[1.0, 1.0], [2.0, 1.0], [0.5, 0.5], [1.0, 1.0], [3.0, 3.0]])
    assert set(map(tuple, box_pairs(lo, hi).tolist())) == {(0, 1), (0, 2), (0, 3), (1, 3)}
    assert box_pairs(lo[:0], hi[:0]).shape == (0, 2)
    assert box_pairs(lo, hi, lo[:0], hi[:0]).shape == (0, 2)
    assert box_pairs(lo[:1], hi[:1]).shape == (0, 2)


def test_box_pairs_size_classes_keep_the_tree_tight(monkeypatch):
    """A cloth of 400 tiny boxes over 2 huge ones: the tiny ones are not all paired by the huge ones' radius."""
    rng = np.random.default_rng(5)
    c = rng.uniform(0.0, 1.0, (400, 3))
    lo = np.concatenate([c - 1e-3, [[-10.0, -1.0, -10.0], [-10.0, 2.0, -10.0]]])
    hi = np.concatenate([c + 1e-3, [[10.0, -0.5, 10.0], [10.0, 3.0, 10.0]]])
    queried = []
    real = broad_phase.cKDTree

    class Spy(real):
        def query_pairs(self, *args, **kwargs):
            out = super().query_pairs(*args, **kwargs)
            queried.append(len(out))
            return out

    monkeypatch.setattr(broad_phase, "cKDTree", Spy)
    pairs = box_pairs(lo, hi)
    assert set(map(tuple, pairs.tolist())) == brute_pairs(lo, hi)
    assert max(queried) < 400 * 399 / 2 / 20, "one radius for all would pair every tiny box with every other"


def test_box_pairs_errors():
    lo = np.zeros((3, 3))
    with pytest.raises(ValueError, match="^hi: expected hi >= lo on every axis, box 1"):
        box_pairs(lo, np.array([[1.0, 1, 1], [-1, 0, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="^lo: expected shape"):
        box_pairs(np.zeros((3, 4)), np.zeros((3, 4)))
    with pytest.raises(ValueError, match="^hi: expected shape"):
        box_pairs(lo, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="^lo: expected finite"):
        box_pairs(np.full((3, 3), np.nan), lo)
    with pytest.raises(ValueError, match="^lo_b, hi_b: expected both"):
        box_pairs(lo, lo, lo_b=lo)
    with pytest.raises(ValueError, match="^lo_b: expected 3D boxes"):
        box_pairs(lo, lo, np.zeros((2, 2)), np.zeros((2, 2)))


# ---------------------------------------------------------------------------------------------
# the collision mesh: candidates are every non-adjacent pair within the inflation, minus filters
# ---------------------------------------------------------------------------------------------

def crumpled_sheet(rng, m=6, amplitude=0.3):
    """A grid sheet pushed randomly in y (a folded, self-near mesh) and its faces and edges."""
    X, F = simkit.grid_sheet(m, m)
    X[:, 1] = amplitude * rng.standard_normal(m * m)
    return X, F, simkit.edges(F)


def box_gap(A, B):
    """Largest per-axis gap between the boxes of point sets A (k, p, dim) and B (k, q, dim)."""
    return np.maximum(A.min(axis=1) - B.max(axis=1), B.min(axis=1) - A.max(axis=1)).max(axis=1)


def brute_candidates(X, E, F, inflation, bodies=None, fixed=None, X1=None, points=None):
    n = len(X)
    fixed = np.zeros(n, bool) if fixed is None else fixed
    P = np.unique(np.concatenate([E.ravel(), F.ravel()])) if points is None else np.asarray(points)
    traj = (lambda T: X[T]) if X1 is None else (lambda T: np.concatenate([X[T], X1[T]], axis=-2))
    pv, pf = np.repeat(P, len(F)), np.tile(np.arange(len(F)), len(P))
    keep = (F[pf] != pv[:, None]).all(axis=1) & ~(fixed[pv] & fixed[F[pf]].all(axis=1))
    if bodies is not None:
        keep &= bodies[pv] != bodies[F[pf, 0]]
    pt = {(a, b) for a, b, k in zip(pv, pf, keep & (box_gap(traj(pv[:, None]), traj(F[pf])) <= inflation)) if k}
    ea, eb = np.triu_indices(len(E), 1)
    keep = (E[ea][:, :, None] != E[eb][:, None, :]).all(axis=(1, 2)) & ~(fixed[E[ea]].all(1) & fixed[E[eb]].all(1))
    if bodies is not None:
        keep &= bodies[E[ea, 0]] != bodies[E[eb, 0]]
    ee = {(a, b) for a, b, k in zip(ea, eb, keep & (box_gap(traj(E[ea]), traj(E[eb])) <= inflation)) if k}
    return pt, ee


def as_set(pairs):
    return set(map(tuple, np.asarray(pairs).tolist()))


@pytest.fixture(params=["tree", "small scene"])
def path(request, monkeypatch):
    """Both broad phases of a CollisionMesh: the box trees, and a small scene's every pair tested at once."""
    monkeypatch.setattr(collision_mesh, "SMALL_SCENE_PAIRS", 0 if request.param == "tree" else 10 ** 9)
    return request.param


@pytest.mark.parametrize("seed", range(3))
def test_candidates_are_every_non_adjacent_pair_within_the_inflation(seed, path):
    rng = np.random.default_rng(seed)
    X, F, E = crumpled_sheet(rng)
    mesh = CollisionMesh(X, E, F)
    pt, ee = mesh.candidates(X, 0.15)
    want_pt, want_ee = brute_candidates(X, E, F, 0.15)
    assert len(pt) == len(want_pt) > 0 and as_set(pt) == want_pt
    assert len(ee) == len(want_ee) > 0 and as_set(ee) == want_ee
    # swept: the boxes of the start and the end of a step
    X1 = X + 0.2 * rng.standard_normal(X.shape)
    pt, ee = mesh.swept_candidates(X, X1)
    want_pt, want_ee = brute_candidates(X, E, F, 0.0, X1=X1)
    assert as_set(pt) == want_pt and as_set(ee) == want_ee


def test_candidates_skip_same_body_and_fixed_pairs(path):
    rng = np.random.default_rng(7)
    X, F, E = crumpled_sheet(rng)
    bodies = (X[:, 0] > 0.5).astype(np.int64)
    straddling = bodies[F].min(axis=1) != bodies[F].max(axis=1)
    F = F[~straddling]
    E = simkit.edges(F)
    mesh = CollisionMesh(X, E, F, bodies=bodies)
    pt, ee = mesh.candidates(X, 0.3)
    want_pt, want_ee = brute_candidates(X, E, F, 0.3, bodies=bodies)
    assert as_set(pt) == want_pt and as_set(ee) == want_ee and len(ee) > 0
    assert (bodies[pt[:, 0]] != bodies[F[pt[:, 1], 0]]).all()
    fixed = X[:, 2] < 0.45
    mesh = CollisionMesh(X, E, F, fixed=fixed)
    pt, ee = mesh.candidates(X, 0.3)
    want_pt, want_ee = brute_candidates(X, E, F, 0.3, fixed=fixed)
    assert as_set(pt) == want_pt and as_set(ee) == want_ee
    assert not (fixed[pt[:, 0]] & fixed[F[pt[:, 1]]].all(axis=1)).any()
    # fixed given as indices is the same mask
    same = CollisionMesh(X, E, F, fixed=np.flatnonzero(fixed))
    np.testing.assert_array_equal(same.fixed, fixed)


def test_listed_points_replace_the_default_points(path):
    """A free particle (on no edge) is a point only when listed; a listed set leaves the other vertices out."""
    rng = np.random.default_rng(8)
    X, F, E = crumpled_sheet(rng)
    X = np.concatenate([X, [[0.53, 0.2, 0.47]]])                       # a particle over the sheet's middle
    n = len(X)
    assert n - 1 not in CollisionMesh(X, E, F).points
    listed = np.r_[np.arange(0, n - 1, 2), n - 1]
    mesh = CollisionMesh(X, E, F, points=listed[::-1])
    np.testing.assert_array_equal(mesh.points, listed)
    pt, ee = mesh.candidates(X, 0.3)
    want_pt, want_ee = brute_candidates(X, E, F, 0.3, points=listed)
    assert as_set(pt) == want_pt and as_set(ee) == want_ee and n - 1 in pt[:, 0]


def test_static_obstacle_pairs_are_never_queried(monkeypatch):
    """A fixed ground of 800 triangles under a 2-triangle patch: no box query holds two static sets."""
    m = 21
    ground, F = simkit.grid_sheet(m, m)
    patch = np.array([[0.5, 0.01, 0.5], [0.55, 0.01, 0.5], [0.5, 0.01, 0.55], [0.55, 0.01, 0.55]])
    X = np.concatenate([ground, patch])
    F = np.concatenate([F, m * m + np.array([[0, 1, 2], [1, 3, 2]])])
    fixed = np.arange(len(X)) < m * m
    mesh = CollisionMesh(X, simkit.edges(F), F, fixed=fixed)
    sizes = []

    def spy(real):
        def counted(lo, hi, lo_b=None, hi_b=None, *rest):
            sizes.append(len(lo) * (len(lo) if lo_b is None else len(lo_b)))
            return real(lo, hi, *(() if lo_b is None else (lo_b, hi_b)), *rest)
        return counted

    for module in ("simkit.contact.collision_mesh", "simkit.contact.broad_phase"):
        for name in ("_cross_ij", "_self_pairs"):
            if hasattr(__import__(module, fromlist=[name]), name):
                monkeypatch.setattr(f"{module}.{name}", spy(getattr(__import__(module, fromlist=[name]), name)))
    pt, ee = mesh.candidates(X, 0.02)
    assert len(pt) and len(ee) and sizes
    static_faces, static_edges = 800, len(mesh.edges) - 5
    assert max(sizes) < static_faces * static_faces / 10 and max(sizes) < static_edges * static_edges / 10


@pytest.mark.parametrize("seed", range(2))
def test_2d_candidates_are_every_vertex_segment_pair_within_the_inflation(seed, path):
    rng = np.random.default_rng(seed)
    k = 12
    t = np.linspace(0.0, 2 * np.pi, k, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t)])
    X = np.concatenate([ring + c for c in rng.uniform(0.0, 5.0, (6, 2))]) + 0.05 * rng.standard_normal((6 * k, 2))
    loop = np.column_stack([np.arange(k), (np.arange(k) + 1) % k])
    S = np.concatenate([loop + k * b for b in range(6)])
    fixed = np.arange(6 * k) < k                                   # the first ring is an obstacle
    mesh = CollisionMesh(X, S, bodies=np.repeat(np.arange(6), k) % 3, fixed=fixed)
    X1 = X + 0.3 * rng.standard_normal(X.shape) * ~fixed[:, None]
    for inflation, Y1 in ((0.2, None), (0.0, X1)):
        v, s = np.repeat(np.arange(6 * k), len(S)), np.tile(np.arange(len(S)), 6 * k)
        traj = (lambda T: X[T]) if Y1 is None else (lambda T: np.concatenate([X[T], Y1[T]], axis=-2))
        keep = ((S[s] != v[:, None]).all(axis=1) & (mesh.bodies[v] != mesh.bodies[S[s, 0]])
                & ~(fixed[v] & fixed[S[s]].all(axis=1)) & (box_gap(traj(v[:, None]), traj(S[s])) <= inflation))
        pt, ee = mesh.candidates(X, inflation) if Y1 is None else mesh.swept_candidates(X, Y1)
        assert as_set(pt) == set(zip(v[keep].tolist(), s[keep].tolist())) and len(pt) == keep.sum() > 0
        assert ee.shape == (0, 2)


def obstacle_scene(rng, m=7):
    """A crumpled sheet (moving) over a fixed, bumpy ground grid (the obstacle), and the fixed mask."""
    X, F, _ = crumpled_sheet(rng, m=6, amplitude=0.1)
    X[:, 1] += 0.25
    G, FG = simkit.grid_sheet(m, m)
    G[:, 1] = 0.15 * rng.standard_normal(len(G))
    Y = np.concatenate([X, 1.2 * G - 0.1])
    FY = np.concatenate([F, FG + len(X)])
    return Y, FY, simkit.edges(FY), np.arange(len(Y)) >= len(X)


@pytest.mark.parametrize("seed", range(3))
def test_a_fixed_obstacle_prepared_once_gives_the_brute_force_pairs_at_every_query(seed, path):
    """The fixed obstacle's boxes are built once and reused: candidates and swept candidates stay exactly the brute
    force's over many states of the moving sheet, after the obstacle moves (the cache is rebuilt), and for a step
    that moves a fixed vertex (no cache)."""
    rng = np.random.default_rng(seed)
    X, F, E, fixed = obstacle_scene(rng)
    mesh = CollisionMesh(X, E, F, fixed=fixed)
    built = []
    real = broad_phase.FixedBoxes.__init__

    def counting(self, lo, hi):
        built.append(len(lo))
        real(self, lo, hi)

    broad_phase.FixedBoxes.__init__, restore = counting, real
    try:
        Y = X.copy()
        for k in range(6):
            Y[~fixed] = X[~fixed] + 0.08 * rng.standard_normal(((~fixed).sum(), 3)) - [0.0, 0.04 * k, 0.0]
            pt, ee = mesh.candidates(Y, 0.06)
            want_pt, want_ee = brute_candidates(Y, E, F, 0.06, fixed=fixed)
            assert as_set(pt) == want_pt and as_set(ee) == want_ee and len(pt) == len(want_pt)
            Y1 = Y + 0.05 * rng.standard_normal(Y.shape) * ~fixed[:, None]
            pt, ee = mesh.swept_candidates(Y, Y1)
            want_pt, want_ee = brute_candidates(Y, E, F, 0.0, fixed=fixed, X1=Y1)
            assert as_set(pt) == want_pt and as_set(ee) == want_ee
        assert any(fixed[p] for p in pt[:, 0]) and any(fixed[E[b]].all() for b in ee[:, 1]), "the obstacle is met"
        assert len(built) == (6 if path == "tree" else 0), "the fixed points, faces and edges, once per inflation"
        Y[fixed] += [0.0, 0.05, 0.0]                         # the obstacle moved: its boxes are rebuilt
        pt, ee = mesh.candidates(Y, 0.06)
        assert (as_set(pt), as_set(ee)) == brute_candidates(Y, E, F, 0.06, fixed=fixed)
        assert len(built) == (9 if path == "tree" else 0)
        Y1 = Y + 0.05 * rng.standard_normal(Y.shape)         # a step that moves fixed vertices: swept afresh
        pt, ee = mesh.swept_candidates(Y, Y1)
        assert (as_set(pt), as_set(ee)) == brute_candidates(Y, E, F, 0.0, fixed=fixed, X1=Y1)
    finally:
        broad_phase.FixedBoxes.__init__ = restore


@pytest.mark.parametrize("dim", [2, 3])
def test_fixed_boxes_drop_only_query_boxes_that_meet_no_fixed_box(dim):
    rng = np.random.default_rng(dim)
    lo, hi = random_boxes(rng, 300, dim, flat_axis=1)
    q_lo, q_hi = random_boxes(rng, 500, dim)
    q_lo, q_hi = 1.6 * q_lo - 0.3, 1.6 * q_hi - 0.3                 # some outside the fixed boxes' bounds
    fixed = broad_phase.FixedBoxes(lo, hi)
    overlap = ((q_lo[:, None] <= hi[None]) & (lo[None] <= q_hi[:, None])).all(axis=2)
    near = fixed.near(q_lo, q_hi)
    assert (near >= overlap.any(axis=1)).all(), "a query box that meets a fixed box is kept"
    assert (~near).sum() > 50 and (near & ~overlap.any(axis=1)).sum() < near.sum() / 2
    i, j = fixed.pairs(q_lo, q_hi)
    assert set(zip(i.tolist(), j.tolist())) == set(zip(*(a.tolist() for a in np.nonzero(overlap))))
    # boxes touching exactly count, including at the grid's cell borders
    touching = broad_phase.FixedBoxes(np.array([[0.0] * dim, [1.0] * dim]), np.array([[1.0] * dim, [3.0] * dim]))
    assert touching.near(np.array([[3.0] * dim, [-1.0] * dim]), np.array([[4.0] * dim, [0.0] * dim])).all()
    assert not touching.near(np.array([[3.5] * dim]), np.array([[4.0] * dim])).any()
    assert broad_phase.FixedBoxes(np.zeros((0, dim)), np.zeros((0, dim))).pairs(q_lo, q_hi)[0].shape == (0,)


def test_collision_mesh_errors():
    X = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    F = np.array([[0, 1, 2], [1, 3, 2]])
    E = simkit.edges(F)
    with pytest.raises(ValueError, match="^points: expected distinct vertex indices, got 1 repeated"):
        CollisionMesh(X, E, F, points=[0, 2, 0])
    with pytest.raises(ValueError, match=r"^points: expected indices in \[0, 4\)"):
        CollisionMesh(X, E, F, points=[4])
    with pytest.raises(ValueError, match=r"^edges: expected indices in \[0, 4\)"):
        CollisionMesh(X, np.array([[0, 4]]))
    with pytest.raises(ValueError, match="^edges: edge 1 joins vertex 2 to itself"):
        CollisionMesh(X, np.array([[0, 1], [2, 2]]))
    with pytest.raises(ValueError, match=r"^edges: zero rest length at edge\(s\) \[1\] \(vertices \[\(1, 4\)\]\)"):
        CollisionMesh(np.concatenate([X, X[1:2]]), np.array([[0, 1], [1, 4]]))
    with pytest.raises(ValueError, match=r"^edges: edge \(0, 1\) is listed more than once"):
        CollisionMesh(X, np.array([[0, 1], [1, 0]]))
    with pytest.raises(ValueError, match=r"^faces: zero rest area at triangle\(s\) \[1\]"):
        CollisionMesh(np.concatenate([X, [[2.0, 0, 0]]]), simkit.edges(np.array([[0, 1, 2], [0, 1, 4]])),
                      np.array([[0, 1, 2], [0, 1, 4]]))
    with pytest.raises(ValueError, match=r"^edges: expected every edge of every face, edge \(1, 3\) of face 1"):
        CollisionMesh(X, E[[0, 1, 2, 4]], F)
    with pytest.raises(ValueError, match="^faces: expected None in 2D"):
        CollisionMesh(X[:, :2], E, F)
    with pytest.raises(TypeError, match="^faces: expected an integer index array"):
        CollisionMesh(X, E, F.astype(float))
    with pytest.raises(ValueError, match=r"^bodies: edge 3 joins vertices of different bodies \[0, 1\]"):
        CollisionMesh(X, E, F, bodies=np.array([0, 0, 0, 1]))
    with pytest.raises(ValueError, match=r"^bodies: expected one integer label per vertex, shape \(4,\)"):
        CollisionMesh(X, E, F, bodies=np.array([0.0, 0, 0, 0]))
    with pytest.raises(ValueError, match=r"^fixed: expected indices in \[0, 4\)"):
        CollisionMesh(X, E, F, fixed=[5])
    with pytest.raises(ValueError, match=r"^fixed: expected a boolean mask of shape \(4,\)"):
        CollisionMesh(X, E, F, fixed=np.array([True, False]))
    with pytest.raises(ValueError, match="^X: expected finite"):
        CollisionMesh(np.full((4, 3), np.inf), E, F)
