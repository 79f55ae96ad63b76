"""Tests of the sans-IO election layer, by sub-package."""
