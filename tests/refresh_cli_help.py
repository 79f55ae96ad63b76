"""Rewrite the ``--help`` outputs that ``docs/reference/cli.md`` shows, from the command.

    python tests/refresh_cli_help.py

After a change to an option or a help text: each ```sh block that runs ``ringleader ...
--help`` gets, in the ```text block after it, what the command prints now (with the
terminal width and environment the docs' test uses).  A new command still needs its
section written by hand (``tests/docs/test_docs.py`` says which is missing).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "cli.md"
BLOCK = re.compile(r"```sh\n(ringleader[^\n]*--help)\n```\n\n```text\n(.*?)```\n", re.S)


def main() -> int:
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join([bin_dir, env.get("PATH", "")])

    def fresh(match: re.Match[str]) -> str:
        command = match.group(1)
        printed = subprocess.run(
            command.split(), capture_output=True, text=True, env=env, check=True
        ).stdout
        return f"```sh\n{command}\n```\n\n```text\n{printed}```\n"

    text = PAGE.read_text(encoding="utf-8")
    PAGE.write_text(BLOCK.sub(fresh, text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
