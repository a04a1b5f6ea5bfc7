"""Two spring bodies dropped on the ground under backward Euler: they stack, never touch, and the forces balance."""
import numpy as np
import scipy.sparse as sps

import simkit
from simkit import energies as en
from simkit.integrators import backward_euler
from simkit.terms import HalfSpaceContact, MeshContact

import segment_contact_reference as reference

REST = 1e-6


def square(x0, y0, size):
    """A braced square: 4 nodes, 6 springs, 4 boundary segments."""
    X = np.array([[x0, y0], [x0 + size, y0], [x0 + size, y0 + size], [x0, y0 + size]])
    springs = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [1, 3]])
    boundary = np.array([[0, 1], [1, 2], [2, 3], [3, 0]])
    return X, springs, boundary


def test_two_bodies_stack_at_rest_on_the_ground():
    XA, EA, BA = square(0.0, 0.05, 1.0)
    XB, EB, BB = square(0.2, 1.2, 0.6)             # falls onto A, off-centre
    X = np.vstack([XA, XB])
    E, B = np.vstack([EA, EB + 4]), np.vstack([BA, BB + 4])
    n = len(X)
    bodies = np.repeat([0, 1], 4)
    l0 = simkit.edge_lengths(X, E)
    mass = np.full(n, 0.1)
    g, h, ym = 9.8, 0.05, 2000.0
    ground = HalfSpaceContact(n, 2, [0.0, 0.0], [0.0, 1.0], 0.02, 1e3, mass)
    between = MeshContact(X, 0.02, 1e3, edges=B, weight=mass, bodies=bodies)
    pairs = reference.pairs(B, n, bodies=bodies)
    f_g = np.column_stack([np.zeros(n), -mass * g]).reshape(-1, 1)
    M = sps.diags(np.repeat(mass, 2), format="csc")
    springs = lambda f: (lambda x: f(x.reshape(n, 2), E, ym, 1.0, l0))
    spring_E, spring_G, spring_H = (springs(f) for f in (en.mass_springs_energy_x, en.mass_springs_gradient_x,
                                                         en.mass_springs_hessian_x))
    energy = lambda x: spring_E(x) + ground.energy(x) + between.energy(x) - (f_g.T @ x).item()
    gradient = lambda x: spring_G(x) + ground.gradient(x) + between.gradient(x) - f_g
    hessian = lambda x: spring_H(x) + ground.hessian(x) + between.hessian(x)
    contact_filter = (ground + between).max_step
    x = x_prev = X.reshape(-1, 1)
    closest, unconverged = np.inf, 0
    for _ in range(150):
        (x, info), x_prev = backward_euler(x, x_prev, energy, gradient, hessian, M, h, tolerance=1e-6, max_iter=100,
                                           max_step=contact_filter, step_norm=lambda dx: np.abs(dx).max() / h,
                                           return_info=True), x
        unconverged += not info["converged"]
        closest = min(closest, ground.distances(x).min(), reference.distances(x.reshape(n, 2), pairs).min())
    assert unconverged == 0 and closest > 0
    assert np.abs(x - x_prev).max() / h < 1e-9
    Y = x.reshape(n, 2)
    assert Y[4:, 1].min() > Y[:4, 1].max() - 1e-9, "B rests on top of A"
    # at rest the ground carries both bodies, and A carries B
    weight = mass.sum() * g
    ground_force = -ground.gradient(x).reshape(n, 2).sum(axis=0)
    np.testing.assert_allclose(ground_force, [0.0, weight], rtol=REST, atol=REST * weight)
    on_B = -between.gradient(x).reshape(n, 2)[4:].sum(axis=0)
    np.testing.assert_allclose(on_B, [0.0, mass[4:].sum() * g], rtol=REST, atol=REST * weight)
