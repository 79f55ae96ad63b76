"""``ringleader explore --html``: the explored graph as a page to walk by hand.

One self-contained page (no network: the graph is embedded as JSON, script and styles
inline), in the spirit of DSLabs' visual debugger and Stateright's explorer: the student
picks the next step from those enabled in the current state — a delivery, a timer, a
node waking up, a crash, a message lost — goes back, and sees at each step every node's
state and variables, what is in flight on each link, the messages sent on the way, and
the checks' status in that state.  The network (``#topology``) draws the nodes round a
circle, filled by state, the topology's links between them (``line.link``, an arrowhead
on a link that goes one way only) and, on each link, the messages in flight on it
(``text.inflight``).  Buttons replay the runs the search reported (the fewest and most
messages, each violation's shortest run).

What the script reads and the tests check: ``#state`` (``data-state``, the state's
number), ``#steps button`` (``data-event``, ``data-target``), ``#back``, ``#restart``,
``#nodes tr[data-node]`` (``data-state``, ``data-elected``, ``data-epoch``),
``#checks li[data-check]`` (``data-status``: ``ok``, ``violated`` or ``pending``),
``#sent`` (``data-count``), ``#path li`` (the steps taken), ``#runs button``
(``data-run``).  Past :data:`PAGE_STATES` states the page holds the first ones found
(breadth-first: the shortest runs) and says so.
"""

from __future__ import annotations

import html
import json
from typing import Any

from ringleader.actors.core import NodeState
from ringleader.actors.exploration import (
    CRASHED,
    FAILED,
    Exploration,
    end_verdicts,
    leaders_clash,
)

__all__ = ["PAGE_STATES", "explorer_page"]

#: The most states a page holds.
PAGE_STATES = 20_000

_STYLE = """
body { font: 14px system-ui, sans-serif; margin: 1em; color: #222; max-width: 80em; }
h1 { font-size: 1.3em; }
.row { display: grid; grid-template-columns: minmax(20em, 2fr) 3fr; gap: 1.5em; }
.box { border: 1px solid #ccc; border-radius: 4px; padding: .5em .8em; margin: .5em 0; }
#steps button { display: block; margin: .2em 0; text-align: left; width: 100%; }
#steps button[data-kind=crash], #steps button[data-kind=lose] { color: #900; }
#steps button.beyond { color: #888; }
#nodes { border-collapse: collapse; }
#nodes td, #nodes th { border: 1px solid #ccc; padding: .15em .6em; text-align: left; }
#nodes tr[data-state=leader] { background: #fff3b0; }
#nodes tr[data-state=crashed] { background: #f6c6c6; color: #700; }
#checks li[data-status=ok]::marker { content: "✓ "; color: #080; }
#checks li[data-status=violated] { color: #b00; font-weight: bold; }
#checks li[data-status=violated]::marker { content: "✗ "; }
#checks li[data-status=pending]::marker { content: "… "; color: #888; }
#path { max-height: 20em; overflow-y: auto; font-family: monospace; font-size: 12px; }
.vars { font-family: monospace; font-size: 12px; }
#topology { width: 100%; max-width: 34em; }
"""

_SCRIPT = r"""
const G = JSON.parse(document.getElementById('graph').textContent);
const label = n => (n === null || n === undefined) ? '⊥' : 'P' + n;
let history = [];  // [state, event, sent] taken so far
// The network: the nodes round a circle, the links, and what is in flight on each.
const svgNS = 'http://www.w3.org/2000/svg';
function mk(parent, name, attrs, text) {
  const e = document.createElementNS(svgNS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}
const net = document.getElementById('topology');
const R = 150, C = 200, DOT = 16;
const where = new Map(G.nodes.map((n, i) => {
  const a = -Math.PI / 2 + 2 * Math.PI * i / G.nodes.length;
  return [String(n), [C + R * Math.cos(a), C + R * Math.sin(a)]];
}));
{
  const m = mk(mk(net, 'defs', {}), 'marker', {id: 'link-head', viewBox: '0 0 10 10',
    refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto'});
  mk(m, 'path', {d: 'M0,0 L10,5 L0,10 z', fill: '#888'});
}
const linked = new Set(G.links.map(([a, b]) => a + '>' + b));
function ends(a, b, shift) {
  const [x1, y1] = where.get(String(a)), [x2, y2] = where.get(String(b));
  const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1, s = DOT + 3;
  const ox = -dy / len * shift, oy = dx / len * shift;
  return [x1 + dx / len * s + ox, y1 + dy / len * s + oy, x2 - dx / len * s + ox,
          y2 - dy / len * s + oy];
}
for (const [a, b] of G.links) {
  const both = linked.has(b + '>' + a);
  if (both && String(a) > String(b)) continue;  // a link both ways: one line
  const [x1, y1, x2, y2] = ends(a, b, 0);
  const attrs = {x1, y1, x2, y2, stroke: '#888', 'stroke-width': 2, class: 'link',
    'data-link': a + '-' + b};
  if (!both) attrs['marker-end'] = 'url(#link-head)';
  mk(net, 'line', attrs);
}
const flightLayer = mk(net, 'g', {});
const fills = {leader: '#F0E442', not_leader: '#999999', undecided: '#ffffff', crashed: '#000000'};
const circles = new Map();
for (const n of G.nodes) {
  const [x, y] = where.get(String(n));
  circles.set(String(n), mk(net, 'circle', {cx: x, cy: y, r: DOT, stroke: '#000',
    'stroke-width': 1.5, fill: '#fff', 'data-node': n}));
  mk(net, 'text', {x, y: y + 5, 'text-anchor': 'middle', 'font-size': 13,
    'font-weight': 600, fill: '#0072B2'}, 'P' + n);
}
function drawNetwork(s) {
  G.nodes.forEach((n, i) => {
    circles.get(String(n)).setAttribute('fill', fills[nodeRow(i, s.v[i]).state] || '#fff');
  });
  flightLayer.replaceChildren();
  G.links.forEach(([a, b], k) => {
    const content = G.channels[s.v[G.n + k]];
    if (!content || !content.length) return;
    // on the sender's side of the link, a little off it (both ways stay apart)
    const [x1, y1, x2, y2] = ends(a, b, 9);
    mk(flightLayer, 'line', {x1, y1, x2, y2, stroke: '#0072B2', 'stroke-width': 3,
      'marker-end': 'url(#link-head)', class: 'flight', 'data-link': a + '-' + b});
    mk(flightLayer, 'text', {x: x1 + (x2 - x1) * 0.35, y: y1 + (y2 - y1) * 0.35,
      'font-size': 12, fill: '#0b3d63', stroke: '#fff', 'stroke-width': 3,
      'paint-order': 'stroke', class: 'inflight', 'data-link': a + '-' + b},
      content.map(m => G.messages[m]).join(', '));
  });
}
let current = 0;
function nodeRow(i, local) {
  if (local === -1) return {state: 'crashed', elected: null, epoch: '', vars: '', timers: ''};
  return G.locals[i][local];
}
function show() {
  const s = G.states[current];
  document.getElementById('state').dataset.state = current;
  document.getElementById('state').textContent = 'state ' + current + ' of ' + G.count +
    ' explored, after ' + history.length + ' steps';
  const rows = document.querySelectorAll('#nodes tr[data-node]');
  rows.forEach((tr, i) => {
    const n = nodeRow(i, s.v[i]);
    tr.dataset.state = n.state;
    tr.dataset.elected = n.elected === null ? '' : String(n.elected);
    tr.dataset.epoch = String(n.epoch);
    tr.cells[1].textContent = n.state;
    tr.cells[2].textContent = label(n.elected);
    tr.cells[3].textContent = n.epoch;
    tr.cells[4].textContent = n.timers;
    tr.cells[5].textContent = n.vars;
  });
  const flight = document.getElementById('flight');
  flight.innerHTML = '';
  G.links.forEach((link, k) => {
    const content = G.channels[s.v[G.n + k]];
    if (!content || !content.length) return;
    const li = document.createElement('li');
    li.textContent = 'P' + link[0] + ' → P' + link[1] + ': ' +
      content.map(m => G.messages[m]).join(', ');
    flight.appendChild(li);
  });
  if (!flight.children.length) flight.innerHTML = '<li>nothing</li>';
  drawNetwork(s);
  const sent = history.reduce((a, h) => a + h[2], 0);
  const sentBox = document.getElementById('sent');
  sentBox.dataset.count = sent;
  sentBox.textContent = sent + ' messages sent on this run so far';
  for (const li of document.querySelectorAll('#checks li[data-check]')) {
    const check = li.dataset.check;
    let status = 'ok', detail = '';
    if (check === 'two_leaders') {
      if (s.clash) { status = 'violated'; detail = s.clash; }
    } else if (check === 'end') {
      if (!s.end) status = 'pending';
      else if (s.wrong) { status = 'violated'; detail = s.wrong; }
    }
    li.dataset.status = status;
    li.querySelector('.detail').textContent = detail ? ': ' + detail : (
      check === 'end' && !s.end ? ': not an end state yet' : '');
  }
  const steps = document.getElementById('steps');
  steps.innerHTML = '';
  if (!s.x) {
    steps.innerHTML = '<p>This state is beyond what the search explored.</p>';
  } else if (!s.e.length) {
    steps.innerHTML = '<p>Nothing more can happen: an end state.</p>';
  }
  s.e.forEach(([event, target, sentNow]) => {
    const b = document.createElement('button');
    b.textContent = G.events[event] + (sentNow ? ' (sends ' + sentNow + ')' : '');
    b.dataset.event = event;
    b.dataset.target = target;
    b.dataset.kind = G.kinds[event];
    if (target < 0) { b.disabled = true; b.classList.add('beyond'); b.title = 'not in this page'; }
    b.onclick = () => go(event, target, sentNow);
    steps.appendChild(b);
  });
  const path = document.getElementById('path');
  path.innerHTML = '';
  history.forEach(([state, event, n], k) => {
    const li = document.createElement('li');
    li.textContent = G.events[event] + (n ? ' (sends ' + n + ')' : '');
    path.appendChild(li);
  });
  document.getElementById('back').disabled = history.length === 0;
}
function go(event, target, sentNow) {
  if (target < 0) return;
  history.push([current, event, sentNow]);
  current = target;
  show();
}
function back() {
  if (!history.length) return;
  current = history.pop()[0];
  show();
}
function run(name) {
  history = []; current = 0;
  for (const event of G.runs[name]) {
    const edge = G.states[current].e.find(e => e[0] === event);
    if (!edge || edge[1] < 0) break;
    go(edge[0], edge[1], edge[2]);
  }
  show();
}
document.getElementById('back').onclick = back;
document.getElementById('restart').onclick = () => { history = []; current = 0; show(); };
for (const b of document.querySelectorAll('#runs button')) b.onclick = () => run(b.dataset.run);
document.addEventListener('keydown', ev => {
  if (ev.key === 'Backspace' || ev.key === 'ArrowLeft') { back(); ev.preventDefault(); }
});
show();
"""


def _locals(exploration: Exploration, used: list[set[int]]) -> list[dict[int, dict[str, Any]]]:
    """Each node's states used in the page: state, elected, epoch, timers, and the
    variables that differ between them (those the same in every state are left out)."""
    model = exploration.model
    shown: list[dict[int, dict[str, Any]]] = []
    hidden = {"state", "elected", "epoch", "initiator", "_pending"}
    for i, nodes in enumerate(model.nodes):
        variables = {}
        for local in sorted(used[i]):
            if local != CRASHED:
                election = nodes.templates[local].election
                key = election.key()
                items = key if isinstance(key, tuple) else ()
                variables[local] = {
                    name: _value(value)
                    for name, value in items
                    if isinstance(name, str) and name not in hidden
                }
        names = {name for v in variables.values() for name in v}
        constant = {
            name
            for name in names
            if len({v.get(name) for v in variables.values()}) == 1 and len(variables) > 1
        }
        table = {}
        for local, values in variables.items():
            election = nodes.templates[local].election
            table[local] = {
                "state": str(election.state),
                "elected": election.elected,
                "epoch": election.epoch,
                "vars": ", ".join(f"{k}={v}" for k, v in values.items() if k not in constant),
                "timers": ", ".join(nodes.timers[local]),
            }
        shown.append(table)
    return shown


def _value(value: Any) -> str:
    if isinstance(value, tuple) and hasattr(value, "id") and hasattr(value, "capacity"):
        return f"P{value.id}"
    if isinstance(value, frozenset | set):
        return "{" + ", ".join(sorted(_value(v) for v in value)) + "}"
    if isinstance(value, NodeState):
        return str(value)
    return str(value)


def _kind(event: tuple[Any, ...]) -> str:
    return str(event[0])


def explorer_page(exploration: Exploration, *, title: str = "", limit: int = PAGE_STATES) -> str:
    """The page of ``exploration``: its first ``limit`` states and the steps between."""
    model, graph = exploration.model, exploration.graph
    states_tuples = exploration.found
    if graph is None or not isinstance(states_tuples, list):
        raise ValueError("the page needs the whole graph: explore with exact=True")
    count = min(len(states_tuples), limit)
    used: list[set[int]] = [set() for _ in range(model.n)]
    channels_used: set[int] = set()
    states = []
    ends = set()
    for s in range(count):
        state = states_tuples[s]
        for i in range(model.n):
            used[i].add(state[i])
        channels_used.update(state[model.n : model.n + model.L])
        expanded = s < graph.expanded
        edges = []
        if expanded:
            for edge in range(graph.start[s], graph.start[s + 1]):
                target = graph.target[edge]
                edges.append(
                    [graph.event[edge], target if target < count else -1, graph.sent[edge]]
                )
        entry: dict[str, Any] = {"v": list(state), "e": edges, "x": expanded}
        if expanded and not edges:
            ends.add(s)
            entry["end"] = True
            wrong = [
                f"{kind}: {detail}"
                for kind, status, detail in end_verdicts(model, state)
                if status == FAILED
            ]
            if wrong:  # every end-state check that fails here, not the first only
                entry["wrong"] = "; ".join(wrong)
        clash = leaders_clash(model, state)
        if clash:
            entry["clash"] = clash
        states.append(entry)
    contents = model.channels.contents
    data = {
        "n": model.n,
        "count": count,
        "nodes": model.ids,
        "links": [list(link) for link in model.links],
        "messages": [model.message_text(m) for m in range(len(model.messages))],
        "channels": {c: list(contents[c]) for c in sorted(channels_used)},
        "locals": [{str(k): v for k, v in table.items()} for table in _locals(exploration, used)],
        "events": [model.describe(e) for e in range(len(model.events))],
        "kinds": [_kind(e) for e in model.events],
        "states": states,
        "runs": {name: path.events for name, path in exploration.paths.items()},
    }
    embedded = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    heading = html.escape(title or "Explored run")
    rows = "".join(
        f'<tr data-node="{node}" data-state="" data-elected="" data-epoch="">'
        f"<td>P{node}</td><td></td><td></td><td></td><td></td><td class=vars></td></tr>"
        for node in model.ids
    )
    runs = "".join(
        f'<button data-run="{html.escape(name)}">{html.escape(_run_name(name))} '
        f"({len(path.events)} steps, {path.messages} messages)</button> "
        for name, path in exploration.paths.items()
    )
    cut = (
        f"<p><b>This page holds the first {count:,} of the {len(states_tuples):,} states "
        "explored</b> (breadth-first: the shortest runs); steps beyond are greyed.</p>"
        if count < len(states_tuples)
        else ""
    )
    complete = (
        "every reachable state" if exploration.complete else "stopped by a limit: not every state"
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{heading} — ringleader explore</title>
<style>{_STYLE}</style></head>
<body>
<h1>{heading}</h1>
<p>{exploration.states:,} states explored ({complete}). Pick the next step from those
enabled; ◀ back (or ←) undoes one. The checks below are evaluated in the current
state.</p>{cut}
<div id="runs">Runs the search found: {runs}</div>
<p><button id="back">◀ back</button> <button id="restart">⟲ initial state</button>
<span id="state"></span></p>
<div class="row">
<div><div class="box"><h2>Enabled steps</h2><div id="steps"></div></div>
<div class="box"><h2>This run so far</h2><ol id="path"></ol></div></div>
<div>
<div class="box"><h2>Checks</h2><ul id="checks">
<li data-check="two_leaders">at most one leader per epoch<span class="detail"></span></li>
<li data-check="end">once the run is over, every live node has decided and all
agree<span class="detail"></span></li></ul>
<p id="sent" data-count="0"></p></div>
<div class="box"><h2>Nodes</h2><table id="nodes"><thead><tr><th>node</th><th>state</th>
<th>elected</th><th>epoch</th><th>timers</th><th>variables</th></tr></thead>
<tbody>{rows}</tbody></table></div>
<div class="box"><h2>In flight</h2><ul id="flight"></ul>
<svg id="topology" viewBox="0 0 400 400" xmlns="http://www.w3.org/2000/svg"
aria-label="the network: its links, and the messages in flight on each"></svg>
<p>Grey: the links (→: one way only); blue: messages in flight on a link. Filled yellow:
leader, grey: knows its leader, white: no leader yet (⊥), black: crashed.</p></div>
</div></div>
<script type="application/json" id="graph">{embedded}</script>
<script>{_SCRIPT}</script>
</body></html>
"""


def _run_name(name: str) -> str:
    return {"min": "fewest messages", "max": "most messages"}.get(name, name.replace("_", " "))
