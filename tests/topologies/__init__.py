"""The topologies layer (``topologies/``): builders, configs, keys and secrets, your own
algorithm."""
