"""The `condlint` console command and `python -m condlint`: the bundled executable, in place of this process."""

from __future__ import annotations

import os
import sys

from ._run import binary


def main() -> None:
    try:
        exe = binary()
        # argv[0] "condlint", so that its messages and --help name the command the user typed.
        os.execv(exe, ["condlint", *sys.argv[1:]])
    except OSError as e:
        sys.stderr.write(f"condlint: cannot run the condlint executable: {e}\n")
        sys.exit(2)
