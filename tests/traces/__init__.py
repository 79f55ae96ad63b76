"""Traces (``ringleader/traces``): the format, the pictures, the pages in a browser."""
