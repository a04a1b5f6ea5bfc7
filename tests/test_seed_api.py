"""Every simkit call of the two chapter seeds (011, 014) binds to the library's signatures."""
import inspect

import pytest

import simkit
from simkit.solvers import newton_solver

A = object()

SEED_CALLS = [
    (simkit.edge_displacement_jacobian, (A, A), {}),
    (simkit.edge_lengths, (A, A), {}),
    (simkit.massmatrix, (A, A), {"rho": A}),
    (simkit.gravity_force, (A, A), {"a": A, "rho": A}),
    (simkit.dirichlet_penalty, (A, A, A, A), {}),
    (simkit.gradient_cfd, (A, A, A), {}),
    (simkit.dihedral_angles, (A, A), {}),
    (simkit.energies.mass_springs_energy_element_d, (A, A, A), {}),
    (simkit.energies.mass_springs_gradient_element_d, (A, A, A), {}),
    (simkit.energies.mass_springs_hessian_element_d, (A, A, A), {}),
    (simkit.energies.mass_springs_energy_z, (A, A, A, A, A), {}),
    (simkit.energies.mass_springs_gradient_z, (A, A, A, A, A), {}),
    (simkit.energies.mass_springs_hessian_z, (A, A, A, A, A), {"psd": True}),
    (simkit.energies.quadratic_energy, (A, A, A), {}),
    (simkit.energies.quadratic_gradient, (A, A, A), {}),
    (simkit.energies.quadratic_hessian, (A,), {}),
    (simkit.energies.kinetic_energy_be, (A, A, A, A, A), {}),
    (simkit.energies.kinetic_gradient_be, (A, A, A, A, A), {}),
    (simkit.energies.kinetic_hessian_be, (A, A), {}),
    (simkit.energies.be_target, (A, A, A), {}),
    (simkit.energies.velocity_be, (A, A, A), {}),
    (simkit.energies.velocity_bdf2, (A, A, A, A), {}),
    (simkit.energies.bending_energy_x, (A, A, A, A), {}),
    (simkit.energies.bending_gradient_x, (A, A, A, A), {}),
    (simkit.energies.bending_hessian_x, (A, A, A, A), {"psd": True}),
    (simkit.integrators.forward_euler, (A, A, A, A, A), {}),
    (simkit.integrators.backward_euler, (A, A, A, A, A, A, A), {}),
    (simkit.integrators.bdf2, (A, A, A, A, A, A, A, A, A), {}),
    (newton_solver, (A, A, A, A), {"max_iter": 1}),
    (newton_solver, (A, A, A, A), {"max_iter": 20, "tolerance": 1e-6}),
    (newton_solver, (A, A, A, A), {"max_iter": 120, "do_line_search": True}),
]


@pytest.mark.parametrize("func, args, kwargs", SEED_CALLS, ids=[f"{c[0].__module__}.{c[0].__name__}-{i}"
                                                                 for i, c in enumerate(SEED_CALLS)])
def test_seed_call_binds(func, args, kwargs):
    inspect.signature(func).bind(*args, **kwargs)


def test_filesystem_is_reachable_from_the_top_level():
    assert callable(simkit.filesystem.save_figure) and callable(simkit.filesystem.save_animation)
