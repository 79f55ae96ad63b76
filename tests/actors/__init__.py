"""The actors layer (``actors/``): members in virtual time, on threads and transports;
the sub-packages, by the package each tests."""
