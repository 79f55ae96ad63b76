"""The crash-tolerant member's parts, each alone: no host, no clock, no socket."""
