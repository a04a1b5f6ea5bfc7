r"""Barrier contact between the triangles and edges of 3D meshes (segments in 2D), self-contact included.

The term of the IPC Toolkit's layers in ``simkit.contact``: a ``CollisionMesh`` checked once,
a broad phase, the collision set of the iterate (cached: a Newton iteration's energy, gradient
and Hessian build it once), its barrier potential, and a line-search filter from continuous
collision detection over the broad phase of the swept primitives, whose pairs the mesh keeps
for the line search's distance queries and the next Newton steps.
"""
import numpy as np

from .. import _validate, ccd
from ..contact import barrier_potential as potential
from ..contact.collision_mesh import CollisionMesh
from ..contact.collisions import build_collisions
from ..contact.step import collision_free_step
from .base import Term


class MeshContact(Term):
    r"""Barrier contact of a mesh's triangles and edges with each other (3D), or of boundary segments (2D).

    :math:`E(x) = \kappa \big(\sum_{(p, t)} w_p\, b(d_{pt}) + \sum_{(e, e')} \bar w_{ee'}\, m_{ee'}\, b(d_{ee'}) + \sum_{(p, e)} w_p\, b(d_{pe})\big)`, :math:`b` = ``ipc_barrier_energy``, 2D: point-segment pairs

    The sums run over every point-triangle and edge-edge pair (3D) or point-segment pair (2D)
    whose primitives share no vertex (and, with ``bodies``, lie in different bodies) and are
    closer than ``d_hat``: Li et al. 2020's original IPC energy. ``m`` is the edge-edge
    mollifier (``simkit.contact.edge_edge_mollifier``) with ``eps_x = 1e-3 |a1 - a0|^2
    |b1 - b0|^2`` of the rest edges, 1 unless the edges are close to parallel. The last sum is
    for rods (3D edges on no face): each end point p of a rod edge against every rod edge e that
    shares no vertex with p's edge. It keeps parallel rods apart, where the mollifier fades their
    edge pair out and no triangle is there to take over.

    Parameters
    ----------
    X : (n, dim) float array
        Rest positions (dim 2 or 3): the mollifier's rest lengths, and the checks of zero-length
        edges and zero-area triangles.
    d_hat : float
        Activation distance, > 0.
    kappa : float
        Barrier stiffness, > 0.
    edges : (m, 2) int array, keyword-only
        3D: every edge of every face (``simkit.edges(faces)``) and any free edges (rods); 2D:
        the boundary segments.
    faces : (f, 3) int array, optional, keyword-only
        Triangles (3D).
    points : (p,) int array, optional, keyword-only
        The vertices that meet the triangles (3D) or the segments (2D) as points, distinct
        (default: every vertex of an edge or a face). List a vertex that is on no edge, a free
        particle, to make it touch; leave a vertex out to keep it from touching.
    weight : float or (n,) float array, optional, keyword-only
        Per-vertex weight ``w_i > 0`` (lumped area or mass; default 1). A point-triangle (or
        point-segment) pair weighs its point's ``w_p``; an edge-edge pair the mean of its four
        end points', :math:`\bar w_{ee'} = \tfrac14 (w_{a_0} + w_{a_1} + w_{b_0} + w_{b_1})`.
    bodies : (n,) int array, optional, keyword-only
        Body label per vertex: primitives of the same body never touch (default: a body can
        touch itself, only primitives sharing a vertex are excluded).
    fixed : (n,) bool array or int array, optional, keyword-only
        Vertices that never move, e.g. a static obstacle (a ground mesh, a sphere) held by
        pins or a map term: pairs whose vertices are all fixed are never looked at.
    psd : bool or "project", optional, keyword-only
        Hessian: Gauss-Newton, positive semi-definite (default), exact (False), or the exact
        blocks with negative eigenvalues clamped to 0 ("project", IPC's projected Newton: robust
        where resting bodies turn on each other). See ``simkit.contact.barrier_potential``.
    safety : float, optional, keyword-only
        Fraction in (0, 1) of the time of impact that ``max_step`` allows (default 0.9).

    Notes
    -----
    The barrier only sees primitives closer than ``d_hat``: an edge that already passes through a
    face is invisible to it (its end points and the face's edges can be far apart), and the CCD
    filter then keeps it there. So the states a simulation starts from are checked exactly
    (``CollisionMesh.intersections``): ``update(x_n)``, which a time loop calls at the start of
    every step, and the first state the term evaluates, raise ``ValueError`` naming an edge and
    the face it passes through (2D: two crossing segments). The states Newton reaches through
    ``max_step`` stay free of intersections by construction, so no other call pays for the check.

    Attributes
    ----------
    mesh : CollisionMesh
    size : int
        ``n * dim``.
    """

    def __init__(self, X, d_hat, kappa, *, edges, faces=None, points=None, weight=1.0, bodies=None, fixed=None,
                 psd=True, safety=ccd.SAFETY):
        X = _validate.positions(X, "X")
        self.n, self.dim = X.shape
        self.d_hat = _validate.positive_scalar(d_hat, "d_hat")
        self.kappa = _validate.positive_scalar(kappa, "kappa")
        self.weight = _validate.element_param(weight, "weight", self.n, positive=True, what="vertex")
        if isinstance(psd, str) and psd != potential.PROJECTED:
            raise ValueError(f"psd: expected True, False or {potential.PROJECTED!r}, got {psd!r}")
        self.psd = psd if isinstance(psd, str) else _validate.boolean(psd, "psd")
        self.safety = ccd._check_safety(safety)
        self.mesh = CollisionMesh(X, edges, faces, points=points, bodies=bodies, fixed=fixed)
        self.size = self.n * self.dim
        self._key = None
        self._collisions = None
        self._started = False       # whether a start state has been checked for intersections

    def __repr__(self):
        return f"MeshContact({self.mesh!r}, d_hat={self.d_hat:g}, kappa={self.kappa:g})"

    def _X(self, x, name="x"):
        x = np.asarray(x)
        if x.size != self.size:
            raise ValueError(f"{name}: expected {self.size} stacked coordinates ({self.n} vertices in {self.dim}D), "
                             f"got shape {x.shape}")
        return x.reshape(self.n, self.dim)

    def collisions(self, x):
        """The collision set of x, built once per iterate (later calls with equal x reuse it).

        Parameters
        ----------
        x : (n*dim, 1) or (n, dim) float array

        Returns
        -------
        collisions : simkit.contact.Collisions
        """
        X = self._X(x)
        if self._key is None or not np.array_equal(self._key, X):
            collisions = build_collisions(self.mesh, X, self.d_hat, self.weight)
            if not self._started and collisions.touching is None:
                self._require_apart(X, "x")       # the first state evaluated: a start, unless update() saw one
            self._collisions, self._key = collisions, collisions.X
        return self._collisions

    def update(self, x_n):
        """Start a time step at x_n (N, 1): check that no edge passes through a face (2D: no segments cross).

        Raises
        ------
        ValueError
            Naming the first such pairs: the barrier cannot push them apart. Returns self.
        """
        self._require_apart(self._X(x_n, "x_n"), "x_n")
        return self

    def _require_apart(self, X, name):
        """Raise ValueError naming the primitives that pass through each other at X (n, dim)."""
        pairs = self.mesh.intersections(X)
        if not len(pairs):
            self._started = True
            return
        pairs = pairs[np.lexsort(pairs.T[::-1])]
        E = self.mesh.edges
        if self.dim == 3:
            F = self.mesh.faces
            what = [f"edge {e} ({E[e, 0]}, {E[e, 1]}) passes through face {f} ({F[f, 0]}, {F[f, 1]}, {F[f, 2]})"
                    for e, f in pairs[:3].tolist()]
        else:
            what = [f"segments {a} ({E[a, 0]}, {E[a, 1]}) and {b} ({E[b, 0]}, {E[b, 1]}) cross" for a, b in
                    pairs[:3].tolist()]
        more = f" ({len(pairs)} such pairs)" if len(pairs) > 3 else ""
        raise ValueError(f"{name}: {'; '.join(what)}{more}: the barrier cannot push primitives that already "
                         "intersect apart; start from a state free of intersections")

    def energy(self, x):
        """Barrier energy (``+inf`` where two primitives touch)."""
        collisions = self.collisions(x)
        return np.inf if collisions.touching else potential.energy(collisions, self.d_hat, self.kappa)

    def gradient(self, x):
        """(N, 1) gradient; minus it is the contact force."""
        return potential.gradient(self.collisions(x), self.d_hat, self.kappa)

    def hessian(self, x):
        """(N, N) CSC Hessian: Gauss-Newton (``psd=True``), exact (False) or projected exact ("project")."""
        return potential.hessian(self.collisions(x), self.d_hat, self.kappa, self.psd)

    def max_step(self, x, dx):
        """Largest fraction in (0, 1] of the step dx from x that keeps every pair apart, times ``safety``."""
        X = self._X(x)
        return collision_free_step(self.mesh, X, self._X(dx, "dx"), self.safety, keep=self.d_hat)

    def friction_frame(self, x_start):
        """The lagged ``FrictionFrame`` of the collisions at x_start, for ``simkit.terms.Friction``."""
        return potential.friction_frame(self.collisions(x_start), self.d_hat, self.kappa)
