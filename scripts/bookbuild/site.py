"""Building the site with Jupyter Book and swapping it in only when the strict build succeeded.

The chapters' executed notebooks are already in the jupyter-cache that myst-nb reads
(``_config.yml``), so ``jb build`` renders them without executing anything itself.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .tree import STAGING, BuildError, signals_deferred

SITE_PARTS = ["html", ".doctrees", "jupyter_execute"]     # what `jb build` writes into _build


def build_site(tree):
    """Strict Sphinx build of the site (warnings fail it) in a staging folder, swapped in on success.

    The staging folder starts as a copy of the current build (modification times kept), so
    Sphinx rewrites only what changed; all pages after a new execution or a failed build.
    A failed build leaves ``_build/html`` as it was.
    """
    build = tree.build
    full = not tree.site_stamp.exists()
    print("building the site" + (" (all pages)" if full else ""), flush=True)
    tree.site_stamp.unlink(missing_ok=True)
    # a fixed path (the lock makes it ours): Sphinx and myst-nb re-read every notebook when it moves
    stage = build / f"{STAGING}site"
    shutil.rmtree(stage, ignore_errors=True)
    try:
        staged = stage / "_build"
        staged.mkdir(parents=True)
        for part in SITE_PARTS if not full else []:
            if (build / part).is_dir():
                shutil.copytree(build / part, staged / part, symlinks=True)
        jb = Path(sys.executable).with_name("jb")
        cmd = [str(jb), "build", str(tree.root), "--path-output", str(stage), "--warningiserror", "--nitpick",
               "--keep-going", "--quiet"]
        if full:
            cmd.append("--all")
        # stdout only carries jb's banner, which names the staging folder; warnings go to stderr
        result = subprocess.run(cmd, cwd=tree.root, stdout=subprocess.PIPE, text=True)
        if result.returncode != 0:
            print(result.stdout)
            raise BuildError(f"the site build failed (exit code {result.returncode}); see the warnings above. "
                             "The published site in _build/html was left as it was.")
        with signals_deferred():
            for part in SITE_PARTS:
                if (staged / part).exists():
                    if (build / part).exists():
                        os.rename(build / part, stage / f"previous{part}")
                    os.rename(staged / part, build / part)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    tree.site_stamp.touch()
