"""Bot policies (Numba), one module each, registered in ``catalog.py``.

``catalog`` (plain Python): the policy table, read by the engine, the command
line, the manifest and the docs. ``view``: what a deciding player sees
(``View``) and the policies' scratch. ``registry``: the engine's dispatch of
the four decisions (win, kong, claim, discard). ``common``: helpers shared by
the policies. One module per policy: ``random_play``, ``greedy``, ``value``,
``defend``.

This package's ``__init__`` imports nothing, so reading the table does not
load numba.
"""
