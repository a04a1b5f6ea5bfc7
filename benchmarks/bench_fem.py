"""Timings of simkit's finite elements against upstream simkit 0.1.8, and their cost per element.

Run from the repository root, in the project's environment::

    python benchmarks/bench_fem.py                                  # simkit only
    python benchmarks/bench_fem.py --upstream /tmp/upstream/lib/python3.11/site-packages
    SIMKIT_UPSTREAM=/tmp/upstream/lib/python3.11/site-packages python benchmarks/bench_fem.py

Tables (best of several warm calls, milliseconds; no assertions):

1. The issue's meshes: 34,992 tetrahedra (``grid_box`` of 18^3 cubes) and 39,200 triangles
   (``grid_rectangle`` of 140^2 squares), deformed by a fixed affine map plus random node
   noise (no element inverted); ``elastic_gradient_x`` and ``elastic_hessian_x`` with
   ``psd=False`` / ``psd=True`` for neo-Hookean and ARAP, each against upstream's function of
   the same name on the same arrays (upstream builds its own J and vol from the same mesh).
2. Cost per element of the neo-Hookean kernels from 1e3 to 1e6 triangles and 1e3 to 2e5
   tetrahedra (the largest size timed once).

Upstream (never a dependency) runs in a worker subprocess of this interpreter that imports only
upstream's ``simkit`` package from the given site-packages folder; simkit and upstream alternate
in blocks of warm calls so that both sample the same machine load; the ratio column is
upstream / simkit. Without the folder the upstream columns are skipped with a note.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import simkit  # noqa: E402
from simkit import energies as en  # noqa: E402
import _upstream  # noqa: E402  (same folder)
from bench_simkit import best_of  # noqa: E402

MATERIALS = ("neo-hookean", "arap")
KERNELS = ("gradient", "Hessian psd=False", "Hessian psd=True")
RATIO_GOALS = {"gradient": 3.0, "Hessian psd=False": 10.0, "Hessian psd=True": 8.0}
MU, LAM = 1.0, 5.0


def deformed(X, T, h, seed=0):
    """X under a fixed affine map plus node noise of 8% of a cell; asserts no element inverted."""
    rng = np.random.default_rng(seed)
    d = X.shape[1]
    A = np.eye(d) + 0.1 * np.triu(np.ones((d, d)), 1) + np.diag(np.linspace(0.1, -0.1, d))
    x = X @ A.T + 0.08 * h * rng.standard_normal(X.shape)
    J = simkit.deformation_jacobian(X, T)
    F = (J @ x.reshape(-1, 1)).reshape(len(T), d, d)
    assert np.linalg.det(F).min() > 0, "a benchmark mesh must not be inverted"
    return x


def problems():
    X3, T3 = simkit.grid_box(19, 19, 19)
    X2, T2 = simkit.grid_rectangle(141, 141)
    return {"tets": {"X": X3, "T": T3, "x": deformed(X3, T3, 1 / 18)},
            "triangles": {"X": X2, "T": T2, "x": deformed(X2, T2, 1 / 140)}}


def kernels(p, material):
    X, T, x = p["X"], p["T"], p["x"]
    J, vol = simkit.deformation_jacobian(X, T), simkit.volume(X, T)
    mu, lam = np.full((len(T), 1), MU), np.full((len(T), 1), LAM)
    return {
        "energy": lambda: en.elastic_energy_x(x, J, mu, lam, vol, material),
        "gradient": lambda: en.elastic_gradient_x(x, J, mu, lam, vol, material),
        "Hessian psd=False": lambda: en.elastic_hessian_x(x, J, mu, lam, vol, material, psd=False),
        "Hessian psd=True": lambda: en.elastic_hessian_x(x, J, mu, lam, vol, material, psd=True),
    }


# the worker's body (benchmarks/_upstream.py): upstream's functions of the same names, its own J and vol
UPSTREAM_BODY = r"""
from simkit.deformation_jacobian import deformation_jacobian
from simkit.volume import volume
from simkit.energies.elastic import elastic_energy_x, elastic_gradient_x, elastic_hessian_x
for name in ("tets", "triangles"):
    X, T, x = d[name + "_X"], d[name + "_T"], d[name + "_x"]
    J, vol = deformation_jacobian(X, T), volume(X, T)
    mu, lam = np.full((len(T), 1), d["mu"]), np.full((len(T), 1), d["lam"])
    for m in ("neo-hookean", "arap"):
        kernels[name + "|" + m] = {
            "gradient": lambda x=x, J=J, mu=mu, lam=lam, vol=vol, m=m: elastic_gradient_x(x, J, mu, lam, vol, m),
            "Hessian psd=False": lambda x=x, J=J, mu=mu, lam=lam, vol=vol, m=m:
                elastic_hessian_x(x, J, mu, lam, vol, m, psd=False),
            "Hessian psd=True": lambda x=x, J=J, mu=mu, lam=lam, vol=vol, m=m:
                elastic_hessian_x(x, J, mu, lam, vol, m, psd=True)}
        energies[name + "|" + m] = float(elastic_energy_x(x, J, mu, lam, vol, m))
"""


def start_upstream(folder, probs):
    arrays = {"mu": MU, "lam": LAM}
    for name, p in probs.items():
        arrays.update({name + "_X": p["X"], name + "_T": p["T"], name + "_x": p["x"]})
    return _upstream.start(folder, UPSTREAM_BODY, arrays)


def interleaved(probs, repeats, upstream, blocks=4):
    """Best-of timings of simkit and (if given) upstream, alternating `blocks` blocks of warm calls."""
    ours, theirs, energies = {}, {}, {}
    for name, p in probs.items():
        for m in MATERIALS:
            ks = kernels(p, m)
            energies[name, m] = ks["energy"]()
            for kernel in KERNELS:
                calls = repeats if kernel == "gradient" else max(3, repeats // 2)
                t_ours, t_up = [], []
                for _ in range(blocks):
                    t_ours.append(best_of(ks[kernel], calls))
                    if upstream:
                        t_up.append(upstream.time(f"{name}|{m}", kernel, calls + 1))
                ours[name, m, kernel] = min(t_ours)
                if upstream:
                    theirs[name, m, kernel] = min(t_up)
    return ours, theirs, energies


def print_ratio_table(probs, ours, theirs, energies, upstream_energies):
    for name, p in probs.items():
        print(f"\n{name}: {len(p['T']):,d} elements, {len(p['X']):,d} nodes; milliseconds, best of warm calls")
        header = f"{'material':<14}{'kernel':<20}{'simkit':>10}{'upstream':>10}{'ratio':>8}  goal"
        print(header)
        print("-" * (len(header) + 12))
        for m in MATERIALS:
            for kernel in KERNELS:
                t, up = ours[name, m, kernel], theirs.get((name, m, kernel))
                row = f"{m:<14}{kernel:<20}{1e3 * t:>10.1f}"
                if up:
                    ratio = up / t
                    verdict = "met" if ratio >= RATIO_GOALS[kernel] else "NOT met"
                    row += f"{1e3 * up:>10.1f}{ratio:>7.1f}x  >= {RATIO_GOALS[kernel]:.0f}x: {verdict}"
                print(row)
            if upstream_energies:
                print(f"{'':<14}(energy: simkit {energies[name, m]:.10g}, upstream "
                      f"{upstream_energies[name + '|' + m]:.10g})")


def scaling_table(max_triangles=1_000_000, max_tets=200_000):
    print("\nneo-Hookean cost per element (microseconds per element, best of warm calls; the largest timed once)")
    header = f"{'mesh':<11}{'elements':>10}{'gradient':>10}{'Hessian':>10}{'psd=True':>10}"
    print(header)
    print("-" * len(header))
    sizes = {"triangles": [1_000, 10_000, 100_000, max_triangles], "tets": [1_000, 10_000, 100_000, max_tets]}
    for mesh, targets in sizes.items():
        for target in targets:
            if mesh == "triangles":
                m = int(round(np.sqrt(target / 2)))
                X, T = simkit.grid_rectangle(m + 1, m + 1)
            else:
                m = int(round((target / 6) ** (1 / 3)))
                X, T = simkit.grid_box(m + 1, m + 1, m + 1)
            x = deformed(X, T, 1 / m)
            ks = kernels({"X": X, "T": T, "x": x}, "neo-hookean")
            calls = 1 if target == targets[-1] else 3
            times = [best_of(ks[k], calls) for k in KERNELS]
            print(f"{mesh:<11}{len(T):>10,d}" + "".join(f"{1e6 * t / len(T):>10.2f}" for t in times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    _upstream.add_upstream_argument(parser)
    parser.add_argument("--repeats", type=int, default=5, help="warm calls per figure (best is reported)")
    parser.add_argument("--no-scaling", action="store_true", help="skip the cost-per-element table")
    args = parser.parse_args()
    _upstream.print_machine()
    probs = problems()
    upstream = start_upstream(args.upstream, probs)
    ours, theirs, energies = interleaved(probs, args.repeats, upstream)
    if upstream:
        upstream.close()
        print("(simkit and upstream alternate in blocks of warm calls, so both sample the same machine load)")
    print_ratio_table(probs, ours, theirs, energies, upstream.energies if upstream else None)
    if not args.no_scaling:
        scaling_table()


if __name__ == "__main__":
    main()
