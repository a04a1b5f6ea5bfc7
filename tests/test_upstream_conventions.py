"""Every function simkit shares with upstream simkit 0.1.8 keeps upstream's convention, or is listed.

Each shared function is pinned below on a hand-computed case (sign, shape, type, defaults),
and the "Differences from upstream simkit" table of ``book/api.md`` must name exactly the
functions of ``DELIBERATE_DIFFERENCES``.

``data/upstream_simkit_0_1_8_names.json`` lists upstream's public names per module; it was
written in a throw-away environment (``pip install simkit==0.1.8``) with::

    {m: sorted(n for n in dir(mod) if not n.startswith("_")
               and (inspect.isfunction(getattr(mod, n)) or inspect.isclass(getattr(mod, n))))}
"""
import inspect
import json
import re
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
import scipy.sparse as sps
from matplotlib.animation import FuncAnimation

import simkit
from simkit import energies as en
from simkit import integrators as it
from simkit.solvers import newton_solver

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = json.loads((Path(__file__).parent / "data" / "upstream_simkit_0_1_8_names.json").read_text())
MODULES = {"simkit": simkit, "simkit.energies": en, "simkit.integrators": it,
           "simkit.solvers": simkit.solvers, "simkit.filesystem": simkit.filesystem}
EXACT = 1e-12

# function -> phrases its row(s) of the api.md table must contain ("(all)": every function)
DELIBERATE_DIFFERENCES = {
    "(all)": ("TypeError", "ValueError", "argument's name"),
    "mass_springs_hessian_x": ("keyword-only", "(n, dim)` positions"),
    "mass_springs_hessian_z": ("keyword-only", "kron(B, I_dim)"),
    "bending_hessian_x": ("keyword-only", "(e0, e1, o0, o1)", "`W=`"),
    "dirichlet_penalty": ("keyword-only",),
    "psd_project": ("keyword-only", "(d, d)"),
    "mass_springs_energy_x": ("dim=",),
    "mass_springs_gradient_x": ("dim=",),
    "mass_springs_energy_z": ("kron(B, I_dim)",),
    "mass_springs_gradient_z": ("kron(B, I_dim)",),
    "ipc_barrier_energy": ("+inf",),
    "ipc_barrier_gradient": ("ValueError",),
    "ipc_barrier_hessian": ("ValueError",),
    "mass_springs_energy_element_d": ("collapsed spring",),
    "mass_springs_gradient_element_d": ("collapsed spring",),
    "mass_springs_hessian_element_d": ("collapsed spring",),
    "newton_solver": ("1e-12", "steepest descent", "line_search_failed"),
    "backward_euler": ("symmetric", "FloatingPointError", "a term"),
    "bdf2": ("symmetric", "FloatingPointError", "a term"),
    "boundary_edges": ("edge-slot order",),
    "forward_euler": ("symmetric", "row sums"),
    "kinetic_energy_be": ("symmetric",),
    "kinetic_gradient_be": ("symmetric",),
    "kinetic_hessian_be": ("symmetric",),
    "kinetic_energy_bdf2": ("symmetric",),
    "kinetic_gradient_bdf2": ("symmetric",),
    "kinetic_hessian_bdf2": ("symmetric",),
    "dihedral_angles": ("(e0, e1, o0, o1)",),
    "dihedral_angles_3d": ("(e0, e1, o0, o1)",),
    "dihedral_angles_3d_gradient_element": ("(e0, e1, o0, o1)",),
    "dihedral_angles_3d_hessian_element": ("(e0, e1, o0, o1)",),
    "bending_energy_x": ("(e0, e1, o0, o1)",),
    "bending_gradient_x": ("(e0, e1, o0, o1)", "`W=`"),
    "massmatrix": ("unsigned volume",),
    "hessian_cfd": ("Four-point",),
    "quadratic_energy": ("ndarray",),
    "quadratic_gradient": ("ndarray",),
    "save_figure": ("PNG only",),
    "save_animation": ("MP4 only",),
    "lbs_jacobian": ("csc_matrix",),
    "skinning_eigenmodes": ("csc_matrix",),
    "linear_modal_analysis": ("keyword-only", "1e-6 M"),
    "spectral_cubature": ("empty is dropped",),
}

PINNED = {}


def pins(*names):
    """Register the decorated test as pinning the convention of the shared functions `names`."""
    def register(test):
        for name in names:
            PINNED.setdefault(name, []).append(test.__name__)
        return test
    return register


def shared_functions():
    """Names of our public functions that upstream 0.1.8 also has, in the same module."""
    shared = set()
    for module_name, module in MODULES.items():
        ours = {n for n in dir(module) if not n.startswith("_") and inspect.isfunction(getattr(module, n))}
        shared |= ours & set(UPSTREAM["modules"][module_name])
    return shared


def differences_table():
    """Rows of the api.md table under "Differences from upstream simkit": {row text: [function names]}."""
    text = (ROOT / "book" / "api.md").read_text()
    section = text.split("## Differences from upstream simkit", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| ---")][1:]
    table = {}
    for row in rows:
        first = row.split("|")[1]
        table[row] = ["(all)"] if first.strip() == "(all)" else re.findall(r"`([A-Za-z_0-9]+)`", first)
    return table


# ---------------------------------------------------------------------------------------
# the lists themselves
# ---------------------------------------------------------------------------------------

def test_every_shared_function_is_pinned_by_a_convention_test():
    shared = shared_functions()
    assert len(shared) > 40, sorted(shared)
    assert sorted(shared - set(PINNED)) == []
    assert sorted(set(PINNED) - shared) == [], "pinned names that are not shared with upstream"


def test_differences_table_names_exactly_the_deliberate_differences():
    table = differences_table()
    named = {name for names in table.values() for name in names}
    assert named == set(DELIBERATE_DIFFERENCES)
    assert named - {"(all)"} <= shared_functions() | {"(all)"}
    for name, phrases in DELIBERATE_DIFFERENCES.items():
        rows = " ".join(row for row, names in table.items() if name in names)
        for phrase in phrases:
            assert phrase in rows, f"{name}: the table's row(s) do not mention {phrase!r}"


def test_signatures_keep_upstream_argument_names_and_order():
    """Upstream's positional parameters, in order, lead every shared signature."""
    upstream_heads = {
        "edge_displacement_jacobian": ["X", "E"], "edge_lengths": ["X", "E"], "massmatrix": ["X", "T", "rho"],
        "gravity_force": ["X", "T", "a", "rho"], "dirichlet_penalty": ["bI", "y", "nv", "gamma"],
        "gradient_cfd": ["phi", "y", "h"], "hessian_cfd": ["phi", "y", "h"], "psd_project": ["H", "method"],
        "dihedral_angles": ["X", "C"], "mass_springs_energy_z": ["z", "J", "ym", "vol", "l0", "Jx0"],
        "mass_springs_hessian_z": ["z", "J", "ym", "vol", "l0", "Jx0"], "mass_springs_energy_x": ["x", "E", "ym",
                                                                                                 "vol", "l0"],
        "backward_euler": ["x_curr", "x_prev", "energy_func", "gradient_func", "hessian_func", "M", "h", "tolerance",
                           "max_iter", "do_line_search", "return_info"],
        "bdf2": ["x_curr", "x_prev", "x_prev2", "x_prev3", "energy_func", "gradient_func", "hessian_func", "M", "h",
                 "tolerance", "max_iter", "do_line_search", "return_info"],
        "forward_euler": ["x_curr", "v_curr", "gradient_func", "M", "h"],
        "newton_solver": ["x0", "energy_func", "gradient_func", "hessian_func", "tolerance", "max_iter",
                          "do_line_search", "return_info"],
        "linear_modal_analysis": ["X", "T", "k", "bI"], "skinning_eigenmodes": ["X", "T", "k", "mu", "bI", "Aeq"],
        "lbs_jacobian": ["V", "W"], "spectral_cubature": ["X", "T", "W", "k", "return_labels", "return_centroids"],
        "project_into_subspace": ["y", "B", "M", "BMB", "BMy"], "dirichlet_laplacian": ["X", "T", "mu", "vector"],
    }
    for name, head in upstream_heads.items():
        module = next(m for m in MODULES.values() if hasattr(m, name))
        params = [p for p in inspect.signature(getattr(module, name)).parameters.values()
                  if p.kind is p.POSITIONAL_OR_KEYWORD]
        assert [p.name for p in params] == head, name


# ---------------------------------------------------------------------------------------
# geometry and operators
# ---------------------------------------------------------------------------------------

@pins("edge_displacement_jacobian")
def test_edge_displacement_jacobian_convention():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 4.0]])
    J = simkit.edge_displacement_jacobian(X, np.array([[0, 2], [2, 1]]))
    assert sps.issparse(J) and J.format == "csc" and J.shape == (2, 3)
    np.testing.assert_array_equal(J.toarray(), [[1.0, 0.0, -1.0], [0.0, -1.0, 1.0]])   # row (i, j): x_i - x_j
    np.testing.assert_array_equal(J @ X, [[-3.0, -4.0], [2.0, 4.0]])


@pins("edge_lengths")
def test_edge_lengths_convention():
    l = simkit.edge_lengths(np.array([[0.0, 0.0, 0.0], [3.0, 4.0, 12.0]]), np.array([[1, 0]]))
    assert l.shape == (1,)
    np.testing.assert_allclose(l, [13.0], rtol=EXACT)


@pins("edges")
def test_edges_convention():
    E = simkit.edges(np.array([[3, 1, 0], [1, 2, 0]]))                  # smaller index first, rows sorted
    assert E.dtype.kind == "i" and E.shape == (5, 2)
    np.testing.assert_array_equal(E, [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3]])
    assert len(simkit.edges(np.array([[0, 1, 2, 3]]))) == 6               # a tet's six edges


@pins("combine_meshes")
def test_combine_meshes_convention():
    V0, V1 = np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 1.0], [1.0, 1.0]])
    V, E = simkit.combine_meshes([V0, V1], [np.array([[0, 1]]), np.array([[0, 1]])])   # upstream's example
    np.testing.assert_array_equal(V, np.vstack([V0, V1]))
    np.testing.assert_array_equal(E, [[0, 1], [2, 3]])                   # the second edge shifted by 2


@pins("boundary_edges")
def test_boundary_edges_convention():
    B = simkit.boundary_edges(np.array([[0, 1, 2], [2, 1, 3]]))         # oriented as in F; (1, 2) is interior
    assert B.dtype.kind == "i" and B.shape == (4, 2)
    assert {tuple(e) for e in B} == {(0, 1), (1, 3), (2, 0), (3, 2)}
    np.testing.assert_array_equal(B, [[0, 1], [1, 3], [2, 0], [3, 2]])  # edge-slot order (upstream: per triangle)


@pins("massmatrix")
def test_massmatrix_convention():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 3.0]])
    M = simkit.massmatrix(X, np.array([[0, 1], [0, 2]]))                 # rho = 1 by default
    assert isinstance(M, sps.dia_matrix) and M.shape == (3, 3)
    np.testing.assert_allclose(M.diagonal(), [2.5, 1.0, 1.5], rtol=EXACT)  # half of each edge's length
    M_tri = simkit.massmatrix(X, np.array([[0, 1, 2]]), rho=np.array([[2.0]]))
    np.testing.assert_allclose(M_tri.diagonal(), np.full(3, 2.0 * 3.0 / 3), rtol=EXACT)   # area 3, rho 2
    tet = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    np.testing.assert_allclose(simkit.massmatrix(tet, np.array([[0, 2, 1, 3]])).diagonal(), np.full(4, 1 / 24))


@pins("gravity_force")
def test_gravity_force_convention():
    assert inspect.signature(simkit.gravity_force).parameters["a"].default == -9.8
    f = simkit.gravity_force(np.array([[0.0, 0.0], [2.0, 0.0]]), np.array([[0, 1]]))
    assert f.shape == (2, 2)
    np.testing.assert_allclose(f, [[0.0, -9.8], [0.0, -9.8]], rtol=EXACT)   # lumped mass 1 each, along y


@pins("dirichlet_penalty")
def test_dirichlet_penalty_convention():
    Q, b = simkit.dirichlet_penalty(np.array([1]), np.array([[2.0, 3.0]]), 2, 4.0)
    assert Q.shape == (4, 4) and b.shape == (4, 1)
    np.testing.assert_allclose(Q.toarray(), np.diag([0.0, 0.0, 4.0, 4.0]), rtol=EXACT)
    np.testing.assert_allclose(b.ravel(), [0.0, 0.0, -8.0, -12.0], rtol=EXACT)
    Q2, b2, SG = simkit.dirichlet_penalty(np.array([0, 1]), np.array([[1.0, 1.0], [1.0, 1.0]]), 2, np.array([1.0, 3.0]),
                                          return_SGamma=True)
    np.testing.assert_allclose(Q2.diagonal(), [1.0, 1.0, 3.0, 3.0], rtol=EXACT)   # gamma per pin
    assert SG.shape == (4, 4)
    (b_only,) = simkit.dirichlet_penalty(np.array([0, 1]), np.ones((2, 2)), 2, 1.0, only_b=True, SGamma=SG)
    np.testing.assert_allclose(b_only, b2, rtol=EXACT)


@pins("dihedral_angles")
def test_dihedral_angles_convention():
    theta = simkit.dihedral_angles(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]), np.array([[0, 1, 2]]))
    assert theta.shape == (1, 1)
    np.testing.assert_allclose(theta, [[np.pi / 2]], rtol=EXACT)              # 2D: a left turn is positive
    # a planar quad that is flat under either 3D vertex order: angle 0
    flat = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, -1.0, 0.0], [2.0, 0.5, 0.0]])
    theta3 = simkit.dihedral_angles(flat, np.array([[0, 1, 2, 3]]))
    assert theta3.shape == (1, 1)
    np.testing.assert_allclose(theta3, [[0.0]], atol=EXACT)


@pins("dihedral_angles_2d", "dihedral_angles_2d_gradient_element", "dihedral_angles_2d_hessian_element",
      "dihedral_angles_3d", "dihedral_angles_3d_gradient_element", "dihedral_angles_3d_hessian_element",
      "dihedral_angles_gradient_element", "dihedral_angles_hessian_element")
def test_dihedral_angles_element_tier_convention():
    # 2D as upstream: triple (A, B, C), angle at B, corners stacked [Ax, Ay, Bx, By, Cx, Cy]
    X2, C2 = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]), np.array([[0, 1, 2]])
    np.testing.assert_allclose(simkit.dihedral_angles_2d(X2, C2), [[np.pi / 2]], rtol=EXACT)
    g2 = simkit.dihedral_angles_2d_gradient_element(X2, C2)
    assert g2.shape == (1, 6) and simkit.dihedral_angles_2d_hessian_element(X2, C2).shape == (1, 6, 6)
    np.testing.assert_allclose(g2, [[0.0, 1.0, 1.0, -1.0, -1.0, 0.0]], atol=EXACT)   # raising A turns more left
    # 3D: the quad is simkit's (e0, e1, o0, o1) (upstream: (o0, e0, e1, o1)); columns follow C
    X3 = np.array([[0.0, 0, 0], [1.0, 0, 0], [0.5, 0, -1.0], [0.5, -1.0, 0]])      # folded by +pi/2
    C3 = np.array([[0, 1, 2, 3]])
    np.testing.assert_allclose(simkit.dihedral_angles_3d(X3, C3), [[np.pi / 2]], rtol=EXACT)
    g3 = simkit.dihedral_angles_3d_gradient_element(X3, C3)
    assert g3.shape == (1, 12) and simkit.dihedral_angles_3d_hessian_element(X3, C3).shape == (1, 12, 12)
    np.testing.assert_allclose(g3[0, 6:], [0.0, -1.0, 0.0, 0.0, 0.0, -1.0], atol=EXACT)   # o0, o1
    np.testing.assert_array_equal(simkit.dihedral_angles_gradient_element(X3, C3), g3)
    np.testing.assert_array_equal(simkit.dihedral_angles_hessian_element(X2, C2),
                                  simkit.dihedral_angles_2d_hessian_element(X2, C2))


@pins("psd_project")
def test_psd_project_convention():
    H = np.diag([-2.0, 3.0])
    assert inspect.signature(simkit.psd_project).parameters["method"].default == "proj"
    P = simkit.psd_project(H)
    assert P.shape == (2, 2)                                              # a single block keeps its shape
    np.testing.assert_allclose(P, np.diag([1e-6, 3.0]), atol=EXACT)
    np.testing.assert_allclose(simkit.psd_project(H[None], "abs"), np.diag([2.0, 3.0])[None], atol=EXACT)


@pins("gradient_cfd")
def test_gradient_cfd_convention():
    g = simkit.gradient_cfd(phi=lambda y: y[0] ** 2 + 3.0 * y[1], y=np.array([1.0, 2.0]), h=1e-4)
    assert g.shape == (2,)
    np.testing.assert_allclose(g, [2.0, 3.0], rtol=1e-8)
    Jac = simkit.gradient_cfd(lambda y: np.array([y[0] * y[1], y[1]]), np.array([1.0, 2.0]), 1e-4)
    assert Jac.shape == (2, 2)                                            # phi's shape, then len(y)
    np.testing.assert_allclose(Jac, [[2.0, 1.0], [0.0, 1.0]], rtol=1e-8)


@pins("hessian_cfd")
def test_hessian_cfd_convention():
    H = simkit.hessian_cfd(phi=lambda y: y[0] * y[1] + y[1] ** 2, y=np.array([1.0, 2.0]), h=1e-3)
    assert H.shape == (2, 2)
    np.testing.assert_allclose(H, [[0.0, 1.0], [1.0, 2.0]], atol=1e-8)


# ---------------------------------------------------------------------------------------
# mass springs
# ---------------------------------------------------------------------------------------

D = np.array([[3.0, 4.0]])   # |d| = 5
N_HAT = D[0] / 5.0


@pins("mass_springs_energy_element_d", "mass_springs_gradient_element_d", "mass_springs_hessian_element_d")
def test_mass_springs_element_tier_convention():
    psi = en.mass_springs_energy_element_d(D, np.array([[2.0]]), np.array([[4.0]]))
    assert psi.shape == (1, 1)                                            # (m, 1), as upstream
    np.testing.assert_allclose(psi, [[1.0]], rtol=EXACT)                  # 1/2 * 2 * (5 - 4)^2: ym is k itself
    g = en.mass_springs_gradient_element_d(D, 2.0, 4.0)
    assert g.shape == (1, 2)
    np.testing.assert_allclose(g, [[1.2, 1.6]], rtol=EXACT)               # 2 * (5 - 4) * d / 5
    H = en.mass_springs_hessian_element_d(D, 2.0, 4.0)
    assert H.shape == (1, 2, 2)
    expected = 2.0 * np.outer(N_HAT, N_HAT) + 2.0 * (1 - 4.0 / 5.0) * (np.eye(2) - np.outer(N_HAT, N_HAT))
    np.testing.assert_allclose(H[0], expected, rtol=EXACT)


def _one_spring():
    X = np.array([[0.0, 0.0], [3.0, 4.0]])
    return X, np.array([[0, 1]])


@pins("mass_springs_energy_x", "mass_springs_gradient_x", "mass_springs_hessian_x")
def test_mass_springs_x_tier_convention():
    X, E = _one_spring()                                                  # (n, dim) positions, as upstream
    assert en.mass_springs_energy_x(X, E, 2.0, 3.0, 4.0) == pytest.approx(3.0, rel=EXACT)   # vol * 1/2 k (l - l0)^2
    g = en.mass_springs_gradient_x(X, E, 2.0, 3.0, 4.0)
    assert g.shape == (4, 1)                                              # node-major, x.reshape(-1, 1)
    np.testing.assert_allclose(g.ravel(), [-3.6, -4.8, 3.6, 4.8], rtol=EXACT)   # d = x_0 - x_1
    hessian = en.mass_springs_hessian_x
    assert inspect.signature(hessian).parameters["psd"].default is True
    assert inspect.signature(hessian).parameters["psd"].kind is inspect.Parameter.KEYWORD_ONLY
    H = hessian(X, E, 2.0, 3.0, 4.0)
    assert sps.issparse(H) and H.shape == (4, 4)
    B = 3.0 * (2.0 * np.outer(N_HAT, N_HAT) + 0.4 * (np.eye(2) - np.outer(N_HAT, N_HAT)))
    np.testing.assert_allclose(H.toarray(), np.block([[B, -B], [-B, B]]), rtol=EXACT)


@pins("mass_springs_energy_z", "mass_springs_gradient_z", "mass_springs_hessian_z")
def test_mass_springs_z_tier_convention():
    X, E = _one_spring()
    J = sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    x = X.reshape(-1, 1)
    assert en.mass_springs_energy_z(x, J, 2.0, 3.0, 4.0) == pytest.approx(3.0, rel=EXACT)
    np.testing.assert_allclose(en.mass_springs_gradient_z(x, J, 2.0, 3.0, 4.0).ravel(), [-3.6, -4.8, 3.6, 4.8],
                               rtol=EXACT)
    # Jx0: d = Jx0 + J z, so z = 0 with Jx0 = J x is the same state
    z0 = np.zeros((4, 1))
    assert en.mass_springs_energy_z(z0, J, 2.0, 3.0, 4.0, J @ x) == pytest.approx(3.0, rel=EXACT)
    np.testing.assert_allclose(en.mass_springs_gradient_z(z0, J, 2.0, 3.0, 4.0, Jx0=J @ x).ravel(),
                               [-3.6, -4.8, 3.6, 4.8], rtol=EXACT)
    assert inspect.signature(en.mass_springs_hessian_z).parameters["psd"].default is True
    H = en.mass_springs_hessian_z(z0, J, 2.0, 3.0, 4.0, J @ x)
    np.testing.assert_allclose(H.toarray(), en.mass_springs_hessian_x(X, E, 2.0, 3.0, 4.0).toarray(), rtol=EXACT)


# ---------------------------------------------------------------------------------------
# bending, quadratic, inertia
# ---------------------------------------------------------------------------------------

@pins("bending_energy_element_theta", "bending_gradient_element_theta", "bending_hessian_element_theta")
def test_bending_element_tier_convention():
    args = (np.array([[1.0]]), np.array([[0.5]]), np.array([[2.0]]))
    for func, value in ((en.bending_energy_element_theta, 0.25), (en.bending_gradient_element_theta, 1.0),
                        (en.bending_hessian_element_theta, 2.0)):
        out = func(*args)
        assert out.shape == (1, 1), func.__name__                           # (c, 1), as upstream
        np.testing.assert_allclose(out, [[value]], rtol=EXACT)


@pins("bending_energy_x", "bending_gradient_x", "bending_hessian_x")
def test_bending_x_tier_convention():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])                    # a quarter turn at node 1
    C = np.array([[0, 1, 2]])
    e = en.bending_energy_x(X.reshape(-1, 1), C, 0.0, 2.0)
    assert e == pytest.approx(0.5 * 2.0 * (np.pi / 2) ** 2, rel=EXACT)
    assert en.bending_energy_x(X, C, 0.0, 2.0) == e                       # (n, dim) positions too
    g = en.bending_gradient_x(X.reshape(-1, 1), C, 0.0, 2.0)
    assert g.shape == (6, 1)
    # d theta / d x2 = e2_perp / |e2|^2 with e2 = x2 - x1 = (0, 1): (-1, 0); times kappa * theta = pi
    np.testing.assert_allclose(g[4:].ravel(), [-np.pi, 0.0], atol=EXACT)
    assert inspect.signature(en.bending_hessian_x).parameters["psd"].default is False
    H = en.bending_hessian_x(X.reshape(-1, 1), C, 0.0, 2.0)
    assert sps.issparse(H) and H.shape == (6, 6)
    np.testing.assert_allclose(H.toarray(), en.bending_hessian_x(X, C, 0.0, 2.0, psd=False).toarray())


@pins("quadratic_energy", "quadratic_gradient", "quadratic_hessian")
def test_quadratic_convention():
    x, Q, b = np.array([[1.0], [2.0]]), np.diag([2.0, 4.0]), np.array([[1.0], [1.0]])
    assert en.quadratic_energy(x, Q, b) == pytest.approx(12.0, rel=EXACT)  # 1/2 (2 + 16) + 3
    g = en.quadratic_gradient(x, Q, b)
    assert type(g) is np.ndarray and g.shape == (2, 1)
    np.testing.assert_allclose(g, [[3.0], [9.0]], rtol=EXACT)
    Qs = sps.csr_matrix(Q)
    assert en.quadratic_hessian(Q) is Q and en.quadratic_hessian(Qs) is Qs   # Q itself, of its own type


@pins("ipc_barrier_energy", "ipc_barrier_gradient", "ipc_barrier_hessian")
def test_ipc_barrier_convention():
    d, d_hat = np.array([0.5, 1.0, 2.0]), 1.0                            # (m,) in, (m, 1) out, as upstream
    b = en.ipc_barrier_energy(d, d_hat)
    assert b.shape == (3, 1)
    np.testing.assert_allclose(b[:, 0], [0.25 * np.log(2.0), 0.0, 0.0], rtol=EXACT)   # -(d - d_hat)^2 ln(d/d_hat)
    g = en.ipc_barrier_gradient(d.reshape(-1, 1), d_hat)
    assert g.shape == (3, 1)
    np.testing.assert_allclose(g[:, 0], [-np.log(2.0) - 0.5, 0.0, 0.0], rtol=EXACT)
    H = en.ipc_barrier_hessian(d, d_hat)
    assert H.shape == (3, 1)
    np.testing.assert_allclose(H[:, 0], [2 * np.log(2.0) + 4.0 + 1.0, 0.0, 0.0], rtol=EXACT)
    assert en.ipc_barrier_energy(np.array([0.0, -1.0]), d_hat)[:, 0].tolist() == [np.inf, np.inf]
    with pytest.raises(ValueError, match="d <= 0"):
        en.ipc_barrier_gradient(np.array([-1.0]), d_hat)


@pins("stick_slip_friction_interpolant", "stick_slip_friction_interpolant_gradient",
      "stick_slip_friction_interpolant_hessian")
def test_stick_slip_friction_interpolant_convention():
    y, eps_v, h = np.array([[0.5], [2.0]]), 1.0, 1.0                     # threshold h eps_v = 1; (m, 1) out
    f0 = en.stick_slip_friction_interpolant(y, eps_v, h)
    assert f0.shape == (2, 1)
    np.testing.assert_allclose(f0[:, 0], [-0.125 / 3 + 0.25 + 1 / 3, 2.0], rtol=EXACT)
    np.testing.assert_allclose(en.stick_slip_friction_interpolant_gradient(y, eps_v, h)[:, 0], [0.75, 1.0],
                               rtol=EXACT)
    np.testing.assert_allclose(en.stick_slip_friction_interpolant_hessian(y, eps_v, h)[:, 0], [1.0, 0.0],
                               rtol=EXACT, atol=EXACT)


@pins("velocity_be", "be_target")
def test_backward_euler_history_convention():
    x_curr, x_prev = np.array([[1.0]]), np.array([[0.5]])
    np.testing.assert_allclose(en.velocity_be(x_curr, x_prev, 0.25), [[2.0]], rtol=EXACT)
    np.testing.assert_allclose(en.be_target(x_curr, x_prev, 0.25), [[1.5]], rtol=EXACT)   # x_n + h v_n


# constant velocity 1 per unit time: positions 0, 1, 2, 3 at t = -3, -2, -1, 0 (h = 1)
HISTORY = [np.array([[3.0]]), np.array([[2.0]]), np.array([[1.0]]), np.array([[0.0]])]


@pins("velocity_bdf2", "bdf2_target")
def test_bdf2_history_convention():
    np.testing.assert_allclose(en.velocity_bdf2(*HISTORY[:3], 1.0), [[1.0]], rtol=EXACT)
    np.testing.assert_allclose(en.velocity_bdf2(np.array([[4.0]]), np.array([[1.0]]), np.array([[0.0]]), 1.0),
                               [[4.0]], rtol=EXACT)                       # (12 - 4 + 0) / 2
    np.testing.assert_allclose(en.bdf2_target(*HISTORY, 1.0), [[4.0]], rtol=EXACT)   # exact for uniform motion


@pins("kinetic_energy_be", "kinetic_gradient_be", "kinetic_hessian_be")
def test_kinetic_be_convention():
    x, x_curr, x_prev, h = np.array([[3.0]]), np.array([[1.0]]), np.array([[0.0]]), 0.5
    M = sps.csc_matrix([[2.0]])
    assert en.kinetic_energy_be(x, x_curr, x_prev, M, h) == pytest.approx(4.0, rel=EXACT)   # 2 * 1^2 / (2 * 0.25)
    np.testing.assert_allclose(en.kinetic_gradient_be(x, x_curr, x_prev, M, h), [[8.0]], rtol=EXACT)
    H = en.kinetic_hessian_be(M, h)
    assert sps.issparse(H) and H.format == "csc"                           # M's own type
    np.testing.assert_allclose(H.toarray(), [[8.0]], rtol=EXACT)
    assert type(en.kinetic_hessian_be(np.array([[2.0]]), h)) is np.ndarray


@pins("kinetic_energy_bdf2", "kinetic_gradient_bdf2", "kinetic_hessian_bdf2")
def test_kinetic_bdf2_convention():
    x, M = np.array([[5.0]]), sps.dia_matrix(np.array([[1.0]]))
    assert en.kinetic_energy_bdf2(x, *HISTORY, M, 1.0) == pytest.approx(9.0 / 8.0, rel=EXACT)   # x_tilde = 4
    np.testing.assert_allclose(en.kinetic_gradient_bdf2(x, *HISTORY, M, 1.0), [[9.0 / 4.0]], rtol=EXACT)
    H = en.kinetic_hessian_bdf2(M, 1.0)
    assert isinstance(H, sps.dia_matrix)
    np.testing.assert_allclose(H.toarray(), [[9.0 / 4.0]], rtol=EXACT)


# ---------------------------------------------------------------------------------------
# integrators and solver
# ---------------------------------------------------------------------------------------

FORCE = 4.0


def constant_force():
    """Potential -f x of a constant force f: energy, gradient, zero Hessian."""
    return (lambda x: -FORCE * x.sum(), lambda x: np.full_like(x, -FORCE), lambda x: sps.csc_matrix((1, 1)))


@pins("backward_euler")
def test_backward_euler_convention():
    params = inspect.signature(it.backward_euler).parameters
    assert [params[k].default for k in ("tolerance", "max_iter", "do_line_search", "return_info")] == [
        1e-6, 1, True, False]
    M, h = sps.csc_matrix([[2.0]]), 0.1
    x = it.backward_euler(np.array([[1.0]]), np.array([[0.0]]), *constant_force(), M, h)
    np.testing.assert_allclose(x, [[2.0 + h ** 2 * FORCE / 2.0]], rtol=EXACT)   # M (x - x_tilde) / h^2 = f
    x, info = it.backward_euler(np.array([[1.0]]), np.array([[0.0]]), *constant_force(), M, h, return_info=True)
    assert info["iters"] == 0 and len(info["g"]) == len(info["dx"]) == len(info["alphas"]) == 1


@pins("bdf2")
def test_bdf2_convention():
    M = sps.csc_matrix([[2.0]])
    x = it.bdf2(*HISTORY, *constant_force(), M, 1.0)
    np.testing.assert_allclose(x, [[4.0 + 4.0 / 9.0 * FORCE / 2.0]], rtol=EXACT)   # 9/4 M (x - x_tilde) = f


@pins("forward_euler")
def test_forward_euler_convention():
    x, v = it.forward_euler(np.array([[1.0]]), np.array([[2.0]]), lambda y: np.array([[6.0]]), np.array([[3.0]]),
                            0.5)
    np.testing.assert_allclose((x, v), ([[2.0]], [[1.0]]), rtol=EXACT)    # x + h v, v - h g / m
    # a consistent mass matrix is lumped by row sums (3 on each node), as upstream
    x, v = it.forward_euler(np.zeros((2, 1)), np.zeros((2, 1)), lambda y: np.array([[3.0], [6.0]]),
                            np.array([[2.0, 1.0], [1.0, 2.0]]), 1.0)
    np.testing.assert_allclose(v, [[-1.0], [-2.0]], rtol=EXACT)


@pins("newton_solver")
def test_newton_solver_convention():
    params = inspect.signature(newton_solver).parameters
    assert [params[k].default for k in ("tolerance", "max_iter", "do_line_search", "return_info")] == [
        1e-6, 1, True, False]
    Q = np.array([[4.0, 1.0], [1.0, 3.0]])
    b = np.array([[1.0], [2.0]])
    x, info = newton_solver(np.zeros((2, 1)), lambda y: 0.5 * (y.T @ Q @ y).item() + (b.T @ y).item(),
                            lambda y: Q @ y + b, lambda y: Q, return_info=True)
    np.testing.assert_allclose(x, -np.linalg.solve(Q, b), rtol=EXACT)     # one step (max_iter = 1) solves it
    assert info["iters"] == 0 and info["alphas"] == [1.0]
    np.testing.assert_allclose(info["g"][0], b)
    np.testing.assert_allclose(info["dx"][0], x)


# ---------------------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------------------

@pins("save_figure")
def test_save_figure_convention(tmp_path):
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1], [0, 1])
    path = simkit.filesystem.save_figure(fig, tmp_path / "sub" / "f.png", copy_to=tmp_path / "copy.png")
    plt.close(fig)
    assert Path(path) == tmp_path / "sub" / "f.png" and Path(path).read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "copy.png").read_bytes() == Path(path).read_bytes()


@pins("save_animation")
def test_save_animation_convention(tmp_path):
    fig, ax = plt.subplots(figsize=(2, 2))
    (line,) = ax.plot([0, 1], [0, 0])
    anim = FuncAnimation(fig, lambda i: line.set_ydata([0, i]) or (line,), frames=3)
    path = simkit.filesystem.save_animation(anim, tmp_path / "a.mp4", fps=10)
    plt.close(fig)
    assert Path(path) == tmp_path / "a.mp4" and Path(path).read_bytes()[4:8] == b"ftyp"


# ---------------------------------------------------------------------------------------
# finite elements (chapter 016)
# ---------------------------------------------------------------------------------------

_FEM_MODULES = ("linear_elasticity", "arap", "fcr", "neo_hookean", "stable_neo_hookean")
_FEM_MATERIALS = ("linear-elasticity", "arap", "fcr", "neo-hookean", "stable-neo-hookean")
_FEM_ENERGIES = [f"{m}_{q}_{tier}" for m in ("elastic",) + _FEM_MODULES for q in ("energy", "gradient", "hessian")
                 for tier in ("element_F", "x")]
_NH_FUNCTIONS = [n for n in _FEM_ENERGIES if n.startswith(("elastic_", "neo_hookean_"))]
_PSD_FUNCTIONS = [n for n in _FEM_ENERGIES if n.endswith("hessian_x")] + ["elastic_hessian_element_F"]

DELIBERATE_DIFFERENCES.update({
    "volume": ("negatively oriented",),
    "deformation_jacobian": ("negatively oriented",),
    **{name: ("+inf",) for name in _NH_FUNCTIONS},
    **{name: ("keyword-only", "clamped at 0") for name in _PSD_FUNCTIONS},
})


@pins("deformation_jacobian", "volume")
def test_deformation_jacobian_and_volume_convention():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 1.0]])
    J = simkit.deformation_jacobian(X, np.array([[0, 1, 2]]))
    assert sps.issparse(J) and J.format == "csc" and J.shape == (4, 6)
    x = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 1.0]])                    # shear the top node by 1
    np.testing.assert_allclose((J @ x.reshape(-1, 1)).reshape(-1, 2, 2), [[[1.0, 1.0], [0.0, 1.0]]], atol=EXACT)
    vol = simkit.volume(X, np.array([[0, 1, 2]]))
    assert vol.shape == (1, 1)
    np.testing.assert_allclose(vol, [[1.0]], rtol=EXACT)
    tet = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    np.testing.assert_allclose(simkit.volume(tet, np.array([[0, 1, 2, 3]])), [[1 / 6]], rtol=EXACT)
    with pytest.raises(ValueError, match="negatively oriented"):
        simkit.volume(tet, np.array([[0, 2, 1, 3]]))                      # upstream: -1/6


@pins("ympr_to_lame")
def test_ympr_to_lame_convention():
    mu, lam = simkit.ympr_to_lame(1.0, 0.25)
    assert (mu, lam) == pytest.approx((0.4, 0.4), rel=EXACT)


@pins(*_FEM_ENERGIES)
@pytest.mark.parametrize("module, material", list(zip(_FEM_MODULES, _FEM_MATERIALS)))
def test_elastic_energies_convention(module, material):
    """psi (t, 1), P (t, d, d), dP/dF (t, d*d, d*d) row-major; _x tiers on (n, d) positions; upstream's arguments."""
    F = np.array([[[1.2, 0.1], [0.0, 0.9]], [[1.0, 0.0], [0.0, 1.0]]])
    mu, lam = np.array([[1.0], [2.0]]), np.array([[3.0], [4.0]])
    by_name = {q: getattr(en, f"{module}_{q}_element_F") for q in ("energy", "gradient", "hessian")}
    args = (mu,) if module == "arap" else (mu, lam)
    psi, P, H = (by_name[q](F, *args) for q in ("energy", "gradient", "hessian"))
    assert psi.shape == (2, 1) and P.shape == (2, 2, 2) and H.shape == (2, 4, 4)
    np.testing.assert_allclose(psi, en.elastic_energy_element_F(F, mu, lam, material), rtol=EXACT)
    np.testing.assert_allclose(H, en.elastic_hessian_element_F(F, mu, lam, material, psd=False), rtol=EXACT)
    np.testing.assert_allclose(P[1], 0.0, atol=EXACT)                         # F = I is a rest state
    eps = np.array([[0.2, 0.05], [0.05, -0.1]])
    expected = {"linear-elasticity": 1.0 * np.sum(eps ** 2) + 1.5 * np.trace(eps) ** 2,
                "neo-hookean": 0.5 * (1.44 + 0.01 + 0.81 - 2) - np.log(1.08) + 1.5 * np.log(1.08) ** 2}
    if material in expected:
        assert psi[0, 0] == pytest.approx(expected[material], rel=EXACT)
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    T = np.array([[0, 1, 2]])
    J, vol = simkit.deformation_jacobian(X, T), simkit.volume(X, T)
    x = X @ F[0].T
    head = ["X", "J", "mu"] + ([] if module == "arap" else ["lam"]) + ["vol"]
    for q in ("energy", "gradient", "hessian"):
        f = getattr(en, f"{module}_{q}_x")
        assert [p.name for p in inspect.signature(f).parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD] == head
    E = getattr(en, f"{module}_energy_x")(x, J, *((1.0,) if module == "arap" else (1.0, 3.0)), vol)
    assert E == pytest.approx(psi[0, 0] * 0.5, rel=EXACT)                   # the triangle's area is 1/2
    g = en.elastic_gradient_x(x, J, 1.0, 3.0, vol, material)
    assert g.shape == (6, 1) and isinstance(g, np.ndarray)
    Hx = en.elastic_hessian_x(x, J, 1.0, 3.0, vol, material)
    assert sps.issparse(Hx) and Hx.format == "csc" and Hx.shape == (6, 6)
    assert inspect.signature(en.elastic_hessian_x).parameters["psd"].default is True


# ---------------------------------------------------------------------------------------
# reduced models
# ---------------------------------------------------------------------------------------

_UNIT_TRIANGLE = (np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([[0, 1, 2]]))


@pins("dirichlet_laplacian")
def test_dirichlet_laplacian_convention():
    L = simkit.dirichlet_laplacian(*_UNIT_TRIANGLE)
    assert sps.issparse(L) and L.format == "csc" and L.shape == (3, 3)
    cot = np.array([[1.0, -0.5, -0.5], [-0.5, 0.5, 0.0], [-0.5, 0.0, 0.5]])     # positive, rows sum to 0
    np.testing.assert_allclose(L.toarray(), cot, atol=EXACT)
    np.testing.assert_allclose(simkit.dirichlet_laplacian(*_UNIT_TRIANGLE, 2.0, vector=True).toarray(),
                               np.kron(2 * cot, np.eye(2)), atol=EXACT)


@pins("lbs_jacobian")
def test_lbs_jacobian_convention():
    """One vertex (2, 3), one weight 0.5: x_i = 0.5 * (A[i, 0] 2 + A[i, 1] 3 + A[i, 2]), z = vec(A^T) row-major."""
    J = simkit.lbs_jacobian(np.array([[2.0, 3.0]]), np.array([[0.5]]))
    assert sps.issparse(J) and J.shape == (2, 6)
    np.testing.assert_allclose(J.toarray(), [[1.0, 0, 1.5, 0, 0.5, 0], [0, 1.0, 0, 1.5, 0, 0.5]], atol=EXACT)


@pins("linear_modal_analysis")
def test_linear_modal_analysis_convention():
    """Free right-angle node of a unit triangle: K = I + g g^T (g = (-1, -1)), m = 1/6; upstream adds 1e-6."""
    X, T = _UNIT_TRIANGLE
    E, B = simkit.linear_modal_analysis(X, T, 2, np.array([1, 2]))
    assert E.shape == (2,) and B.shape == (6, 2) and isinstance(B, np.ndarray)
    np.testing.assert_allclose(E, [6.0 + 1e-6, 18.0 + 1e-6], rtol=EXACT)
    np.testing.assert_allclose(np.abs(B[:2]), np.sqrt(3.0), rtol=1e-9)      # b^T M b = 1 with m = 1/6
    np.testing.assert_array_equal(B[2:], 0.0)
    E_phys, _ = simkit.linear_modal_analysis(X, T, 2, np.array([1, 2]), mu=1.0, lam=1.0, rho=2.0)
    np.testing.assert_allclose(E_phys, [3.0, 9.0], rtol=EXACT)


@pins("skinning_eigenmodes")
def test_skinning_eigenmodes_convention():
    """Unit triangle: 6 L has eigenvalues 0, 3, 9; W (n, k), E (k,), B the LBS Jacobian of W."""
    X, T = _UNIT_TRIANGLE
    W, E, B = simkit.skinning_eigenmodes(X, T, 3)
    assert W.shape == (3, 3) and E.shape == (3,)
    np.testing.assert_allclose(E, [0.0, 3.0, 9.0], atol=1e-12)
    np.testing.assert_allclose(W[:, 0], np.sqrt(2.0), rtol=EXACT)             # 1 / sqrt(total mass 1/2)
    assert sps.issparse(B) and B.shape == (6, 3 * 3 * 2)
    np.testing.assert_allclose(B.toarray(), simkit.lbs_jacobian(X, W).toarray(), rtol=EXACT)


@pins("spectral_cubature")
def test_spectral_cubature_convention():
    """Two tetrahedra with distinct basis values, k = 2: one per cluster, each weighted by its volume 1/6."""
    X = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]])
    T = np.array([[0, 1, 2, 3], [1, 4, 2, 3]])
    lI, mc = simkit.spectral_cubature(X, T, X[:, :1], 2)
    assert sorted(lI.tolist()) == [0, 1]
    np.testing.assert_allclose(mc, [1 / 6, 1 / 6], rtol=EXACT)
    assert len(simkit.spectral_cubature(X, T, X[:, :1], 2, True, True)) == 4


@pins("project_into_subspace")
def test_project_into_subspace_convention():
    """B = [1, 1]^T, M = diag(1, 3), y = (0, 4): z = (0 + 12) / 4 = 3, an (r, 1) array."""
    z = simkit.project_into_subspace(np.array([0.0, 4.0]), np.ones((2, 1)), sps.diags([1.0, 3.0]))
    assert z.shape == (1, 1)
    assert z[0, 0] == pytest.approx(3.0, rel=EXACT)
