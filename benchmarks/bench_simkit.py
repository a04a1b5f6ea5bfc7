"""Timings of simkit's hot paths at scale; prints tables (no assertions).

Run from the repository root::

    python benchmarks/bench_simkit.py            # 2D chains of 1e3 .. 1e6 nodes + 3D cloth 100x100
    python benchmarks/bench_simkit.py --quick    # chains up to 1e5 only
    python benchmarks/bench_simkit.py --compare-to ce67369 [--upstream DIR] [--rounds 3]

Every figure is the best of several warm calls (the sparsity pattern is already cached); the
"first call" table shows the one-off cost of a connectivity never seen before (pattern build).
Targets on the course's 2-core machine: 1e5 springs' Hessian < 50 ms, 1e5 hinges' bending
Hessian < 100 ms, cost linear in size.

``--compare-to REV`` times the same cases with this tree's simkit and with REV's, taken from a
temporary ``git worktree`` (removed afterwards) and imported in the same process under
another name (``simkit_base``): the calls alternate between the two, so both see the same
machine load and memory, and each figure is the best CPU time (``time.process_time``, which
other jobs on a shared machine do not stretch) of ``--rounds`` x 7 calls. Cases: the
1e5-element Hessians and Backward-Euler step, and the small-system overhead of a 20-spring
``_z`` energy, gradient and Hessian. ``--upstream DIR`` adds upstream simkit 0.1.8 (DIR holds
its ``simkit`` package, e.g. a throw-away venv's site-packages) to the small-system table;
without it that column is skipped.
"""
import argparse
import importlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import scipy
import scipy.sparse as sps

# the repository root, so the script also runs from a checkout where simkit is not installed; a
# --small-worker process times another simkit (upstream's imports itself by its own name)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = sys.argv[sys.argv.index("--small-worker") + 1] if "--small-worker" in sys.argv[:-1] else None
sys.path.insert(0, WORKER or ROOT)

with warnings.catch_warnings():          # upstream warns about its optional extras
    warnings.simplefilter("ignore")
    import simkit  # noqa: E402

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
    from simkit import _assembly
    for cache in (_assembly._dof_patterns, _assembly._element_patterns, _assembly._operators):
        cache.clear()
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def interleaved_times(funcs, repeats, calls=1):
    """CPU time per call of each of `funcs` ({side: f}) in `repeats` rounds: {side: [seconds, ...]}.

    In every round each side runs one batch of `calls` calls, the order alternating between
    rounds, so a side's i-th time and the other's were measured moments apart.
    """
    for f in funcs.values():
        for _ in range(max(1, calls // 10)):
            f()
    times = {side: [] for side in funcs}
    for r in range(repeats):
        for side in (list(funcs) if r % 2 == 0 else list(funcs)[::-1]):
            f = funcs[side]
            t = time.process_time()
            for _ in range(calls):
                f()
            times[side].append((time.process_time() - t) / calls)
    return times


def paired_change(after, before):
    """Median over rounds of after / before - 1: robust to the load of a shared machine drifting."""
    return float(np.median(np.array(after) / np.array(before))) - 1.0


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


def cable_step(c, sk=simkit, h=0.04):
    """One Backward-Euler step (max_iter=1) of a sagging cable: springs + gravity + pins."""
    X, E, l0, ym = c["X"], c["E"], c["l0"], c["ym"]
    n = X.shape[0]
    en = sk.energies
    M = sps.kron(sk.massmatrix(X, E), sps.eye(2)).tocsc()
    f_g = sk.gravity_force(X, E).reshape(-1, 1)
    Q, b = sk.dirichlet_penalty(np.array([0, n - 1]), X[[0, n - 1]], n, 1e5)
    x0 = X.reshape(-1, 1)

    def energy(x):
        return en.mass_springs_energy_x(x, E, ym, 1.0, l0, dim=2) + en.quadratic_energy(x, Q, b) - (f_g.T @ x).item()

    def gradient(x):
        return en.mass_springs_gradient_x(x, E, ym, 1.0, l0, dim=2) + en.quadratic_gradient(x, Q, b) - f_g

    def hessian(x):
        return en.mass_springs_hessian_x(x, E, ym, 1.0, l0, dim=2) + Q

    return lambda: sk.integrators.backward_euler(x0, x0, energy, gradient, hessian, M, h, max_iter=1)


def chain_benchmarks(c, sk=simkit):
    """The timed calls on chain `c`; they bind in this simkit and in the base commit's (``sk``)."""
    x, E, J, l0, ym, C, th0, kap = c["x"], c["E"], c["J"], c["l0"], c["ym"], c["C"], c["theta0"], c["kappa"]
    en = sk.energies
    return {
        "springs Hessian _x": lambda: en.mass_springs_hessian_x(x, E, ym, 1.0, l0, psd=True, dim=2),
        "springs Hessian _z": lambda: en.mass_springs_hessian_z(x, J, ym, 1.0, l0, psd=True),
        "bending gradient": lambda: en.bending_gradient_x(x, C, th0, kap),
        "bending Hessian": lambda: en.bending_hessian_x(x, C, th0, kap),
        "bending Hessian psd": lambda: en.bending_hessian_x(x, C, th0, kap, psd=True),
        "BE step (cable)": cable_step(c, sk),
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


COMPARE_SIZE = 100_000
COMPARE_CASES = ["springs Hessian _x", "springs Hessian _z", "bending Hessian", "bending Hessian psd",
                 "BE step (cable)"]
SMALL_SPRINGS = 20


def small_system(sk):
    """The 20-spring cable of chapter 011 in a sagged state: _z energy, gradient, projected Hessian.

    Only upstream's signatures are used (ym, vol, l0 as (m, 1) columns), so the same calls time
    this tree, an older one and upstream simkit 0.1.8.
    """
    n = SMALL_SPRINGS + 1
    X = np.column_stack([np.linspace(0.0, 4.0, n), np.zeros(n)])
    E = np.column_stack([np.arange(n - 1), np.arange(1, n)])
    J = sps.kron(sk.edge_displacement_jacobian(X, E), sps.eye(2)).tocsc()
    l0 = sk.edge_lengths(X, E).reshape(-1, 1)
    ym, vol = np.full((n - 1, 1), 400.0), np.ones((n - 1, 1))
    x = (X + 0.05 * np.column_stack([np.zeros(n), -np.sin(np.linspace(0.0, np.pi, n))])).reshape(-1, 1)
    en = sk.energies
    return {"_z energy": lambda: en.mass_springs_energy_z(x, J, ym, vol, l0),
            "_z gradient": lambda: en.mass_springs_gradient_z(x, J, ym, vol, l0),
            "_z Hessian (psd)": lambda: en.mass_springs_hessian_z(x, J, ym, vol, l0, psd=True)}


def _small_times(rounds, sides):
    """{case: {side: best CPU seconds per call}} of the small system, the sides interleaved."""
    smalls = {side: small_system(sk) for side, sk in sides.items()}
    return {case: {side: min(t) for side, t in interleaved_times({side: smalls[side][case] for side in sides},
                                                                   7 * rounds,
                                                                   calls=200 if "Hessian" in case else 1000).items()}
            for case in smalls[next(iter(sides))]}


def _import_as(package_dir, name, folder):
    """Import the package in `package_dir` under the module name `name` (through a link in `folder`).

    Only for a package whose modules import each other relatively (simkit here and at older
    commits); upstream's imports itself as ``simkit`` and is timed in a --small-worker process.
    """
    os.symlink(os.path.abspath(package_dir), os.path.join(folder, name))
    if folder not in sys.path:
        sys.path.append(folder)
    return importlib.import_module(name)


def _upstream_small_times(upstream, rounds, links):
    """The small system timed with upstream simkit 0.1.8 in a separate process (None if not found)."""
    package = os.path.join(upstream, "simkit") if upstream else ""
    if not os.path.isfile(os.path.join(package, "__init__.py")):
        return None
    folder = os.path.join(links, "upstream")
    os.makedirs(folder)
    os.symlink(os.path.abspath(package), os.path.join(folder, "simkit"))     # only simkit, none of its neighbours
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--rounds", str(rounds), "--small-worker",
                          folder], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(rev, upstream, rounds):
    """Same-run comparison of this tree against REV (and upstream 0.1.8 on the small system)."""
    base = tempfile.mkdtemp(prefix="simkit-base-")
    links = tempfile.mkdtemp(prefix="simkit-links-")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", base, rev], check=True, capture_output=True)
    try:
        label = subprocess.run(["git", "-C", base, "log", "-1", "--format=%h"], capture_output=True, text=True,
                               check=True).stdout.strip()
        libs = {f"base {label}": _import_as(os.path.join(base, "simkit"), "simkit_base", links), "this tree": simkit}
        c = chain(COMPARE_SIZE)
        cases = {side: chain_benchmarks(c, sk) for side, sk in libs.items()}
        large = {case: interleaved_times({side: cases[side][case] for side in libs}, 7 * rounds)
                 for case in COMPARE_CASES}
        small = _small_times(rounds, libs)
        upstream_small = _upstream_small_times(upstream, rounds, links)
        for case, t in (upstream_small or {}).items():
            small[case]["upstream 0.1.8"] = t
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", base], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(links, ignore_errors=True)

    names = list(libs)
    names_small = names + (["upstream 0.1.8"] if upstream_small else [])
    print(f"\n{COMPARE_SIZE:,d}-element cases, CPU milliseconds per call over {7 * rounds} interleaved rounds: "
          "best of each, and the median change between paired rounds")
    print(f"{'case':<22}{names[0]:>16}{names[1]:>12}{'change':>10}")
    changes = {}
    for case in COMPARE_CASES:
        t0, t1 = large[case][names[0]], large[case][names[1]]
        changes[case] = paired_change(t1, t0)
        print(f"{case:<22}{1e3 * min(t0):>16.2f}{1e3 * min(t1):>12.2f}{100 * changes[case]:>+9.1f}%")
    worst = max(changes.values())
    print(f"largest change: {100 * worst:+.1f}% ({'within' if worst <= 0.05 else 'OVER'} the 5% budget)")

    print(f"\n{SMALL_SPRINGS}-spring _z calls, best CPU time per call of {7 * rounds} interleaved batches, "
          "microseconds")
    print(f"{'call':<20}" + "".join(f"{name:>16}" for name in names_small))
    for case, row in small.items():
        print(f"{case:<20}" + "".join(f"{1e6 * row[name]:>16.1f}" for name in names_small))
    if upstream_small:
        print("(upstream is timed in its own process right after, not interleaved)")
    else:
        print("(upstream simkit 0.1.8 not timed: pass --upstream DIR, DIR holding its simkit package)")


def main():
    if WORKER:
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1])
        print(json.dumps({case: row["worker"] for case, row in _small_times(rounds, {"worker": simkit}).items()}))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="chains up to 1e5 nodes only")
    parser.add_argument("--compare-to", metavar="REV", help="same-run comparison with git revision REV")
    parser.add_argument("--upstream", metavar="DIR", help="folder holding upstream simkit 0.1.8's package")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of 7 interleaved calls (default 3)")
    args = parser.parse_args()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor()) if os.path.exists("/proc/cpuinfo") else platform.processor()
    print(f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, "
          f"numpy {np.__version__}, scipy {scipy.__version__}")
    if args.compare_to:
        compare(args.compare_to, args.upstream, args.rounds)
        return
    sizes = SIZES[:3] if args.quick else SIZES

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
        t = best_of(lambda: simkit.energies.discrete_shells_bending_hessian(x, C, theta0, kappa, psd=psd), 5)
        print(f"{'Hessian psd=' + str(psd):<{width}}{1e3 * t:>12.2f}")
    t = best_of(lambda: simkit.energies.discrete_shells_bending_gradient(x, C, theta0, kappa), 5)
    print(f"{'gradient':<{width}}{1e3 * t:>12.2f}")

    if 100_000 in sizes:
        verdicts = [f"{name} {1e3 * warm[name][100_000]:.1f} ms (< {limit:.0f})" for name, limit in TARGETS_MS.items()]
        met = all(1e3 * warm[name][100_000] < limit for name, limit in TARGETS_MS.items())
        print(f"\ntargets at 1e5: {'met' if met else 'NOT met'}: " + "; ".join(verdicts))


if __name__ == "__main__":
    main()
