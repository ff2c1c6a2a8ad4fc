"""``python -m nbsim``: the same command line as the ``nbsim`` command."""
from nbsim.cli import main

if __name__ == "__main__":      # not when Dask's worker processes re-import it (spawn)
    main()
