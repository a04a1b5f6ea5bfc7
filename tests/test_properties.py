"""Property-based tests (Hypothesis) of the library on random 2D and 3D networks.

- energies are invariant under rigid motions (and gradients turn with the motion);
- gradients equal central differences of the energy, Hessians of the gradient;
- Hessians are symmetric, and positive semi-definite where ``psd=True``;
- a bad shape, dtype, range or a non-finite value in any argument raises ValueError or
  TypeError whose message starts with that argument's name.

Examples are derandomized (the same on every run, no example database written), so a
failure reproduces exactly.
"""
import numpy as np
import pytest
import scipy.sparse as sps
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import simkit
from simkit import energies as en
from simkit.solvers import newton_solver

SETTINGS = settings(max_examples=80, deadline=None, database=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
FD_STEP = 1e-6
GRAD_TOL = 1e-5          # relative to the gradient's norm
HESS_TOL = 1e-5          # relative to the Hessian's largest entry
INVARIANCE_TOL = 1e-9
MIN_EDGE = 0.2           # keep springs and hinges away from collapse, where FD is meaningless
DIMS = st.sampled_from([2, 3])


def _unit_floats(lo, hi):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


@st.composite
def spring_networks(draw, dim=None):
    """A random connected-or-not spring network: positions (n, dim), edges, ym, vol, l0."""
    dim = draw(DIMS) if dim is None else dim
    n = draw(st.integers(2, 7))
    m = draw(st.integers(1, 10))
    X = np.array(draw(st.lists(st.lists(_unit_floats(-2.0, 2.0), min_size=dim, max_size=dim), min_size=n,
                               max_size=n)))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]),
                          min_size=m, max_size=m))
    E = np.array(pairs, dtype=np.int64)
    lengths = simkit.edge_lengths(X, E)
    assume(lengths.min() > MIN_EDGE)
    params = [np.array(draw(st.lists(_unit_floats(0.5, 2.0), min_size=m, max_size=m))) for _ in range(3)]
    ym, vol, factor = params
    return X, E, ym, vol, lengths * factor


@st.composite
def polylines(draw):
    """A random 2D polyline with its hinge triples, rest angles and stiffness."""
    n = draw(st.integers(3, 7))
    X = np.array(draw(st.lists(st.tuples(_unit_floats(-2.0, 2.0), _unit_floats(-2.0, 2.0)), min_size=n,
                               max_size=n)))
    assume(np.linalg.norm(np.diff(X, axis=0), axis=1).min() > MIN_EDGE)
    C = np.column_stack([np.arange(n - 2), np.arange(1, n - 1), np.arange(2, n)])
    theta = simkit.dihedral_angles(X, C)[:, 0]
    assume(np.abs(np.abs(theta) - np.pi).min() > 0.3)          # away from the atan2 branch cut
    theta0 = np.array(draw(st.lists(_unit_floats(-1.0, 1.0), min_size=n - 2, max_size=n - 2)))
    kappa = np.array(draw(st.lists(_unit_floats(0.5, 2.0), min_size=n - 2, max_size=n - 2)))
    return X, C, theta0, kappa


@st.composite
def rigid_motions(draw, dim):
    """A rotation matrix (det +1) and a translation."""
    if dim == 2:
        a = draw(_unit_floats(-np.pi, np.pi))
        R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    else:
        q = np.array(draw(st.lists(_unit_floats(-1.0, 1.0), min_size=4, max_size=4)))
        assume(np.linalg.norm(q) > 0.1)
        w, x, y, z = q / np.linalg.norm(q)
        R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                      [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                      [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    t = np.array(draw(st.lists(_unit_floats(-5.0, 5.0), min_size=dim, max_size=dim)))
    return R, t


def _stacked_jacobian(X, E):
    return sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(X.shape[1])).tocsc()


def _fd_gradient_check(energy, gradient, x):
    g = gradient(x).ravel()
    g_fd = simkit.gradient_cfd(lambda y: energy(y.reshape(x.shape)), x.ravel(), FD_STEP)
    np.testing.assert_allclose(g, g_fd, atol=GRAD_TOL * max(1.0, np.linalg.norm(g)))


def _fd_hessian_check(gradient, hessian, x):
    H = hessian(x).toarray()
    H_fd = simkit.gradient_cfd(lambda y: gradient(y.reshape(x.shape)).ravel(), x.ravel(), FD_STEP)
    np.testing.assert_allclose(H, H_fd, atol=HESS_TOL * max(1.0, np.abs(H).max()))


def _assert_symmetric(H):
    H = H.toarray() if sps.issparse(H) else np.asarray(H)
    np.testing.assert_allclose(H, H.T, atol=1e-12 * max(1.0, np.abs(H).max()))
    return H


def _assert_psd(H):
    H = _assert_symmetric(H)
    assert np.linalg.eigvalsh(H).min() >= -1e-9 * max(1.0, np.abs(H).max())


# ---------------------------------------------------------------------------------------
# rigid motions
# ---------------------------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_spring_energy_is_invariant_under_rigid_motions(data):
    X, E, ym, vol, l0 = data.draw(spring_networks())
    R, t = data.draw(rigid_motions(X.shape[1]))
    Y = X @ R.T + t
    e = en.mass_springs_energy_x(X, E, ym, vol, l0)
    np.testing.assert_allclose(en.mass_springs_energy_x(Y, E, ym, vol, l0), e, rtol=INVARIANCE_TOL,
                               atol=INVARIANCE_TOL)
    J = _stacked_jacobian(X, E)
    np.testing.assert_allclose(en.mass_springs_energy_z(Y.reshape(-1, 1), J, ym, vol, l0, dim=X.shape[1]), e,
                               rtol=INVARIANCE_TOL, atol=INVARIANCE_TOL)
    g = en.mass_springs_gradient_x(X, E, ym, vol, l0).reshape(-1, X.shape[1])
    g_moved = en.mass_springs_gradient_x(Y, E, ym, vol, l0).reshape(-1, X.shape[1])
    np.testing.assert_allclose(g_moved, g @ R.T, atol=INVARIANCE_TOL * max(1.0, np.abs(g).max()))


@SETTINGS
@given(data=st.data())
def test_bending_energy_is_invariant_under_rigid_motions(data):
    X, C, theta0, kappa = data.draw(polylines())
    R, t = data.draw(rigid_motions(2))
    Y = X @ R.T + t
    np.testing.assert_allclose(en.bending_energy_x(Y, C, theta0, kappa), en.bending_energy_x(X, C, theta0, kappa),
                               rtol=INVARIANCE_TOL, atol=INVARIANCE_TOL)
    np.testing.assert_allclose(simkit.dihedral_angles(Y, C), simkit.dihedral_angles(X, C), atol=INVARIANCE_TOL)


@SETTINGS
@given(data=st.data())
def test_3d_hinge_angles_are_invariant_under_rigid_motions(data):
    """Any four points in general position: the hinge angle ignores rigid motions (whatever the quad order)."""
    P = np.array(data.draw(st.lists(st.lists(_unit_floats(-2.0, 2.0), min_size=3, max_size=3), min_size=4,
                                    max_size=4)))
    for a, b, c in ((0, 1, 2), (1, 2, 3), (0, 1, 3), (0, 2, 3)):
        assume(np.linalg.norm(np.cross(P[b] - P[a], P[c] - P[a])) > 0.2)
    R, t = data.draw(rigid_motions(3))
    C = np.array([[0, 1, 2, 3]])
    theta, moved = simkit.dihedral_angles(P, C), simkit.dihedral_angles(P @ R.T + t, C)
    assume(np.pi - abs(theta[0, 0]) > 0.1)
    np.testing.assert_allclose(moved, theta, atol=1e-8)


# ---------------------------------------------------------------------------------------
# derivatives
# ---------------------------------------------------------------------------------------

@SETTINGS
@given(network=spring_networks())
def test_spring_gradients_and_hessians_match_central_differences(network):
    X, E, ym, vol, l0 = network
    x = X.reshape(-1, 1)
    dim = X.shape[1]
    J = _stacked_jacobian(X, E)
    tiers = [(lambda y: en.mass_springs_energy_x(y, E, ym, vol, l0, dim=dim),
              lambda y: en.mass_springs_gradient_x(y, E, ym, vol, l0, dim=dim),
              lambda y: en.mass_springs_hessian_x(y, E, ym, vol, l0, psd=False, dim=dim)),
             (lambda y: en.mass_springs_energy_z(y, J, ym, vol, l0, dim=dim),
              lambda y: en.mass_springs_gradient_z(y, J, ym, vol, l0, dim=dim),
              lambda y: en.mass_springs_hessian_z(y, J, ym, vol, l0, psd=False, dim=dim))]
    for energy, gradient, hessian in tiers:
        _fd_gradient_check(energy, gradient, x)
        _fd_hessian_check(gradient, hessian, x)


@SETTINGS
@given(line=polylines())
def test_bending_gradients_and_hessians_match_central_differences(line):
    X, C, theta0, kappa = line
    x = X.reshape(-1, 1)
    _fd_gradient_check(lambda y: en.bending_energy_x(y, C, theta0, kappa),
                       lambda y: en.bending_gradient_x(y, C, theta0, kappa), x)
    _fd_hessian_check(lambda y: en.bending_gradient_x(y, C, theta0, kappa),
                      lambda y: en.bending_hessian_x(y, C, theta0, kappa), x)


@SETTINGS
@given(network=spring_networks(), psd=st.booleans())
def test_spring_hessians_are_symmetric_and_psd_when_projected(network, psd):
    X, E, ym, vol, l0 = network
    H_x = en.mass_springs_hessian_x(X, E, ym, vol, l0, psd=psd)
    H_z = en.mass_springs_hessian_z(X.reshape(-1, 1), _stacked_jacobian(X, E), ym, vol, l0, psd=psd, dim=X.shape[1])
    for H in (H_x, H_z):
        (_assert_psd if psd else _assert_symmetric)(H)


@SETTINGS
@given(line=polylines(), psd=st.booleans())
def test_bending_hessians_are_symmetric_and_psd_when_projected(line, psd):
    X, C, theta0, kappa = line
    H = en.bending_hessian_x(X.reshape(-1, 1), C, theta0, kappa, psd=psd)
    (_assert_psd if psd else _assert_symmetric)(H)


@SETTINGS
@given(blocks=st.lists(st.lists(_unit_floats(-5.0, 5.0), min_size=9, max_size=9), min_size=1, max_size=5),
       method=st.sampled_from(["proj", "abs"]))
def test_psd_project_gives_symmetric_psd_blocks(blocks, method):
    A = np.array(blocks).reshape(-1, 3, 3)
    for P in simkit.psd_project(A, method):
        _assert_psd(P)


# ---------------------------------------------------------------------------------------
# bad input always raises, naming the argument
# ---------------------------------------------------------------------------------------

NON_FINITE = st.sampled_from([np.nan, np.inf, -np.inf])


def _with_value_at(draw, a, value):
    a = np.array(a, dtype=float)
    a.reshape(-1)[draw(st.integers(0, a.size - 1))] = value
    return a


def _corrupt_array(draw, a):
    """A non-finite entry, a non-numeric array, or an extra axis; returns (bad value, error type)."""
    kind = draw(st.sampled_from(["non-finite", "strings", "extra axis"]))
    if kind == "non-finite":
        return _with_value_at(draw, a, draw(NON_FINITE)), ValueError
    if kind == "strings":
        return np.full(np.shape(a), "x"), TypeError
    return np.asarray(a)[..., None, None], ValueError


def _corrupt_param(draw, p, m):
    """A non-finite entry, a negative value, or a length that is neither 1 nor m."""
    kind = draw(st.sampled_from(["non-finite", "negative", "length"]))
    if kind == "non-finite":
        return _with_value_at(draw, p, draw(NON_FINITE)), ValueError
    if kind == "negative":
        return _with_value_at(draw, p, -draw(_unit_floats(0.1, 10.0))), ValueError
    length = draw(st.integers(2, 2 * m + 3).filter(lambda k: k != m))
    return np.ones(length), ValueError


def _corrupt_indices(draw, E, n, kinds=("float", "range", "columns")):
    """Float indices, an index outside [0, n), or a wrong number of columns."""
    kind = draw(st.sampled_from(kinds))
    if kind == "float":
        return E.astype(float), TypeError
    if kind == "range":
        bad = E.copy()
        bad.reshape(-1)[draw(st.integers(0, bad.size - 1))] = draw(st.sampled_from([-1, n, n + 5]))
        return bad, ValueError
    return np.column_stack([E, E[:, :1]]), ValueError


def _raises_naming(error, name, call):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert isinstance(info.value, error), f"{type(info.value).__name__}: {info.value}"
    assert str(info.value).startswith(f"{name}:"), str(info.value)


SPRING_ARGS = ["x", "E", "ym", "vol", "l0"]


@SETTINGS
@given(data=st.data(), network=spring_networks(), name=st.sampled_from(SPRING_ARGS),
       func=st.sampled_from([en.mass_springs_energy_x, en.mass_springs_gradient_x, en.mass_springs_hessian_x]))
def test_bad_spring_x_arguments_raise_naming_them(data, network, name, func):
    X, E, ym, vol, l0 = network
    args = dict(zip(SPRING_ARGS, (X, E, ym, vol, l0)))
    if name == "x":
        args[name], error = _corrupt_array(data.draw, X)
    elif name == "E":
        args[name], error = _corrupt_indices(data.draw, E, X.shape[0])
    else:
        args[name], error = _corrupt_param(data.draw, args[name], E.shape[0])
    _raises_naming(error, name, lambda: func(*args.values()))


@SETTINGS
@given(data=st.data(), network=spring_networks(), name=st.sampled_from(["z", "J", "ym", "vol", "l0"]),
       func=st.sampled_from([en.mass_springs_energy_z, en.mass_springs_gradient_z, en.mass_springs_hessian_z]))
def test_bad_spring_z_arguments_raise_naming_them(data, network, name, func):
    X, E, ym, vol, l0 = network
    J = _stacked_jacobian(X, E)
    args = {"z": X.reshape(-1, 1), "J": J, "ym": ym, "vol": vol, "l0": l0}
    if name == "z":
        args["z"], error = _corrupt_array(data.draw, args["z"])
    elif name == "J":
        bad = J.copy()
        bad.data = _with_value_at(data.draw, bad.data, data.draw(NON_FINITE))
        args["J"], error = bad, ValueError
    else:
        args[name], error = _corrupt_param(data.draw, args[name], E.shape[0])
    _raises_naming(error, name, lambda: func(*args.values(), dim=X.shape[1]))


@SETTINGS
@given(data=st.data(), line=polylines(), name=st.sampled_from(["x", "C", "theta0", "kappa"]),
       func=st.sampled_from([en.bending_energy_x, en.bending_gradient_x, en.bending_hessian_x]))
def test_bad_bending_arguments_raise_naming_them(data, line, name, func):
    X, C, theta0, kappa = line
    args = {"x": X.reshape(-1, 1), "C": C, "theta0": theta0, "kappa": kappa}
    if name == "x":
        args["x"], error = _corrupt_array(data.draw, args["x"])
    elif name == "C":
        args["C"], error = _corrupt_indices(data.draw, C, X.shape[0], kinds=("float", "range"))
    elif name == "theta0":
        args["theta0"], error = _with_value_at(data.draw, theta0, data.draw(NON_FINITE)), ValueError
    else:
        args["kappa"], error = _corrupt_param(data.draw, kappa, C.shape[0])
    _raises_naming(error, name, lambda: func(*args.values()))


@SETTINGS
@given(data=st.data(), network=spring_networks(), name=st.sampled_from(["X", "E", "rho"]))
def test_bad_operator_arguments_raise_naming_them(data, network, name):
    X, E, ym, _, _ = network
    if name == "rho":
        rho, error = _corrupt_param(data.draw, ym, E.shape[0])
        _raises_naming(error, "rho", lambda: simkit.massmatrix(X, E, rho))
        _raises_naming(error, "rho", lambda: simkit.gravity_force(X, E, rho=rho))
        return
    if name == "X":
        X, error = _corrupt_array(data.draw, X)
    else:      # simplices of 2 or 3 columns are both valid for massmatrix, so no column change here
        E, error = _corrupt_indices(data.draw, E, X.shape[0], kinds=("float", "range"))
    _raises_naming(error, name, lambda: simkit.edge_lengths(X, E))
    _raises_naming(error, name, lambda: simkit.edge_displacement_jacobian(X, E))
    _raises_naming(error, "T" if name == "E" else name, lambda: simkit.massmatrix(X, E))


@SETTINGS
@given(data=st.data(), n=st.integers(1, 6), name=st.sampled_from(["x", "x_curr", "x_prev", "M", "h"]))
def test_bad_inertia_arguments_raise_naming_them(data, n, name):
    rng = np.random.default_rng(n)
    args = {"x": rng.standard_normal((n, 1)), "x_curr": rng.standard_normal((n, 1)),
            "x_prev": rng.standard_normal((n, 1)), "M": sps.diags(rng.uniform(0.5, 2.0, n)).tocsc(), "h": 0.1}
    if name == "h":
        args["h"] = data.draw(st.sampled_from([np.nan, np.inf, 0.0, -0.1, 1e200, 1e-200]))
        error = ValueError
    elif name == "M":
        bad = args["M"].copy()
        kind = data.draw(st.sampled_from(["non-finite", "negative", "shape"]))
        if kind == "non-finite":
            bad.data = _with_value_at(data.draw, bad.data, data.draw(NON_FINITE))
        elif kind == "negative":
            bad.data = _with_value_at(data.draw, bad.data, -1.0)
        else:
            bad = sps.eye(n + 1).tocsc()
        args["M"], error = bad, ValueError
    else:
        args[name], error = _corrupt_array(data.draw, args[name])
    for func in (en.kinetic_energy_be, en.kinetic_gradient_be):
        _raises_naming(error, name, lambda: func(*args.values()))


@SETTINGS
@given(data=st.data(), n=st.integers(1, 5), culprit=st.sampled_from(["energy_func", "gradient_func", "hessian_func"]),
       when=st.integers(1, 3))
def test_non_finite_callable_output_raises_naming_the_callable_and_iteration(data, n, culprit, when):
    """A NaN/inf appears at Newton iteration `when` of a convex quadratic: the error names both.

    (An energy of +inf is an error at the current iterate; at a trial point of the line search
    it only means the step was too long.)
    """
    bad = data.draw(NON_FINITE)
    iteration = [0]

    def energy(x):
        return bad if culprit == "energy_func" and iteration[0] >= when else 0.5 * (x.T @ x).item()

    def gradient(x):
        iteration[0] += 1
        if culprit == "gradient_func" and iteration[0] >= when:
            return _with_value_at(data.draw, x, bad)
        return x.copy()

    def hessian(x):
        if culprit == "hessian_func" and iteration[0] >= when:
            return _with_value_at(data.draw, 2.0 * np.eye(n), bad)
        return 2.0 * np.eye(n)

    with pytest.raises(ValueError) as info:
        newton_solver(np.ones((n, 1)), energy, gradient, hessian, max_iter=10, tolerance=1e-300)
    message = str(info.value)
    assert message.startswith(f"{culprit}:"), message
    assert f"Newton iteration {when}" in message, message
