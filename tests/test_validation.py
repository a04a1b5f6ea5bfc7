"""Every bad input raises ValueError/TypeError naming the argument, before any work is done."""
import numpy as np
import pytest
import scipy.sparse as sps

import simkit
from simkit import energies as en
from simkit import integrators as it
from simkit.solvers import newton_solver

X2 = np.column_stack([np.linspace(0, 3, 4), np.zeros(4)])
X3 = np.random.default_rng(0).standard_normal((5, 3))
E = np.array([[0, 1], [1, 2], [2, 3]])
C2 = np.array([[0, 1, 2], [1, 2, 3]])
C4 = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
x2 = X2.reshape(-1, 1)
x3 = X3.reshape(-1, 1)
ones3 = np.ones((3, 1))
J = sps.kron(simkit.edge_displacement_jacobian(X2, E), sps.eye(2)).tocsc()
M8 = sps.eye(8).tocsc()
NAN_X2 = np.where(np.arange(8).reshape(4, 2) == 3, np.nan, X2)
NAN_x2 = NAN_X2.reshape(-1, 1)


def quad_energy(x):
    return 0.5 * float(x.T @ x)


def quad_gradient(x):
    return x.copy()


def quad_hessian(x):
    return sps.eye(x.shape[0]).tocsc()


CASES = [
    # operators
    ("jacobian X shape", lambda: simkit.edge_displacement_jacobian(np.zeros((4, 5)), E), ValueError, "X"),
    ("jacobian E float", lambda: simkit.edge_displacement_jacobian(X2, E.astype(float)), TypeError, "E"),
    ("jacobian E range", lambda: simkit.edge_displacement_jacobian(X2, np.array([[0, 4]])), ValueError, "E"),
    ("jacobian E negative", lambda: simkit.edge_displacement_jacobian(X2, np.array([[-1, 2]])), ValueError, "E"),
    ("jacobian E shape", lambda: simkit.edge_displacement_jacobian(X2, np.array([[0, 1, 2]])), ValueError, "E"),
    ("lengths X nan", lambda: simkit.edge_lengths(NAN_X2, E), ValueError, "X"),
    ("lengths E bool", lambda: simkit.edge_lengths(X2, E > 0), TypeError, "E"),
    ("mass T range", lambda: simkit.massmatrix(X2, np.array([[0, 9]])), ValueError, "T"),
    ("mass T float", lambda: simkit.massmatrix(X2, E * 1.0), TypeError, "T"),
    ("mass tet in 2D", lambda: simkit.massmatrix(X2, np.array([[0, 1, 2, 3]])), ValueError, "T"),
    ("mass rho negative", lambda: simkit.massmatrix(X2, E, rho=-1.0), ValueError, "rho"),
    ("mass rho length", lambda: simkit.massmatrix(X2, E, rho=np.ones(5)), ValueError, "rho"),
    ("mass X nan", lambda: simkit.massmatrix(NAN_X2, E), ValueError, "X"),
    ("gravity a nan", lambda: simkit.gravity_force(X2, E, a=np.nan), ValueError, "a"),
    ("gravity X 1D", lambda: simkit.gravity_force(np.zeros((4, 1)), E), ValueError, "X"),
    ("pins range", lambda: simkit.dirichlet_penalty(np.array([0, 4]), X2[:2], 4, 1.0), ValueError, "bI"),
    ("pins negative", lambda: simkit.dirichlet_penalty(np.array([-1]), X2[:1], 4, 1.0), ValueError, "bI"),
    ("pins float", lambda: simkit.dirichlet_penalty(np.array([0.0]), X2[:1], 4, 1.0), TypeError, "bI"),
    ("pins y rows", lambda: simkit.dirichlet_penalty(np.array([0, 1]), X2[:1], 4, 1.0), ValueError, "y"),
    ("pins gamma", lambda: simkit.dirichlet_penalty(np.array([0]), X2[:1], 4, 0.0), ValueError, "gamma"),
    ("pins nv", lambda: simkit.dirichlet_penalty(np.array([0]), X2[:1], 0, 1.0), ValueError, "nv"),
    ("dihedral C quads in 2D", lambda: simkit.dihedral_angles(X2, C4), ValueError, "C"),
    ("dihedral C range", lambda: simkit.dihedral_angles(X2, np.array([[0, 1, 7]])), ValueError, "C"),
    ("dihedral C float", lambda: simkit.dihedral_angles(X2, C2 * 1.0), TypeError, "C"),
    ("dihedral X nan", lambda: simkit.dihedral_angles(NAN_X2, C2), ValueError, "X"),
    ("psd H not square", lambda: simkit.psd_project(np.zeros((3, 2, 3))), ValueError, "H"),
    ("psd H nan", lambda: simkit.psd_project(np.full((1, 2, 2), np.nan)), ValueError, "H"),
    ("cfd h", lambda: simkit.gradient_cfd(np.sum, np.zeros(3), 0.0), ValueError, "h"),
    ("cfd f", lambda: simkit.gradient_cfd(3.0, np.zeros(3), 1e-3), TypeError, "f"),
    ("hessian cfd h", lambda: simkit.hessian_cfd(np.sum, np.zeros(3), -1e-3), ValueError, "h"),
    # mass springs, element tier
    ("springs d 1D", lambda: en.mass_springs_energy_element_d(np.ones(3), 1.0, 1.0), ValueError, "d"),
    ("springs d nan", lambda: en.mass_springs_gradient_element_d(np.full((1, 2), np.nan), 1.0, 1.0), ValueError, "d"),
    ("springs ym length", lambda: en.mass_springs_hessian_element_d(np.ones((3, 2)), np.ones(2), ones3), ValueError,
     "ym"),
    ("springs l0 zero", lambda: en.mass_springs_energy_element_d(np.ones((3, 2)), ones3, np.zeros(3)), ValueError,
     "l0"),
    ("springs l0 length", lambda: en.mass_springs_energy_element_d(np.ones((3, 2)), ones3, np.ones((4, 1))),
     ValueError, "l0"),
    # mass springs, global tiers
    ("springs_x x nan", lambda: en.mass_springs_energy_x(NAN_x2, E, ones3, ones3, ones3), ValueError, "x"),
    ("springs_x E range", lambda: en.mass_springs_gradient_x(x2, np.array([[0, 4]]), 1.0, 1.0, 1.0), ValueError, "E"),
    ("springs_x E negative", lambda: en.mass_springs_hessian_x(x2, np.array([[-2, 1]]), 1.0, 1.0, 1.0), ValueError,
     "E"),
    ("springs_x E float", lambda: en.mass_springs_energy_x(x2, E * 1.0, ones3, ones3, ones3), TypeError, "E"),
    ("springs_x vol length", lambda: en.mass_springs_energy_x(x2, E, ones3, np.ones(2), ones3), ValueError, "vol"),
    ("springs_x l0 zero", lambda: en.mass_springs_hessian_x(x2, E, ones3, ones3, np.zeros((3, 1))), ValueError, "l0"),
    ("springs_x x rows", lambda: en.mass_springs_energy_x(np.zeros((7, 1)), E, ones3, ones3, ones3), ValueError, "x"),
    ("springs_x x shape", lambda: en.mass_springs_energy_x(X2, E, ones3, ones3, ones3), ValueError, "x"),
    ("springs_x dim", lambda: en.mass_springs_energy_x(x2, E, ones3, ones3, ones3, dim=0), ValueError, "dim"),
    ("springs_z J shape", lambda: en.mass_springs_energy_z(x2, J[:, :6], ones3, ones3, ones3), ValueError, "J"),
    ("springs_z ym length", lambda: en.mass_springs_gradient_z(x2, J, np.ones((2, 1)), ones3, ones3), ValueError,
     "ym"),
    ("springs_z l0 zero", lambda: en.mass_springs_hessian_z(x2, J, ones3, ones3, [1.0, 0.0, 1.0]), ValueError, "l0"),
    ("springs_z x nan", lambda: en.mass_springs_hessian_z(NAN_x2, J, ones3, ones3, ones3), ValueError, "x"),
    # bending
    ("bending C columns", lambda: en.bending_energy_x(x2, np.array([[0, 1, 2, 3, 0]]), 0.0, 1.0), ValueError, "C"),
    ("bending C range", lambda: en.bending_gradient_x(x2, np.array([[0, 1, 4]]), 0.0, 1.0), ValueError, "C"),
    ("bending C negative", lambda: en.bending_hessian_x(x2, np.array([[-1, 1, 2]]), 0.0, 1.0), ValueError, "C"),
    ("bending C float", lambda: en.bending_energy_x(x2, C2 * 1.0, 0.0, 1.0), TypeError, "C"),
    ("bending theta0 length", lambda: en.bending_energy_x(x2, C2, np.zeros(3), 1.0), ValueError, "theta0"),
    ("bending kappa length", lambda: en.bending_gradient_x(x2, C2, 0.0, np.ones((3, 1))), ValueError, "kappa"),
    ("bending kappa negative", lambda: en.bending_hessian_x(x2, C2, 0.0, -1.0), ValueError, "kappa"),
    ("bending theta0 nan", lambda: en.bending_energy_x(x2, C2, np.nan, 1.0), ValueError, "theta0"),
    ("bending x nan", lambda: en.bending_energy_x(NAN_x2, C2, 0.0, 1.0), ValueError, "x"),
    ("shells C triples", lambda: en.discrete_shells_bending_hessian(x3, C2, 0.0, 1.0), ValueError, "C"),
    ("shells C range", lambda: en.discrete_shells_bending_gradient(x3, np.array([[0, 1, 2, 5]]), 0.0, 1.0),
     ValueError, "C"),
    # quadratic and kinetic
    ("quadratic Q shape", lambda: en.quadratic_energy(x2, sps.eye(7), np.zeros((8, 1))), ValueError, "Q"),
    ("quadratic b size", lambda: en.quadratic_gradient(x2, sps.eye(8), np.zeros((7, 1))), ValueError, "b"),
    ("be target h zero", lambda: en.be_target(x2, x2, 0.0), ValueError, "h"),
    ("be velocity h negative", lambda: en.velocity_be(x2, x2, -0.1), ValueError, "h"),
    ("bdf2 velocity h nan", lambda: en.velocity_bdf2(x2, x2, x2, np.nan), ValueError, "h"),
    ("kinetic x_prev size", lambda: en.kinetic_energy_be(x2, x2, x2[:6], M8, 0.1), ValueError, "x_prev"),
    ("kinetic M shape", lambda: en.kinetic_gradient_be(x2, x2, x2, sps.eye(6), 0.1), ValueError, "M"),
    ("kinetic hessian h", lambda: en.kinetic_hessian_bdf2(M8, 0.0), ValueError, "h"),
    ("kinetic bdf2 x_prev3", lambda: en.kinetic_energy_bdf2(x2, x2, x2, x2, x2[:4], M8, 0.1), ValueError, "x_prev3"),
    # integrators
    ("fe h", lambda: it.forward_euler(x2, x2, quad_gradient, M8, 0.0), ValueError, "h"),
    ("fe M not lumped", lambda: it.forward_euler(x2, x2, quad_gradient, sps.csc_matrix(np.ones((8, 8))), 0.1),
     ValueError, "M"),
    ("fe v size", lambda: it.forward_euler(x2, x2[:4], quad_gradient, M8, 0.1), ValueError, "v"),
    ("be h", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, M8, -0.04), ValueError, "h"),
    ("be tolerance", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, M8, 0.04,
                                               tolerance=0.0), ValueError, "tolerance"),
    ("be max_iter", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, M8, 0.04,
                                              max_iter=0), ValueError, "max_iter"),
    ("be M shape", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, sps.eye(6), 0.1),
     ValueError, "M"),
    ("bdf2 M shape", lambda: it.bdf2(x2, x2, x2, x2, quad_energy, quad_gradient, quad_hessian, np.eye(4), 0.1),
     ValueError, "M"),
    ("bdf2 h", lambda: it.bdf2(x2, x2, x2, x2, quad_energy, quad_gradient, quad_hessian, M8, 0.0), ValueError, "h"),
    ("bdf2 energy", lambda: it.bdf2(x2, x2, x2, x2, None, quad_gradient, quad_hessian, M8, 0.1), TypeError, "energy"),
    # newton
    ("newton tolerance zero", lambda: newton_solver(x2, quad_energy, quad_gradient, quad_hessian, tolerance=0.0),
     ValueError, "tolerance"),
    ("newton tolerance negative", lambda: newton_solver(x2, quad_energy, quad_gradient, quad_hessian,
                                                        tolerance=-1e-6), ValueError, "tolerance"),
    ("newton max_iter zero", lambda: newton_solver(x2, quad_energy, quad_gradient, quad_hessian, max_iter=0),
     ValueError, "max_iter"),
    ("newton max_iter float", lambda: newton_solver(x2, quad_energy, quad_gradient, quad_hessian, max_iter=2.5),
     TypeError, "max_iter"),
    ("newton x0 nan", lambda: newton_solver(NAN_x2, quad_energy, quad_gradient, quad_hessian), ValueError, "x0"),
    ("newton hessian", lambda: newton_solver(x2, quad_energy, quad_gradient, "H"), TypeError, "hessian"),
    ("newton hessian shape", lambda: newton_solver(x2, quad_energy, quad_gradient, lambda x: sps.eye(3)),
     ValueError, "hessian"),
]


@pytest.mark.parametrize("call, error, name", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_naming_the_argument(call, error, name):
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(f"{name}:"), str(info.value)


def test_integrators_validate_before_calling_the_potential():
    calls = []

    def energy(x):
        calls.append("energy")
        return quad_energy(x)

    def gradient(x):
        calls.append("gradient")
        return quad_gradient(x)

    def hessian(x):
        calls.append("hessian")
        return quad_hessian(x)

    for bad in ({"h": 0.0}, {"h": 0.1, "tolerance": -1.0}, {"h": 0.1, "max_iter": 0}, {"h": 0.1, "M": M8[:6, :6]}):
        h, M = bad.pop("h"), bad.pop("M", M8)
        with pytest.raises(ValueError):
            it.backward_euler(x2, x2, energy, gradient, hessian, M, h, **bad)
        with pytest.raises(ValueError):
            it.bdf2(x2, x2, x2, x2, energy, gradient, hessian, M, h, **bad)
    with pytest.raises(ValueError):
        it.forward_euler(x2, x2, gradient, M8, -1.0)
    assert calls == []


def test_accepted_parameter_layouts_agree():
    """ym / vol / l0 / kappa / theta0 accept (m, 1), (m,) and scalars alike."""
    l0 = simkit.edge_lengths(X2, E) * 0.9
    reference = en.mass_springs_energy_x(x2, E, 2 * ones3, ones3, l0.reshape(-1, 1))
    assert en.mass_springs_energy_x(x2, E, 2.0, 1.0, l0) == reference
    assert en.mass_springs_energy_x(x2, E, np.full(3, 2.0), [1.0, 1.0, 1.0], l0) == reference
    bent = x2 + 0.1 * np.random.default_rng(1).standard_normal(x2.shape)
    assert en.bending_energy_x(bent, C2, 0.1, 3.0) == en.bending_energy_x(bent, C2, np.full((2, 1), 0.1),
                                                                         np.full(2, 3.0))
