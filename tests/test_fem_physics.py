"""FEM against closed forms: patch tests, plane-strain uniaxial stretch, a cantilever under gravity."""
import numpy as np
import pytest
import scipy.optimize
import scipy.sparse.linalg as spla

import simkit

PATCH_TOL = 1e-10


def newton_with_fixed(term, x, free, iterations=40, tol=1e-13):
    """Minimize term over the free dofs of stacked x (the others stay as given), backtracking on +inf / ascent."""
    x = x.copy()
    for _ in range(iterations):
        g = term.gradient(x)[free]
        dx = spla.spsolve(term.hessian(x)[free][:, free].tocsc(), -g[:, 0])
        E0, alpha = term.energy(x), 1.0
        while True:
            trial = x.copy()
            trial[free, 0] += alpha * dx
            if term.energy(trial) <= E0 + 1e-12 * abs(E0) or alpha < 1e-8:
                break
            alpha *= 0.5
        x = trial
        if np.linalg.norm(alpha * dx) < tol * max(1.0, np.linalg.norm(x)):
            break
    return x


def boundary_nodes(X):
    lo, hi = X.min(axis=0), X.max(axis=0)
    return np.flatnonzero(((X <= lo + 1e-12) | (X >= hi - 1e-12)).any(axis=1))


@pytest.mark.parametrize("material", ["linear-elasticity", "neo-hookean"])
@pytest.mark.parametrize("dim", [2, 3])
def test_patch_test_reproduces_a_linear_field_on_a_distorted_mesh(material, dim):
    rng = np.random.default_rng(7)
    X, T = simkit.grid_rectangle(6, 5, 1.0, 0.8) if dim == 2 else simkit.grid_box(4, 4, 4, 1.0, 0.9, 1.1)
    edge = boundary_nodes(X)
    inner = np.setdiff1d(np.arange(len(X)), edge)
    X[inner] += 0.3 / 5 * rng.uniform(-1, 1, (len(inner), dim))      # distorted, still positive
    assert (simkit.volume(X, T) > 0).all()
    A = np.eye(dim) + 0.15 * rng.standard_normal((dim, dim))
    b = rng.standard_normal(dim)
    exact = X @ A.T + b
    term = simkit.terms.ElasticEnergy(X, T, 1.0, 4.0, material)
    x = exact + 0.03 * rng.uniform(-1, 1, X.shape)                     # interior guess: off by 15% of a cell
    x[edge] = exact[edge]
    free = (inner[:, None] * dim + np.arange(dim)).ravel()
    x = newton_with_fixed(term, x.reshape(-1, 1), free)
    error = np.abs(x.reshape(-1, dim) - exact).max()
    assert error < PATCH_TOL, error


def test_neo_hookean_plane_strain_uniaxial_stretch_closed_form():
    mu, lam, s, L, H = 1.0, 3.0, 1.5, 2.0, 1.0
    X, T = simkit.grid_rectangle(9, 5, L, H)
    term = simkit.terms.ElasticEnergy(X, T, mu, lam, "neo-hookean")
    left, right = np.flatnonzero(X[:, 0] < 1e-12), np.flatnonzero(X[:, 0] > L - 1e-12)
    fixed = np.r_[left * 2, right * 2, left[0] * 2 + 1]               # x on both ends, one y against drift
    free = np.setdiff1d(np.arange(X.size), fixed)
    x = X.copy()
    x[:, 0] *= s
    x = newton_with_fixed(term, x.reshape(-1, 1), free)
    g = term.gradient(x).reshape(-1, 2)
    t = scipy.optimize.brentq(lambda t: mu * (t - 1 / t) + lam * np.log(s * t) / t, 0.2, 1.5)
    P11 = mu * (s - 1 / s) + lam * np.log(s * t) / s
    assert g[right, 0].sum() / H == pytest.approx(P11, rel=1e-6)      # reaction per unit height
    assert -g[left, 0].sum() / H == pytest.approx(P11, rel=1e-6)
    np.testing.assert_allclose(x.reshape(-1, 2)[:, 1].max() - x.reshape(-1, 2)[:, 1].min(), t * H, rtol=1e-6)


def test_cantilever_under_gravity_matches_euler_bernoulli_plane_strain():
    L, H, E, nu, rho, g = 10.0, 1.0, 1e5, 0.3, 1.0, 9.8
    X, T = simkit.grid_rectangle(161, 17, L, H)                      # 160 x 16 cells, alternating diagonals
    mu, lam = simkit.ympr_to_lame(E, nu)
    term = simkit.terms.ElasticEnergy(X, T, mu, lam, "linear-elasticity")
    f = simkit.gravity_force(X, T, a=-g, rho=rho).reshape(-1, 1)
    clamped = np.flatnonzero(X[:, 0] < 1e-12)
    free = np.setdiff1d(np.arange(X.size), np.r_[clamped * 2, clamped * 2 + 1])
    K = term.hessian(X.reshape(-1, 1))
    u = np.zeros((X.size, 1))
    u[free, 0] = spla.spsolve(K[free][:, free].tocsc(), f[free, 0])
    tip = np.flatnonzero((X[:, 0] > L - 1e-12) & (np.abs(X[:, 1] - H / 2) < 1e-12))
    deflection = -u.reshape(-1, 2)[tip, 1].item()
    E_plane = E / (1 - nu ** 2)
    euler_bernoulli = 3 * rho * g * L ** 4 / (2 * E_plane * H ** 2)
    assert deflection == pytest.approx(euler_bernoulli, rel=0.05)
