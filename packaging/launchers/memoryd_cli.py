"""Entry point of the bundled `memoryd` executable: the CLI (memoryd.cli.main), or a
helper process memoryd started with `sys.executable` (see frozen_python)."""

import sys

from frozen_python import run_if_interpreter_call

if __name__ == "__main__":
    run_if_interpreter_call()
    from memoryd.cli.main import main

    sys.exit(main())
