"""The `condlint` console command and `python -m condlint`: the bundled executable, in place of this process."""

from __future__ import annotations

import os
import sys

from ._run import binary, child_environment


def main() -> None:
    try:
        exe = binary()
        # argv[0] "condlint", so that its messages and --help name the command the user typed.
        os.execve(exe, ["condlint", *sys.argv[1:]], child_environment())
    except OSError as e:
        sys.stderr.write(f"condlint: cannot run the condlint executable: {e}\n")
        sys.exit(2)
