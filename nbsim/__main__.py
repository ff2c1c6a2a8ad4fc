"""``python -m nbsim``: the same CLI as the ``nbsim`` command."""
from nbsim.cli import main

main()
