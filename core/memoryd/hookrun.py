"""The agents' hooks run this file directly: `python -S .../memoryd/hookrun.py inject ...`.

An agent waits on its SessionStart hook and runs the capture hook after every turn, so
they must cost as little as possible, and most of a bare interpreter's start-up is `site`
(scanning site-packages, running every .pth file). With -S none of that happens: this file
puts the folder holding the memoryd package on sys.path itself, and the hook paths need
nothing else (the standard library and memoryd's stdlib-only modules). Anything that does
need a third-party package calls memoryd.envpaths.full_site() first, which runs `site`
then, so a slow path still works, it just pays what it uses.
"""

import contextlib
import os
import sys


def _main() -> int:
    """Only the hooks run this file, so it is hook mode throughout (memoryd.hookmode):
    even a memoryd that cannot be imported (a half-upgraded install) exits 0 with one line."""
    package = os.path.dirname(os.path.abspath(__file__))
    sys.path[0] = os.path.dirname(package)  # not memoryd/ itself: its modules are not top level
    try:
        from memoryd.cli.main import main

        return main()
    except SystemExit:  # argparse's --help and usage errors: not a hook's command line
        raise
    except BaseException as exc:  # main() catches its own; this is the import, or worse
        with contextlib.suppress(BaseException):  # stderr gone: nobody to tell
            sys.stderr.write(f"memoryd: hook did nothing: {exc.__class__.__name__}: {str(exc)[:200]!r}\n")
        return 0


if __name__ == "__main__":
    sys.exit(_main())
