"""Timings of simkit's hot paths at scale; prints a table (no assertions).

Run from the repository root::

    python benchmarks/bench_simkit.py            # 2D chains of 1e3 .. 1e6 nodes + 3D cloth 100x100
    python benchmarks/bench_simkit.py --quick    # chains up to 1e5 only

Every figure is the best of several warm calls (the sparsity pattern is already cached); the
"first call" table shows the one-off cost of a connectivity never seen before (pattern build).
Targets on the course's 2-core machine: 1e5 springs' Hessian < 50 ms, 1e5 hinges' bending
Hessian < 100 ms, cost linear in size.
"""
import argparse
import os
import platform
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sps

# the repository root, so the script also runs from a checkout where simkit is not installed
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import simkit  # noqa: E402
from simkit import _assembly  # noqa: E402
from simkit import energies as en  # noqa: E402

SIZES = [1_000, 10_000, 100_000, 1_000_000]
CLOTH = 100
TARGETS_MS = {"springs Hessian _x": 50.0, "springs Hessian _z": 50.0,
              "bending Hessian": 100.0, "bending Hessian psd": 100.0}


def best_of(f, repeats):
    """Best wall time of `repeats` calls (seconds), after one warm-up call."""
    f()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def first_call(f):
    """Wall time of one call with every cached sparsity pattern dropped (seconds)."""
    for cache in (_assembly._dof_patterns, _assembly._element_patterns, _assembly._operators):
        cache.clear()
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def chain(n):
    """A 2D chain of n nodes in a bent, stretched and compressed state, with its operators."""
    s = np.linspace(0.0, 1.0, n)
    X = np.column_stack([4.0 * s, np.zeros(n)])
    E = np.column_stack([np.arange(n - 1), np.arange(1, n)])
    C = np.column_stack([np.arange(n - 2), np.arange(1, n - 1), np.arange(2, n)])
    l0 = simkit.edge_lengths(X, E)
    wiggle = np.column_stack([4.0 * s + 0.3 * l0.mean() * np.sin(37.0 * s),
                              0.2 * np.sin(3 * np.pi * s) + 0.5 * l0.mean() * np.sin(1.7 * np.arange(n))])
    return {"X": X, "E": E, "C": C, "l0": l0, "x": wiggle.reshape(-1, 1),
            "J": sps.kron(simkit.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc(),
            "theta0": simkit.dihedral_angles(X, C), "kappa": np.full(n - 2, 50.0), "ym": np.full(n - 1, 400.0)}


def cable_step(c, h=0.04):
    """One Backward-Euler step (max_iter=1) of a sagging cable: springs + gravity + pins."""
    X, E, l0, ym = c["X"], c["E"], c["l0"], c["ym"]
    n = X.shape[0]
    M = sps.kron(simkit.massmatrix(X, E), sps.eye(2)).tocsc()
    f_g = simkit.gravity_force(X, E).reshape(-1, 1)
    Q, b = simkit.dirichlet_penalty(np.array([0, n - 1]), X[[0, n - 1]], n, 1e5)
    x0 = X.reshape(-1, 1)

    def energy(x):
        return en.mass_springs_energy_x(x, E, ym, 1.0, l0) + en.quadratic_energy(x, Q, b) - (f_g.T @ x).item()

    def gradient(x):
        return en.mass_springs_gradient_x(x, E, ym, 1.0, l0) + en.quadratic_gradient(x, Q, b) - f_g

    def hessian(x):
        return en.mass_springs_hessian_x(x, E, ym, 1.0, l0) + Q

    return lambda: simkit.integrators.backward_euler(x0, x0, energy, gradient, hessian, M, h, max_iter=1)


def chain_benchmarks(c):
    x, E, J, l0, ym, C, th0, kap = c["x"], c["E"], c["J"], c["l0"], c["ym"], c["C"], c["theta0"], c["kappa"]
    return {
        "springs Hessian _x": lambda: en.mass_springs_hessian_x(x, E, ym, 1.0, l0),
        "springs Hessian _z": lambda: en.mass_springs_hessian_z(x, J, ym, 1.0, l0),
        "bending gradient": lambda: en.bending_gradient_x(x, C, th0, kap),
        "bending Hessian": lambda: en.bending_hessian_x(x, C, th0, kap),
        "bending Hessian psd": lambda: en.bending_hessian_x(x, C, th0, kap, psd=True),
        "BE step (cable)": cable_step(c),
    }


def cloth(m):
    """An m x m cloth grid (triangles (a, b, c), (a, c, d) per cell) waved in z, and its interior-edge hinges."""
    u, v = np.meshgrid(np.linspace(0, 1, m), np.linspace(0, 1, m), indexing="ij")
    idx = np.arange(m * m).reshape(m, m)
    X = np.column_stack([u.ravel(), v.ravel(), np.zeros(m * m)])
    a, b, c, d = idx[:-1, :-1].ravel(), idx[1:, :-1].ravel(), idx[1:, 1:].ravel(), idx[:-1, 1:].ravel()
    p = idx[:-1, 1:-1].ravel()                      # edges (i, j)-(i+1, j) between two cells
    q = idx[1:-1, :-1].ravel()                      # edges (i, j)-(i, j+1) between two cells
    hinges = [np.column_stack([b, a, c, d]),        # cell diagonals (a, c), triangles (a, b, c), (a, c, d)
              np.column_stack([p + m + 1, p, p + m, p - 1]),
              np.column_stack([q + m + 1, q, q + 1, q - m])]
    C = np.vstack(hinges)
    x = X.copy()
    x[:, 2] = 0.05 * np.sin(6 * u.ravel()) * np.cos(5 * v.ravel())
    return x.reshape(-1, 1), C, simkit.dihedral_angles(X, C), np.full(len(C), 1.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="chains up to 1e5 nodes only")
    args = parser.parse_args()
    sizes = SIZES[:3] if args.quick else SIZES

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor()) if os.path.exists("/proc/cpuinfo") else platform.processor()
    print(f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, "
          f"numpy {np.__version__}, scipy {scipy.__version__}")

    warm, cold = {}, {}
    for n in sizes:
        c = chain(n)
        repeats = 7 if n <= 100_000 else 3
        for name, f in chain_benchmarks(c).items():
            if name.startswith(("springs", "bending Hessian")):
                cold.setdefault(name, {})[n] = first_call(f)
            warm.setdefault(name, {})[n] = best_of(f, repeats)

    width = 22
    header = f"{'2D chain, nodes':<{width}}" + "".join(f"{n:>12,d}" for n in sizes) + f"{'target':>10}"
    print("\nbest of several warm calls, milliseconds")
    print(header)
    print("-" * len(header))
    for name, row in warm.items():
        target = f"< {TARGETS_MS[name]:.0f} @1e5" if name in TARGETS_MS else ""
        print(f"{name:<{width}}" + "".join(f"{1e3 * row[n]:>12.2f}" for n in sizes) + f"{target:>10}")
    print("\nsame, nanoseconds per node (flat = linear cost)")
    print(header[:-10])
    for name, row in warm.items():
        print(f"{name:<{width}}" + "".join(f"{1e9 * row[n] / n:>12.0f}" for n in sizes))
    print("\nfirst call on a new connectivity (builds and caches the sparsity pattern), milliseconds")
    for name, row in cold.items():
        print(f"{name:<{width}}" + "".join(f"{1e3 * row[n]:>12.2f}" for n in sizes))

    x, C, theta0, kappa = cloth(CLOTH)
    print(f"\n3D cloth {CLOTH}x{CLOTH} nodes, {len(C):,d} hinges: discrete-shells bending, milliseconds")
    for psd in (False, True):
        t = best_of(lambda: en.discrete_shells_bending_hessian(x, C, theta0, kappa, psd=psd), 5)
        print(f"{'Hessian psd=' + str(psd):<{width}}{1e3 * t:>12.2f}")
    t = best_of(lambda: en.discrete_shells_bending_gradient(x, C, theta0, kappa), 5)
    print(f"{'gradient':<{width}}{1e3 * t:>12.2f}")

    if 100_000 in sizes:
        verdicts = [f"{name} {1e3 * warm[name][100_000]:.1f} ms (< {limit:.0f})" for name, limit in TARGETS_MS.items()]
        met = all(1e3 * warm[name][100_000] < limit for name, limit in TARGETS_MS.items())
        print(f"\ntargets at 1e5: {'met' if met else 'NOT met'}: " + "; ".join(verdicts))


if __name__ == "__main__":
    main()
