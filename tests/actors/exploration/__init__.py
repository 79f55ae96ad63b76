"""The explorer (``actors/exploration``): every ordering, and the service's rules explored."""
