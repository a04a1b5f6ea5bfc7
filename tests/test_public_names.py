"""Findable names: every public function is written out as a def, and the course uses only public simkit names."""
import ast
import inspect
from pathlib import Path

import pytest

import simkit
import simkit.mpm
from simkit import _validate, checks

ROOT = Path(__file__).resolve().parent.parent
MODULES = [simkit, simkit.energies, simkit.integrators, simkit.solvers, simkit.terms, simkit.checks, simkit.contact,
           simkit.mpm]


def _public_functions():
    for module in MODULES:
        for name in getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")]):
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield f"{module.__name__}.{name}", name, obj


@pytest.mark.parametrize("qualified, name, func", list(_public_functions()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_public_function_is_a_def_of_its_own_name(qualified, name, func):
    assert func.__name__ == name, qualified
    source = Path(inspect.getsourcefile(func)).read_text()
    assert f"\ndef {name}(" in source, f"{qualified}: no 'def {name}(' in {inspect.getsourcefile(func)}"
    assert func.__doc__ and len(func.__doc__.strip()) > 20, f"{qualified}: no docstring"


def test_there_are_many_and_the_generated_tiers_are_among_them():
    names = {name for _, name, _ in _public_functions()}
    assert {"neo_hookean_hessian_x", "arap_energy_element_F", "stable_neo_hookean_gradient_x"} <= names
    assert len(names) > 120


def test_the_public_checks_are_the_library_own():
    for name in ("finite_array", "positions", "index_array", "index_vector", "element_values", "element_param",
                 "real_scalar", "positive_scalar", "integer"):
        assert getattr(_validate, name) is getattr(checks, name)


def _simkit_imports(path):
    """(module, name) of every ``from simkit... import name`` and ``import simkit...`` in a file."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "simkit":
            yield from ((node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from ((alias.name, "") for alias in node.names if alias.name.split(".")[0] == "simkit")


@pytest.mark.parametrize("path", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "course").glob("*.py")))
def test_the_course_imports_only_public_simkit_names(path):
    private = [f"{module}.{name}".rstrip(".") for module, name in _simkit_imports(ROOT / path)
               if any(part.startswith("_") for part in module.split(".") + [name] if part)]
    assert private == [], f"{path} imports private simkit names"
