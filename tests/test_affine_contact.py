"""Affine bodies with 3D barrier contact: Map(MeshContact + gravity, affine basis) + AffineOrthogonality."""
import numpy as np
import scipy.sparse as sps

import simkit
from simkit.integrators import simulate
from simkit.terms import AffineOrthogonality, Gravity, Held, Map, MeshContact, Sum

D_HAT, KAPPA_CONTACT, KAPPA_ABD, RHO, H = 0.02, 1e4, 1e8, 1000.0, 0.01
DROP_SPEED = 8.0                                   # m/s downwards at the start


def scene():
    """A 1 x 0.2 x 1 slab (body 0) and a 0.4 cube (body 1) 5 cm above it, turned 20 degrees about y."""
    Xa, Ta = simkit.grid_box(3, 2, 3, 1.0, 0.2, 1.0)
    Xb, Tb = simkit.grid_box(2, 2, 2, 0.4, 0.4, 0.4)
    c, s = np.cos(0.35), np.sin(0.35)
    Xb = (Xb - 0.2) @ np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]).T + [0.5, 0.45, 0.5]
    X, T = np.vstack([Xa, Xb]), np.vstack([Ta, Tb + len(Xa)])
    return X, T, np.repeat([0, 1], [len(Xa), len(Xb)])


def orient(a, b, c, d):
    """Signed volume det[b - a, c - a, d - a] of point arrays (k, 3)."""
    return np.einsum("ij,ij->i", b - a, np.cross(c - a, d - a))


def crossings(x, edges, faces):
    """Number of (edge, triangle) pairs, one from each list, whose closed segment and triangle meet."""
    E, F = np.repeat(edges, len(faces), axis=0), np.tile(faces, (len(edges), 1))
    p, q = x[E[:, 0]], x[E[:, 1]]
    a, b, c = x[F[:, 0]], x[F[:, 1]], x[F[:, 2]]
    s1, s2 = orient(a, b, c, p), orient(a, b, c, q)
    t = np.stack([orient(p, q, a, b), orient(p, q, b, c), orient(p, q, c, a)])
    straddles = s1 * s2 <= 0
    inside = (t >= 0).all(axis=0) | (t <= 0).all(axis=0)
    return int(np.count_nonzero(straddles & inside))


def inside_convex(x, points, faces):
    """Number of points strictly inside the convex closed mesh `faces` (outward triangles)."""
    a, b, c = x[faces[:, 0]], x[faces[:, 1]], x[faces[:, 2]]
    n = np.cross(b - a, c - a)
    side = np.einsum("fk,pfk->pf", n, x[points][:, None, :] - a[None])
    return int(np.count_nonzero((side < 0).all(axis=1)))


def intersections(x, faces, bodies):
    """Crossings between the two bodies' surfaces, and vertices of one inside the other."""
    owner = bodies[faces[:, 0]]
    fa, fb = faces[owner == 0], faces[owner == 1]
    ea, eb = simkit.edges(fa), simkit.edges(fb)
    return (crossings(x, ea, fb) + crossings(x, eb, fa)
            + inside_convex(x, np.flatnonzero(bodies == 1), fa) + inside_convex(x, np.flatnonzero(bodies == 0), fb))


def test_the_intersection_check_sees_an_interpenetration():
    X, T, bodies = scene()
    faces = simkit.boundary_faces(T)
    x = X.copy()
    assert intersections(x, faces, bodies) == 0
    x[bodies == 1, 1] -= 0.1                           # the cube sunk 5 cm into the slab
    assert intersections(x, faces, bodies) > 0


def test_a_cube_thrown_on_a_held_slab_rests_on_the_barrier_without_intersecting():
    X, T, bodies = scene()
    faces = simkit.boundary_faces(T)
    M = sps.kron(simkit.massmatrix(X, T, RHO), sps.identity(3), format="csc")
    f = simkit.gravity_force(X, T, rho=RHO).reshape(-1, 1)
    B = simkit.affine_body_jacobian(X, bodies)
    assert B.shape == (X.size, 24)                                # 12 coordinates per body
    vol = np.bincount(bodies[T[:, 0]], weights=simkit.volume(X, T)[:, 0])
    contact = MeshContact(X, D_HAT, KAPPA_CONTACT, edges=simkit.edges(faces), faces=faces, bodies=bodies)
    reduced = Map(Sum(Gravity(f), contact), B, X.reshape(-1, 1))
    potential = Held(Sum(reduced, AffineOrthogonality(vol, KAPPA_ABD)), np.zeros((24, 1)), np.arange(12))
    v0 = np.zeros((12, 1))
    v0[1] = -DROP_SPEED                            # the cube's centre: DROP_SPEED h > gap + d_hat in one step
    run = simulate(potential, potential.project(reduced.project(M)), np.zeros((12, 1)), H, 60, v0=v0, max_iter=50)
    assert run.unconverged == 0
    states = [(B @ z.reshape(-1, 1)).reshape(-1, 3) + X for z in run.states]
    assert sum(intersections(x, faces, bodies) for x in states) == 0
    final = states[-1]
    gap = final[bodies == 1, 1].min() - final[bodies == 0, 1].max()
    assert 0 < gap < D_HAT                                          # resting inside the barrier's reach
    assert contact.energy(final.reshape(-1, 1)) > 0                # the barrier is active
    np.testing.assert_allclose(final[bodies == 0], X[bodies == 0])  # the slab is held
    A = np.eye(3) + run.x[3:].reshape(3, 3)
    np.testing.assert_allclose(A @ A.T, np.eye(3), atol=1e-5)       # the cube stays rigid
    assert abs(run.v[1, 0]) < 0.05                                   # and has stopped falling
