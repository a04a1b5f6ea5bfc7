"""What users wait for (issue 19): the converged implicit step, the 3D projection, the solve, tiny calls.

Run from the repository root, in the project's environment::

    python benchmarks/bench_step.py                                  # simkit only
    SIMKIT_UPSTREAM=/tmp/upstream/lib/python3.11/site-packages python benchmarks/bench_step.py
    python benchmarks/bench_step.py --quick                          # fewer states and sizes

Tables (CPU time, ``time.process_time``, best of several warm calls; no assertions):

1. A 30 x 30 cloth held by two corners (chapter 015's: 900 nodes, thread and shear springs,
   discrete-shells hinges, gravity, 1e10 penalty pins, h = 1/30), one backward-Euler step
   converged to ``||alpha dx|| < 1e-6``, from several states of its fall (the first frames
   and the swing, where springs are compressed). Each configuration reports Newton
   iterations and CPU time per step and its distance to a reference solution of the same step
   (exact hinge projection, tolerance 1e-11); upstream simkit 0.1.8 runs the same callables
   through its own ``backward_euler`` with the same signature.
2. The 3D hinge projected Hessian on the crumpled 100 x 100 grid (``bench_3d``'s problem).
3. Sparse solves of cloth Hessians from 1e3 to 1e5 unknowns: SuperLU (symmetric mode) and
   CHOLMOD (cvxopt) with and without its symbolic factorization reused.
4. Chapter 011's 20-spring ``mass_springs_{energy,gradient}_z`` (``bench_simkit``'s small system).

Upstream (never a dependency) runs in worker subprocesses of this interpreter that import only
upstream's ``simkit`` package from the folder given (``--upstream`` or ``$SIMKIT_UPSTREAM``).
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy
import scipy.sparse as sps
import scipy.sparse.linalg as spla

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import simkit  # noqa: E402
from simkit import energies as en  # noqa: E402
from simkit.integrators import backward_euler  # noqa: E402
from simkit.solvers import sparse_solve as solve_module  # noqa: E402
import bench_3d  # noqa: E402  (same folder)
import bench_simkit  # noqa: E402

N_SIDE, RHO, Y_THREAD, Y_SHEAR, K_PIN, DT = 30, 0.2, 1000.0, 20.0, 1e10, 1.0 / 30
K_BEND = 3e-3 / (2 * 3.0)       # chapter 015's D = 3e-3 N m over 2 c, c about 3 for this grid
TOLERANCE, MAX_ITER = 1e-6, 100
STATES = [1, 3, 6, 10, 15, 20, 25]
GOAL_STEP, GOAL_PROJECTION, GOAL_TINY = 10.0, 20.0, 1.2


def cpu_best(f, calls):
    """Best CPU seconds of `calls` calls after one warm-up; returns (seconds, last result)."""
    out = f()
    best = float("inf")
    for _ in range(calls):
        t = time.process_time()
        out = f()
        best = min(best, time.process_time() - t)
    return best, out


def held_cloth():
    """Chapter 015's held cloth as plain arrays (the upstream worker rebuilds it from them)."""
    V, F = simkit.grid_sheet(N_SIDE, N_SIDE, 1.0, 1.0)
    E, C = simkit.edges(F), simkit.hinge_quads(F)
    spacing = 1.0 / (N_SIDE - 1)
    l0 = simkit.edge_lengths(V, E)
    k = np.where(l0 > 1.2 * spacing, Y_SHEAR, Y_THREAD) * spacing / l0      # EA / l of 015's springs
    corners = np.array([0, 1, N_SIDE, N_SIDE - 1, N_SIDE - 2, 2 * N_SIDE - 1])
    Q, b = simkit.dirichlet_penalty(corners, V[corners], len(V), K_PIN)
    return {"V": V, "E": E, "C": C, "l0": l0.reshape(-1, 1), "k": k.reshape(-1, 1),
            "theta0": simkit.dihedral_angles(V, C), "kappa": simkit.discrete_shells_stiffness(V, C, K_BEND),
            "M": np.asarray(simkit.massmatrix(V, F, rho=RHO).diagonal()).repeat(3),
            "fg": simkit.gravity_force(V, F, rho=RHO).reshape(-1, 1), "Q": sps.csc_matrix(Q), "b": b,
            "M_sparse": sps.kron(simkit.massmatrix(V, F, rho=RHO), sps.eye(3)).tocsc()}


def cloth_callables(p, springs_psd, hinges_psd):
    E, C, k, l0, t0, kap, Q, b, fg = (p[n] for n in ("E", "C", "k", "l0", "theta0", "kappa", "Q", "b", "fg"))

    def energy(x):
        return (en.mass_springs_energy_x(x, E, k, 1.0, l0, dim=3) + en.bending_energy_x(x, C, t0, kap)
                + en.quadratic_energy(x, Q, b) - (fg.T @ x).item())

    def gradient(x):
        return (en.mass_springs_gradient_x(x, E, k, 1.0, l0, dim=3) + en.bending_gradient_x(x, C, t0, kap)
                + en.quadratic_gradient(x, Q, b) - fg)

    def hessian(x):
        return (en.mass_springs_hessian_x(x, E, k, 1.0, l0, psd=springs_psd, dim=3)
                + en.bending_hessian_x(x, C, t0, kap, psd=hinges_psd) + Q)

    return energy, gradient, hessian


def step(p, callables, x_curr, x_prev, tolerance=TOLERANCE, max_iter=MAX_ITER):
    return backward_euler(x_curr, x_prev, *callables, p["M_sparse"], DT, tolerance=tolerance, max_iter=max_iter,
                          return_info=True)


def fall(p, steps):
    """States (x_curr, x_prev) of the released cloth, from simkit's default step (tolerance 1e-9)."""
    callables = cloth_callables(p, True, True)
    x = p["V"].reshape(-1, 1).copy()
    states, x_prev = [], x.copy()
    for _ in range(steps):
        states.append((x, x_prev))
        x_next = step(p, callables, x, x_prev, tolerance=1e-9)[0]
        x_prev, x = x, x_next
    return states


UPSTREAM_STEP_WORKER = r"""
import json, os, sys, tempfile, time, warnings
import numpy as np, scipy.sparse as sps
folder, data, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
link = tempfile.mkdtemp()
os.symlink(os.path.join(folder, "simkit"), os.path.join(link, "simkit"))
sys.path.insert(0, link)
warnings.simplefilter("ignore")
from simkit.energies.mass_springs import mass_springs_energy_x, mass_springs_gradient_x, mass_springs_hessian_x
from simkit.energies.bending_energy import bending_energy_x, bending_gradient_x, bending_hessian_x
from simkit.energies.quadratic import quadratic_energy, quadratic_gradient
from simkit.integrators import backward_euler
d = np.load(data)
E, C, k, l0, t0, kap, b, fg = (d[n] for n in ("E", "C", "k", "l0", "theta0", "kappa", "b", "fg"))
Q = sps.csc_matrix((d["Q_data"], d["Q_indices"], d["Q_indptr"]), shape=(fg.size, fg.size))
M = sps.diags(d["M"]).tocsc()
def energy(x):
    return (mass_springs_energy_x(x.reshape(-1, 3), E, k, np.ones_like(k), l0) + bending_energy_x(x, C, t0, kap)
            + quadratic_energy(x, Q, b) - (fg.T @ x).item())
def gradient(x):
    return (mass_springs_gradient_x(x.reshape(-1, 3), E, k, np.ones_like(k), l0) + bending_gradient_x(x, C, t0, kap)
            + quadratic_gradient(x, Q, b) - fg)
def hessian(x):
    return mass_springs_hessian_x(x.reshape(-1, 3), E, k, np.ones_like(k), l0, psd=True) + bending_hessian_x(
        x, C, t0, kap, psd=True) + Q
out = []
for x_curr, x_prev in zip(d["x_curr"], d["x_prev"]):
    best = float("inf")
    for _ in range(calls):
        t = time.process_time()
        x, info = backward_euler(x_curr.copy(), x_prev.copy(), energy, gradient, hessian, M, float(d["h"]),
                                 tolerance=float(d["tol"]), max_iter=int(d["max_iter"]), return_info=True)
        best = min(best, time.process_time() - t)
    out.append({"seconds": best, "iterations": info["iters"] + 1, "x": x.ravel().tolist()})
print(json.dumps(out))
"""


def upstream_steps(folder, p, states, calls):
    """Upstream simkit 0.1.8's backward_euler on the same cloth and states: [{seconds, iterations, x}]."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "cloth.npz")
        Q = p["Q"]
        np.savez(data, E=p["E"], C=p["C"][:, [2, 0, 1, 3]], k=p["k"], l0=p["l0"], theta0=p["theta0"],
                 kappa=p["kappa"], b=p["b"], fg=p["fg"], M=p["M"], Q_data=Q.data, Q_indices=Q.indices,
                 Q_indptr=Q.indptr, x_curr=np.array([s[0] for s in states]), x_prev=np.array([s[1] for s in states]),
                 h=DT, tol=TOLERANCE, max_iter=MAX_ITER)      # upstream orders a quad (o0, e0, e1, o1)
        out = subprocess.run([sys.executable, "-c", UPSTREAM_STEP_WORKER, folder, data, str(calls)],
                             capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


CONFIGS = {
    "simkit, springs psd=True, hinges psd=True": (True, True),
    "simkit, springs psd=True, hinges psd='exact'": (True, "exact"),
    "simkit, springs psd=False, hinges psd=True": (False, True),
}


def step_table(upstream, quick):
    p = held_cloth()
    states = fall(p, max(STATES) + 1)
    picked = [states[i] for i in (STATES[::2] if quick else STATES)]
    reference = [step(p, cloth_callables(p, True, "exact"), *s, tolerance=1e-11, max_iter=300)[0] for s in picked]
    rows = {}
    for name, (springs_psd, hinges_psd) in CONFIGS.items():
        callables = cloth_callables(p, springs_psd, hinges_psd)
        results = [cpu_best(lambda s=s: step(p, callables, *s), 2) for s in picked]
        rows[name] = {"seconds": [t for t, _ in results], "iterations": [o[1]["iterations"] for _, o in results],
                      "error": max(np.abs(o[0] - r).max() for (_, o), r in zip(results, reference))}
    if upstream:
        up = upstream_steps(upstream, p, picked, 1)
        rows["upstream 0.1.8, springs and hinges psd=True"] = {
            "seconds": [u["seconds"] for u in up], "iterations": [u["iterations"] for u in up],
            "error": max(np.abs(np.array(u["x"]).reshape(-1, 1) - r).max() for u, r in zip(up, reference))}
    print(f"\n1. {N_SIDE}x{N_SIDE} held cloth, one backward-Euler step to ||alpha dx|| < {TOLERANCE:g}, "
          f"{len(picked)} states of the fall (steps {', '.join(str(i) for i in (STATES[::2] if quick else STATES))})")
    print(f"{'configuration':<50}{'ms/step':>9}{'iters/step':>12}{'max |x - x_ref|':>17}{'upstream/this':>15}")
    up_ms = 1e3 * np.mean(rows[next(iter(reversed(rows)))]["seconds"]) if upstream else None
    for name, r in rows.items():
        ms = 1e3 * np.mean(r["seconds"])
        ratio = f"{up_ms / ms:>14.1f}x" if up_ms and not name.startswith("upstream") else f"{'':>15}"
        print(f"{name:<50}{ms:>9.1f}{np.mean(r['iterations']):>12.1f}{r['error']:>17.1e}{ratio}")
    print(f"(per-state iterations: " + "; ".join(f"{n.split(', ', 1)[-1]}: {r['iterations']}" for n, r in rows.items())
          + ")")
    if upstream:
        ratio = up_ms / (1e3 * np.mean(rows[next(iter(rows))]["seconds"]))
        print(f"goal >= {GOAL_STEP:.0f}x upstream with the same final state to 1e-6: "
              f"{'met' if ratio >= GOAL_STEP else 'NOT met'} ({ratio:.1f}x)")


def projection_table(upstream):
    cloth, chain = bench_3d.cloth_problem(), bench_3d.chain_problem(1000)
    x, C, t0, kap = cloth["x"], cloth["C"], cloth["theta0"], cloth["kappa"]
    rows = {psd: bench_simkit.best_of(lambda psd=psd: en.bending_hessian_x(x, C, t0, kap, psd=psd), 5)
            for psd in (True, "exact", False)}
    up = None
    if upstream:
        worker = bench_3d.Upstream(upstream, {"cloth": cloth, "chain": chain})
        up = min(worker.time("cloth", "Hessian psd=True", 2) for _ in range(2))
        worker.close()
    print(f"\n2. 3D hinge Hessian, crumpled {bench_3d.CLOTH}x{bench_3d.CLOTH} grid ({len(C):,d} hinges), ms, wall time "
          "of the best warm call (both sides)")
    for psd, t in rows.items():
        ratio = f"{up / t:>7.1f}x" if up else ""
        print(f"  psd={psd!r:<16}{1e3 * t:>9.1f}{ratio}")
    if up:
        print(f"  upstream psd=True {1e3 * up:>9.1f}   goal >= {GOAL_PROJECTION:.0f}x: "
              f"{'met' if up / rows[True] >= GOAL_PROJECTION else 'NOT met'}")


def solver_table(quick):
    print("\n3. Sparse solves of a cloth Hessian (springs + shells psd=True + pins + M/h^2), CPU ms per solve")
    print(f"{'unknowns':>9}{'nnz':>11}{'SuperLU symm.':>15}{'CHOLMOD':>10}{'CHOLMOD reused':>16}{'spsolve':>10}")
    for m in ((20, 60) if quick else (20, 60, 100, 183)):
        bench_3d.CLOTH = m
        cloth = bench_3d.cloth_problem(m)
        _, _, hessian, M, h = bench_3d.cloth_newton_system(cloth)
        A = (hessian(cloth["x"]) + M / h ** 2).tocsc()
        r = np.random.default_rng(0).standard_normal(A.shape[0])
        calls = 3 if A.shape[0] < 50_000 else 1
        lu = cpu_best(lambda: spla.splu(A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.01,
                                        options={"SymmetricMode": True}).solve(r), calls)[0]
        sp = cpu_best(lambda: spla.spsolve(A, r), 1)[0] if A.shape[0] < 50_000 else float("nan")
        chol = reused = float("nan")
        if solve_module.cvxopt is not None:
            def fresh():
                solve_module._cholesky_patterns.clear()
                return solve_module._cholesky(A).solve(r)
            chol = cpu_best(fresh, calls)[0]
            reused = cpu_best(lambda: solve_module._cholesky(A).solve(r), calls)[0]
        print(f"{A.shape[0]:>9,d}{A.nnz:>11,d}{1e3 * lu:>15.1f}{1e3 * chol:>10.1f}{1e3 * reused:>16.1f}{1e3 * sp:>10.1f}")
    bench_3d.CLOTH = 100
    if solve_module.cvxopt is None:
        print("(cvxopt not installed: the CHOLMOD columns are empty; pip install cvxopt, the 'fast' extra)")


def tiny_table(upstream):
    ours = bench_simkit._small_times(3, {"simkit": simkit})
    with tempfile.TemporaryDirectory() as links:
        theirs = bench_simkit._upstream_small_times(upstream, 3, links) if upstream else None
    print(f"\n4. {bench_simkit.SMALL_SPRINGS}-spring _z calls (chapter 011's cable), CPU us per call")
    for case in ("_z energy", "_z gradient", "_z Hessian (psd)"):
        t = ours[case]["simkit"]
        if theirs:
            u = theirs[case]
            print(f"  {case:<18}{1e6 * t:>8.1f}  upstream {1e6 * u:>8.1f}  simkit/upstream {t / u:>5.2f}"
                  + (f"  goal <= {GOAL_TINY}: {'met' if t / u <= GOAL_TINY else 'NOT met'}" if "Hessian" not in case else ""))
        else:
            print(f"  {case:<18}{1e6 * t:>8.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--upstream", default=os.environ.get("SIMKIT_UPSTREAM"),
                        help="site-packages folder holding upstream simkit (default: $SIMKIT_UPSTREAM)")
    parser.add_argument("--quick", action="store_true", help="fewer states and solver sizes")
    parser.add_argument("--only", choices=["step", "projection", "solver", "tiny"], help="one table only")
    args = parser.parse_args()
    upstream = args.upstream if args.upstream and os.path.isdir(os.path.join(args.upstream, "simkit")) else None
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor()) if os.path.exists("/proc/cpuinfo") else platform.processor()
    print(f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, numpy {np.__version__}, "
          f"scipy {scipy.__version__}, cvxopt {getattr(solve_module.cvxopt, '__version__', 'not installed')}; "
          f"load average {os.getloadavg()[0]:.1f}")
    if not upstream:
        print("note: upstream simkit not given (--upstream or SIMKIT_UPSTREAM); upstream columns skipped")
    tables = {"step": lambda: step_table(upstream, args.quick), "projection": lambda: projection_table(upstream),
              "solver": lambda: solver_table(args.quick), "tiny": lambda: tiny_table(upstream)}
    for name, table in tables.items():
        if args.only in (None, name):
            table()


if __name__ == "__main__":
    main()
