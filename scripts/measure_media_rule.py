"""Measure what the media rule must tell apart: round-off renderings vs. the smallest visible change.

``python scripts/measure_media_rule.py [--chapters 011 014 015 016 017] [--variants ...] [--jobs 2]``

Each chapter is executed (nbclient, as the build does) once per variant into a private folder
under ``/tmp/measure-media/``, and every file it writes is compared, by decoded content,
with the file of the same name in ``media/``. Round-off variants: a plain rerun, every
Newton step and explicit step perturbed at 1e-12 relative, other OpenBLAS kernels, one
BLAS thread, numpy without its AVX2 dispatch. Visible-change variants: a 1 % change of a
chapter parameter. For each file it prints the worst frame's fraction of pixels without a
look-alike (``media_rule.differing_fraction``) for a few shifts and levels. The numbers behind
``course/filesystem/media_rule.py``'s constants are in ``benchmarks/README.md``, "Media identity".
"""
import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
from course.filesystem import media_rule  # noqa: E402
from bookbuild.chapters import execute  # noqa: E402
from course.filesystem import find_encoder  # noqa: E402

SETTINGS = [(0, 32), (1, 32), (1, 64)]      # (shift, level) of `media_rule.differing_fraction`
PERTURB = '''import sys as _sys
import numpy as _np
import simkit.integrators as _integrators
import simkit.solvers.newton_solver
_newton = _sys.modules["simkit.solvers.newton_solver"]   # the attribute is the function of that name
_rng, _solve, _forward = _np.random.default_rng(0), _newton._solve, _integrators.forward_euler
def _perturbed_solve(H, rhs):
    u = _solve(H, rhs)
    return u * (1 + 1e-12 * _rng.standard_normal(u.shape))
def _perturbed_forward(*args, **kwargs):
    x, v = _forward(*args, **kwargs)
    return x * (1 + 1e-12 * _rng.standard_normal(x.shape)), v
_newton._solve, _integrators.forward_euler = _perturbed_solve, _perturbed_forward
'''
# a 1 % change of one parameter per chapter (source text -> replacement)
PARAMETER = {
    "011": [("K_SPRING = 1.0 ", "K_SPRING = 1.01 "), ("K_CABLE = 400.0", "K_CABLE = 404.0")],
    "014": [("EI_DEFAULT = 50.0", "EI_DEFAULT = 50.5")],
    "015": [("L, EA, EI, RHO_LINE = 4.0, 2.0e4, 50.0,", "L, EA, EI, RHO_LINE = 4.0, 2.0e4, 50.5,"),   # the strip
            ("D_CLOTH = 3e-3 ", "D_CLOTH = 3.03e-3 "), ("D_SWEEP = [3e-3,", "D_SWEEP = [3.03e-3,")],  # the cloth
    "016": [("SOFT_E, SOFT_NU, SOFT_RHO = 2.0e4,", "SOFT_E, SOFT_NU, SOFT_RHO = 2.02e4,")],
    "017": [("GRAVITY = 9.8 ", "GRAVITY = 9.898 ")],   # Y_BODY +1 %: stiff blocks barely deform (stack 8.3e-5)
}
VARIANTS = {        # name: (environment, edit of the notebook)
    "rerun": ({}, None),
    "perturbed-1e-12": ({}, "perturb"),
    "openblas-Haswell": ({"OPENBLAS_CORETYPE": "Haswell"}, None),
    "openblas-SandyBridge": ({"OPENBLAS_CORETYPE": "SandyBridge"}, None),
    "openblas-1-thread": ({"OPENBLAS_NUM_THREADS": "1"}, None),
    "numpy-no-avx2": ({"NPY_DISABLE_CPU_FEATURES": "X86_V3"}, None),
    "parameter+1%": ({}, "parameter"),
}


def notebook(chapter, edit):
    path = next((ROOT / "book").glob(f"{chapter}_*.ipynb"))
    nb = nbformat.read(path, as_version=4)
    if edit == "perturb":
        first = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
        nb.cells.insert(first + 1, nbformat.v4.new_code_cell(PERTURB))
    elif edit == "parameter":
        for old, new in PARAMETER[chapter]:
            cell = next(c for c in nb.cells if c.cell_type == "code" and old in c.source)
            cell.source = cell.source.replace(old, new)
    return path, nb


def metrics(new, old, ffmpeg):
    """Worst fraction of pixels without a look-alike, {"shift s level l": value}, for each shift and level."""
    if new.read_bytes() == old.read_bytes():
        return {"bytes": "same"}
    pairs = ([(media_rule.read_png(new)[None, ..., :3], media_rule.read_png(old)[None, ..., :3])]
             if new.suffix == ".png" else media_rule.frame_pairs(new, old, ffmpeg))
    worst = {}
    try:
        for a, b in pairs:
            if a.shape != b.shape:
                return {"bytes": "size differs"}
            for shift, level in SETTINGS:
                key = f"shift {shift} level {level}"
                worst[key] = max(worst.get(key, 0.0), float(media_rule.differing_fraction(a, b, level, shift).max()))
    except media_rule.FramesDiffer as err:
        return {"bytes": str(err)}
    return {"bytes": "differ", **worst}


async def run(chapter, variant, out, slots, timeout):
    env_extra, edit = VARIANTS[variant]
    path, nb = notebook(chapter, edit)
    media, results = out / variant / chapter / "media", out / variant / chapter / "results"
    media.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, SIMKIT_MEDIA_DIR=str(media), SIMKIT_RESULTS_DIR=str(results),
               MPLBACKEND="Agg", PYTHONPATH=str(ROOT), **env_extra)
    async with slots:
        with tempfile.TemporaryDirectory(prefix="measure-kernel-") as sockets:
            print(f"running {chapter} {variant}", flush=True)
            await execute(nb, path, timeout, sockets, env)
    nbformat.write(nb, media.parent / path.name)          # what it printed, next to what it drew
    return media


async def main_async(args):
    out = Path(args.out)
    slots = asyncio.Semaphore(args.jobs)
    jobs = [(c, v) for v in args.variants for c in args.chapters]
    folders = await asyncio.gather(*(run(c, v, out, slots, 600) for c, v in jobs))
    ffmpeg = find_encoder().exe
    table = {}
    for (chapter, variant), media in zip(jobs, folders):
        for new in sorted(media.iterdir()):
            table[f"{variant} {new.name}"] = row = metrics(new, ROOT / "media" / new.name, ffmpeg)
            print(f"{variant:22s} {new.name:32s} {row['bytes']:6s} "
                  + " ".join(f"{key} {value:.1e}" for key, value in row.items() if key != "bytes"), flush=True)
    (out / "table.json").write_text(json.dumps(table, indent=1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chapters", nargs="+", default=list(PARAMETER), choices=list(PARAMETER))
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "measure-media"))
    args = parser.parse_args()
    print("columns: bytes, then the worst frame's fraction of pixels without a look-alike, by (shift, level)")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
