"""The agents' hooks run this file directly: `python -S .../memoryd/hookrun.py inject ...`.

An agent waits on its SessionStart hook and runs the capture hook after every turn, so
they must cost as little as possible, and most of a bare interpreter's start-up is `site`
(scanning site-packages, running every .pth file). With -S none of that happens: this file
puts the folder holding the memoryd package on sys.path itself, and the hook paths need
nothing else (the standard library and memoryd's stdlib-only modules). Anything that does
need a third-party package calls memoryd.envpaths.full_site() first, which runs `site`
then, so a slow path still works, it just pays what it uses.
"""

import os
import sys


def _main() -> int:
    package = os.path.dirname(os.path.abspath(__file__))
    sys.path[0] = os.path.dirname(package)  # not memoryd/ itself: its modules are not top level
    from memoryd.cli.main import main

    return main()


if __name__ == "__main__":
    sys.exit(_main())
