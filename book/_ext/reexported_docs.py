"""Sphinx extension: a module attribute keeps its doc comment where a facade re-exports it.

autodoc reads the ``#:`` comment (or the string after the assignment) of ``.. autodata::
utils.PIN_C`` in ``utils.py`` only, but the colour is defined, and described, in
``course/style.py``: ``utils`` imports it from there. For a documented attribute without a
comment of its own, this takes the comment of the same object in a module that defines it.
"""
import sys

from sphinx.ext.autodoc import DataDocumenter
from sphinx.pycode import ModuleAnalyzer, PycodeError


def _defining_comment(modname, attrname, value):
    """The doc comment of ``attrname`` in another loaded module that holds the same object."""
    for name, module in list(sys.modules.items()):
        if name == modname or getattr(module, "__file__", None) is None:
            continue
        if getattr(module, attrname, None) is not value:
            continue
        try:
            analyzer = ModuleAnalyzer.for_module(name)
            analyzer.analyze()
        except PycodeError:
            continue
        comment = analyzer.attr_docs.get(("", attrname))
        if comment:
            return list(comment)
    return None


class ReexportedDataDocumenter(DataDocumenter):
    """``autodata`` that finds the comment of a re-exported attribute in its defining module."""

    priority = DataDocumenter.priority + 1

    def get_module_comment(self, attrname):
        return super().get_module_comment(attrname) or _defining_comment(self.modname, attrname, self.object)


def setup(app):
    app.setup_extension("sphinx.ext.autodoc")
    app.add_autodocumenter(ReexportedDataDocumenter, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
