"""``python -m ringleader`` is the ``ringleader`` command."""

import sys

from ._cli import main

sys.exit(main())
