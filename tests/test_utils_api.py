"""utils as a facade: every public name of every course module is exported by utils and documented
on its concern's API page; utils.py stays short and no course module grows past its concern."""
import ast
import re

import pytest

import utils
from conftest import ROOT

COURSE = ROOT / "course"
MODULES = sorted(p.stem for p in COURSE.glob("*.py") if not p.stem.startswith("_"))
DIRECTIVE = re.compile(r"^\.\. (?:auto(?:function|class|data)|py:class)::\s+(?:utils\.)?(\w+)", re.M)
FACADE_LINES = 150          # issue 20: utils.py a facade of at most about 150 lines
MODULE_LINES = 600          # ... and no module over about 600 lines


def public_names(module):
    """Names a course module defines at top level (functions, classes, assigned constants), not private."""
    tree = ast.parse((COURSE / f"{module}.py").read_text())
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    return [n for n in names if not n.startswith("_")]


def test_the_course_modules_are_the_concerns():
    assert {"publish", "style", "plots2d", "anim2d", "mesh3d", "viewer"} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_every_public_name_is_exported_by_utils_and_documented_on_its_page(module):
    page = ROOT / "book" / "api" / f"utils_{module}.md"
    assert page.is_file(), f"course/{module}.py has no API page: add book/api/{page.name} (and its _toc.yml entry)"
    documented = DIRECTIVE.findall(page.read_text())
    course_module = __import__(f"course.{module}", fromlist=["_"])
    for name in public_names(module):
        assert getattr(utils, name, None) is getattr(course_module, name), f"utils does not export course.{module}.{name}"
        assert name in documented, f"course.{module}.{name} is missing from book/api/{page.name}"
    assert f"book/api/utils_{module}" in (ROOT / "_toc.yml").read_text()


def test_each_name_is_documented_once():
    pages = sorted((ROOT / "book" / "api").glob("utils*.md"))
    names = [name for page in pages for name in DIRECTIVE.findall(page.read_text())]
    assert len(names) == len(set(names)), "a utils name is documented on two pages"


def test_utils_is_a_short_facade_and_the_rooms_stay_small():
    assert len((ROOT / "utils.py").read_text().splitlines()) <= FACADE_LINES
    tree = ast.parse((ROOT / "utils.py").read_text())
    defined = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    assert defined == [], "utils.py re-exports; helpers are defined in course/"
    for path in [*COURSE.glob("*.py"), *(ROOT / "simkit" / "terms").glob("*.py")]:
        assert len(path.read_text().splitlines()) <= MODULE_LINES, f"{path.relative_to(ROOT)} outgrew its concern"


def test_public_classes_are_named_by_the_facade():
    """The site's code links follow a class (and the methods of its instances, ``ch.figure``) by ``__module__``."""
    for module in MODULES:
        course_module = __import__(f"course.{module}", fromlist=["_"])
        for name in public_names(module):
            value = getattr(course_module, name)
            if isinstance(value, type):
                assert value.__module__ == "utils", f"course.{module}.{name}: decorate it with @public"
