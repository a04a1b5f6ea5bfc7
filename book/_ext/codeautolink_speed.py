"""Sphinx extension: the same code-cell API links from sphinx-codeautolink, for a fraction of its work,
and on every page written.

sphinx-codeautolink 0.19 spent about 45% of the site build's time (a cProfile of ``jb build`` of
the seven chapters and the API pages) in two places that scale badly with our pages:

- With ``codeautolink_concat_default`` every code cell is parsed together with all the cells
  before it, so a chapter of n cells is parsed n times over (quadratic). Its name tracker visits
  a module's statements in order and keeps no look-ahead, so parsing only the new cell and
  continuing the tracker of the cells before gives the same names: :class:`IncrementalNames`.
- After the build it re-parses each whole page with BeautifulSoup (several MB with the videos
  inlined), copies every code block once per cell to find the cell's block, and re-serialises
  the page. :func:`link_html` finds the highlighted blocks with one regular expression and puts
  the links into the page's text; the links themselves come from sphinx-codeautolink's own
  name patterns (``construct_name_pattern``), with the titles of its ``format_title``, so they are
  the same.

It also links every page the build writes. sphinx-codeautolink links the pages that were outdated
when the builder started, but Sphinx may rewrite more: every page after a change of the
configuration, for one. Those came out without links on a build into a copy of the previous site
(``scripts/bookbuild/site.py``), so :class:`WrittenPages` hands it every page written.

A page Sphinx rewrites without reading it again (figure numbers that moved, for one) keeps its
links only if sphinx-codeautolink's cache still holds its code: the cache drops every page whose
source is not a ``.rst`` file, the chapters' notebooks included. :func:`read_cache` keeps every page
whose source still exists, whatever its suffix.

The replacements are of sphinx-codeautolink internals by name; :func:`setup` refuses another
version than the one they were checked against (``tests/test_site_autolink.py`` compares them with
the originals).
"""
import ast
import glob
import html
import json
import re
from pathlib import Path

import sphinx_codeautolink
from sphinx.errors import ExtensionError
from sphinx_codeautolink import extension as autolink_extension
from sphinx_codeautolink.extension import block as autolink_block
from sphinx_codeautolink.extension import cache as autolink_cache
from sphinx_codeautolink.parse import ImportTrackerVisitor
from sphinx_codeautolink.warn import logger, warn_type

CHECKED_VERSION = "0.19.0"

# a block sphinx-codeautolink links: a <div> with one of its classes, around Pygments' <pre>
BLOCK_DIV = re.compile(r'<div class="(?P<classes>[^"]*)">')
PRE = re.compile(r"<pre\b[^>]*>.*?</pre>", re.S)
TAG = re.compile(r"<[^>]*>")
LINENOS = re.compile(r'<span class="linenos">.*?</span>', re.S)
LINK = '<a href="{link}"{title} class="sphinx-codeautolink-a">{text}</a>'


class IncrementalNames:
    """``parse_names(source, node)`` that continues the name tracker of the previous call when
    `source` extends that call's source: only the new lines are parsed and visited.

    The names on the new lines are returned (line numbers counted in the whole `source`), which is
    what sphinx-codeautolink keeps of a full parse: it drops the names of the earlier cells.
    """

    def __init__(self):
        self.source, self.tracker = None, None

    def __call__(self, source, doctree_node):
        if self.source is not None and source.startswith(self.source + "\n"):
            head = self.source.count("\n") + 1
            try:
                new = ast.parse(source[len(self.source) + 1:])
            except SyntaxError:             # split inside a statement (an indented tail): parse it all
                names = self._visit(ast.parse(source), source, doctree_node, ImportTrackerVisitor(doctree_node))
                return [name for name in names if name.lineno > head]
            ast.increment_lineno(new, head)
            return self._visit(new, source, doctree_node, self.tracker)
        return self._visit(ast.parse(source), source, doctree_node, ImportTrackerVisitor(doctree_node))

    def _visit(self, tree, source, doctree_node, tracker):
        self.source = None                  # until the visit completes
        tracker.doctree_node = doctree_node
        start = len(tracker.accessed)
        tracker.visit(tree)
        self.source, self.tracker = source, tracker
        return tracker.accessed[start:]


def _block_pres(text, classes):
    """(start, end) of the <pre> element of every block whose <div> carries one of `classes`, in page order."""
    spans, after = [], 0
    for div in BLOCK_DIV.finditer(text):
        if div.start() < after or not classes.intersection(div["classes"].split()):
            continue
        pre = PRE.search(text, div.end())
        if pre:
            spans.append(pre.span())
            after = pre.end()
    return spans


def _block_text(pre_html):
    return html.unescape(TAG.sub("", LINENOS.sub("", pre_html)))


def _title(location, text):
    """The link's title attribute: its target, unless the linked code says it (``format_title``'s rule)."""
    code = re.sub(r"\s+", "", html.unescape(TAG.sub("", text)))
    return "" if code == location else f' title="{location}"'


def _link_names(pre_html, names, inventory, local_prefix, disable_link_titles, document, source):
    """`pre_html` with each of `names` wrapped in a link to its inventory location."""
    lines = pre_html.split("\n")
    for name in names:
        first, last = name.lineno - 1, name.end_lineno - 1
        selection = "\n".join(lines[first:last + 1])
        matches = list(re.finditer(autolink_block.construct_name_pattern(name), selection))
        if not matches:
            logger.warning(f"Could not match transformation of `{name.code_str}` on source lines "
                           f"{name.lineno}-{name.end_lineno}, source:\n{source}",
                           type=warn_type, subtype="match_name", location=document)
            continue
        match = matches[-1]               # the rightmost: `a.b = a.b` links from the right
        start, end = match.start() + len(match.group(1)), match.end()
        location = inventory[name.resolved_location]
        if not location.startswith(("http://", "https://")):
            location = local_prefix + location
        text = selection[start:end]
        title = "" if disable_link_titles else _title(name.resolved_location, text)
        linked = selection[:start] + LINK.format(link=location, title=title, text=text) + selection[end:]
        lines[first:last + 1] = linked.split("\n")
    return "\n".join(lines)


def link_html(document, out_dir, transforms, inventory, custom_blocks, search_css_classes,
              builder_name="html", *, disable_link_titles):
    """Put the code links of `document`'s `transforms` into its written HTML page (sphinx-codeautolink's
    ``link_html``, on the page's text instead of a parse tree)."""
    if builder_name == "dirhtml" and Path(document).name != "index":
        html_file = Path(out_dir) / document / "index.html"
    else:
        html_file = Path(out_dir) / (document + ".html")
    text = html_file.read_text("utf-8")
    classes = {f"highlight-{t}" for t in autolink_block.BUILTIN_BLOCKS.keys() | custom_blocks.keys()}
    classes |= {"doctest", *search_css_classes}
    blocks = _block_pres(text, classes)
    unmatched = list(range(len(blocks)))
    sources = {i: _block_text(text[slice(*blocks[i])]).rstrip() for i in unmatched}
    local_prefix = "../" * (len(html_file.relative_to(out_dir).parents) - 1)
    replaced = {}
    for trans in transforms:
        found = next((i for i in unmatched if sources[i] == trans.source.rstrip()), None)
        if found is None:
            logger.warning(f"Could not match a code example to HTML, source:\n{trans.source}",
                           type=warn_type, subtype="match_block", location=document)
            continue
        unmatched.remove(found)
        replaced[found] = _link_names(text[slice(*blocks[found])], trans.names, inventory, local_prefix,
                                      disable_link_titles, document, trans.source)
    if not replaced:
        return
    pieces, at = [], 0
    for i in sorted(replaced):
        start, end = blocks[i]
        pieces += [text[at:start], replaced[i]]
        at = end
    pieces.append(text[at:])
    html_file.write_text("".join(pieces), "utf-8")


def read_cache(self):
    """sphinx-codeautolink's ``DataCache.read``, keeping the code of every page whose source still exists
    (a notebook, a Markdown page), not only of ``.rst`` pages."""
    cache = self.cache_dir / self.cache_filename
    if not cache.exists():
        return
    for file, transforms in json.loads(cache.read_text("utf-8")).items():
        page = self.src_dir / file
        if not any(page.parent.glob(glob.escape(page.name) + ".*")):
            continue
        for transform in transforms:
            transform["example"] = autolink_cache.CodeExample(**transform["example"])
            transform["names"] = [autolink_cache.Name(**n) for n in transform["names"]]
        self.transforms[file] = [autolink_cache.SourceTransform(**t) for t in transforms]


class WrittenPages:
    """The pages this build writes; before sphinx-codeautolink's ``apply_links``, each is one to link."""

    def __init__(self):
        self.names = set()

    def remember(self, app, pagename, templatename, context, doctree):
        self.names.add(pagename)

    def mark_outdated(self, app, exception):
        for listener in app.events.listeners["build-finished"]:
            state = getattr(listener.handler, "__self__", None)
            if isinstance(state, autolink_extension.SphinxCodeAutoLink) and not state.do_nothing:
                state.outdated_docs |= {str(Path(name)) for name in self.names}


def setup(app):
    if sphinx_codeautolink.__version__ != CHECKED_VERSION:
        raise ExtensionError(f"codeautolink_speed replaces internals of sphinx-codeautolink {CHECKED_VERSION}, "
                             f"not {sphinx_codeautolink.__version__}: check it against the new version "
                             "(tests/test_site_autolink.py) and update CHECKED_VERSION")
    app.setup_extension("sphinx_codeautolink")
    autolink_block.parse_names = IncrementalNames()
    autolink_extension.link_html = link_html
    autolink_cache.DataCache.read = read_cache
    written = WrittenPages()
    app.connect("html-page-context", written.remember)
    app.connect("build-finished", written.mark_outdated, priority=400)     # apply_links has 500
    # the pages written are collected in this process: a parallel write would lose them
    return {"parallel_read_safe": True, "parallel_write_safe": False}
