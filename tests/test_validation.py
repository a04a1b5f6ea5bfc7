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
ASYMMETRIC = sps.csc_matrix(np.eye(8) + np.triu(np.ones((8, 8)), 1))
HUGE_H, TINY_H = 1e200, 1e-200           # h**2 overflows / underflows to 0


def quad_energy(x):
    return 0.5 * (x.T @ x).item()


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
    ("jacobian X strings", lambda: simkit.edge_displacement_jacobian([["a", "b"]], E), TypeError, "X"),
    ("lengths X nan", lambda: simkit.edge_lengths(NAN_X2, E), ValueError, "X"),
    ("lengths E bool", lambda: simkit.edge_lengths(X2, E > 0), TypeError, "E"),
    ("mass T range", lambda: simkit.massmatrix(X2, np.array([[0, 9]])), ValueError, "T"),
    ("mass T float", lambda: simkit.massmatrix(X2, E * 1.0), TypeError, "T"),
    ("mass tet in 2D", lambda: simkit.massmatrix(X2, np.array([[0, 1, 2, 3]])), ValueError, "T"),
    ("mass rho negative", lambda: simkit.massmatrix(X2, E, rho=-1.0), ValueError, "rho"),
    ("mass rho length", lambda: simkit.massmatrix(X2, E, rho=np.ones(5)), ValueError, "rho"),
    ("mass rho inf", lambda: simkit.massmatrix(X2, E, rho=np.inf), ValueError, "rho"),
    ("mass X nan", lambda: simkit.massmatrix(NAN_X2, E), ValueError, "X"),
    ("gravity a nan", lambda: simkit.gravity_force(X2, E, a=np.nan), ValueError, "a"),
    ("gravity a string", lambda: simkit.gravity_force(X2, E, a="down"), TypeError, "a"),
    ("gravity X 1D", lambda: simkit.gravity_force(np.zeros((4, 1)), E), ValueError, "X"),
    ("pins range", lambda: simkit.dirichlet_penalty(np.array([0, 4]), X2[:2], 4, 1.0), ValueError, "bI"),
    ("pins negative", lambda: simkit.dirichlet_penalty(np.array([-1]), X2[:1], 4, 1.0), ValueError, "bI"),
    ("pins float", lambda: simkit.dirichlet_penalty(np.array([0.0]), X2[:1], 4, 1.0), TypeError, "bI"),
    ("pins y rows", lambda: simkit.dirichlet_penalty(np.array([0, 1]), X2[:1], 4, 1.0), ValueError, "y"),
    ("pins gamma", lambda: simkit.dirichlet_penalty(np.array([0]), X2[:1], 4, 0.0), ValueError, "gamma"),
    ("pins gamma per pin", lambda: simkit.dirichlet_penalty(np.array([0, 1]), X2[:2], 4, np.ones(3)), ValueError,
     "gamma"),
    ("pins nv", lambda: simkit.dirichlet_penalty(np.array([0]), X2[:1], 0, 1.0), ValueError, "nv"),
    ("pins only_b positional", lambda: simkit.dirichlet_penalty(np.array([0]), X2[:1], 4, 1.0, True), TypeError,
     "dirichlet_penalty()"),
    ("pins only_b", lambda: simkit.dirichlet_penalty(np.array([0]), X2[:1], 4, 1.0, only_b=1), TypeError, "only_b"),
    ("pins SGamma shape", lambda: simkit.dirichlet_penalty(np.array([0]), X2[:1], 4, 1.0, SGamma=sps.eye(3)),
     ValueError, "SGamma"),
    ("dihedral C quads in 2D", lambda: simkit.dihedral_angles(X2, C4), ValueError, "C"),
    ("dihedral C range", lambda: simkit.dihedral_angles(X2, np.array([[0, 1, 7]])), ValueError, "C"),
    ("dihedral C float", lambda: simkit.dihedral_angles(X2, C2 * 1.0), TypeError, "C"),
    ("dihedral X nan", lambda: simkit.dihedral_angles(NAN_X2, C2), ValueError, "X"),
    ("psd H not square", lambda: simkit.psd_project(np.zeros((3, 2, 3))), ValueError, "H"),
    ("psd H nan", lambda: simkit.psd_project(np.full((1, 2, 2), np.nan)), ValueError, "H"),
    ("psd method", lambda: simkit.psd_project(np.eye(2), "clip"), ValueError, "method"),
    ("psd floor positional", lambda: simkit.psd_project(np.eye(2), "proj", 0.0), TypeError, "psd_project()"),
    ("cfd h", lambda: simkit.gradient_cfd(np.sum, np.zeros(3), 0.0), ValueError, "h"),
    ("cfd phi", lambda: simkit.gradient_cfd(3.0, np.zeros(3), 1e-3), TypeError, "phi"),
    ("cfd y shape", lambda: simkit.gradient_cfd(np.sum, np.zeros((3, 2)), 1e-3), ValueError, "y"),
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
    ("springs l0 row", lambda: en.mass_springs_energy_element_d(np.ones((3, 2)), ones3, np.ones((1, 3))),
     ValueError, "l0"),
    # mass springs, _x tier: (n, dim) positions, or a stacked column with dim stated
    ("springs_x x nan", lambda: en.mass_springs_energy_x(NAN_X2, E, ones3, ones3, ones3), ValueError, "x"),
    ("springs_x E range", lambda: en.mass_springs_gradient_x(X2, np.array([[0, 4]]), 1.0, 1.0, 1.0), ValueError,
     "E"),
    ("springs_x E negative", lambda: en.mass_springs_hessian_x(X2, np.array([[-2, 1]]), 1.0, 1.0, 1.0), ValueError,
     "E"),
    ("springs_x E float", lambda: en.mass_springs_energy_x(X2, E * 1.0, ones3, ones3, ones3), TypeError, "E"),
    ("springs_x vol length", lambda: en.mass_springs_energy_x(X2, E, ones3, np.ones(2), ones3), ValueError, "vol"),
    ("springs_x l0 zero", lambda: en.mass_springs_hessian_x(X2, E, ones3, ones3, np.zeros((3, 1))), ValueError,
     "l0"),
    ("springs_x stacked x without dim", lambda: en.mass_springs_energy_x(x2, E, ones3, ones3, ones3), ValueError,
     "x"),
    ("springs_x 3D stacked without dim", lambda: en.mass_springs_energy_x(x3, E, 1.0, 1.0, 1.0), ValueError, "x"),
    ("springs_x dim disagrees", lambda: en.mass_springs_gradient_x(X3, E, 1.0, 1.0, 1.0, dim=2), ValueError, "dim"),
    ("springs_x x rows", lambda: en.mass_springs_energy_x(np.zeros((7, 1)), E, ones3, ones3, ones3, dim=2),
     ValueError, "x"),
    ("springs_x x 4 columns", lambda: en.mass_springs_energy_x(np.zeros((4, 4)), E, 1.0, 1.0, 1.0), ValueError, "x"),
    ("springs_x dim zero", lambda: en.mass_springs_energy_x(x2, E, ones3, ones3, ones3, dim=0), ValueError, "dim"),
    ("springs_x dim float", lambda: en.mass_springs_energy_x(x2, E, ones3, ones3, ones3, dim=2.0), TypeError,
     "dim"),
    ("springs_x psd positional", lambda: en.mass_springs_hessian_x(X2, E, ones3, ones3, ones3, 3), TypeError,
     "mass_springs_hessian_x()"),
    ("springs_x psd not bool", lambda: en.mass_springs_hessian_x(X2, E, ones3, ones3, ones3, psd=3), TypeError,
     "psd"),
    # mass springs, _z tier: m and dim from J
    ("springs_z J shape", lambda: en.mass_springs_energy_z(x2, J[:, :6], ones3, ones3, ones3), ValueError, "J"),
    ("springs_z J string", lambda: en.mass_springs_energy_z(x2, "J", ones3, ones3, ones3), TypeError, "J"),
    ("springs_z J nan", lambda: en.mass_springs_energy_z(x2, J * np.nan, ones3, ones3, ones3), ValueError, "J"),
    ("springs_z ym length", lambda: en.mass_springs_gradient_z(x2, J, np.ones((2, 1)), ones3, ones3), ValueError,
     "ym"),
    ("springs_z l0 per row of J", lambda: en.mass_springs_energy_z(x2, J, 1.0, 1.0, np.ones(6)), ValueError, "l0"),
    ("springs_z l0 zero", lambda: en.mass_springs_hessian_z(x2, J, ones3, ones3, [1.0, 0.0, 1.0]), ValueError, "l0"),
    ("springs_z z nan", lambda: en.mass_springs_hessian_z(NAN_x2, J, ones3, ones3, ones3), ValueError, "z"),
    ("springs_z reduced J needs dim", lambda: en.mass_springs_energy_z(np.ones((3, 1)), np.ones((6, 3)), 1.0, 1.0,
                                                                       1.0), ValueError, "J"),
    ("springs_z dim not dividing", lambda: en.mass_springs_energy_z(x2, J, 1.0, 1.0, 1.0, dim=4), ValueError, "dim"),
    ("springs_z Jx0 size", lambda: en.mass_springs_energy_z(x2, J, 1.0, 1.0, 1.0, np.zeros((5, 1))), ValueError,
     "Jx0"),
    ("springs_z psd positional", lambda: en.mass_springs_hessian_z(x2, J, 1.0, 1.0, 1.0, True), TypeError, "Jx0"),
    ("springs_z psd not bool", lambda: en.mass_springs_hessian_z(x2, J, 1.0, 1.0, 1.0, psd="yes"), TypeError, "psd"),
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
    ("bending 3D positions with triples", lambda: en.bending_energy_x(X3, C2, 0.0, 1.0), ValueError, "x"),
    ("bending psd positional", lambda: en.bending_hessian_x(x2, C2, 0.0, 1.0, True), TypeError, "bending_hessian_x()"),
    ("shells C triples", lambda: en.discrete_shells_bending_hessian(x3, C2, 0.0, 1.0), ValueError, "C"),
    ("shells C range", lambda: en.discrete_shells_bending_gradient(x3, np.array([[0, 1, 2, 5]]), 0.0, 1.0),
     ValueError, "C"),
    # quadratic and kinetic
    ("quadratic Q shape", lambda: en.quadratic_energy(x2, sps.eye(7), np.zeros((8, 1))), ValueError, "Q"),
    ("quadratic b size", lambda: en.quadratic_gradient(x2, sps.eye(8), np.zeros((7, 1))), ValueError, "b"),
    ("quadratic hessian Q not square", lambda: en.quadratic_hessian(np.ones((2, 3))), ValueError, "Q"),
    ("be target h zero", lambda: en.be_target(x2, x2, 0.0), ValueError, "h"),
    ("be velocity h negative", lambda: en.velocity_be(x2, x2, -0.1), ValueError, "h"),
    ("be velocity h huge", lambda: en.velocity_be(x2, x2, HUGE_H), ValueError, "h"),
    ("bdf2 velocity h nan", lambda: en.velocity_bdf2(x2, x2, x2, np.nan), ValueError, "h"),
    ("kinetic x_prev size", lambda: en.kinetic_energy_be(x2, x2, x2[:6], M8, 0.1), ValueError, "x_prev"),
    ("kinetic M shape", lambda: en.kinetic_gradient_be(x2, x2, x2, sps.eye(6), 0.1), ValueError, "M"),
    ("kinetic M negative", lambda: en.kinetic_energy_be(x2, x2, x2, -M8, 0.1), ValueError, "M"),
    ("kinetic M asymmetric", lambda: en.kinetic_gradient_bdf2(x2, x2, x2, x2, x2, ASYMMETRIC, 0.1), ValueError, "M"),
    ("kinetic hessian h", lambda: en.kinetic_hessian_bdf2(M8, 0.0), ValueError, "h"),
    ("kinetic hessian h tiny", lambda: en.kinetic_hessian_be(M8, TINY_H), ValueError, "h"),
    ("kinetic hessian M zero", lambda: en.kinetic_hessian_be(0 * M8, 0.1), ValueError, "M"),
    ("kinetic bdf2 x_prev3", lambda: en.kinetic_energy_bdf2(x2, x2, x2, x2, x2[:4], M8, 0.1), ValueError, "x_prev3"),
    # integrators: M validated alike everywhere, h**2 a normal float
    ("fe h", lambda: it.forward_euler(x2, x2, quad_gradient, M8, 0.0), ValueError, "h"),
    ("fe h huge", lambda: it.forward_euler(x2, x2, quad_gradient, M8, HUGE_H), ValueError, "h"),
    ("fe h tiny", lambda: it.forward_euler(x2, x2, quad_gradient, M8, TINY_H), ValueError, "h"),
    ("fe M asymmetric", lambda: it.forward_euler(x2, x2, quad_gradient, ASYMMETRIC, 0.1), ValueError, "M"),
    ("fe M zero mass", lambda: it.forward_euler(x2, x2, quad_gradient, sps.diags(np.r_[np.ones(7), 0.0]), 0.1),
     ValueError, "M"),
    ("fe M negative row sum", lambda: it.forward_euler(x2, x2, quad_gradient,
                                                       sps.csc_matrix(np.eye(8) - 0.5 * np.ones((8, 8))), 0.1),
     ValueError, "M"),
    ("fe v size", lambda: it.forward_euler(x2, x2[:4], quad_gradient, M8, 0.1), ValueError, "v_curr"),
    ("fe gradient shape", lambda: it.forward_euler(x2, x2, lambda x: x[:4], M8, 0.1), ValueError, "gradient_func"),
    ("fe gradient nan", lambda: it.forward_euler(x2, x2, lambda x: x * np.nan, M8, 0.1), ValueError,
     "gradient_func"),
    ("be h", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, M8, -0.04), ValueError, "h"),
    ("be h huge", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, M8, HUGE_H),
     ValueError, "h"),
    ("be h tiny", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, M8, TINY_H),
     ValueError, "h"),
    ("be tolerance", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, M8, 0.04,
                                               tolerance=0.0), ValueError, "tolerance"),
    ("be max_iter", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, M8, 0.04,
                                              max_iter=0), ValueError, "max_iter"),
    ("be M shape", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, sps.eye(6), 0.1),
     ValueError, "M"),
    ("be M negative", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, -M8, 0.1),
     ValueError, "M"),
    ("be M zero", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, 0 * M8, 0.1),
     ValueError, "M"),
    ("be M asymmetric", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, ASYMMETRIC, 0.1),
     ValueError, "M"),
    ("be return_info", lambda: it.backward_euler(x2, x2, quad_energy, quad_gradient, quad_hessian, M8, 0.1,
                                                 return_info="yes"), TypeError, "return_info"),
    ("bdf2 M shape", lambda: it.bdf2(x2, x2, x2, x2, quad_energy, quad_gradient, quad_hessian, np.eye(4), 0.1),
     ValueError, "M"),
    ("bdf2 M negative", lambda: it.bdf2(x2, x2, x2, x2, quad_energy, quad_gradient, quad_hessian, -np.eye(8), 0.1),
     ValueError, "M"),
    ("bdf2 h", lambda: it.bdf2(x2, x2, x2, x2, quad_energy, quad_gradient, quad_hessian, M8, 0.0), ValueError, "h"),
    ("bdf2 h huge", lambda: it.bdf2(x2, x2, x2, x2, quad_energy, quad_gradient, quad_hessian, M8, HUGE_H),
     ValueError, "h"),
    ("bdf2 energy_func", lambda: it.bdf2(x2, x2, x2, x2, None, quad_gradient, quad_hessian, M8, 0.1), TypeError,
     "energy_func"),
    # newton
    ("newton tolerance zero", lambda: newton_solver(x2, quad_energy, quad_gradient, quad_hessian, tolerance=0.0),
     ValueError, "tolerance"),
    ("newton tolerance negative", lambda: newton_solver(x2, quad_energy, quad_gradient, quad_hessian,
                                                        tolerance=-1e-6), ValueError, "tolerance"),
    ("newton max_iter zero", lambda: newton_solver(x2, quad_energy, quad_gradient, quad_hessian, max_iter=0),
     ValueError, "max_iter"),
    ("newton max_iter float", lambda: newton_solver(x2, quad_energy, quad_gradient, quad_hessian, max_iter=2.5),
     TypeError, "max_iter"),
    ("newton do_line_search", lambda: newton_solver(x2, quad_energy, quad_gradient, quad_hessian,
                                                    do_line_search=None), TypeError, "do_line_search"),
    ("newton x0 nan", lambda: newton_solver(NAN_x2, quad_energy, quad_gradient, quad_hessian), ValueError, "x0"),
    ("newton hessian_func", lambda: newton_solver(x2, quad_energy, quad_gradient, "H"), TypeError, "hessian_func"),
    ("newton hessian shape", lambda: newton_solver(x2, quad_energy, quad_gradient, lambda x: sps.eye(3)),
     ValueError, "hessian_func"),
]


@pytest.mark.parametrize("call, error, name", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_naming_the_argument(call, error, name):
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{name}:") or message.startswith(f"{name} "), message


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

    bad_cases = ({"h": 0.0}, {"h": HUGE_H}, {"h": 0.1, "tolerance": -1.0}, {"h": 0.1, "max_iter": 0},
                 {"h": 0.1, "M": M8[:6, :6]}, {"h": 0.1, "M": -M8}, {"h": 0.1, "M": ASYMMETRIC})
    for bad in bad_cases:
        h, M = bad.pop("h"), bad.pop("M", M8)
        with pytest.raises(ValueError):
            it.backward_euler(x2, x2, energy, gradient, hessian, M, h, **bad)
        with pytest.raises(ValueError):
            it.bdf2(x2, x2, x2, x2, energy, gradient, hessian, M, h, **bad)
    for M, h in ((M8, -1.0), (-M8, 0.1), (ASYMMETRIC, 0.1)):
        with pytest.raises(ValueError):
            it.forward_euler(x2, x2, gradient, M, h)
    assert calls == []


def test_accepted_parameter_layouts_agree():
    """ym / vol / l0 / kappa / theta0 accept (m, 1), (m,), length-1 arrays and scalars alike."""
    l0 = simkit.edge_lengths(X2, E) * 0.9
    reference = en.mass_springs_energy_x(X2, E, 2 * ones3, ones3, l0.reshape(-1, 1))
    assert en.mass_springs_energy_x(X2, E, 2.0, 1.0, l0) == reference
    assert en.mass_springs_energy_x(X2, E, np.full(3, 2.0), [1.0, 1.0, 1.0], l0) == reference
    assert en.mass_springs_energy_x(X2, E, np.array([2.0]), np.ones((1, 1)), l0) == reference
    assert en.mass_springs_energy_x(x2, E, 2.0, 1.0, l0, dim=2) == reference
    bent = x2 + 0.1 * np.random.default_rng(1).standard_normal(x2.shape)
    assert en.bending_energy_x(bent, C2, 0.1, 3.0) == en.bending_energy_x(bent, C2, np.full((2, 1), 0.1),
                                                                         np.full(2, 3.0))
    assert en.bending_energy_x(bent.reshape(-1, 2), C2, 0.1, 3.0) == en.bending_energy_x(bent, C2, 0.1, 3.0)


# ---------------------------------------------------------------------------------------
# issue 8's reproductions: each was a silent wrong answer
# ---------------------------------------------------------------------------------------

def _two_edge_network():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    E2 = np.array([[0, 1], [1, 2]])
    J2 = sps.kron(simkit.edge_displacement_jacobian(X, E2), sps.eye(2)).tocsc()
    x = (X * 1.1).reshape(-1, 1)          # every edge stretched by 0.1: energy 2 * 1/2 * 0.1^2 = 0.01
    return x, E2, J2


def test_per_edge_parameter_of_the_wrong_length_is_an_error_not_a_number():
    x, _, J2 = _two_edge_network()
    with pytest.raises(ValueError, match=r"^l0: expected a scalar or one value per edge .* for the 2 edges"):
        en.mass_springs_energy_z(x, J2, 1, 1, np.ones(4))


def test_length_one_parameter_means_every_edge():
    x, E2, J2 = _two_edge_network()
    np.testing.assert_allclose(en.mass_springs_energy_z(x, J2, np.ones(1), 1, 1), 0.01, rtol=1e-12)
    np.testing.assert_allclose(en.mass_springs_energy_z(x, J2, 1, 1, 1), 0.01, rtol=1e-12)
    np.testing.assert_allclose(en.mass_springs_energy_x(x.reshape(-1, 2), E2, [1.0], 1, 1), 0.01, rtol=1e-12)


def test_3d_data_is_never_read_as_2d():
    """3D positions stacked into a column: an error without dim, the 3D energy with (n, 3) positions."""
    X = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    E2 = np.array([[0, 1], [1, 2]])
    l = simkit.edge_lengths(X, E2)
    with pytest.raises(ValueError, match="^x: a stacked column"):
        en.mass_springs_energy_x(X.reshape(-1, 1), E2, 1.0, 1.0, 1.0)
    expected = 0.5 * np.sum((l - 1.0) ** 2)
    np.testing.assert_allclose(en.mass_springs_energy_x(X, E2, 1.0, 1.0, 1.0), expected, rtol=1e-12)
    np.testing.assert_allclose(en.mass_springs_energy_x(X.reshape(-1, 1), E2, 1.0, 1.0, 1.0, dim=3), expected,
                               rtol=1e-12)
    J3 = sps.kron(simkit.edge_displacement_jacobian(X, E2), sps.eye(3)).tocsc()
    np.testing.assert_allclose(en.mass_springs_energy_z(X.reshape(-1, 1), J3, 1.0, 1.0, 1.0), expected, rtol=1e-12)


def test_kron_structure_that_fits_two_dimensions_needs_dim():
    """Three disjoint 2D edges (0,3), (1,4), (2,5) give a J that is also kron(B', I_3) of two 3D edges."""
    X = np.arange(12.0).reshape(6, 2)
    E3 = np.array([[0, 3], [1, 4], [2, 5]])
    J2 = sps.kron(simkit.edge_displacement_jacobian(X, E3), sps.eye(2)).tocsc()
    assert simkit._assembly.is_kron_identity(J2, 2) and simkit._assembly.is_kron_identity(J2, 3)
    with pytest.raises(ValueError, match="^J: .*ambiguous"):
        en.mass_springs_energy_z(X.reshape(-1, 1), J2, 1.0, 1.0, 1.0)
    np.testing.assert_allclose(en.mass_springs_energy_z(X.reshape(-1, 1), J2, 1.0, 1.0, 1.0, dim=2),
                               en.mass_springs_energy_x(X, E3, 1.0, 1.0, 1.0), rtol=1e-12)


@pytest.mark.parametrize("returns, error, pattern", [
    ("energy nan", ValueError, r"^energy_func: returned nan at Newton iteration 1"),
    ("energy vector", TypeError, r"^energy_func: expected the callable to return a real scalar at Newton iteration 1"),
    ("gradient nan", ValueError, r"^gradient_func: returned non-finite values .* at Newton iteration 1"),
    ("gradient shape", ValueError, r"^gradient_func: expected the callable to return a \(8, 1\) array at Newton"),
    ("hessian inf", ValueError, r"^hessian_func: returned a matrix with non-finite entries .* Newton iteration 1"),
    ("hessian strings", TypeError, r"^hessian_func: expected a real numeric array"),
])
def test_newton_names_the_callable_and_the_iteration(returns, error, pattern):
    energy = {"energy nan": lambda x: np.nan, "energy vector": lambda x: np.ones(3)}.get(returns, quad_energy)
    gradient = {"gradient nan": lambda x: x * np.nan, "gradient shape": lambda x: x[:3]}.get(returns, quad_gradient)
    hessian = {"hessian inf": lambda x: np.full((8, 8), np.inf),
               "hessian strings": lambda x: [["a"] * 8] * 8}.get(returns, quad_hessian)
    with pytest.raises(error, match=pattern):
        newton_solver(x2 + 1.0, energy, gradient, hessian)


def test_newton_with_a_nan_energy_does_not_return_x0_as_solved():
    with pytest.raises(ValueError, match="^energy_func: returned nan"):
        newton_solver(x2 + 1.0, lambda x: float("nan"), quad_gradient, quad_hessian, max_iter=10)


def test_newton_names_a_later_iteration():
    calls = []

    def gradient(x):
        calls.append(1)
        return x if len(calls) < 3 else x * np.nan

    with pytest.raises(ValueError, match="^gradient_func: .* at Newton iteration 3"):
        newton_solver(x2 + 1.0, quad_energy, gradient, lambda x: 2.0 * quad_hessian(x), max_iter=10, tolerance=1e-12)


def test_integrator_step_to_a_non_finite_state_is_an_error_naming_the_step():
    big = np.full((8, 1), 1e308)
    with pytest.raises(FloatingPointError, match="^forward_euler: the step produced a non-finite state"):
        it.forward_euler(big, big, quad_gradient, M8, 10.0)
    with pytest.raises(FloatingPointError, match="^backward_euler: the inertial target"):
        it.backward_euler(big, -big, quad_energy, quad_gradient, quad_hessian, M8, 0.1)
    with pytest.raises(FloatingPointError, match="^bdf2: the inertial target"):
        it.bdf2(big, -big, big, -big, quad_energy, quad_gradient, quad_hessian, M8, 0.1)
    # a finite target x = 1e307, but the full Newton step dx = 1.79e8 / 1e-300 overflows x + dx
    with pytest.raises(FloatingPointError, match="^backward_euler: the step produced a non-finite state"):
        it.backward_euler(big / 10, big / 10, quad_energy, lambda x: np.full_like(x, -1.79e8),
                          lambda x: sps.csc_matrix((8, 8)), 1e-300 * M8, 1.0, do_line_search=False)


def test_simkit_and_utils_raise_the_same_exception_for_the_same_mistake():
    """One validation layer: float indices, text for numbers, NaN, out-of-range indices, wrong shapes."""
    import matplotlib.pyplot as plt

    import utils

    fig, ax = plt.subplots()
    mistakes = [  # (mistake, simkit call, utils call)
        ("float indices", lambda: simkit.edge_lengths(X2, E * 1.0), lambda: utils.plot_spring_network(ax, X2, E * 1.0)),
        ("text positions", lambda: simkit.edge_lengths([["a", "b"]] * 4, E),
         lambda: utils.plot_spring_network(ax, [["a", "b"]] * 4, E)),
        ("NaN position", lambda: simkit.edge_lengths(NAN_X2, E), lambda: utils.plot_spring_network(ax, NAN_X2, E)),
        ("index out of range", lambda: simkit.edge_lengths(X2, E + 1), lambda: utils.plot_spring_network(ax, X2, E + 1)),
        ("3D positions for 2D", lambda: simkit.gravity_force(np.zeros((4, 4)), E),
         lambda: utils.plot_spring_network(ax, np.zeros((4, 3)), E)),
        ("text stiffness", lambda: simkit.dirichlet_penalty([0], X2[:1], 4, "stiff"),
         lambda: utils.PenaltySpring(4, 2, "stiff")),
        ("zero time step", lambda: en.velocity_be(x2, x2, 0.0), lambda: utils.Inertia(M8, 0.0)),
        ("asymmetric mass", lambda: en.kinetic_hessian_be(ASYMMETRIC, 0.1), lambda: utils.Inertia(ASYMMETRIC, 0.1)),
        ("per-element length", lambda: en.mass_springs_energy_z(x2, J, 1.0, 1.0, np.ones(6)),
         lambda: utils.SpringEnergy(J, 1.0, 1.0, np.ones(6))),
    ]
    for mistake, in_simkit, in_utils in mistakes:
        with pytest.raises((TypeError, ValueError)) as a:
            in_simkit()
        with pytest.raises((TypeError, ValueError)) as b:
            in_utils()
        assert type(a.value) is type(b.value), f"{mistake}: simkit {a.value!r}, utils {b.value!r}"
        assert ": expected" in str(a.value) and ": expected" in str(b.value), mistake
    plt.close(fig)
