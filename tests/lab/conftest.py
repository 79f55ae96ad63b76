"""The headless browser (``tests/browser.py``) for this folder's page tests."""

from tests.browser import browser

__all__ = ["browser"]
