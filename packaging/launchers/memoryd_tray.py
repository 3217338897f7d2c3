"""Entry point of the bundled `memoryd-tray` executable: the tray app
(memoryd_desktop.main), or a helper process the tray started with `sys.executable`, such
as an overdue consolidation (see frozen_python)."""

import sys

from frozen_python import run_if_interpreter_call

if __name__ == "__main__":
    run_if_interpreter_call()
    from memoryd_desktop.main import main

    sys.exit(main())
