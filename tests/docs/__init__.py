"""The README and docs executed, the figures their prose quotes, the benchmarks' machinery."""
