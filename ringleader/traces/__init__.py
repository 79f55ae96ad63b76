"""Traces of a run, and everything told or drawn from them.

- Recording: :class:`RunTrace` (a run in this process), :class:`PartWriter` (one node's
  part, written as it goes), :func:`open_trace`, :func:`trace_header` (the first line:
  what ran).
- Reading: :func:`load_trace` gives a :class:`Trace` (its events, nodes and the names
  the pictures use).
- Telling and drawing: :func:`replay` and :func:`narrate` (the notes' words),
  :func:`write_view` (a space-time diagram, the step-through page, a ShiViz log).
- What ``ringleader explore`` found: :func:`write_runs` (its runs as trace files;
  :func:`write_service_runs` for ``--service``).  Its graph is walked by hand in
  ``ringleader lab``.

The format itself is :mod:`ringleader.actors.tracing`'s.  matplotlib is imported only
when a picture is drawn.
"""

from ._explored import write_runs, write_service_runs
from ._header import algorithm_name, trace_header
from ._html import html_page
from ._narration import Story, narrate, story
from ._palette import KIND_COLOURS, MARKS, colours, lines
from ._shiviz import REGEX, shiviz_log
from ._steps import ALGORITHM_KINDS, algorithm_of, extinctions
from ._trace_file import Trace, TraceError, candidate, label, load_trace, parse_trace
from ._tracing import PartWriter, RunTrace, open_trace
from ._views import SUFFIXES, replay, write_view

__all__ = [
    "ALGORITHM_KINDS",
    "KIND_COLOURS",
    "MARKS",
    "REGEX",
    "SUFFIXES",
    "PartWriter",
    "RunTrace",
    "Story",
    "Trace",
    "TraceError",
    "algorithm_name",
    "algorithm_of",
    "candidate",
    "colours",
    "extinctions",
    "html_page",
    "label",
    "lines",
    "load_trace",
    "narrate",
    "open_trace",
    "parse_trace",
    "replay",
    "shiviz_log",
    "story",
    "trace_header",
    "write_runs",
    "write_service_runs",
    "write_view",
]
