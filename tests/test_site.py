"""The built site in a real browser (Debian's Chromium, headless, offline) and a link crawl.

The site is served from a sub-path (``/html/``) of a local server, so any absolute link
or asset outside the build folder shows up as a failure.
"""
import functools
import http.server
import json
import os
import shutil
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

from conftest import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# seconds of every video, in page order: frames / fps as the chapters write them
VIDEO_SECONDS = {
    "011_mass_springs": [90 / 20, 95 / 20, 8 / 2, 251 / 40, 80 / 20],
    "014_bending_stiffness": [60 / 20, 60 / 20],
}
PAGES = ["book/intro.html", "book/011_mass_springs.html", "book/014_bending_stiffness.html",
         "book/api.html", "book/status.html"]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def base_url(site_dir):
    handler = functools.partial(QuietHandler, directory=str(site_dir.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/{site_dir.name}/"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    if not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_page(browser, url):
    """Load `url`; return (page, problems) with console errors, failed and off-host requests."""
    page = browser.new_page()
    problems = []
    host = urlparse(url).netloc
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))
    page.on("request", lambda r: urlparse(r.url).scheme in ("http", "https")
            and urlparse(r.url).netloc != host and problems.append(f"off-host: {r.url}"))
    page.goto(url, wait_until="networkidle")
    if page.locator("script[src*='mathjax']").count():          # Sphinx loads MathJax only where math is
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("MathJax.startup.promise")
    return page, problems


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_clean_and_offline(browser, base_url, path):
    page, problems = open_page(browser, base_url + path)
    assert page.title()
    assert problems == []
    page.close()


@pytest.mark.parametrize("chapter", VIDEO_SECONDS)
def test_chapter_videos_play_with_their_duration(browser, base_url, chapter):
    page, problems = open_page(browser, f"{base_url}book/{chapter}.html")
    videos = page.locator("video")
    assert videos.count() == len(VIDEO_SECONDS[chapter])
    page.wait_for_function("[...document.querySelectorAll('video')].every(v => v.readyState >= 3)")
    states = page.evaluate("[...document.querySelectorAll('video')].map(v => "
                           "({d: v.duration, controls: v.controls, loop: v.loop, error: v.error}))")
    for state, seconds in zip(states, VIDEO_SECONDS[chapter]):
        assert state["error"] is None
        assert state["controls"] and state["loop"]
        assert state["d"] == pytest.approx(seconds, abs=0.06)
    assert problems == []
    page.close()


@pytest.mark.parametrize("chapter", VIDEO_SECONDS)
def test_chapter_math_is_typeset(browser, base_url, chapter):
    page, _ = open_page(browser, f"{base_url}book/{chapter}.html")
    assert page.locator("mjx-container").count() >= 10
    # the prose only: code cells legitimately hold LaTeX strings for matplotlib labels
    prose = page.evaluate("[...document.querySelectorAll('article :is(p, li, td, th, h1, h2, h3)')]"
                          ".filter(e => !e.closest('.cell')).map(e => e.innerText).join('\\n')")
    assert len(prose) > 2000
    for raw in ("\\(", "\\[", "$", "\\frac", "\\tfrac"):
        assert raw not in prose, f"untypeset math {raw!r} in {chapter}"
    page.close()


@pytest.mark.parametrize("chapter", VIDEO_SECONDS)
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
    html = (site_dir / "book" / "api.html").read_text()
    for name in ("simkit.edge_displacement_jacobian", "simkit.energies.mass_springs_energy_z",
                 "simkit.energies.bending_hessian_x", "simkit.integrators.bdf2",
                 "simkit.solvers.newton_solver", "simkit.filesystem.save_animation"):
        assert f'id="{name}"' in html, f"{name} missing from the API reference"


EXEC_TABLE_HEAD = ["Document", "Modified", "Method", "Run Time (s)", "Status"]


def toc_chapters():
    """Notebook chapters listed in _toc.yml, as Sphinx names them ("book/011_mass_springs")."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for part in toc.get("parts", [toc]) for c in part.get("chapters", [])]
    return [f for f in files if (ROOT / f"{f}.ipynb").exists()]


def test_status_page_tables_every_chapters_execution(browser, base_url):
    """The execution table itself (not the sidebar, which names every chapter on every page)."""
    page, problems = open_page(browser, base_url + "book/status.html")
    tables = page.evaluate("[...document.querySelectorAll('article table')].map(t => ({"
                           "head: [...t.querySelectorAll('thead th')].map(c => c.innerText.trim()),"
                           "rows: [...t.querySelectorAll('tbody tr')].map(r => "
                           "[...r.querySelectorAll('td')].map(c => c.innerText.trim()))}))")
    page.close()
    (table,) = [t for t in tables if t["head"] == EXEC_TABLE_HEAD]
    rows = {row[0]: dict(zip(EXEC_TABLE_HEAD, row)) for row in table["rows"]}
    chapters = toc_chapters()
    assert len(chapters) >= 2
    assert sorted(rows) == sorted(chapters), "the execution table must list every chapter, and only those"
    for chapter in chapters:
        record = json.loads((ROOT / "_build" / "exec" / f"{chapter.split('/')[-1]}.json").read_text())
        row = rows[chapter]
        assert row["Status"] == "\u2705" and row["Method"] == "cache", row
        assert float(row["Run Time (s)"]) == pytest.approx(record["seconds"], abs=0.006), row
    assert problems == []
