"""Sphinx extension: number figures per page, so every chapter starts at Figure 1.

Without a numbered toctree Sphinx counts figures across the whole book (chapter 14 would
start at "Figure 14"). After Sphinx assigns the numbers, this renumbers each page's
figures (and tables, code listings) 1, 2, 3 ... in their page order, so the text of a
chapter can cite {numref}`fig-...` as "Figure 3" of that chapter.
"""


def _number_per_page(app, env):
    changed = set()
    for docname, kinds in env.toc_fignumbers.items():
        for kind, numbers in kinds.items():
            in_order = sorted(numbers, key=numbers.get)
            renumbered = {target: (i,) for i, target in enumerate(in_order, start=1)}
            if renumbered != numbers:
                kinds[kind] = renumbered
                changed.add(docname)
    return sorted(changed)


def setup(app):
    # after Sphinx's own TocTreeCollector (default priority 500) has assigned the numbers
    app.connect("env-get-updated", _number_per_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
