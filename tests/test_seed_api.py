"""Every call the two chapter seeds (011, 014; /work/shared/seeds) make into simkit and utils binds to the
signatures here, with the seeds' own positional and keyword arguments, and every name they read exists.

The calls are copied from the seeds' text (its code cells), one entry per distinct way of calling; a
signature that drops or renames an argument the seeds pass, or a name that disappears, fails here.
"""
import inspect

import numpy as np
import pytest
import scipy.sparse as sps

import simkit
import utils
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
    (simkit.filesystem.save_figure, (A, A), {"copy_to": A}),
    (simkit.filesystem.save_animation, (A, A), {"fps": A, "copy_to": A}),
]

# utils, as the seeds call it: 011 (000_*.txt) and 014 (003_*.txt)
SEED_UTILS_CALLS = [
    (utils.notebook_results_path, (A,), {}),
    (utils.plot_spring_network, (A, A, A), {"pins": A, "node_size": A, "lw": A, "title": A, "lims": A}),
    (utils.plot_spring_network, (A, A, A), {"node_values": A, "node_size": A, "cmap": A, "title": A, "label": A,
                                            "vmin": A, "lims": A}),
    (utils.plot_spring_network, (A, A, A), {"edge_values": A, "pins": A, "node_size": A, "lw": A, "cmap": A,
                                            "title": A, "label": A, "lims": A}),
    (utils.animate_springs_energy, (A, A, A, A), {"rest": A, "lims": A, "xlabel": A, "ylabel": A, "scene_title": A,
                                                  "title": A, "colors": A, "pin_pts": A}),
    (utils.animate_springs_grid, (A,), {"lims": A, "fps": A, "pin_pts": A, "figsize": A, "suptitle": A}),
    (utils.animate_springs_grid, (A,), {"lims": A, "fps": A, "pin_pts": A, "suptitle": A}),
    (utils.embed_video, (A,), {}),
    (utils.show_video, (A, A, A), {"fps": A}),
    (utils.phase_plot, (A,), {"xlabel": A, "ylabel": A, "title": A, "figsize": A}),
    (utils.line_plot, (A, A), {"xlabel": A, "ylabel": A, "colors": A, "title": A}),
    (utils.residual_plot, (A,), {"ax": A, "markers": A, "xlabel": A, "ylabel": A, "title": A}),
    (utils.residual_plot, (A, A), {"ax": A, "xlabel": A, "ylabel": A, "title": A}),
    (utils.setup_axes, (A, A, A), {"title": A}),
    (utils.loglog_plot, (A, A), {"xlabel": A, "ylabel": A, "colors": A, "ref_slopes": A, "title": A}),
    (utils.SpringEnergy, (A, A, A, A), {}),
    (utils.Gravity, (A,), {}),
    (utils.PenaltySpring, (A, A, A), {}),
    (utils.Inertia, (A, A), {}),
    (utils.PenaltySpring.set, (A, A, A), {}),                  # self, idx, targets
    (utils.Inertia.update, (A, A, A), {}),                     # self, x_n, v_n
]
# and the names they read
SEED_UTILS_NAMES = ["SPRING_EDGE", "SPRING_NODE", "PIN_C", "ENERGY_COLORS", "INTEGRATOR_COLORS"]
SEED_COLOR_KEYS = {"ENERGY_COLORS": ["potential", "kinetic", "elastic"],
                   "INTEGRATOR_COLORS": ["Forward Euler", "Backward Euler", "BDF2"]}


@pytest.mark.parametrize("func, args, kwargs", SEED_CALLS, ids=[f"{c[0].__module__}.{c[0].__name__}-{i}"
                                                                 for i, c in enumerate(SEED_CALLS)])
def test_seed_call_binds(func, args, kwargs):
    inspect.signature(func).bind(*args, **kwargs)


@pytest.mark.parametrize("func, args, kwargs", SEED_UTILS_CALLS,
                         ids=[f"utils.{c[0].__qualname__}-{i}" for i, c in enumerate(SEED_UTILS_CALLS)])
def test_seed_utils_call_binds(func, args, kwargs):
    inspect.signature(func).bind(*args, **kwargs)


def test_seed_utils_names_exist():
    for name in SEED_UTILS_NAMES:
        assert hasattr(utils, name), name
    for table, keys in SEED_COLOR_KEYS.items():
        assert set(keys) <= set(getattr(utils, table)), table


def test_seed_energy_terms_answer_every_call_014_makes():
    """014's BendingBeam: the four terms' energy, gradient and Hessian, `set` returning the pin itself
    (it is chained into an assignment) and `update` before a dynamic step."""
    n, dim = 3, 2
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    E = np.array([[0, 1], [1, 2]])
    J = simkit.edge_displacement_jacobian(X, E)
    J = sps.kron(J, sps.eye(dim)).tocsc()
    l0 = simkit.edge_lengths(X, E).reshape(-1, 1)
    M = sps.kron(simkit.massmatrix(X, E, rho=0.2), sps.eye(dim)).tocsc()
    pin = utils.PenaltySpring(n, dim, 1e10)
    assert pin.set([0, 1], X[[0, 1]]) is pin
    inertia = utils.Inertia(M, 0.1)
    inertia.update(X.reshape(-1, 1), np.zeros((n * dim, 1)))
    x = X.reshape(-1, 1)
    for term in (utils.SpringEnergy(J, 1.0, l0.copy(), l0), utils.Gravity(np.ones((n * dim, 1))), pin, inertia):
        assert np.isfinite(term.energy(x))
        assert term.gradient(x).shape == (n * dim, 1) and term.hessian(x).shape == (n * dim, n * dim)


def test_filesystem_is_reachable_from_the_top_level():
    assert callable(simkit.filesystem.save_figure) and callable(simkit.filesystem.save_animation)
