"""The one checker (``actors/checks``) every kind of run shares."""
