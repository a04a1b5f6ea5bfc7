"""Sphinx extension: what the site says about its chapters, generated from ``_toc.yml``.

A *chapter* is a notebook listed in ``_toc.yml``. For every chapter, in reading order:

- the ``{chapter-table}`` directive (the landing page's table) writes a row with the chapter's
  own title (its notebook's first ``#`` heading) and its one-line summary (the notebook's
  ``metadata.course.summary``; without one, the "what we do" column of the step table in its
  first cell);
- the ``{chapter-times}`` directive (on Start here) writes a row with the chapter's words, its
  reading time and its latest execution time (myst-nb's record of the build);
- every chapter page gets a note under its title on running the notebook its download button
  gives: it imports ``simkit`` and ``utils``, which only a copy of the course repository has.

A chapter added to ``_toc.yml`` appears in all three with no other edit.
"""
import json
import re
from pathlib import Path

import yaml
from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

RUN_NOTE_CLASS = "course-run-note"

RUN_COMMANDS = "cd simkit-course\nmake lab"      # into a copy of the course repository; then Jupyter Lab


def toc_files(app):
    """Document names listed in the project's _toc.yml (root first), in reading order, each once."""
    toc_path = Path(app.srcdir) / app.config.external_toc_path
    toc = yaml.safe_load(toc_path.read_text())
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            files.extend([node["file"]] if "file" in node else [])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(toc.get("parts", toc.get("chapters", [])))
    return list(dict.fromkeys(str(Path(f).with_suffix("")) for f in files)), toc_path


def chapters(app):
    """(docname, notebook path) of every chapter: each notebook of _toc.yml, in reading order."""
    docnames, _ = toc_files(app)
    paths = [(d, Path(app.srcdir) / f"{d}.ipynb") for d in docnames]
    return [(d, p) for d, p in paths if p.exists()]


def strip_markdown(text):
    """`text` with its MyST links and roles reduced to their words, on one line."""
    text = re.sub(r"\{footcite[pt]?\}`[^`]*`", "", text)                 # citations say nothing here
    text = re.sub(r"\{[\w:-]+\}`~?([^`<]*?)\s*(?:<[^>]*>)?`", r"\1", text)   # {py:func}`~a.b` -> a.b
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)                  # [words](target) -> words
    return " ".join(text.split())


def chapter_heading_and_summary(path):
    """(title, summary) of the chapter notebook at `path`: its first heading and its one-line summary."""
    nb = json.loads(path.read_text())
    markdown = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    lines = markdown[0].splitlines() if markdown else []
    heading = next((line for line in lines if line.startswith("# ")), None)
    if heading is None:
        raise ValueError(f"{path.name}: its first markdown cell has no '# ' title")
    summary = nb["metadata"].get("course", {}).get("summary")
    if not summary:                     # the "what we do" column of the chapter's step table
        rows = [line for line in lines if line.startswith("|")][2:]
        summary = " · ".join(strip_markdown(row.strip().strip("|").split("|")[-1]) for row in rows)
    if not summary:
        raise ValueError(f"{path.name} has no one-line summary for the landing page: give its notebook "
                         'metadata {"course": {"summary": "..."}} (or a step table in its first cell)')
    return heading[2:].strip(), " ".join(summary.split())


class ChapterTable(SphinxDirective):
    """A table of every chapter in _toc.yml: its title (a link) and its one-line summary."""

    def run(self):
        _, toc_path = toc_files(self.env.app)
        self.env.note_dependency(str(toc_path))
        here = Path(self.env.doc2path(self.env.docname)).parent
        rows = ["| chapter | what you build |", "| --- | --- |"]
        for docname, path in chapters(self.env.app):
            self.env.note_dependency(str(path))
            title, summary = chapter_heading_and_summary(path)
            link = Path(path).relative_to(here) if path.is_relative_to(here) else path
            rows.append(f"| [{title.replace('|', '/')}]({link}) | {summary.replace('|', '/')} |")
        container = nodes.container(classes=["course-chapter-table"])
        self.state.nested_parse(StringList(rows, source=self.env.docname), self.content_offset, container)
        return [container]


READING_WORDS_PER_MINUTE = 100          # mathematical prose, read closely
TIMES_KEY = "course_chapter_times"      # marks a page that holds a times table


def prose_words(path):
    """Number of words in the markdown cells of the notebook at `path`."""
    nb = json.loads(path.read_text())
    return sum(len("".join(c["source"]).split()) for c in nb["cells"] if c["cell_type"] == "markdown")


class ChapterTimesNode(nodes.General, nodes.Element):
    """Placeholder for the table of reading and running times, filled once every chapter has run."""


class ChapterTimes(SphinxDirective):
    """A table of every chapter in _toc.yml: its words, the time to read them and the time to run it."""

    def run(self):
        _, toc_path = toc_files(self.env.app)
        self.env.note_dependency(str(toc_path))
        rows = []
        for docname, path in chapters(self.env.app):
            self.env.note_dependency(str(path))
            rows.append((docname, chapter_heading_and_summary(path)[0].split(":")[0], prose_words(path)))
        from myst_nb.sphinx_ import NbMetadataCollector

        NbMetadataCollector.set_doc_data(self.env, self.env.docname, TIMES_KEY, True)
        return [ChapterTimesNode(rows=rows)]


def minutes(seconds):
    """'40 s' or '3 min' for a duration in seconds."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def times_table(node, env):
    """The table of `node`'s rows, with each chapter's latest execution time (myst-nb's record)."""
    from myst_nb.sphinx_ import NbMetadataCollector    # the site's notebook reader

    data = NbMetadataCollector.get_doc_data(env)
    header = ["chapter", "words", "reading", "running"]
    table = nodes.table(classes=["colwidths-auto"])
    group = nodes.tgroup(cols=len(header))
    table += group
    group += [nodes.colspec(colwidth=1) for _ in header]
    head, body = nodes.thead(), nodes.tbody()
    group += [head, body]
    head += nodes.row("", *[nodes.entry("", nodes.paragraph(text=h)) for h in header])
    for docname, title, words in node["rows"]:
        runtime = (data.get(docname, {}).get("exec_data") or {}).get("runtime")
        link = doc_link(env, docname, title)
        reading = max(5, 5 * round(words / READING_WORDS_PER_MINUTE / 5))
        cells = [nodes.paragraph("", "", link), nodes.paragraph(text=f"{words:,}"),
                 nodes.paragraph(text=f"{reading} min"),
                 nodes.paragraph(text="-" if runtime is None else minutes(runtime))]
        body += nodes.row("", *[nodes.entry("", cell) for cell in cells])
    return table


class ChapterTimesTransform(SphinxPostTransform):
    """Replace each ChapterTimesNode with its table (before references are resolved)."""

    default_priority = 8

    def run(self, **kwargs):
        for node in list(self.document.findall(ChapterTimesNode)):
            node.replace_self(times_table(node, self.env))


def pages_with_times(app, env):
    """Rewrite the pages holding a times table after any chapter ran again."""
    from myst_nb.sphinx_ import NbMetadataCollector

    if not NbMetadataCollector.new_exec_data(env):
        return []
    return [d for d, data in NbMetadataCollector.get_doc_data(env).items() if data.get(TIMES_KEY)]


def literal(text):
    """Inline code `text`."""
    return nodes.literal(text, text)


def doc_link(env, docname, text):
    """A link to the page `docname` (from the site root), or plain `text` when the site has no such page."""
    if docname not in env.found_docs:
        return nodes.Text(text)
    return addnodes.pending_xref("", nodes.inline("", text), refdomain="std", reftype="doc",
                                 reftarget="/" + docname, refexplicit=True, refwarn=True)


def run_note(env, notebook):
    """The note on running the downloaded notebook `notebook` (a file name), as docutils nodes."""
    note = nodes.admonition(classes=["note", RUN_NOTE_CLASS])
    note += nodes.title("", "Running this notebook")
    note += nodes.paragraph("", "", nodes.Text("The notebook of this page (download button, top right) imports "),
                            literal("simkit"), nodes.Text(" and "), literal("utils"),
                            nodes.Text(", which come with the course repository. In your copy of it, run"))
    note += nodes.literal_block(RUN_COMMANDS, RUN_COMMANDS, language="bash")
    note += nodes.paragraph("", "", nodes.Text("and open "), literal(notebook), nodes.Text(" in "), literal("book/"),
        nodes.Text(". The first "), literal("make lab"), nodes.Text(" installs the course's environment into "),
        literal(".venv"), nodes.Text(". "),
        doc_link(env, "book/start_here", "Start here"), nodes.Text(" lists the chapters this one builds on; "),
        doc_link(env, "book/notation", "Notation and glossary"), nodes.Text(" defines its symbols."))
    return note


def add_run_note(app, doctree):
    """Put the note on running a downloaded notebook under the title of every chapter page."""
    notebook = dict(chapters(app)).get(app.env.docname)
    section = next(iter(doctree.findall(nodes.section)), None)
    if notebook is None or section is None:
        return
    title = next(iter(section.findall(nodes.title)))
    section.insert(section.index(title) + 1, run_note(app.env, notebook.name))


def setup(app):
    app.add_directive("chapter-table", ChapterTable)
    app.add_node(ChapterTimesNode)
    app.add_directive("chapter-times", ChapterTimes)
    app.add_post_transform(ChapterTimesTransform)
    app.connect("env-updated", pages_with_times)
    app.connect("doctree-read", add_run_note)
    # a new env_version makes Sphinx read every page again, so a changed note reaches every chapter
    return {"env_version": 3, "parallel_read_safe": True, "parallel_write_safe": True}
