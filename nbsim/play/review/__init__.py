"""``nbsim review``: every decision of one seat in a played deal rated
against the best move, from a record of the deal as the seat saw it
(``record``), the decisions it holds (``decisions``), each rated by the
lookahead evaluator (``rate``) and shown as text, JSON or an HTML page
(``text``); ``nbsim.play.review.review.review`` is the entry point."""
