"""Timings of simkit's 3D path and of the hinge kernels on a tangled 2D chain, against upstream.

Run from the repository root, in the project's environment::

    python benchmarks/bench_3d.py                                  # simkit only
    python benchmarks/bench_3d.py --upstream /tmp/upstream/lib/python3.11/site-packages
    SIMKIT_UPSTREAM=/tmp/upstream/lib/python3.11/site-packages python benchmarks/bench_3d.py

Tables (best of several warm calls, milliseconds; no assertions):

1. 3D cloth: a 100 x 100 ``grid_sheet`` (29,205 hinges) crumpled by random displacements of
   one edge length; discrete-shells bending energy, gradient, exact and projected Hessian.
2. Tangled 2D chain: 1e5 nodes displaced by ten edge lengths at random; bending gradient and
   Hessians.
3. Newton solve: one backward-Euler step of the 100 x 100 cloth (springs on ``edges(F)``,
   discrete shells, gravity, two pinned corners, inertia; 30,000 unknowns); the Hessian's
   assembly and each sparse solver's factor + solve.

Upstream simkit 0.1.8 (never a dependency) runs in a worker subprocess of this interpreter that
imports only upstream's ``simkit`` package from the given site-packages folder (numpy and
scipy stay this environment's), on the same arrays; simkit and upstream alternate in blocks of
warm calls so that both sample the same machine load, and the ratio column is upstream /
simkit. Without
the folder the upstream columns are skipped with a note.
"""
import argparse
import os
import sys

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

# the repository root, so the script also runs from a checkout where simkit is not installed
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import simkit  # noqa: E402
from simkit import energies as en  # noqa: E402
from simkit.solvers.sparse_solve import sparse_solve  # noqa: E402
import _upstream  # noqa: E402  (same folder)
from bench_simkit import best_of  # noqa: E402

CLOTH = 100
CHAIN = 100_000
TARGETS_MS = {"Hessian psd=True": 60.0, "Hessian psd=False": 30.0, "gradient": 5.0}
CHAIN_RATIOS = {"Hessian psd=True": 20.0, "gradient": 5.0}


def cloth_problem(m=CLOTH, seed=0):
    V, F = simkit.grid_sheet(m, m)
    C = simkit.hinge_quads(F)
    h = 1.0 / (m - 1)
    X = V + h * np.random.default_rng(seed).standard_normal(V.shape)
    return {"V": V, "F": F, "C": C, "x": X.reshape(-1, 1), "theta0": simkit.dihedral_angles(V, C),
            "kappa": simkit.discrete_shells_stiffness(V, C, 1.0)}


def chain_problem(n=CHAIN, seed=0):
    X = np.column_stack([np.linspace(0.0, 4.0, n), np.zeros(n)])
    C = np.column_stack([np.arange(n - 2), np.arange(1, n - 1), np.arange(2, n)])
    l0 = 4.0 / (n - 1)
    x = X + 10.0 * l0 * np.random.default_rng(seed).standard_normal(X.shape)
    return {"C": C, "x": x.reshape(-1, 1), "theta0": np.zeros((n - 2, 1)), "kappa": np.full((n - 2, 1), 50.0)}


def kernels(x, C, theta0, kappa):
    return {
        "energy": lambda: en.bending_energy_x(x, C, theta0, kappa),
        "gradient": lambda: en.bending_gradient_x(x, C, theta0, kappa),
        "Hessian psd=False": lambda: en.bending_hessian_x(x, C, theta0, kappa, psd=False),
        "Hessian psd=True": lambda: en.bending_hessian_x(x, C, theta0, kappa, psd=True),
    }


# the worker's body (benchmarks/_upstream.py): upstream's bending functions on the same arrays
UPSTREAM_BODY = r"""
from simkit.energies.bending_energy import bending_energy_x, bending_gradient_x, bending_hessian_x
for name in ("cloth", "chain"):
    x, C, th0, kap = d[name + "_x"], d[name + "_C"], d[name + "_theta0"], d[name + "_kappa"]
    kernels[name] = {
        "energy": lambda x=x, C=C, t=th0, k=kap: bending_energy_x(x, C, t, k),
        "gradient": lambda x=x, C=C, t=th0, k=kap: bending_gradient_x(x, C, t, k),
        "Hessian psd=False": lambda x=x, C=C, t=th0, k=kap: bending_hessian_x(x, C, t, k, psd=False),
        "Hessian psd=True": lambda x=x, C=C, t=th0, k=kap: bending_hessian_x(x, C, t, k, psd=True)}
    energies[name] = float(bending_energy_x(x, C, th0, kap))
"""


def start_upstream(folder, problems):
    arrays = {}
    for name, p in problems.items():
        # upstream orders a quad (o0, e0, e1, o1); simkit (e0, e1, o0, o1)
        C = p["C"][:, [2, 0, 1, 3]] if p["C"].shape[1] == 4 else p["C"]
        arrays.update({name + "_x": p["x"], name + "_C": C, name + "_theta0": p["theta0"], name + "_kappa": p["kappa"]})
    return _upstream.start(folder, UPSTREAM_BODY, arrays)


def interleaved(problems, repeats, upstream, blocks=3):
    """Best-of timings of simkit and (if given) upstream: `blocks` alternating blocks of warm calls.

    Each block is a warm-up call then `repeats` consecutive calls of one side, so every figure is
    the best of warm calls, and the two sides sample the machine's load at interleaved times.
    """
    ours, theirs = {}, {}
    for name, p in problems.items():
        for kernel, f in kernels(p["x"], p["C"], p["theta0"], p["kappa"]).items():
            calls = repeats if "True" not in kernel else max(2, repeats // 2)
            t_ours, t_up = [], []
            for _ in range(blocks):
                t_ours.append(best_of(f, calls))
                if upstream:
                    t_up.append(upstream.time(name, kernel, calls + 1))
            ours.setdefault(name, {})[kernel] = min(t_ours)
            if upstream:
                theirs.setdefault(name, {})[kernel] = min(t_up)
    return ours, theirs


def print_kernel_table(title, ours, theirs, check, targets=None, ratios=None):
    print(f"\n{title}")
    header = f"{'kernel':<20}{'simkit':>10}{'upstream':>10}{'ratio':>8}  target"
    print(header)
    print("-" * (len(header) + 14))
    for name, t in ours.items():
        up = theirs.get(name) if theirs else None
        ratio = up / t if up else None
        target = ""
        if targets and name in targets:
            target = f"<= {targets[name]:.0f} ms: {'met' if 1e3 * t <= targets[name] else 'NOT met'}"
        if ratios and name in ratios and ratio:
            target = f">= {ratios[name]:.0f}x: {'met' if ratio >= ratios[name] else 'NOT met'}"
        print(f"{name:<20}{1e3 * t:>10.2f}" + (f"{1e3 * up:>10.2f}{ratio:>7.1f}x" if up else f"{'-':>10}{'-':>8}")
              + f"  {target}")
    if theirs:
        print(f"(energies agree: simkit {check:.6g}, upstream {theirs['check']:.6g})")  # same arrays, same numbers


def cloth_newton_system(cloth, h=1.0 / 60, psd=True):
    """Energy pieces of one backward-Euler step of the cloth and its Newton system at the crumpled state."""
    V, F, C = cloth["V"], cloth["F"], cloth["C"]
    n = V.shape[0]
    E = simkit.edges(F)
    l0 = simkit.edge_lengths(V, E)
    M = sps.kron(simkit.massmatrix(V, F, rho=0.2), sps.eye(3)).tocsc()
    f_g = simkit.gravity_force(V, F, rho=0.2).reshape(-1, 1)
    pins = np.array([0, CLOTH - 1])
    Q, b = simkit.dirichlet_penalty(pins, V[pins], n, 1e6)
    ym, k_bend = 1e3, 1e-3

    def hessian(x):
        return (en.mass_springs_hessian_x(x, E, ym, 1.0, l0, psd=psd, dim=3)
                + en.discrete_shells_bending_hessian(x, C, X0=V, k_bend=k_bend, psd=psd) + Q)

    def gradient(x):
        return (en.mass_springs_gradient_x(x, E, ym, 1.0, l0, dim=3) + en.discrete_shells_bending_gradient(x, C, X0=V, k_bend=k_bend)
                + en.quadratic_gradient(x, Q, b) - f_g)

    def energy(x):
        return (en.mass_springs_energy_x(x, E, ym, 1.0, l0, dim=3) + en.discrete_shells_bending_energy(x, C, X0=V, k_bend=k_bend)
                + en.quadratic_energy(x, Q, b) - (f_g.T @ x).item())

    return energy, gradient, hessian, M, h


def solver_rows(H, r):
    """Factor + solve with each candidate; sparse Cholesky packages only when importable."""
    rows = {
        "spsolve (COLAMD, pivoting)": lambda: spla.spsolve(H, r),
        "splu MMD_AT_PLUS_A": lambda: spla.splu(H, permc_spec="MMD_AT_PLUS_A").solve(r),
        "simkit sparse_solve": lambda: sparse_solve(H, r),
    }
    try:
        import cholespy

        def cholespy_solve():
            factor = cholespy.CholeskySolverD(H.shape[0], H.indptr.astype(np.int32), H.indices.astype(np.int32),
                                              H.data, cholespy.MatrixType.CSC)
            u = np.zeros((H.shape[0], 1))
            factor.solve(r.reshape(-1, 1).copy(), u)
            return u[:, 0]

        rows["cholespy (CHOLMOD)"] = cholespy_solve
    except ImportError:
        print("note: cholespy not installed, its row is skipped")
    try:
        from sksparse.cholmod import cholesky as cholmod_cholesky
        rows["scikit-sparse (CHOLMOD)"] = lambda: cholmod_cholesky(H)(r)
    except ImportError:
        print("note: scikit-sparse not installed, its row is skipped")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    _upstream.add_upstream_argument(parser)
    parser.add_argument("--repeats", type=int, default=7, help="warm calls per figure (best is reported)")
    parser.add_argument("--no-solver", action="store_true", help="skip the Newton-solve table")
    args = parser.parse_args()
    _upstream.print_machine()

    cloth, chain = cloth_problem(), chain_problem()
    problems = {"cloth": cloth, "chain": chain}
    upstream = start_upstream(args.upstream, problems)
    ours, theirs = interleaved(problems, args.repeats, upstream)
    for name in theirs:
        theirs[name]["check"] = upstream.energies[name]
    if upstream:
        upstream.close()
        print("(simkit and upstream alternate in blocks of warm calls, so both sample the same machine load)")
    print_kernel_table(f"3D cloth {CLOTH}x{CLOTH}, {len(cloth['C']):,d} hinges, discrete shells, milliseconds",
                       ours["cloth"], theirs.get("cloth"),
                       en.bending_energy_x(cloth["x"], cloth["C"], cloth["theta0"], cloth["kappa"]), targets=TARGETS_MS)
    print_kernel_table(f"tangled 2D chain, {CHAIN:,d} nodes, bending, milliseconds", ours["chain"],
                       theirs.get("chain"),
                       en.bending_energy_x(chain["x"], chain["C"], chain["theta0"], chain["kappa"]), ratios=CHAIN_RATIOS)

    if not args.no_solver:
        solver_table(cloth)


def solver_table(cloth):
    energy, gradient, hessian, M, h = cloth_newton_system(cloth)
    x = cloth["x"]
    x_tilde = cloth["V"].reshape(-1, 1)
    print(f"\nNewton solve, backward-Euler step of the {CLOTH}x{CLOTH} cloth ({x.size:,d} unknowns), milliseconds")
    A = (hessian(x) + M / h**2).tocsc()
    r = -(gradient(x) + M @ (x - x_tilde) / h**2)[:, 0]
    t_asm = best_of(lambda: hessian(x) + M / h**2, 3)
    print(f"{'Hessian assembly (psd)':<26}{1e3 * t_asm:>10.2f}   nnz {A.nnz:,d}")
    for name, f in solver_rows(A, r).items():
        t = best_of(f, 3)
        res = np.linalg.norm(A @ f() - r) / np.linalg.norm(r)
        print(f"{name:<26}{1e3 * t:>10.2f}   relative residual {res:.1e}")
    hess_exact = cloth_newton_system(cloth, psd=False)[2]
    A_exact = (hess_exact(x) + M / h**2).tocsc()
    t = best_of(lambda: sparse_solve(A_exact, r), 3)
    res = np.linalg.norm(A_exact @ sparse_solve(A_exact, r) - r) / np.linalg.norm(r)
    print(f"{'sparse_solve, psd=False':<26}{1e3 * t:>10.2f}   relative residual {res:.1e}")
    step = lambda: simkit.integrators.backward_euler(x, x, energy, gradient, hessian, M, h, max_iter=1)  # noqa: E731
    print(f"{'BE step (max_iter=1)':<26}{1e3 * best_of(step, 3):>10.2f}   gradient, Hessian, solve, line search")


if __name__ == "__main__":
    main()
