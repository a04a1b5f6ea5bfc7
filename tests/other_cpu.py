"""Run pytest as another CPU computes: ``python tests/other_cpu.py [pytest arguments]``.

Round-off differs between CPUs. numpy dispatches its float64 loops (exp, log, sin, reductions)
to the widest SIMD level the CPU has (``X86_V4`` is AVX-512, ``X86_V3`` AVX2), and OpenBLAS picks
a kernel for the CPU. This runner turns off the widest level this CPU uses, with every target
above it, and picks another OpenBLAS kernel: an AVX-512 machine then computes what an AVX2-only
one does, and an AVX2 machine what an older one does. It checks that the setting took effect,
then runs pytest in it. `make test` runs the tests marked ``roundoff`` this way, after the suite.
"""
import os
import platform
import subprocess
import sys

from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

LEVELS = ("X86_V3", "X86_V4")          # numpy's x86-64 micro-architecture levels, in dispatch order


def disabled_targets(dispatch=__cpu_dispatch__, features=__cpu_features__):
    """numpy dispatch targets to turn off: the widest level this CPU runs, and all targets after it.

    Parameters
    ----------
    dispatch : list of str
        numpy's dispatch targets, narrowest first (``__cpu_dispatch__``).
    features : dict of str to bool
        What this CPU supports (``__cpu_features__``).

    Returns
    -------
    targets : list of str
        Empty on a CPU that runs none of the levels (numpy's baseline only, or not x86-64).
    """
    running = [t for t in LEVELS if t in dispatch and features.get(t)]
    if not running:
        return []
    return [t for t in dispatch[dispatch.index(running[-1]):] if features.get(t)]


def other_environment(environ=os.environ):
    """A copy of `environ` in which numpy and OpenBLAS compute as another CPU would."""
    env = dict(environ)
    targets = disabled_targets()
    if targets:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(targets)
    if platform.machine() in ("x86_64", "AMD64"):
        # OpenBLAS's default on an AVX-512 CPU is SkylakeX, on an AVX2 one Haswell (or Zen)
        env["OPENBLAS_CORETYPE"] = "Haswell" if "X86_V4" in targets else "SandyBridge"
    return env


def check(env):
    """Raise RuntimeError unless numpy, started in `env`, runs none of the disabled targets."""
    targets = env.get("NPY_DISABLE_CPU_FEATURES", "").split()
    probe = ("from numpy._core._multiarray_umath import __cpu_features__ as f; "
             f"print(' '.join(t for t in {targets!r} if f.get(t)))")
    still = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    if still.stdout.strip() or still.stderr.strip():
        raise RuntimeError(f"NPY_DISABLE_CPU_FEATURES={' '.join(targets)!r} did not take effect: "
                           f"{still.stdout.strip() or still.stderr.strip()}")


def main(args):
    env = other_environment()
    check(env)
    print(f"other CPU: NPY_DISABLE_CPU_FEATURES={env.get('NPY_DISABLE_CPU_FEATURES', '')!r} "
          f"OPENBLAS_CORETYPE={env.get('OPENBLAS_CORETYPE', '')!r}", flush=True)
    os.execve(sys.executable, [sys.executable, "-m", "pytest", *args], env)


if __name__ == "__main__":
    main(sys.argv[1:])
