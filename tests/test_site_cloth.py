"""Chapter 015's interactive 3D view in a real browser (Debian's Chromium, headless, offline).

The checks every chapter gets (videos, captions, links, layout at 1280 and 390 px) are in test_site.py.
"""
import io

import numpy as np
import pytest
from PIL import Image


PAGE = "book/015_cloth.html"
VIEW = "#cloth-view"
VIEW_BUDGET = 6 * 2 ** 20                # bytes the interactive view may add to the page
PIXEL_TOL = 12                           # per-channel difference that counts as a changed pixel
MIN_CHANGED = 0.005                      # fraction of the view's pixels a new frame must change


def view_pixels(page):
    """RGB pixels of the interactive view's 3D scene, as a screenshot (the WebGL canvas included)."""
    page.mouse.move(0, 0)                  # no hover: plotly's mode bar stays hidden
    page.wait_for_timeout(200)
    png = page.locator(f"{VIEW} .gl-container canvas").first.screenshot()
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def current_time(page):
    """The slider's current-value label, "t = 1.23 s"."""
    return page.evaluate(f"[...document.querySelectorAll('{VIEW} .slider-container text')]"
                         ".map(e => e.textContent).find(s => s.startsWith('t = '))")


def changed(a, b):
    return float((np.abs(a - b).max(axis=2) > PIXEL_TOL).mean())


@pytest.fixture(scope="module")
def cloth_page(loaded):
    """The chapter page, loaded once for these checks and test_site's (which run first, tests/conftest.py):
    each check compares the view before and after its own gesture (the slider check, first, also reads
    the initial time)."""
    page, problems = loaded(PAGE, 1280)
    page.wait_for_selector(f"{VIEW} .gl-container canvas", state="attached")
    page.wait_for_function(f"document.querySelector('{VIEW}')._fullLayout !== undefined")
    page.locator(VIEW).scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    return page, problems


def test_view_loads_offline_and_draws_the_cloth(cloth_page, base_url):
    page, problems = cloth_page
    assert problems == []                  # no console error, failed request or request off the site
    src = page.evaluate("[...document.scripts].map(s => s.src).filter(s => s.includes('plotly'))")
    assert len(src) == 1 and src[0].startswith(base_url + "_static/vendor/plotly-gl3d-")
    pixels = view_pixels(page)
    background = np.array([255, 255, 255])
    cloth = np.abs(pixels - background).max(axis=2) > 40
    assert cloth.mean() > 0.02, "the 3D view is blank"
    blue = (pixels[..., 2] > pixels[..., 0] + 30) & cloth      # the cloth is drawn in CLOTH_FRONT's blue
    assert blue.mean() > 0.01


def test_moving_the_slider_changes_the_view(cloth_page):
    page, _ = cloth_page
    before = view_pixels(page)
    assert current_time(page) == "t = 0.00 s"
    rail = page.locator(f"{VIEW} .slider-container .slider-rail-rect").bounding_box()
    page.mouse.click(rail["x"] + 0.6 * rail["width"], rail["y"] + rail["height"] / 2)
    page.wait_for_timeout(500)
    after = view_pixels(page)
    assert current_time(page) not in (None, "t = 0.00 s")
    assert changed(before, after) > MIN_CHANGED


def test_play_animates_the_view(cloth_page):
    page, _ = cloth_page
    before = view_pixels(page)
    page.locator(f"{VIEW} .updatemenu-button", has_text="Play").click()
    page.wait_for_timeout(1500)
    page.locator(f"{VIEW} .updatemenu-button", has_text="Pause").click()
    page.wait_for_timeout(300)
    assert changed(before, view_pixels(page)) > MIN_CHANGED
    assert current_time(page) not in (None, "t = 0.00 s")


def test_dragging_orbits_the_camera(cloth_page):
    page, _ = cloth_page
    before = view_pixels(page)
    box = page.locator(f"{VIEW} .gl-container canvas").first.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 120, y + 30, steps=8)
    page.mouse.up()
    page.wait_for_timeout(400)
    assert changed(before, view_pixels(page)) > MIN_CHANGED


def test_view_stays_within_its_budget(site_dir):
    html = (site_dir / PAGE).read_text()
    start = html.index('id="cloth-view"')
    view_html = html[html.rindex("<div", 0, start):html.index("</script>", html.index("Plotly.newPlot", start))]
    scripts = list((site_dir / "_static" / "vendor").glob("plotly-*.min.js"))
    assert len(scripts) == 1
    added = len(view_html.encode()) + scripts[0].stat().st_size
    assert added <= VIEW_BUDGET, f"the interactive view adds {added / 2 ** 20:.2f} MB"
