"""The built site in a real browser (Debian's Chromium, headless, offline) and a link crawl.

The site is served from a sub-path (``/html/``) of a local server, so any absolute link
or asset outside the build folder shows up as a failure.
"""
import json
import re
import urllib.error
import urllib.request
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlparse

import imageio_ffmpeg
import pytest
import yaml

# the browser, its tabs and the site's server are the session's (conftest.py: one browser per xdist worker)
from conftest import ROOT, toc_chapters

WIDTHS = [1280, 390]                 # a desktop and a phone
CHAPTERS = toc_chapters()            # every chapter in _toc.yml, in reading order


def toc_pages():
    """Every page of _toc.yml as its built path (book/intro.html, ...)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            files.extend([node["file"]] if "file" in node else [])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(toc.get("parts", []))
    return [f"{f}.html" for f in files]


PAGES = toc_pages() + ["genindex.html", "search.html"]


def test_checks_of_a_page_share_one_worker(request):
    """Under ``--dist loadgroup`` each page's checks are one xdist group (tests/conftest.py), so one
    worker loads the page once for all of them; pytest-xdist names the group in the node id. (The
    groups are lost if they are marked after xdist reads them, or if pytest stores node ids where
    xdist does not write them, as pytest 9.2 does with pytest-xdist 3.8.)"""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by xdist's loadgroup scheduler: there is one worker")
    assert request.node.nodeid.endswith("@site:site"), request.node.nodeid


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_clean_and_offline(loaded, path):
    page, problems = loaded(path)
    assert page.title()
    assert problems == []


def media_seconds(chapter):
    """Durations of the chapter's published videos (frames / fps of media/NNN_*.mp4), sorted."""
    return sorted(imageio_ffmpeg.count_frames_and_secs(str(path))[1]
                  for path in (ROOT / "media").glob(f"{chapter[:3]}_*.mp4"))


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_videos_play_with_their_duration(loaded, chapter):
    page, problems = loaded(f"book/{chapter}.html")
    expected = media_seconds(chapter)
    assert page.locator("video").count() == len(expected)
    page.wait_for_function("[...document.querySelectorAll('video')].every(v => v.readyState >= 3)")
    states = page.evaluate("[...document.querySelectorAll('video')].map(v => "
                           "({d: v.duration, controls: v.controls, loop: v.loop, error: v.error}))")
    for state in states:
        assert state["error"] is None
        assert state["controls"] and state["loop"]
    assert sorted(state["d"] for state in states) == pytest.approx(expected, abs=0.06)
    assert problems == []


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_math_is_typeset(loaded, chapter):
    page, _ = loaded(f"book/{chapter}.html")
    assert page.locator("mjx-container").count() >= 10
    # the prose only: code cells legitimately hold LaTeX strings for matplotlib labels
    prose = page.evaluate("[...document.querySelectorAll('article :is(p, li, td, th, h1, h2, h3)')]"
                          ".filter(e => !e.closest('.cell')).map(e => e.innerText).join('\\n')")
    assert len(prose) > 2000
    for raw in ("\\(", "\\[", "$", "\\frac", "\\tfrac"):
        assert raw not in prose, f"untypeset math {raw!r} in {chapter}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_offers_its_notebook_for_download(base_url, site_dir, chapter):
    html = (site_dir / "book" / f"{chapter}.html").read_text()
    link = f"../_sources/book/{chapter}.ipynb"
    assert f'href="{link}"' in html
    with urllib.request.urlopen(urljoin(f"{base_url}book/{chapter}.html", link)) as response:
        nb = json.load(response)
    source = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())
    assert [c["source"] for c in nb["cells"]] == [c["source"] for c in source["cells"]]


class LinkParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value and not value.startswith(("data:", "mailto:", "#")):
                self.links.append(value)


def test_crawl_finds_no_broken_link_or_asset(base_url):
    start = [base_url + "index.html", base_url + "book/intro.html"]    # index.html only redirects
    queue, seen, broken = list(start), set(start), []
    while queue:
        url = queue.pop()
        try:
            with urllib.request.urlopen(url) as response:
                body = response.read()
                kind = response.headers.get_content_type()
        except urllib.error.HTTPError as err:
            broken.append(f"{err.code}: {url}")
            continue
        if kind != "text/html":
            continue
        parser = LinkParser()
        parser.feed(body.decode("utf-8", "replace"))
        for link in parser.links:
            target = urldefrag(urljoin(url, link)).url
            if urlparse(target).netloc != urlparse(base_url).netloc:
                continue                                   # external links are not assets
            if not target.startswith(base_url):
                broken.append(f"outside the site folder: {target} (from {url})")
            elif target not in seen:
                seen.add(target)
                queue.append(target)
    assert broken == []
    assert len(seen) > 20


def test_api_reference_documents_simkit(site_dir):
    html = "".join(p.read_text() for p in (site_dir / "book" / "api").glob("*.html"))
    for name in ("simkit.edge_displacement_jacobian", "simkit.energies.mass_springs_energy_z",
                 "simkit.energies.bending_hessian_x", "simkit.integrators.bdf2",
                 "simkit.solvers.newton_solver", "simkit.filesystem.save_animation"):
        assert f'id="{name}"' in html, f"{name} missing from the API reference"



# ---------------------------------------------------------------------------------------
# the site as readers use it (issue 10): layout at 1280 and 390 px, one search box,
# numbered and captioned media, API links, folded solutions, references, docstring math
# ---------------------------------------------------------------------------------------

# Elements wider than the content column, unless an ancestor inside the column scrolls or clips them.
OVERFLOW_JS = """() => {
  const column = document.querySelector('article.bd-article') || document.querySelector('main');
  const col = column.getBoundingClientRect();
  const inside = r => r.left >= col.left - 1 && r.right <= col.right + 1;
  const boxed = el => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
  const wide = [];
  for (const el of column.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || inside(r)) continue;
    let a = el.parentElement, held = false;
    for (; a && a !== column; a = a.parentElement) {
      if (boxed(a) && inside(a.getBoundingClientRect())) { held = true; break; }
    }
    if (!held) wide.push(`<${el.tagName.toLowerCase()} class="${el.className}"> spans ${Math.round(r.left)}..` +
                         `${Math.round(r.right)} px, column ${Math.round(col.left)}..${Math.round(col.right)}: ` +
                         JSON.stringify((el.textContent || '').trim().slice(0, 50)));
  }
  const math = [...column.querySelectorAll('mjx-container[display="true"]')].map(m => ({
    wide: m.scrollWidth > m.clientWidth + 1, width: m.scrollWidth, box: m.clientWidth,
    scrolls: ['auto', 'scroll'].includes(getComputedStyle(m).overflowX),
    tex: (m.querySelector('mjx-assistive-mml') || m).textContent.slice(0, 40)}));
  return {page: document.documentElement.scrollWidth, viewport: innerWidth, wide, math};
}"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES)
def test_layout_fits_the_column(loaded, path, width):
    layout = loaded(path, width)[0].evaluate(OVERFLOW_JS)
    assert layout["page"] <= layout["viewport"], f"{path} scrolls sideways at {width} px"
    assert layout["wide"] == [], f"{path} at {width} px"
    for m in layout["math"]:
        if width >= 1280:
            assert not m["wide"], f"display equation {m['tex']!r} is {m['width']} px in a {m['box']} px column"
        else:
            assert m["scrolls"], f"display equation {m['tex']!r} does not scroll in its own box"


@pytest.mark.parametrize("width", WIDTHS)
def test_one_search_box(loaded, width):
    visible = loaded(f"book/{CHAPTERS[0]}.html", width)[0].evaluate("""[...document.querySelectorAll(
        '.search-button-field, .search-button__button, input[type="search"], form.bd-search')]
        .filter(e => { const r = e.getBoundingClientRect();
                       return e.checkVisibility() && r.width > 0 && r.right > 0 && r.left < innerWidth; })
        .filter((e, i, all) => !all.some(o => o !== e && o.contains(e)))
        .map(e => e.className)""")
    assert len(visible) == 1, f"search controls visible at {width} px: {visible}"


HASHED = re.compile(r"[0-9a-f]{16,}|\.(png|mp4)\b")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_figure_and_video_is_numbered_captioned_and_described(loaded, chapter):
    media = loaded(f"book/{chapter}.html")[0].evaluate("""[...document.querySelectorAll('article.bd-article img, article.bd-article video')]
        .map(e => { const fig = e.closest('figure'); const cap = fig && fig.querySelector('figcaption');
                    return {tag: e.tagName.toLowerCase(), alt: e.getAttribute(e.tagName === 'IMG' ? 'alt' : 'aria-label'),
                            number: cap ? cap.querySelector('.caption-number')?.textContent.trim() : null,
                            caption: cap ? cap.querySelector('.caption-text')?.textContent.trim() : null,
                            id: fig && fig.id}; })""")
    videos = sum(m["tag"] == "video" for m in media)
    assert videos == len(media_seconds(chapter))
    # every video went through utils.Chapter.video, which refuses frames that leave their axes
    source = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())
    assert videos == sum("".join(c["source"]).count("ch.video(") for c in source["cells"] if c["cell_type"] == "code")
    assert [m["number"] for m in media] == [f"Figure {i}" for i in range(1, len(media) + 1)], \
        f"{chapter}: every figure and video is numbered in order"
    for m in media:
        where = f"{chapter} {m['tag']} {m['number']} ({m['id']})"
        assert m["caption"] and m["caption"].endswith(".") and len(m["caption"].split()) >= 6, f"{where}: caption"
        assert m["alt"] and len(m["alt"].split()) >= 8 and not HASHED.search(m["alt"]), f"{where}: alt text"


def api_entries(site_dir):
    """{full name: page} of every object the API reference documents (simkit.*, utils.*)."""
    entries = {}
    for page in (site_dir / "book" / "api").glob("*.html"):
        for name in re.findall(r'<dt class="sig sig-object py" id="([\w.]+)"', page.read_text()):
            entries[name] = page.name
    return entries


# In code cells: dotted names rooted at the library or at the chapter's publisher (not an attribute: run.energies)
CODE_API = re.compile(r"(?<![\w.])(?:simkit|utils|energies|ch)(?:\.[A-Za-z_]\w*)+")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_api_name_in_a_chapter_links_to_its_entry(loaded, site_dir, chapter):
    entries = api_entries(site_dir)
    assert {"simkit.edge_lengths", "simkit.energies.bending_energy_x", "utils.Chapter.figure",
            "utils.animate_springs_grid"} <= set(entries)
    # short names of module-level objects, but not those that are also method names (a bare `energy` in
    # prose may be a chapter's own method, a term's, or contact.barrier_potential's function)
    methods = {name.rsplit(".", 1)[-1] for name in entries if name.rsplit(".", 1)[0] in entries}
    short = {name.rsplit(".", 1)[-1] for name in entries if name.rsplit(".", 1)[0] not in entries} - methods
    found = loaded(f"book/{chapter}.html")[0].evaluate("""() => {
      const art = document.querySelector('article.bd-article');
      const prose = [...art.querySelectorAll('code')].filter(c => !c.closest('.cell, pre'))
        .map(c => ({text: c.textContent.trim(), href: c.closest('a')?.getAttribute('href') || null}));
      const cells = [...art.querySelectorAll('.cell_input pre')].map(pre => {
        const clone = pre.cloneNode(true);
        clone.querySelectorAll('.c1, .c, .cm, .s1, .s2, .sd, .sa, .se, .si').forEach(s => s.remove());
        return {code: clone.textContent,
                links: [...pre.querySelectorAll('a.sphinx-codeautolink-a')].map(a => ({
                  text: a.textContent, href: a.getAttribute('href')}))};
      });
      return {prose, cells};
    }""")
    # a bare name the chapter defines itself (011's own `simulate`) is the chapter's, not the library's
    local = {name for cell in found["cells"] for name in re.findall(r"^\s*(?:def|class)\s+(\w+)", cell["code"], re.M)}
    unlinked = []
    for code in found["prose"]:
        name = re.sub(r"\(.*$", "", code["text"]).lstrip("~")
        if name in local and name not in entries:
            continue
        if (name in entries or name in short) and not (code["href"] and "api/" in code["href"]):
            unlinked.append(f"prose: {code['text']}")
    linked_names = 0
    for cell in found["cells"]:
        links = [link["text"] for link in cell["links"] if "api/" in (link["href"] or "")]
        for name in CODE_API.findall(cell["code"]):
            if name in links:
                links.remove(name)
                linked_names += 1
            else:
                unlinked.append(f"code: {name}")
    assert unlinked == [], f"{chapter}: API names without a link to their entry"
    assert linked_names >= 10, f"{chapter}: expected its code cells to call simkit and utils"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_solutions_are_folded_until_asked_for(loaded, chapter):
    page, _ = loaded(f"book/{chapter}.html")
    solutions = page.locator(".cell.tag_hide-cell")
    assert 3 <= solutions.count() <= 5
    for i in range(solutions.count()):
        solution = solutions.nth(i)
        output = solution.locator(".cell_output")
        assert not output.is_visible(), f"{chapter}: solution {i + 1} is not folded"
        solution.locator("summary").first.click()
        assert output.is_visible() and f"exercise {i + 1}:" in output.inner_text()


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_ends_with_its_references(loaded, chapter):
    refs = loaded(f"book/{chapter}.html")[0].evaluate("""() => {
      const section = document.querySelector('section#references');
      const notes = section ? [...section.querySelectorAll('aside.footnote')] : [];
      const cites = [...document.querySelectorAll('article a.footnote-reference')].map(a => a.getAttribute('href'));
      return {notes: notes.map(n => n.id), texts: notes.map(n => n.textContent), cites};
    }""")
    assert len(refs["notes"]) >= 3, f"{chapter}: references section"
    assert set(refs["cites"]) == {f"#{note}" for note in refs["notes"]}, "every citation has its reference"
    assert all(re.search(r"\b(19|20)\d\d\b", text) for text in refs["texts"])


API_PAGES = [path for path in PAGES if path.startswith("book/api/")]


def test_api_reference_has_a_page_per_concern_and_utils_docstrings_carry_math(site_dir):
    pages = sorted(p.name for p in (site_dir / "book" / "api").glob("*.html"))
    assert {"simkit.html", "energies.html", "integrators.html", "solvers.html", "filesystem.html", "terms.html",
            "utils.html", "utils_publish.html", "utils_plots2d.html", "utils_mesh3d.html"} <= set(pages)
    assert sorted(f"book/api/{name}" for name in pages) == sorted(API_PAGES), "every API page is in _toc.yml"
    # Sphinx's math spans, which MathJax typesets (test_api_docstring_math_is_typeset checks it does)
    utils_math = sum((site_dir / "book" / "api" / name).read_text().count('<span class="math notranslate')
                     for name in pages if name.startswith("utils"))
    assert utils_math >= 8, "utils' docstrings (one page per concern) carry math"


@pytest.mark.parametrize("path", API_PAGES)
def test_api_docstring_math_is_typeset(loaded, path):
    page, problems = loaded(path)
    text = page.inner_text("article")
    assert problems == []
    assert ":math:" not in text and "\\(" not in text, f"{path} shows raw math"
    if '<span class="math notranslate' in page.content():
        assert page.locator("mjx-container").count() > 0, f"{path}: its math was not typeset"


def test_api_right_hand_contents_use_short_names(site_dir):
    html = (site_dir / "book" / "api" / "energies.html").read_text()
    toc = html[html.index('aria-labelledby="pst-page-navigation-heading-2"'):]
    assert "bending_energy_x()" in toc
    assert "simkit.energies.bending_energy_x()" not in toc

EXEC_TABLE_HEAD = ["Document", "Modified", "Method", "Run Time (s)", "Status"]


def test_status_page_tables_every_chapters_execution(loaded):
    """The execution table itself (not the sidebar, which names every chapter on every page)."""
    page, problems = loaded("book/status.html")
    tables = page.evaluate("[...document.querySelectorAll('article table')].map(t => ({"
                           "head: [...t.querySelectorAll('thead th')].map(c => c.innerText.trim()),"
                           "rows: [...t.querySelectorAll('tbody tr')].map(r => "
                           "[...r.querySelectorAll('td')].map(c => c.innerText.trim()))}))")
    (table,) = [t for t in tables if t["head"] == EXEC_TABLE_HEAD]
    rows = {row[0]: dict(zip(EXEC_TABLE_HEAD, row)) for row in table["rows"]}
    chapters = [f"book/{name}" for name in CHAPTERS]
    assert len(chapters) >= 2
    assert sorted(rows) == sorted(chapters), "the execution table must list every chapter, and only those"
    for chapter in chapters:
        record = json.loads((ROOT / "_build" / "exec" / f"{chapter.split('/')[-1]}.json").read_text())
        row = rows[chapter]
        assert row["Status"] == "\u2705" and row["Method"] == "cache", row
        assert float(row["Run Time (s)"]) == pytest.approx(record["seconds"], abs=0.006), row
    assert problems == []
