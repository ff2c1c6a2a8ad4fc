"""Advice at the table (``nbsim advise``): the table state, its notation, wins,
the fitted targets, the text."""
