"""The Newton step's sparse solve: symmetric ordering for definite systems, exact fallback otherwise."""
import numpy as np
import pytest
import scipy.sparse as sps
import scipy.sparse.linalg as spla

import simkit
from simkit.energies import discrete_shells_bending_hessian, mass_springs_hessian_x
from simkit.solvers import sparse_solve as module
from simkit.solvers.sparse_solve import sparse_solve

BACKWARD_TOL = 1e-12


def backward_error(H, u, r):
    return np.linalg.norm(H @ u - r, 1) / (spla.norm(H, 1) * np.linalg.norm(u, 1) + np.linalg.norm(r, 1))


def cloth_hessian(psd, n=8, seed=0):
    """A crumpled small cloth's springs + shells Hessian plus a lumped mass term."""
    V, F = simkit.grid_sheet(n, n)
    C, E = simkit.hinge_quads(F), simkit.edges(F)
    x = (V + 0.1 * np.random.default_rng(seed).standard_normal(V.shape)).reshape(-1, 1)
    H = (mass_springs_hessian_x(x, E, 100.0, 1.0, simkit.edge_lengths(V, E), psd=psd, dim=3)
         + discrete_shells_bending_hessian(x, C, X0=V, k_bend=1.0, psd=psd))
    return (H + 1e-2 * sps.eye(H.shape[0])).tocsc()


class _CountingSplu:
    """Wraps scipy's splu to record the keyword arguments of every factorization."""

    def __init__(self):
        self.calls = []
        self.splu = spla.splu

    def __call__(self, A, **kwargs):
        self.calls.append(kwargs)
        return self.splu(A, **kwargs)


def test_definite_system_is_solved_once_in_symmetric_mode(monkeypatch):
    H = cloth_hessian(psd=True)
    r = np.random.default_rng(1).standard_normal(H.shape[0])
    counter = _CountingSplu()
    monkeypatch.setattr(module.spla, "splu", counter)
    u = sparse_solve(H, r)
    assert backward_error(H, u, r) < BACKWARD_TOL
    np.testing.assert_allclose(u, np.linalg.solve(H.toarray(), r), rtol=1e-8, atol=1e-10 * np.abs(u).max())
    assert len(counter.calls) == 1
    assert counter.calls[0]["permc_spec"] == "MMD_AT_PLUS_A" and counter.calls[0]["options"]["SymmetricMode"]


def test_symmetric_ordering_fills_in_less_than_the_default():
    H = cloth_hessian(psd=True, n=20)
    symmetric = spla.splu(H, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=module.DIAG_PIVOT_THRESHOLD,
                          options={"SymmetricMode": True})
    default = spla.splu(H)
    assert symmetric.L.nnz + symmetric.U.nnz < 0.9 * (default.L.nnz + default.U.nnz)


def test_indefinite_exact_hessian_still_gets_its_exact_step():
    H = cloth_hessian(psd=False)
    assert np.linalg.eigvalsh(H.toarray()).min() < 0
    r = np.random.default_rng(2).standard_normal(H.shape[0])
    u = sparse_solve(H, r)
    assert backward_error(H, u, r) < BACKWARD_TOL


def test_zero_diagonal_is_pivoted_away():
    H = sps.csc_matrix(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 2.0], [0.0, 2.0, 1.0]]))
    r = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(H @ sparse_solve(H, r), r, atol=1e-14)


class _BrokenSymmetricMode(_CountingSplu):
    """The symmetric-mode factorization fails (raises) or returns a wrong solution."""

    def __init__(self, failure):
        super().__init__()
        self.failure = failure

    def __call__(self, A, **kwargs):
        lu = super().__call__(A, **kwargs)
        if "options" not in kwargs:
            return lu
        if self.failure == "raises":
            raise RuntimeError("Factor is exactly singular")
        return type("Wrong", (), {"solve": lambda self, r: 1.001 * lu.solve(r)})()


@pytest.mark.parametrize("failure", ["raises", "inaccurate"])
def test_failed_symmetric_mode_falls_back_to_partial_pivoting(monkeypatch, failure):
    H = cloth_hessian(psd=False)
    r = np.random.default_rng(4).standard_normal(H.shape[0])
    broken = _BrokenSymmetricMode(failure)
    monkeypatch.setattr(module.spla, "splu", broken)
    u = sparse_solve(H, r)
    assert len(broken.calls) == 2 and broken.calls[1] == {}
    assert backward_error(H, u, r) < BACKWARD_TOL


def test_singular_system_raises():
    with pytest.raises(RuntimeError):
        sparse_solve(sps.csc_matrix(np.diag([1.0, 0.0, 2.0])), np.ones(3))


def test_newton_solver_takes_the_exact_step_of_a_sparse_quadratic():
    H = cloth_hessian(psd=True, n=5)
    b = np.random.default_rng(3).standard_normal((H.shape[0], 1))
    x = simkit.solvers.newton_solver(np.zeros_like(b), lambda y: 0.5 * (y.T @ H @ y).item() + (b.T @ y).item(),
                                     lambda y: H @ y + b, lambda y: H, do_line_search=False)
    np.testing.assert_allclose(H @ x, -b, atol=1e-10 * np.abs(b).max())


def penalized_cloth(n=8, gamma=1e10):
    """A soft small cloth (springs of stiffness 1) with 1e10 penalty pins on two nodes, as chapter 015's corners."""
    H = (0.01 * cloth_hessian(psd=True, n=n)).tolil()
    for dof in range(6):
        H[dof, dof] += gamma
    return H.tocsc()


class _SoftRowsOff(_CountingSplu):
    """The symmetric-mode solve returns a solution 30% off on every soft (unpinned) row."""

    def __call__(self, A, **kwargs):
        lu = super().__call__(A, **kwargs)
        if "options" not in kwargs:
            return lu
        return type("Off", (), {"solve": lambda self, r: _soft_rows_off(lu.solve(r))})()


def _soft_rows_off(u):
    u = u.copy()
    u[6:] *= 1.3
    return u


def test_componentwise_check_sees_soft_row_residuals_that_a_penalty_row_hides():
    H = penalized_cloth()
    r = np.random.default_rng(5).standard_normal(H.shape[0])
    u_bad = _soft_rows_off(np.linalg.solve(H.toarray(), r))
    assert backward_error(H, u_bad, r) < module.BACKWARD_ERROR_TOLERANCE      # the normwise check lets it through
    assert module.componentwise_backward_error(H, u_bad, r) > 0.01


def test_inaccurate_soft_rows_are_refactored_with_partial_pivoting(monkeypatch):
    H = penalized_cloth()
    r = np.random.default_rng(6).standard_normal(H.shape[0])
    broken = _SoftRowsOff()
    monkeypatch.setattr(module.spla, "splu", broken)
    u = sparse_solve(H, r)
    assert len(broken.calls) == 2 and broken.calls[1] == {}
    assert module.componentwise_backward_error(H, u, r) < module.BACKWARD_ERROR_TOLERANCE
    np.testing.assert_allclose(u, np.linalg.solve(H.toarray(), r), rtol=1e-8)


def test_one_refinement_step_repairs_a_slightly_inaccurate_factorization(monkeypatch):
    H = penalized_cloth()
    r = np.random.default_rng(7).standard_normal(H.shape[0])
    counter = _CountingSplu()
    lu_solve = []

    def slightly_off(A, **kwargs):
        lu = counter(A, **kwargs)
        lu_solve.append(lu)
        return type("Off", (), {"solve": lambda self, b: lu.solve(b) * (1 + 1e-7)})()

    monkeypatch.setattr(module.spla, "splu", slightly_off)
    u = sparse_solve(H, r)
    assert len(counter.calls) == 1                             # refined, not refactored
    assert module.componentwise_backward_error(H, u, r) < module.BACKWARD_ERROR_TOLERANCE


def test_cholesky_path_reuses_the_symbolic_factorization_of_a_pattern(monkeypatch):
    cvxopt = pytest.importorskip("cvxopt")
    H = cloth_hessian(psd=True, n=20)                          # 1,200 unknowns: the Cholesky path
    assert H.shape[0] >= module.CHOLESKY_MIN_SIZE
    module._cholesky_patterns.clear()
    symbolic, counter = [], _CountingSplu()
    original = cvxopt.cholmod.symbolic
    monkeypatch.setattr(module.cvxopt.cholmod, "symbolic", lambda *a, **k: symbolic.append(1) or original(*a, **k))
    monkeypatch.setattr(module.spla, "splu", counter)
    for seed in range(3):                                      # same pattern, new values: one analysis
        H2 = H.copy()
        H2.data *= 1.0 + 0.1 * seed
        r = np.random.default_rng(seed).standard_normal(H.shape[0])
        u = sparse_solve(H2, r)
        np.testing.assert_allclose(u, np.linalg.solve(H2.toarray(), r), rtol=1e-8, atol=1e-10 * np.abs(u).max())
    assert len(symbolic) == 1 and counter.calls == []


def test_cholesky_path_hands_an_indefinite_matrix_to_superlu(monkeypatch):
    pytest.importorskip("cvxopt")
    H = cloth_hessian(psd=False, n=20)
    assert np.linalg.eigvalsh(H.toarray()).min() < 0
    counter = _CountingSplu()
    monkeypatch.setattr(module.spla, "splu", counter)
    r = np.random.default_rng(8).standard_normal(H.shape[0])
    u = sparse_solve(H, r)
    assert len(counter.calls) >= 1
    assert module.componentwise_backward_error(H, u, r) < module.BACKWARD_ERROR_TOLERANCE
