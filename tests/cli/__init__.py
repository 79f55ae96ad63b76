"""The ``ringleader`` command (``ringleader/cli``): reports, exit codes, one line for
every bad input."""
