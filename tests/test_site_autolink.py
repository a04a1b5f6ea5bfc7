"""book/_ext/codeautolink_speed.py gives the API links of sphinx-codeautolink, on the chapters' own code.

Both replacements are compared with the sphinx-codeautolink functions they stand in for, on the
chapters' code cells (read from the notebooks: no build needed); a one-page Sphinx build checks that
every page written gets its links.
"""
import copy
import re
import sys

import nbformat
import pytest
from bs4 import BeautifulSoup
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document
from sphinx.highlighting import PygmentsBridge
from sphinx_codeautolink.extension.block import CodeBlockAnalyser, clean_ipython, link_html
from sphinx_codeautolink.parse import parse_names

from conftest import ROOT, toc_chapters

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import codeautolink_speed  # noqa: E402

CHAPTERS = toc_chapters()


def code_cells(chapter):
    nb = nbformat.read(ROOT / "book" / f"{chapter}.ipynb", as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def described(names):
    return [(n.code_str, tuple(n.import_components), n.lineno, n.end_lineno, n.context) for n in names]


def cumulative(chapter):
    """The chapter's code cells as sphinx-codeautolink parses them: each with the cells before it."""
    cells = [clean_ipython(source)[1] for source in code_cells(chapter)]
    return ["\n".join(cells[:k]) for k in range(1, len(cells) + 1)]


def test_incremental_names_are_a_full_parse_of_the_cells_so_far():
    """What sphinx-codeautolink keeps of each parse of cells 1..k (the names of cell k) is what the
    incremental parser returns for cell k (on the shortest chapter: the full parses are quadratic)."""
    incremental, previous = codeautolink_speed.IncrementalNames(), ""
    for whole in cumulative("014_bending_stiffness"):
        hidden = previous.count("\n") + 1 if previous else 0
        expected = [n for n in parse_names(whole, None) if n.lineno > hidden]
        assert described(incremental(whole, None)) == described(expected)
        previous = whole
    assert hidden > 100


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_incremental_names_of_every_cell_are_those_of_the_whole_chapter(chapter):
    """Every chapter: the names the incremental parser returns, cell by cell, are the chapter's names as
    one parse of all its cells finds them (sphinx-codeautolink's tracker reads a module in order)."""
    incremental, found = codeautolink_speed.IncrementalNames(), []
    for whole in cumulative(chapter):
        found += incremental(whole, None)
    expected = parse_names(whole, None)
    assert described(found) == described(expected)
    assert len(expected) >= 50, "the chapter's cells use simkit, utils and numpy"


def test_incremental_names_start_afresh_on_a_source_that_does_not_extend_the_last():
    incremental = codeautolink_speed.IncrementalNames()
    incremental("import numpy as np\nx = np.zeros(3)", None)
    fresh = "import simkit\ny = np.ones(2)\nsimkit.edge_lengths"
    assert described(incremental(fresh, None)) == described(parse_names(fresh, None))
    # a tail that is no module by itself (it continues an indented block) is parsed with its head
    head = "import simkit\nfor i in range(2):\n    pass"
    incremental(head, None)
    whole = head + "\n    simkit.edge_lengths(i)"
    assert described(incremental(whole, None)) == [d for d in described(parse_names(whole, None)) if d[2] > 3]


def page_with_cells(chapter, folder):
    """The chapter's code cells as Sphinx writes them (Pygments' ipython3 blocks between prose, a video
    inlined as a data URI), and sphinx-codeautolink's transforms of them, every name linked."""
    settings = get_default_settings(Parser)
    doctree = new_document(str(folder / "page.rst"), settings)
    bridge, parts = PygmentsBridge("html"), ['<html><body><video><source src="data:video/mp4;base64,'
                                             + "QUJD" * 500 + '"></video>']
    for i, source in enumerate(code_cells(chapter)):
        doctree += nodes.literal_block(source, source, language="ipython3")
        parts.append(f'<p>Cell {i} &amp; prose with <code>simkit.edge_lengths</code>.</p>\n'
                     f'<div class="cell docutils container"><div class="highlight-ipython3 notranslate">'
                     f'{bridge.highlight_block(source, "ipython3")}</div></div>\n'
                     '<div class="highlight-none notranslate"><div class="highlight"><pre><span></span>'
                     f'output {i}\n</pre></div></div>\n')
    parts.append("</body></html>\n")
    analyser = CodeBlockAnalyser(doctree, source_dir=str(folder), global_preface=[], custom_blocks={},
                                 concat_default=True, default_highlight_lang="python",
                                 warn_default_parse_fail=False)
    doctree.walkabout(analyser)
    inventory = {}
    for transform in analyser.source_transforms:
        transform.names = [n for n in transform.names if n.code_str]
        for name in transform.names:
            name.resolved_location = ".".join(map(str, name.import_components))
            inventory[name.resolved_location] = f"api/x.html#{name.resolved_location}"
    return "".join(parts), analyser.source_transforms, inventory


@pytest.mark.parametrize("chapter", ["014_bending_stiffness"])   # upstream's is slow on longer ones
def test_link_html_writes_the_links_of_sphinx_codeautolink(chapter, tmp_path):
    """The same page, linked by both: the same document (sphinx-codeautolink re-serialises the whole page
    through BeautifulSoup; the fast one leaves everything but the linked blocks as Sphinx wrote it)."""
    text, transforms, inventory = page_with_cells(chapter, tmp_path)
    assert len(transforms) == len(code_cells(chapter)) and len(inventory) >= 20
    outputs = {}
    for name, linker in (("upstream", link_html), ("fast", codeautolink_speed.link_html)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "page.html").write_text(text)
        linker(f"{name}/page", str(tmp_path), copy.deepcopy(transforms), inventory, {}, [],
               disable_link_titles=False)
        outputs[name] = (tmp_path / name / "page.html").read_text()
    links = re.findall(r'<a href="([^"]*)"( title="[^"]*")? class="sphinx-codeautolink-a">', outputs["fast"])
    assert len(links) >= 20 and all(href.startswith("../api/x.html#") for href, _ in links)
    assert {bool(title) for _, title in links} == {True, False}, "links with and without a title"
    assert str(BeautifulSoup(outputs["fast"], "html.parser")) == outputs["upstream"]
    unlinked = re.sub(r'<a href="[^"]*"( title="[^"]*")? class="sphinx-codeautolink-a">(.*?)</a>', r"\2",
                      outputs["fast"], flags=re.S)
    assert unlinked == text, "only the links were added"


def test_link_html_warns_of_a_cell_it_cannot_find(tmp_path, monkeypatch):
    text, transforms, inventory = page_with_cells("014_bending_stiffness", tmp_path)
    transforms[1].source = "a cell the page does not show"
    warnings = []
    monkeypatch.setattr(codeautolink_speed.logger, "warning", lambda msg, **kw: warnings.append(kw["subtype"]))
    (tmp_path / "page.html").write_text(text)
    codeautolink_speed.link_html("page", str(tmp_path), transforms, inventory, {}, [], disable_link_titles=False)
    assert warnings == ["match_block"]


def test_the_extension_refuses_a_sphinx_codeautolink_it_was_not_checked_against(monkeypatch):
    from sphinx.errors import ExtensionError
    monkeypatch.setattr(codeautolink_speed.sphinx_codeautolink, "__version__", "0.20.0")
    with pytest.raises(ExtensionError, match="not 0.20.0"):
        codeautolink_speed.setup(None)


def build_tiny_site(src, out):
    """Build a one-page Sphinx site whose code block calls a documented function; return the page."""
    from sphinx.application import Sphinx
    app = Sphinx(str(src), str(src), str(out), str(out / ".doctrees"), "html", status=None, warning=None,
                 freshenv=False)
    app.build()
    return (out / "index.html").read_text()


def test_a_page_rewritten_after_a_configuration_change_keeps_its_links(tmp_path):
    """The site build starts from a copy of the previous site: a page Sphinx rewrites only because the
    configuration changed (sphinx-codeautolink did not count it outdated) still gets its links."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "tinymod.py").write_text('def tiny_function():\n    """A documented function."""\n')
    (src / "index.rst").write_text("Tiny\n====\n\n.. autofunction:: tinymod.tiny_function\n\n"
                                   ".. code-block:: python\n\n   import tinymod\n   tinymod.tiny_function()\n")
    conf = (f"import sys\nsys.path[:0] = [{str(src)!r}, {str(ROOT / 'book' / '_ext')!r}]\n"
            "extensions = ['sphinx.ext.autodoc', 'sphinx_codeautolink', 'codeautolink_speed']\n")
    (src / "conf.py").write_text(conf)
    link = 'href="index.html#tinymod.tiny_function" class="sphinx-codeautolink-a"'
    assert link in build_tiny_site(src, out)
    written = (out / "index.html").stat().st_mtime_ns
    # another extension: Sphinx re-reads and rewrites every page, though their sources and the HTML
    # settings (which decide what the builder counts outdated) are the same
    (src / "another_extension.py").write_text("def setup(app):\n    return {'parallel_read_safe': True}\n")
    (src / "conf.py").write_text(conf + "extensions.append('another_extension')\n")
    page = build_tiny_site(src, out)
    assert (out / "index.html").stat().st_mtime_ns != written, "the page was rewritten"
    assert link in page


def test_a_markdown_page_rewritten_without_being_read_again_keeps_its_links(tmp_path):
    """Sphinx rewrites a page it does not read again when another extension says it changed (the figure
    numbers of book/_ext/figure_numbers.py, once): its code comes from sphinx-codeautolink's cache,
    which must keep the pages of every source suffix (the chapters are notebooks), not only .rst."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "tinymod.py").write_text('def tiny_function():\n    """A documented function."""\n')
    (src / "api.rst").write_text("API\n===\n\n.. autofunction:: tinymod.tiny_function\n")
    (src / "index.md").write_text("# Tiny\n\n```{toctree}\napi\n```\n\n```python\nimport tinymod\n"
                                  "tinymod.tiny_function()\n```\n")
    (src / "rewrite_index.py").write_text("def setup(app):\n    app.connect('env-get-updated', lambda app, env: "
                                          "['index'])\n    return {'parallel_read_safe': True}\n")
    (src / "conf.py").write_text(
        f"import sys\nsys.path[:0] = [{str(src)!r}, {str(ROOT / 'book' / '_ext')!r}]\n"
        "extensions = ['myst_parser', 'sphinx.ext.autodoc', 'sphinx_codeautolink', 'codeautolink_speed', "
        "'rewrite_index']\n")
    link = 'href="api.html#tinymod.tiny_function" class="sphinx-codeautolink-a"'
    assert link in build_tiny_site(src, out)
    written = (out / "index.html").stat().st_mtime_ns
    page = build_tiny_site(src, out)                  # nothing changed: index is rewritten, not read
    assert (out / "index.html").stat().st_mtime_ns != written, "the page was rewritten"
    assert link in page
