"""Sphinx extension: emit each page script once.

Sphinx 7.4 registers an inline script added after the builder starts (sphinx-thebe's
``const THEBE_JS_URL = ...``, sphinx-togglebutton's selector) twice, once with the
file name None and once with '', which browsers reject ("Identifier 'THEBE_JS_URL'
has already been declared"). This drops the second copy from every page.
"""


def _drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = (script.filename or "", tuple(sorted((k, str(v)) for k, v in script.attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    scripts[:] = unique


def setup(app):
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
