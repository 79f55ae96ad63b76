"""An mkdocs hook: pictures named in a page appear once ``docs/make_pictures.py`` made them.

A page names a picture on a line of its own::

    <!-- picture: ../images/bully-story.png "Space-time diagram of the Bully walk-through" -->

When the file exists, the line becomes the image (``![alt](path)``); until then it stays a
comment.  Once ``docs/make_pictures.py`` exists, a named picture it did not make is a
warning, which fails ``mkdocs build --strict``: every picture comes from that one script.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

_logger = logging.getLogger("mkdocs.hooks.pictures")
_PICTURE = re.compile(r'^<!--\s*picture:\s*(?P<path>\S+)\s+"(?P<alt>[^"]*)"\s*-->[ \t]*$', re.M)
SCRIPT = "make_pictures.py"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any, **kwargs: Any) -> str:
    source = Path(page.file.abs_src_path)
    script = Path(config["docs_dir"]) / SCRIPT

    def put(match: re.Match[str]) -> str:
        path = match["path"]
        if (source.parent / path).is_file():
            return f"![{match['alt']}]({path})"
        if script.exists():
            _logger.warning(
                "%s names the picture %s, which docs/%s does not make",
                page.file.src_path,
                path,
                SCRIPT,
            )
        return match[0]

    return _PICTURE.sub(put, markdown)
