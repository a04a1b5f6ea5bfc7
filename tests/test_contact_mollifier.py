"""The edge-edge mollifier: closed forms, C1 at its threshold, central differences, the element tier, errors."""
import numpy as np
import pytest

import simkit
from simkit import contact

FD_STEP = 1e-6
EXACT = 1e-12


def turned_pair(angle, length_b=1.5):
    """Edge A along x (length 2), edge B (length_b) at `angle` to it in the xy plane, lifted by 0.3: c = (2 l sin)^2."""
    a0, a1 = np.array([0.0, 0.0, 0.0]), np.array([2.0, 0.0, 0.0])
    b0 = np.array([0.5, -0.2, 0.3])
    b1 = b0 + length_b * np.array([np.cos(angle), np.sin(angle), 0.0])
    return np.array([a0, a1, b0, b1])


def call(f, X, *args):
    return f(*np.asarray(X).transpose(1, 0, 2), *args)


def test_closed_forms_parallel_halfway_and_beyond_the_threshold():
    eps = contact.edge_edge_mollifier_threshold(*turned_pair(np.pi / 2)[:, None])      # 1e-3 * 4 * 2.25
    np.testing.assert_allclose(eps, [1e-3 * 4.0 * 2.25], rtol=EXACT)
    halfway = np.arcsin(np.sqrt(eps[0] / 2) / 3.0)              # c = (2 * 1.5 sin)^2 = eps / 2
    X = np.array([turned_pair(0.0), turned_pair(halfway), turned_pair(0.3), turned_pair(np.pi / 2)])
    np.testing.assert_allclose(call(contact.edge_edge_mollifier, X, eps[0]), [0.0, 0.75, 1.0, 1.0], atol=EXACT)
    g = call(contact.edge_edge_mollifier_gradient, X, eps[0])
    assert np.abs(g[0]).max() == 0.0 and np.abs(g[2:]).max() == 0.0         # flat at parallel and beyond
    H = call(contact.edge_edge_mollifier_hessian, X, eps[0])
    assert np.abs(H[2:]).max() == 0.0 and np.abs(H[0]).max() > 1.0          # curved at parallel: m ~ 2c/eps
    # a threshold per pair
    np.testing.assert_allclose(call(contact.edge_edge_mollifier, X[:2], np.array([1.0, eps[0]])), [0.0, 0.75],
                               atol=EXACT)


def test_c1_at_the_threshold():
    eps = 0.01
    at = np.arcsin(np.sqrt(eps) / 3.0)                          # c = eps exactly at this angle
    below = np.array([turned_pair(at * (1 - 1e-6)), turned_pair(at * (1 - 1e-8))])
    np.testing.assert_allclose(call(contact.edge_edge_mollifier, below, eps), 1.0, atol=1e-11)
    g = np.abs(call(contact.edge_edge_mollifier_gradient, below, eps)).max(axis=1)
    assert g[0] < 1e-3 and g[0] / g[1] == pytest.approx(100, rel=1e-3)     # the slope vanishes linearly


@pytest.mark.parametrize("seed", range(3))
def test_gradient_and_hessian_match_central_differences_below_the_threshold(seed):
    rng = np.random.default_rng(seed)
    X = turned_pair(0.02 + 0.01 * rng.uniform()) + 0.01 * rng.standard_normal((4, 3))
    eps = 0.032                                                 # c <= (3 sin 0.03)^2 + jitter, about 0.01
    assert call(contact.edge_edge_mollifier, X[None], eps)[0] < 0.9
    f = lambda y: call(contact.edge_edge_mollifier, y.reshape(1, 4, 3), eps)[0]
    grad = lambda y: call(contact.edge_edge_mollifier_gradient, y.reshape(1, 4, 3), eps)[0]
    x = X.reshape(-1)
    g, H = grad(x), call(contact.edge_edge_mollifier_hessian, X[None], eps)[0]
    np.testing.assert_allclose(g, simkit.gradient_cfd(f, x, FD_STEP), rtol=1e-6, atol=1e-6 * np.abs(g).max())
    np.testing.assert_allclose(H, simkit.gradient_cfd(grad, x, FD_STEP), rtol=1e-5, atol=1e-5 * np.abs(H).max())
    np.testing.assert_allclose(H, H.T, atol=EXACT * np.abs(H).max())


def test_fast_path_matches_the_element_tier():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((300, 4, 3))
    X[:200, 3] = X[:200, 2] + (X[:200, 1] - X[:200, 0]) * rng.uniform(0.5, 2, (200, 1)) \
        + 0.03 * rng.standard_normal((200, 3))                   # nearly parallel: below the threshold
    eps = contact.edge_edge_mollifier_threshold(*rng.standard_normal((4, 300, 3)))
    m, g, H = (call(f, X, eps) for f in (contact.edge_edge_mollifier, contact.edge_edge_mollifier_gradient,
                                         contact.edge_edge_mollifier_hessian))
    assert 50 < (m < 1).sum() < 300
    for i in range(len(X)):
        me, ge, He = contact.edge_edge_mollifier_element(*X[i], eps[i])
        assert me == pytest.approx(m[i], abs=EXACT)
        np.testing.assert_allclose(ge, g[i], atol=1e-10 * max(1.0, np.abs(ge).max()))
        np.testing.assert_allclose(He, H[i], atol=1e-10 * max(1.0, np.abs(He).max()))


def test_errors():
    X = turned_pair(0.1)[:, None]
    with pytest.raises(ValueError, match=r"^eps_x: expected strictly positive values, found min 0"):
        contact.edge_edge_mollifier(*X, 0.0)
    with pytest.raises(ValueError, match=r"^eps_x: expected a scalar or one value per edge pair"):
        contact.edge_edge_mollifier(*X, np.ones(2))
    with pytest.raises(ValueError, match=r"^b0, b1: edge of zero length at stencil\(s\) \[0\]"):
        contact.edge_edge_mollifier_threshold(X[0], X[1], X[2], X[2])
    with pytest.raises(ValueError, match=r"^a1: expected the shape of a0"):
        contact.edge_edge_mollifier(X[0], np.zeros((2, 3)), X[2], X[3], 1.0)
    with pytest.raises(ValueError, match=r"^eps_x: expected a finite value > 0"):
        contact.edge_edge_mollifier_element(*turned_pair(0.1), -1.0)
