"""Shared test set-up: headless matplotlib, the two builds the chapter and site tests read (each run
once per test session, however many xdist workers share it, and started in the background as soon
as the session needs them), process helpers for the tests that signal a render or a build, and the
browser the site tests share (one per xdist worker, its pages loaded once)."""
import contextlib
import fcntl
import functools
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = Path(__file__).resolve().parent.parent
BUILD_SCRIPT = ROOT / "scripts" / "build_book.py"
sys.path.insert(0, str(ROOT / "scripts"))
from bookbuild.chapters import toc_notebooks  # noqa: E402
from bookbuild.tree import Tree  # noqa: E402

# the browser tests are grouped by the page they read (`--dist loadgroup`): one worker loads a page
# once and runs every read-only check of it (LoadedPages), and the pages spread over workers
SITE_MODULES = {"test_site", "test_site_cloth", "test_site_reading"}


@pytest.fixture(autouse=True)
def _close_figures():
    """Every test starts without the figures earlier tests left open."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


def site_page(item):
    """(page, width) a browser test reads: its xdist group and its place in the order of the site tests."""
    params = item.callspec.params if hasattr(item, "callspec") else {}
    width = params.get("width", 1280)
    if item.module.__name__ == "test_site_cloth":
        return "book/015_cloth.html", width
    if "chapter" in params:
        return f"book/{params['chapter']}.html", width
    if "path" in params:
        return params["path"], width
    if "search_box" in item.name:
        return f"book/{toc_chapters()[0]}.html", width
    return "site", width


def build_stage(item):
    """0: the test reads neither session build, 1: it reads the executed chapters, 2: the built site."""
    return 2 if "site_run" in item.fixturenames else 1 if "chapter_run" in item.fixturenames else 0


# first: xdist's own hook turns the xdist_group marks into node ids right after, and it runs before a
# conftest's plain hook (registered later, called earlier: the groups would be missed)
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Order the session so that the workers are busy while the session builds run: first the tests
    that read no build, then those that read the chapters, then the site's, a page's checks one after
    another at one width then the other (each page is loaded once), and last the gestures on 015's 3D
    view (test_site_cloth), which change that page. ``make test`` keeps this order
    (``--no-loadscope-reorder``)."""
    for item in items:
        if item.module.__name__ in SITE_MODULES:
            item.add_marker(pytest.mark.xdist_group(f"site:{site_page(item)[0]}"))

    def order(item):
        if item.module.__name__ in SITE_MODULES:       # a group is scheduled where its first test stands
            page, width = site_page(item)
            return 2, page, item.module.__name__ == "test_site_cloth", -width
        return build_stage(item), "", False, 0
    items.sort(key=order)


def toc_chapters():
    """Names of the chapter notebooks listed in _toc.yml, in reading order (as the build finds them)."""
    return [path.stem for path in toc_notebooks(Tree(ROOT))]


RUNNING = set()        # build processes this test process started and is waiting for


def run_build(*args, root=ROOT):
    """Run the site build script of the tree at `root`; return the CompletedProcess."""
    with subprocess.Popen([sys.executable, str(root / "scripts" / "build_book.py"), *args], cwd=root,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        RUNNING.add(process)
        try:
            out, err = process.communicate()
        finally:
            RUNNING.discard(process)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def descendants(pid):
    """PIDs of every process below process `pid` (Linux /proc)."""
    found, queue = [], [pid]
    while queue:
        parent = queue.pop()
        for task in os.listdir(f"/proc/{parent}/task"):
            with open(f"/proc/{parent}/task/{task}/children") as fh:
                children = [int(c) for c in fh.read().split()]
            found += children
            queue += children
    return found


def running(pid):
    """True while process `pid` exists and has not exited (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def shared_folder(tmp_path_factory):
    """The folder the xdist workers of this session share (the session's temp folder without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if "PYTEST_XDIST_WORKER" in os.environ else base


SESSION_BUILDS = {"chapter_run": ("--force", "--no-site"),    # every chapter executed from scratch
                  "site_run": ()}                             # then the site, from those executions


def session_build(name, shared):
    """The build `name` of SESSION_BUILDS, run by the first thread of any xdist worker that asks and
    reused by the others: a lock in the `shared` folder lets one build while the others wait, and a
    marker file hands them its outcome (a CompletedProcess)."""
    marker = shared / f"{name}.json"
    with open(shared / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists():
            result = run_build(*SESSION_BUILDS[name])
            marker.write_text(json.dumps([result.args, result.returncode, result.stdout, result.stderr]))
        return subprocess.CompletedProcess(*json.loads(marker.read_text()))


def session_builds(shared):
    """The session's builds in order; the site only after the chapters succeeded."""
    if session_build("chapter_run", shared).returncode == 0:
        session_build("site_run", shared)


@pytest.fixture(scope="session", autouse=True)
def _session_builds_in_background(request, tmp_path_factory):
    """When the session has a test that reads the chapters, start its builds in a thread at once:
    the tests that read no build run meanwhile, and a test that reads one waits in its fixture.

    At the end this process waits for them (another worker may still be reading them), unless the
    session was cut short (``-x``): then a build still running is stopped by SIGTERM, which the
    build script turns into a clean stop.
    """
    if not any(build_stage(item) for item in request.session.items):
        yield
        return
    builds = threading.Thread(target=session_builds, args=(shared_folder(tmp_path_factory),), daemon=True)
    builds.start()
    yield
    if request.session.shouldfail or request.session.shouldstop:
        for process in list(RUNNING):
            process.terminate()
    builds.join()


def succeeded(result, what):
    """`result` of a session build that succeeded; a test reading a build that a worker ending its
    cut-short session stopped is skipped (the session has failed already)."""
    if result.returncode == -signal.SIGTERM:
        pytest.skip(f"{what} was stopped: the session is ending (-x, --maxfail)")
    assert result.returncode == 0, f"{what} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="session")
def chapter_run(tmp_path_factory):
    """Every chapter executed from scratch, headless, by the build's nbclient runner (once per session)."""
    return succeeded(session_build("chapter_run", shared_folder(tmp_path_factory)), "chapter execution")


@pytest.fixture(scope="session")
def site_run(chapter_run, tmp_path_factory):
    """The site built right after `chapter_run`: a build of an unchanged tree (once per session)."""
    return succeeded(session_build("site_run", shared_folder(tmp_path_factory)), "site build")


@pytest.fixture(scope="session")
def site_dir(site_run):
    return ROOT / "_build" / "html"


# ---------------------------------------------------------------------------------------
# the built site in a browser: one Chromium per worker, serving tabs to test_site*.py
# ---------------------------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SETTLE_SECONDS = 30          # what Playwright allows a page load


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def base_url(site_dir):
    """URL of the built site, served from a sub-path of a local server (an absolute link would break)."""
    handler = functools.partial(QuietHandler, directory=str(site_dir.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/{site_dir.name}/"
    server.shutdown()


@contextlib.contextmanager
def chromium_context():
    """A browser context of a headless Chromium started for it (one Playwright per process at a time)."""
    if not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser.new_context()
        finally:
            browser.close()


@pytest.fixture(scope="module")
def browser():
    """A browser context for a module that opens its own pages (test_lab_view)."""
    with chromium_context() as context:
        yield context


def next_frame(page):
    """Wait until the page has rendered a frame after this call (two animation frames)."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def open_page(browser, url, width=1280):
    """Load `url` in a new tab of the browser context `browser` at a viewport `width`; return (page, problems)
    with console errors, failed and off-host requests.

    Returns once the page has loaded, MathJax has typeset it, its fonts are in and no request is still
    open (the requests a page makes after its load event are awaited, as Playwright's "networkidle"
    does, without its fixed half second of quiet).
    """
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    problems, open_requests = [], set()
    host = urlparse(url).netloc
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))
    page.on("request", lambda r: urlparse(r.url).scheme in ("http", "https")
            and urlparse(r.url).netloc != host and problems.append(f"off-host: {r.url}"))
    page.on("request", lambda r: open_requests.add(r))
    page.on("requestfinished", lambda r: open_requests.discard(r))
    page.on("requestfailed", lambda r: open_requests.discard(r))
    page.goto(url, wait_until="load")
    if page.locator("script[src*='mathjax']").count():          # Sphinx loads MathJax only where math is
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("MathJax.startup.promise")
    page.evaluate("document.fonts.ready.then(() => true)")
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        next_frame(page)                    # lets Playwright deliver the request events meanwhile
        if not open_requests:
            break
        assert time.monotonic() < deadline, f"requests still open: {sorted(r.url for r in open_requests)}"
    return page, problems


class LoadedPages:
    """Pages loaded once and read by every check of that page: a few open tabs, least recently used closed.

    The checks of one page run one after another on one worker (the xdist groups above, in the
    order of pytest_collection_modifyitems: the desktop width first), so each page is loaded once:
    a check at another width resizes the tab's viewport, as a reader turning a tablet does. A check
    that changes the page (the folded solutions, the 3D view's gestures) runs after the read-only
    ones at that width.
    """

    TABS = 3

    def __init__(self, browser, base_url):
        self.browser, self.base_url, self.tabs = browser, base_url, {}

    def __call__(self, path, width=1280):
        """(page, problems) of `path` (relative to the site root) at viewport `width`."""
        if path not in self.tabs:
            if len(self.tabs) >= self.TABS:
                self.tabs.pop(next(iter(self.tabs)))[0].close()
            self.tabs[path] = open_page(self.browser, self.base_url + path, width)
        self.tabs[path] = page, problems = self.tabs.pop(path)          # most recently used last
        if page.viewport_size["width"] != width:
            page.set_viewport_size({"width": width, "height": 900})
            next_frame(page)                                             # the new layout
        return page, problems

    def close(self):
        for page, _ in self.tabs.values():
            page.close()


@pytest.fixture(scope="session")
def loaded(base_url):
    """The worker's LoadedPages, in one browser context: every site test module reads its pages from it,
    and the tabs share the HTTP and compiled-script caches, as a reader's do. (The site tests run last,
    after any module's own browser has closed.)"""
    with chromium_context() as context:
        pages = LoadedPages(context, base_url)
        yield pages
        pages.close()
