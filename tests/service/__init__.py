"""The service (``ringleader/service``): ``ringleader.Node``, a node's state, identity,
hand-over."""
