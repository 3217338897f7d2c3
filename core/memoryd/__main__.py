"""`python -m memoryd`: the same CLI as the `memoryd` script (what setup writes into an
agent's config when no `memoryd` executable is found)."""

import sys

from memoryd.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
