"""The transport layer (``transport/``): every transport's promises, the wire format, CURVE."""
