"""Sphinx extension: number figures per page, so every chapter starts at Figure 1.

Without a numbered toctree Sphinx counts figures across the whole book (chapter 14 would
start at "Figure 14"). After Sphinx assigns the numbers, this renumbers each page's
figures (and tables, code listings) 1, 2, 3 ... in their page order, so the text of a
chapter can cite {numref}`fig-...` as "Figure 3" of that chapter.

Sphinx rewrites every page whose numbers differ from the last build's. Compared with the
per-page numbers, its own book-wide ones always differ, so before it numbers again this hands it
back its book-wide numbers of the last build: an incremental build then rewrites only the pages
whose figures changed. (A page rewritten without being read again loses its code links:
sphinx-codeautolink keeps no links of notebooks between builds.)
"""
import copy


def _restore_book_wide_numbers(app, env):
    """Before Sphinx numbers again: its own numbers of the last build, the per-page ones kept aside."""
    book_wide = getattr(env, "course_book_wide_fignumbers", None)
    if book_wide is not None:
        env.course_per_page_fignumbers = env.toc_fignumbers
        env.toc_fignumbers = book_wide
    return []


def _number_per_page(app, env):
    """Renumber each page's figures from 1; return the pages whose per-page numbers changed."""
    env.course_book_wide_fignumbers = copy.deepcopy(env.toc_fignumbers)
    previous = getattr(env, "course_per_page_fignumbers", {})
    changed = set()
    for docname, kinds in env.toc_fignumbers.items():
        for kind, numbers in kinds.items():
            in_order = sorted(numbers, key=numbers.get)
            kinds[kind] = {target: (i,) for i, target in enumerate(in_order, start=1)}
        if kinds != previous.get(docname):
            changed.add(docname)
    env.course_per_page_fignumbers = env.toc_fignumbers
    return sorted(changed)


def setup(app):
    # around Sphinx's own TocTreeCollector, which assigns the numbers at the default priority 500
    app.connect("env-get-updated", _restore_book_wide_numbers, priority=400)
    app.connect("env-get-updated", _number_per_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
