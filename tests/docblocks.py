"""The README's and the docs' code blocks, read, run and checked (for
``tests/docs/test_docs.py``).

A page is Markdown; its fenced blocks say what they are by their language:

- ``sh``: commands, run by bash (``-e -o pipefail``) from the root of a scratch copy of
  the repository, with the installed ``ringleader`` and ``python`` first on ``PATH``;
- ``python``: a program, run by the same Python in a fresh process, in the same place;
- ``text`` or ``json`` right after one of those (nothing but blank lines between): what
  it prints, stdout and stderr together, as a terminal would show them; checked;
- anything else (``toml``, ``text`` elsewhere …): shown, not run.

The blocks of one page run in order in one scratch directory (a later block may read
what an earlier one wrote); nothing is left behind.  ``<!-- docs: … -->`` comments on
the lines just above a block change how it runs (see :data:`MARKERS`).

How shown output is checked (see :func:`check_text` and :func:`check_json`): every
figure must be what the run printed — message counts, leaders, epochs, exit statuses —
except timings: a number followed by a unit of time (``3.7 ms``, ``0.30 s``) stands for
any number, and in JSON any number under a timing key (``elapsed_s``, ``t``, ``mono``,
``at``, any ``…_s``) does.  ``…`` stands for anything: inside a line, any text; alone on
a line, any number of lines; as a JSON string ``"…"``, any value, and as a list's last
item, any further items.  Runs of spaces count as one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: The markers, written ``<!-- docs: NAME … -->`` on the line(s) just above a block.
MARKERS = {
    "skip": "skip (why): not run, for a reason the page's reader can check (root, "
    "several machines, runs until Ctrl-C, minutes)",
    "smaller": "smaller (why) `OLD` → `NEW`; `OLD2` → `NEW2`: run with each OLD replaced "
    "by NEW (each must occur); its shown output is then not compared",
    "exit": "exit N: the block ends with exit status N (default 0)",
    "slow": "slow (why): takes more than a few seconds; run with pytest's slow marker",
}
COMMANDS = ("sh", "python")
OUTPUTS = ("text", "json")
#: JSON keys whose numbers are timings (not compared).
TIMING_KEYS = re.compile(r"^(t|mono|at|.*_s)$")
_TIMING = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?\s?(?:ns|µs|us|ms|s|min)(?!\w)")
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+-]*)[^`]*$")
_MARKER = re.compile(r"^\s*<!--\s*docs:\s*(?P<body>.*?)\s*-->\s*$")
_REASON = re.compile(r"^\((?P<why>[^()]*(?:\([^()]*\)[^()]*)*)\)\s*(?P<rest>.*)$")
_REPLACEMENT = re.compile(r"`(?P<old>[^`]+)`\s*(?:→|->)\s*`(?P<new>[^`]*)`")


class MarkerError(ValueError):
    """A ``<!-- docs: … -->`` comment that does not say something this module knows."""


@dataclass(frozen=True)
class Marker:
    name: str
    why: str = ""
    replacements: tuple[tuple[str, str], ...] = ()
    status: int = 0


@dataclass(frozen=True)
class Block:
    page: str  #: relative to the repository's root
    line: int  #: of the opening fence, counting from 1
    lang: str
    text: str
    markers: tuple[Marker, ...] = ()
    output: Block | None = None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    def marker(self, name: str) -> Marker | None:
        return next((m for m in self.markers if m.name == name), None)

    @property
    def runnable(self) -> bool:
        return self.lang in COMMANDS

    @property
    def script(self) -> str:
        """The text that runs: with a ``smaller`` marker's replacements made."""
        text = self.text
        smaller = self.marker("smaller")
        for old, new in smaller.replacements if smaller else ():
            if old not in text:
                raise MarkerError(f"{self.where}: smaller: {old!r} is not in the block")
            text = text.replace(old, new)
        return text

    @property
    def status(self) -> int:
        marker = self.marker("exit")
        return marker.status if marker else 0


def parse_marker(body: str, where: str) -> Marker:
    name, _, rest = body.partition(" ")
    rest = rest.strip()
    if name not in MARKERS:
        raise MarkerError(f"{where}: unknown marker {name!r}; known: {', '.join(MARKERS)}")
    if name == "exit":
        if not rest.isdigit():
            raise MarkerError(f"{where}: write <!-- docs: exit N --> with N a number")
        return Marker(name, status=int(rest))
    reason = _REASON.match(rest)
    if reason is None or not reason["why"].strip():
        raise MarkerError(f"{where}: {name} needs a reason in parentheses: {MARKERS[name]}")
    why, tail = reason["why"].strip(), reason["rest"].strip()
    if name != "smaller":
        if tail:
            raise MarkerError(f"{where}: unexpected {tail!r} after the reason")
        return Marker(name, why)
    replacements = tuple((m["old"], m["new"]) for m in _REPLACEMENT.finditer(tail))
    leftover = _REPLACEMENT.sub("", tail).replace(";", "").strip()
    if not replacements or leftover:
        raise MarkerError(f"{where}: write {MARKERS['smaller']}")
    return Marker(name, why, replacements)


def read_page(path: Path) -> list[Block]:
    """Every fenced block of ``path``, each command block with its markers and output."""
    page = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    markers: list[Marker] = []
    between_blank = True  # only blank lines since the last block closed
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = _MARKER.match(line)
        opening = _FENCE.match(line)
        if marker:
            markers.append(parse_marker(marker["body"], f"{page}:{i + 1}"))
            between_blank = False
            i += 1
            continue
        if not opening:
            if line.strip():
                between_blank = False
                if markers:
                    raise MarkerError(
                        f"{page}:{i + 1}: a docs marker must stand just above a block"
                    )
            i += 1
            continue
        indent, fence, lang = opening["indent"], opening["fence"], opening["lang"]
        body: list[str] = []
        i += 1
        while i < len(lines) and not re.match(
            rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", lines[i]
        ):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        start = i - len(body)  # the opening fence's line number, from 1
        block = Block(page, start, lang, "\n".join(body) + "\n", tuple(markers))
        if (
            lang in OUTPUTS
            and between_blank
            and not markers
            and blocks
            and blocks[-1].runnable
            and blocks[-1].output is None
        ):
            blocks[-1] = _with_output(blocks[-1], block)
        else:
            blocks.append(block)
        markers = []
        between_blank = True
        i += 1
    if markers:
        raise MarkerError(f"{page}: a docs marker at the end stands above no block")
    return blocks


def _with_output(block: Block, output: Block) -> Block:
    return Block(block.page, block.line, block.lang, block.text, block.markers, output)


def pages() -> list[Path]:
    """The README and every page of the docs."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


# --- running ---------------------------------------------------------------------------


def copy_repository(target: Path) -> Path:
    """The repository's files (those git tracks or would) copied into ``target``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the work tree, not yet in git
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination, follow_symlinks=False)
    return target


def environment(scratch: Path) -> dict[str, str]:
    """What a block runs with: the installed ``ringleader`` and ``python`` first on PATH,
    a runtime directory, a state directory (the nodes' highest epochs) and a temporary
    directory of its own, no colours, a terminal width that stays put."""
    env = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join([bin_dir, env.get("PATH", "")])
    runtime = scratch / ".runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    temporary = scratch / ".tmp"  # a block's tempfile.mkdtemp() goes with the scratch
    temporary.mkdir(exist_ok=True)
    env.update(
        TMPDIR=str(temporary),
        XDG_RUNTIME_DIR=str(runtime),
        XDG_STATE_HOME=str(scratch / ".state"),
        NO_COLOR="1",
        COLUMNS="100",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONUNBUFFERED="1",
    )
    env.pop("RINGLEADER_SECRET", None)
    return env


def _can_isolate() -> bool:
    """Whether blocks can run in a network namespace of their own (root, Linux, unshare)."""
    if sys.platform != "linux" or os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    probe = subprocess.run(
        ["unshare", "--net", "--", "ip", "link", "set", "lo", "up"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


#: Where they can, blocks run in a network namespace of their own, with only a loopback:
#: the examples' fixed addresses (tcp://127.0.0.1:7301) then clash with nothing else
#: running on the machine.  Elsewhere they run as they are.
ISOLATED = _can_isolate()


@dataclass
class Outcome:
    status: int
    output: str


def run(block: Block, cwd: Path, env: dict[str, str], timeout: float) -> Outcome:
    """Run ``block`` in ``cwd``; afterwards kill anything it left running."""
    if block.lang == "sh":
        argv = ["bash", "-e", "-o", "pipefail", "-c", block.script]
    else:
        argv = [sys.executable, "-c", block.script]
    if ISOLATED:  # a network of its own: the examples' fixed ports clash with nothing
        argv = ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "-", *argv]
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        out, _ = process.communicate()
        raise AssertionError(
            f"{block.where}: still running after {timeout:g} s; it printed:\n"
            + out.decode(errors="replace")
        ) from None
    finally:
        _kill_group(process.pid)
    return Outcome(process.returncode, out.decode(errors="replace"))


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


# --- checking output --------------------------------------------------------------------


def _normal(line: str) -> str:
    return " ".join(_TIMING.sub("⏱", line).split())


def _line_pattern(line: str) -> re.Pattern[str]:
    parts = [re.escape(part) for part in line.split("…")]
    return re.compile(".*".join(parts) + r"\Z", re.DOTALL)


def check_text(shown: str, actual: str) -> str | None:
    """None if ``actual`` is what ``shown`` shows; else what differs, in words."""
    want = [_normal(line) for line in shown.strip("\n").splitlines()]
    got = [_normal(line) for line in actual.strip("\n").splitlines()]
    patterns = [None if line == "…" else _line_pattern(line) for line in want]

    best = [0]  # the furthest shown line matched, for the message

    def match(w: int, g: int) -> bool:
        best[0] = max(best[0], w)
        if w == len(patterns):
            return g == len(got)
        pattern = patterns[w]
        if pattern is None:
            return any(match(w + 1, k) for k in range(g, len(got) + 1))
        return g < len(got) and pattern.match(got[g]) is not None and match(w + 1, g + 1)

    if match(0, 0):
        return None
    where = min(best[0], len(want) - 1)
    return (
        f"the output differs from what the page shows (first unmatched shown line: "
        f"{want[where]!r})\n--- shown\n{shown}--- printed\n{actual}"
    )


def _json_values(text: str) -> Any:
    text = text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    lines = [line.strip() for line in text.splitlines()]
    return ["…" if line == "…" else json.loads(line) for line in lines if line]


def check_json(shown: str, actual: str) -> str | None:
    """None if the JSON printed holds what ``shown`` shows (see the module's docstring)."""
    try:
        want = _json_values(shown)
    except json.JSONDecodeError as exc:
        return f'the shown JSON does not parse ({exc}): write … as "…"'
    try:
        got = _json_values(actual)
    except json.JSONDecodeError as exc:
        return f"the output is not JSON ({exc}):\n{actual}"
    problems: list[str] = []
    _compare(want, got, "$", None, problems)
    if not problems:
        return None
    return "the JSON printed differs from the page:\n  " + "\n  ".join(problems[:10])


def _compare(want: Any, got: Any, path: str, key: str | None, problems: list[str]) -> None:
    if want == "…":
        return
    if key is not None and TIMING_KEYS.match(key) and _is_number(want):
        if not (_is_number(got) or got is None):
            problems.append(f"{path}: a timing, but {got!r} is not a number")
    elif isinstance(want, dict):
        _compare_objects(want, got, path, problems)
    elif isinstance(want, list):
        _compare_lists(want, got, path, key, problems)
    elif want != got or (
        type(want) is not type(got) and not (_is_number(want) and _is_number(got))
    ):
        problems.append(f"{path}: shown {want!r}, printed {got!r}")


def _compare_objects(want: dict[str, Any], got: Any, path: str, problems: list[str]) -> None:
    if not isinstance(got, dict):
        problems.append(f"{path}: shown an object, printed {got!r}")
        return
    for k, v in want.items():
        if k not in got:
            problems.append(f"{path}.{k}: shown, not printed")
        else:
            _compare(v, got[k], f"{path}.{k}", k, problems)


def _compare_lists(
    want: list[Any], got: Any, path: str, key: str | None, problems: list[str]
) -> None:
    if not isinstance(got, list):
        problems.append(f"{path}: shown a list, printed {got!r}")
    elif "…" in want:  # "…" items: any number of items there
        if not _gaps(want, got, key):
            shown = [item for item in want if item != "…"]
            problems.append(
                f"{path}: the {len(shown)} items shown are not among the {len(got)} printed, "
                f"in order (shown: {json.dumps(shown)[:300]})"
            )
    elif len(got) != len(want):
        problems.append(f"{path}: {len(want)} items shown, {len(got)} printed")
    else:
        for index, item in enumerate(want):
            _compare(item, got[index], f"{path}[{index}]", key, problems)


def _gaps(want: list[Any], got: list[Any], key: str | None) -> bool:
    """Whether ``got`` holds ``want``'s items in order, each "…" standing for any number."""

    def fits(item: Any, value: Any) -> bool:
        found: list[str] = []
        _compare(item, value, "", key, found)
        return not found

    def match(w: int, g: int) -> bool:
        if w == len(want):
            return g == len(got)
        if want[w] == "…":
            return any(match(w + 1, k) for k in range(g, len(got) + 1))
        return g < len(got) and fits(want[w], got[g]) and match(w + 1, g + 1)

    return match(0, 0)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check(block: Block, outcome: Outcome) -> str | None:
    """None if ``outcome`` is what the page says of ``block``; else why not."""
    if outcome.status != block.status:
        return (
            f"{block.where}: exit status {outcome.status}, expected {block.status}; "
            f"it printed:\n{outcome.output}"
        )
    if block.output is None or block.marker("smaller"):
        return None
    checker = check_json if block.output.lang == "json" else check_text
    problem = checker(block.output.text, outcome.output)
    return None if problem is None else f"{block.output.where}: {problem}"


@dataclass
class PageRun:
    """One page's blocks, run in order in one scratch copy of the repository."""

    blocks: Sequence[Block]
    scratch: Path
    done: set[int] = field(default_factory=set)

    def through(self, index: int, timeout: float) -> Iterator[tuple[Block, Outcome]]:
        """Run every block not yet run up to ``index`` (a block may need an earlier one's
        files), yielding each with its outcome."""
        env = environment(self.scratch)
        for k in range(index + 1):
            block = self.blocks[k]
            if k in self.done or not block.runnable or block.marker("skip"):
                continue
            self.done.add(k)
            yield block, run(block, self.scratch, env, timeout)
