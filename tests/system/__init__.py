"""Whole processes: ``ringleader node`` processes end to end, hosts in network namespaces,
chaos and rogue peers."""
