"""``python -m nbsim``: the same CLI as the ``nbsim`` command, run in this
process (``nbsim.client.run_here``)."""
import sys

from nbsim.client import run_here

if __name__ == "__main__":      # not when Dask's worker processes re-import it (spawn)
    sys.exit(run_here(sys.argv[1:]))
