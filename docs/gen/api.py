"""reference/api.md: the public Python API, every name of ``nbsim.__all__``
rendered by mkdocstrings from its docstring and signature (each at the
module that defines it, found by importing it)."""
from __future__ import annotations

import inspect

import mkdocs_gen_files

import nbsim

GROUPS = (("Functions", inspect.isfunction),
          ("Errors", lambda o: isinstance(o, type) and issubclass(o, Exception)),
          ("Classes", inspect.isclass))


def page() -> str:
    objects = {n: getattr(nbsim, n) for n in nbsim.__all__ if n != "__version__"}
    text = ("# Python API\n\n"
            '!!! note "Generated"\n    This page is generated from `nbsim.__all__` and the '
            "docstrings each time the site is built (`make docs`).\n\n"
            "`import nbsim` is cheap: each name loads its module on first use. "
            f"This is nbsim {nbsim.__version__} (`nbsim.__version__`). Every error a user "
            "can cause (bad tile text, config key, path, seed, ...) raises a subclass of "
            "`nbsim.NbsimError` whose message names what is wrong and what is allowed; the "
            "command line prints that one line and exits with status 2.\n\n")
    done: set[str] = set()
    for title, test in GROUPS:
        names = [n for n, o in objects.items() if n not in done and test(o)]
        if not names:
            continue
        text += f"## {title}\n\n"
        for n in names:
            o = objects[n]
            text += f"### nbsim.{n}\n\n::: {o.__module__}.{o.__qualname__}\n" \
                    "    options:\n      show_root_heading: false\n\n"
            done.add(n)
    missing = set(objects) - done
    if missing:
        raise TypeError(f"nbsim.__all__ names of no group: {sorted(missing)}")
    return text


with mkdocs_gen_files.open("reference/api.md", "w") as fh:
    fh.write(page())
