"""Rule search (``nbsim tune``): the search spec, the study, the targets, the
output."""
