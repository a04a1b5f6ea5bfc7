"""MeshContact against the IPC Toolkit (ipctk 1.6.1): the collision set, and the potential through ipctk's distances.

ipctk's ``BarrierPotential`` applies its barrier to squared distances, ``b(d^2, d_hat^2) = 2 (d +
d_hat)^2 b(d)``, which is not our energy. So the comparison is per collision: ipctk's collision
set (types, vertices, weights, mollifiers) must be ours, and our energy, gradient and Hessians
must be what our formula gives from ipctk's own per-collision distances and their derivatives
(unsquared by the chain rule: d = sqrt(D), grad d = grad D / 2d,
hess d = hess D / 2d - grad D grad D^T / 4d^3), summed by a plain loop. And ipctk's
``BarrierPotential`` itself, given our barrier as a function of the squared distance, must
assemble exactly our energy, gradient and exact Hessian.
"""
import ipctk
import numpy as np
import pytest

from simkit import energies as en
from simkit.terms.mesh_contact import MeshContact

from mesh_contact_scenes import D_HAT, folded_sheet, two_sheets

KAPPA = 3.0
SCENES = {
    "sheets": lambda: two_sheets(m=5),
    "sheets vertex over vertex": lambda: two_sheets(m=5, shift=0.0, seed=1),
    "folded": lambda: folded_sheet(m=5, seed=2),
}
GROUP_OF = {"vv_collisions": "point-point", "ev_collisions": "point-edge", "fv_collisions": "point-triangle",
            "ee_collisions": "edge-edge"}


def canonical(name, ids):
    """A key for a stencil that does not depend on its vertex order within each primitive."""
    if name == "point-point":
        return name, tuple(sorted(ids))
    if name == "point-edge":
        return name, (ids[0], *sorted(ids[1:]))
    if name == "point-triangle":
        return name, (ids[0], *sorted(ids[1:]))
    return "edge-edge", tuple(sorted([tuple(sorted(ids[:2])), tuple(sorted(ids[2:]))]))


def ipctk_collisions(X, E, F):
    mesh = ipctk.CollisionMesh(X, E, F)
    collisions = ipctk.NormalCollisions()
    collisions.build(mesh, X, D_HAT)
    out = []
    for attribute, name in GROUP_OF.items():
        for c in getattr(collisions, attribute):
            ids = [int(i) for i in c.vertex_ids(E, F) if i >= 0]
            out.append((name, ids, c, c.dof(X, E, F)))
    return out


def ours_by_key(term, X):
    out = {}
    for g in term.collisions(X).groups:
        for nodes, w in zip(g.nodes.tolist(), g.weight):
            out[canonical(g.name, nodes)] = (g.name, w)
    return out


@pytest.mark.parametrize("scene", SCENES)
def test_the_collision_set_is_ipctks(scene):
    X, F, E = SCENES[scene]()
    term = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F)
    ours = ours_by_key(term, X)
    theirs = {}
    for name, ids, c, dof in ipctk_collisions(X, E, F):
        mollified = name == "edge-edge" and c.mollifier(dof) < 1.0
        theirs[canonical(name, ids)] = ("edge-edge (mollified)" if mollified else name, c.weight)
    assert len(theirs) > 100
    assert ours.keys() == theirs.keys()
    for key, (name, weight) in theirs.items():
        assert ours[key][0] == name and ours[key][1] == weight, key


def chained(c, dof):
    """ipctk's unsquared distance, gradient, Hessian, and its mollifier with derivatives, of one collision."""
    D = c.compute_distance(dof)
    gD = c.compute_distance_gradient(dof)
    HD = c.compute_distance_hessian(dof)
    d = np.sqrt(D)
    g = gD / (2 * d)
    H = HD / (2 * d) - np.outer(gD, gD) / (4 * d ** 3)
    m, gm, Hm = 1.0, np.zeros_like(g), np.zeros_like(H)
    if isinstance(c, ipctk.EdgeEdgeNormalCollision) and c.mollifier(dof) < 1.0:
        m, gm, Hm = c.mollifier(dof), c.mollifier_gradient(dof), c.mollifier_hessian(dof)
    return d, g, H, m, gm, Hm


@pytest.mark.parametrize("scene", SCENES)
def test_energy_gradient_and_hessians_are_our_formula_on_ipctks_distances(scene):
    X, F, E = SCENES[scene]()
    n = len(X)
    energy, grad = 0.0, np.zeros(3 * n)
    exact, gauss_newton = np.zeros((3 * n, 3 * n)), np.zeros((3 * n, 3 * n))
    for _, ids, c, dof in ipctk_collisions(X, E, F):
        d, g, H, m, gm, Hm = chained(c, dof)
        b = en.ipc_barrier_energy(np.array([d]), D_HAT).item()
        db = en.ipc_barrier_gradient(np.array([d]), D_HAT).item()
        d2b = en.ipc_barrier_hessian(np.array([d]), D_HAT).item()
        s = KAPPA * c.weight
        dofs = (3 * np.array(ids)[:, None] + np.arange(3)).reshape(-1)
        energy += s * m * b
        grad[dofs] += s * (m * db * g + b * gm)
        exact[np.ix_(dofs, dofs)] += s * (m * (d2b * np.outer(g, g) + db * H) + db * (np.outer(gm, g) + np.outer(g, gm))
                                          + b * Hm)
        J = np.stack([g, gm])                                           # Gauss-Newton of psi(d, m) = s m b(d)
        lam, Q = np.linalg.eigh(s * np.array([[m * d2b, db], [db, 0.0]]))
        gauss_newton[np.ix_(dofs, dofs)] += J.T @ (Q * np.maximum(lam, 0.0)) @ Q.T @ J
    x = X.reshape(-1, 1)
    term = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F)
    np.testing.assert_allclose(term.energy(x), energy, rtol=1e-12)
    np.testing.assert_allclose(term.gradient(x)[:, 0], grad, rtol=0, atol=1e-10 * np.abs(grad).max())
    np.testing.assert_allclose(term.hessian(x).toarray(), gauss_newton, rtol=0, atol=1e-9 * np.abs(gauss_newton).max())
    H = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, psd=False).hessian(x).toarray()
    np.testing.assert_allclose(H, exact, rtol=0, atol=1e-9 * np.abs(exact).max())


class SquaredDistanceBarrier(ipctk.Barrier):
    """Our b(d) as ipctk sees a barrier: a function of x = d^2 and x_hat = d_hat^2 (its potential passes those).

    b(sqrt(x)), with d/dx = b'(d) / 2d and d2/dx2 = b''(d) / 4d^2 - b'(d) / 4d^3.
    """

    def __init__(self):
        ipctk.Barrier.__init__(self)

    @staticmethod
    def _values(x, x_hat):
        d, d_hat = np.array([np.sqrt(x)]), np.sqrt(x_hat)
        return (d.item(), en.ipc_barrier_energy(d, d_hat).item(), en.ipc_barrier_gradient(d, d_hat).item(),
                en.ipc_barrier_hessian(d, d_hat).item())

    def __call__(self, x, x_hat):
        return self._values(x, x_hat)[1]

    def first_derivative(self, x, x_hat):
        d, _, db, _ = self._values(x, x_hat)
        return db / (2 * d)

    def second_derivative(self, x, x_hat):
        d, _, db, d2b = self._values(x, x_hat)
        return d2b / (4 * d * d) - db / (4 * d ** 3)

    def units(self, x_hat):
        return 1.0


@pytest.mark.parametrize("scene", SCENES)
def test_ipctks_barrier_potential_with_our_barrier_is_our_term(scene):
    """ipctk's BarrierPotential, assembling our barrier over its own collision set, gives our energy and derivatives."""
    X, F, E = SCENES[scene]()
    barrier = SquaredDistanceBarrier()               # kept referenced while ipctk calls it (FIELD-NOTES)
    threads = ipctk.get_num_threads()
    ipctk.set_num_threads(1)                          # a Python barrier needs one thread (FIELD-NOTES)
    try:
        mesh = ipctk.CollisionMesh(X, E, F)
        collisions = ipctk.NormalCollisions()
        collisions.build(mesh, X, D_HAT)
        potential = ipctk.BarrierPotential(barrier, D_HAT, KAPPA)
        energy = potential(collisions, mesh, X)
        grad = potential.gradient(collisions, mesh, X)
        hess = potential.hessian(collisions, mesh, X, ipctk.PSDProjectionMethod.NONE).toarray()
    finally:
        ipctk.set_num_threads(threads)
    x = X.reshape(-1, 1)
    term = MeshContact(X, D_HAT, KAPPA, edges=E, faces=F, psd=False)
    np.testing.assert_allclose(term.energy(x), energy, rtol=1e-13)
    np.testing.assert_allclose(term.gradient(x)[:, 0], grad, rtol=0, atol=1e-13 * np.abs(grad).max())
    np.testing.assert_allclose(term.hessian(x).toarray(), hess, rtol=0, atol=1e-13 * np.abs(hess).max())
