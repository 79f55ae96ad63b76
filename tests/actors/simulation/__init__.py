"""The simulator (``actors/simulation``): ``ringleader run --simulate`` in virtual time."""
