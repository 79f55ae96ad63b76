"""The package as a whole: the layers import downwards only; what ``pip install`` puts in place."""
