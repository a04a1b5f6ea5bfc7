"""The site as a new student meets it (issue 39): the landing page's table of every chapter, the
Start here page, the note on running a downloaded notebook, and pages that read on a phone
(caption weight, printed output inside the column, display equations that show they scroll)."""
import html
import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import ROOT, toc_chapters

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import chapters as chapters_ext  # noqa: E402  (the site's extension: book/_ext/chapters.py)

CHAPTERS = toc_chapters()
PHONE = 390


def tags(page_html, pattern):
    """Every match of `pattern` in `page_html`, with tags stripped and entities decoded."""
    return [html.unescape(re.sub(r"<[^>]+>", "", m)).strip() for m in re.findall(pattern, page_html, re.S)]


def element(page_html, start):
    """The HTML of the div that opens at index `start` of `page_html`, nested divs included."""
    depth = 0
    for m in re.finditer(r"<(/?)div\b", page_html[start:]):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return page_html[start:start + m.end()]
    raise AssertionError("unbalanced div")


def notebook_title(chapter):
    nb = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())
    first = "".join(next(c for c in nb["cells"] if c["cell_type"] == "markdown")["source"])
    return next(line[2:].strip() for line in first.splitlines() if line.startswith("# "))


# ---------------------------------------------------------------------------------------
# the chapter table and Start here, generated from _toc.yml
# ---------------------------------------------------------------------------------------

def fake_app(root):
    """The two things book/_ext/chapters.py reads from Sphinx: the source folder and the toc's path."""
    return SimpleNamespace(srcdir=str(root), config=SimpleNamespace(external_toc_path="_toc.yml"))


def notebook(cells, metadata=None):
    return json.dumps({"cells": [{"cell_type": t, "source": s, "metadata": {}} for t, s in cells],
                       "metadata": metadata or {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_chapter_added_to_the_toc_joins_the_table_with_its_own_title_and_summary(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    (book / "intro.md").write_text("# intro\n")
    (book / "notes.md").write_text("# not a chapter\n")
    (book / "020_new.ipynb").write_text(notebook(
        [("markdown", "# 20 · New: a Chapter\n\nOpening words.\n\n| step | what we do |\n| --- | --- |\n"
                      "| 1 | a {py:func}`~simkit.massmatrix` of [chapter 11](011_x.ipynb) |\n| 2 | a drop |\n")]))
    (book / "021_newer.ipynb").write_text(notebook([("markdown", "# 21 · Newer\n\nNo table.\n")],
                                                   {"course": {"summary": "its own summary"}}))
    toc = "format: jb-book\nroot: book/intro\nparts:\n  - caption: C\n    chapters:\n"
    (tmp_path / "_toc.yml").write_text(toc + "      - file: book/notes\n      - file: book/021_newer\n"
                                             "      - file: book/020_new\n")
    found = chapters_ext.chapters(fake_app(tmp_path))
    assert [d for d, _ in found] == ["book/021_newer", "book/020_new"]          # the toc's order
    assert chapters_ext.chapter_heading_and_summary(book / "021_newer.ipynb") == ("21 · Newer", "its own summary")
    # without a summary in its metadata, the step table's "what we do" column, in words
    assert chapters_ext.chapter_heading_and_summary(book / "020_new.ipynb") == (
        "20 · New: a Chapter", "a simkit.massmatrix of chapter 11 · a drop")
    (book / "021_newer.ipynb").write_text(notebook([("markdown", "# 21 · Newer\n\nNo table.\n")]))
    with pytest.raises(ValueError, match="021_newer.ipynb has no one-line summary"):
        chapters_ext.chapter_heading_and_summary(book / "021_newer.ipynb")


def test_landing_page_tables_every_chapter_of_the_toc_in_order(site_dir):
    page = (site_dir / "book" / "intro.html").read_text()
    table = re.search(r'<div class="course-chapter-table[^"]*">(.*?)</table>', page, re.S)
    assert table, "the landing page has no chapter table"
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table.group(1), re.S)[1:]
    links = [re.search(r'href="([^"#]+)', row).group(1) for row in rows]
    assert links == [f"{chapter}.html" for chapter in CHAPTERS]
    for chapter, row in zip(CHAPTERS, rows):
        title, summary = tags(row, r"<td[^>]*>(.*?)</td>")
        assert title.replace("\u2019", "'") == notebook_title(chapter)
        assert len(summary.split()) >= 5, f"{chapter}: summary {summary!r}"
    assert "11 and 14" in html.unescape(re.sub(r"<[^>]+>", "", page))     # why the numbers jump


def test_start_here_follows_the_intro_and_times_every_chapter(site_dir):
    toc = (ROOT / "_toc.yml").read_text()
    assert toc.index("book/start_here") < min(toc.index(f"book/{chapter}") for chapter in CHAPTERS)
    page = (site_dir / "book" / "start_here.html").read_text()
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    for words in ("Calculus", "Linear algebra", "numpy", "Newton's method"):
        assert words in text.replace("\u2019", "'")
    tables = re.findall(r"<table.*?</table>", page, re.S)
    needs = next(t for t in tables if ">needs<" in t)
    times = next(t for t in tables if ">running<" in t)
    for table in (needs, times):
        linked = re.findall(r'href="(0\d\d_[^".#]+)\.html', table)
        assert linked == CHAPTERS, "every chapter of _toc.yml has a row, in reading order"
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", times, re.S)[1:]:
        _, words, reading, running = tags(row, r"<td[^>]*>(.*?)</td>")
        assert int(words.replace(",", "")) > 500
        assert re.fullmatch(r"\d+ min", reading)
        assert re.fullmatch(r"\d+ (s|min)", running), f"no execution time: {running!r}"


def test_search_finds_the_prerequisites(site_dir):
    index = (site_dir / "searchindex.js").read_text()
    terms = json.loads(index[index.index("(") + 1:index.rindex(")")])
    docs = terms["docnames"]
    found = [terms[kind].get("prerequisit", []) for kind in ("terms", "titleterms")]
    found = {docs[i] for f in found for i in ([f] if isinstance(f, int) else f)}
    assert "book/start_here" in found


# ---------------------------------------------------------------------------------------
# every chapter page: the note on running its notebook
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_says_how_to_run_its_downloaded_notebook(site_dir, chapter):
    page = (site_dir / "book" / f"{chapter}.html").read_text()
    article = page[page.index('<article class="bd-article'):]
    starts = [m.start() for m in re.finditer(r'<div class="[^"]*\bcourse-run-note\b[^"]*">', article)]
    assert len(starts) == 1, f"{chapter}: one note on running the notebook"
    note = html.unescape(re.sub(r"<[^>]+>", "", element(article, starts[0])))
    for words in ("simkit", "utils", "make lab", f"{chapter}.ipynb"):
        assert words in note, f"{chapter}: the note does not say {words!r}"
    # at the top: right under the chapter's title, before any of its own text
    assert re.search(r'</h1>\s*<div class="[^"]*\bcourse-run-note\b', article)
    # the commands it gives exist: `make lab` is a target of the Makefile
    assert re.search(r"^lab:", (ROOT / "Makefile").read_text(), re.M)


# ---------------------------------------------------------------------------------------
# reading on a phone: captions, printed output and wide equations
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("chapter", CHAPTERS)
def test_captions_are_set_in_a_regular_weight(loaded, chapter):
    weights = loaded(f"book/{chapter}.html")[0].evaluate(
        "[...document.querySelectorAll('article.bd-article figcaption')]"
        ".map(e => Number(getComputedStyle(e).fontWeight))")
    assert weights, f"{chapter} has no caption"
    assert min(weights) >= 400, f"{chapter}: caption weights {sorted(set(weights))}"


OUTPUTS_JS = """() => [...document.querySelectorAll('article.bd-article .cell_output pre')]
  .filter(e => e.getBoundingClientRect().width > 0)
  .map(e => ({hidden: e.scrollWidth - e.clientWidth, text: e.textContent.trim().slice(0, 60)}))"""


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_printed_output_wraps_inside_the_phone_column(loaded, chapter):
    page, _ = loaded(f"book/{chapter}.html", PHONE)
    outputs = page.evaluate(OUTPUTS_JS)
    assert outputs, f"{chapter} prints nothing"
    hidden = [o for o in outputs if o["hidden"] > 1]
    assert hidden == [], f"{chapter} at {PHONE} px: printed lines cut off (px hidden, start): {hidden}"


SCROLL_HINT_JS = """() => [...document.querySelectorAll('article.bd-article mjx-container[display="true"]')]
  .filter(m => m.scrollWidth > m.clientWidth + 1)
  .map(m => ({tex: (m.querySelector('mjx-assistive-mml') || m).textContent.slice(0, 40),
              background: getComputedStyle(m).backgroundImage,
              attachment: getComputedStyle(m).backgroundAttachment}))"""


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_wide_equations_show_that_they_scroll(loaded, chapter):
    wide = loaded(f"book/{chapter}.html", PHONE)[0].evaluate(SCROLL_HINT_JS)
    for m in wide:
        # two covers that move with the content and two shadows that stay at the edges
        assert m["background"].count("gradient(") == 4, f"{chapter}: {m['tex']!r} gives no hint"
        assert m["attachment"].replace(" ", "") == "local,local,scroll,scroll", m


# ---------------------------------------------------------------------------------------
# notation and glossary
# ---------------------------------------------------------------------------------------

GLOSSARY = ["APIC", "CCD", "GaussNewton", "Held", "IPC", "projected-Newton", "PSD", "term"]
SYMBOLS = ["x", "X", "M", "h", "\\psi", "F", "P", "\\kappa", "\\hat d", "b", "m", "B", "z"]


def test_notation_page_defines_the_symbols_and_terms_and_every_chapter_links_it(site_dir):
    page = (site_dir / "book" / "notation.html").read_text()
    for term in GLOSSARY:
        assert f'id="term-{term}"' in page, f"glossary entry {term} missing"
    first_cells = [re.sub(r"<[^>]+>", "", row.split("</td>")[0]).strip()
                   for row in re.findall(r"<tr[^>]*>\s*<td[^>]*>(.*?)</tr>", page, re.S)]
    for symbol in SYMBOLS:
        assert any(symbol in cell for cell in first_cells), f"symbol {symbol} has no row"
    for name in ["intro", "start_here", *CHAPTERS]:
        assert 'href="notation.html"' in (site_dir / "book" / f"{name}.html").read_text(), name


# ---------------------------------------------------------------------------------------
# search: a chapter ranks above the API entries that merely contain the concept it teaches
# ---------------------------------------------------------------------------------------

def search_results(loaded, query):
    """Document names of the site search's results for `query`, best first."""
    page, _ = loaded(f"search.html?q={query}")
    page.wait_for_function("document.querySelector('#search-results p.search-summary') !== null"
                           " && !document.querySelector('#search-progress')?.textContent.trim()", timeout=20000)
    return page.evaluate("[...document.querySelectorAll('#search-results ul.search li > a')]"
                         ".map(a => new URL(a.href).pathname.replace(/^.*?\\/html\\//, '').replace(/\\.html$/, ''))")


@pytest.mark.parametrize("query, chapter", [("mollifier", "018_contact_3d"), ("barrier", "017_contact"),
                                            ("cubature", "019_reduced"), ("hinge", "014_bending_stiffness")])
def test_search_ranks_the_chapters_that_teach_a_concept_first(loaded, query, chapter):
    results = search_results(loaded, query)
    api = [i for i, r in enumerate(results) if r.startswith("book/api")]
    chapters = [i for i, r in enumerate(results) if re.match(r"book/\d{3}_", r)]
    assert f"book/{chapter}" in results[:len(chapters)], f"{query!r}: {results[:10]}"
    assert api and max(chapters) < min(api), f"{query!r}: {results[:12]}"


def test_search_for_a_function_name_still_finds_its_entry_first(loaded):
    results = search_results(loaded, "psd_project")
    assert results[0] == "book/api/simkit", results[:5]
