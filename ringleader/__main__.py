"""``python -m ringleader`` is the ``ringleader`` command."""

import sys

from ringleader.cli import main

sys.exit(main())
