"""A trace as one self-contained HTML page that steps through the run event by event.

No network: the trace is embedded as JSON, the script and styles are inline, and the
page's script draws the space-time diagram as inline SVG.  Step k shows the run after
its first k events: the current event's message highlighted, and every node's state and
``elected`` in the table ``#states`` (one row per node, with ``data-node``,
``data-state`` and ``data-elected``).  Buttons ``#prev``/``#next``, the arrow keys and
the slider ``#slider`` move; ``#step`` says where.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from ._palette import colours
from ._trace_file import Trace

__all__ = ["html_page"]

_STYLE = """
body { font: 14px system-ui, sans-serif; margin: 1em; color: #222; }
#controls { display: flex; gap: .6em; align-items: center; margin: .5em 0; }
#slider { flex: 1; }
#event { font-family: monospace; min-height: 1.4em; }
#diagram { overflow-x: auto; border: 1px solid #ddd; }
#states { border-collapse: collapse; margin-top: .6em; }
#states td, #states th { border: 1px solid #ccc; padding: .15em .6em; text-align: left; }
#states tr[data-state=leader] { background: #fff3b0; }
#states tr[data-state=crashed] { background: #f6c6c6; color: #700; }
.legend span { display: inline-block; margin-right: 1em; }
line.msg { stroke-width: 1.4; opacity: .35; }
line.msg.done { opacity: .9; }
line.msg.current { stroke-width: 4; opacity: 1; }
"""

_SCRIPT = r"""
const data = JSON.parse(document.getElementById('trace').textContent);
const events = data.events, nodes = data.nodes, colours = data.colours;
const X = 14, Y = 34, LEFT = 50, TOP = 20;
const row = new Map(nodes.map((n, i) => [String(n), i]));
const svgNS = 'http://www.w3.org/2000/svg';
const svg = document.getElementById('svg');
svg.setAttribute('width', LEFT + X * (events.length + 2));
svg.setAttribute('height', TOP + Y * nodes.length);
function el(name, attrs, text) {
  const e = document.createElementNS(svgNS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  svg.appendChild(e);
  return e;
}
const y = n => TOP + Y * row.get(String(n));
const x = i => LEFT + X * (i + 1);
nodes.forEach(n => {
  el('line', {x1: LEFT, x2: x(events.length), y1: y(n), y2: y(n), stroke: '#bbb'});
  el('text', {x: 4, y: y(n) + 4, 'font-size': 12}, 'P' + n);
});
const sent = new Map(), arrows = [];
events.forEach((e, i) => {
  if (e.event === 'send') sent.set(e.msg, i);
  if (e.event === 'receive' && sent.has(e.msg)) {
    const s = sent.get(e.msg), send = events[s];
    const line = el('line', {x1: x(s), y1: y(send.node), x2: x(i), y2: y(e.node),
      stroke: colours[send.kind] || '#444', class: 'msg', 'data-msg': e.msg});
    arrows.push({line, from: s, to: i, msg: e.msg});
  }
  const mark = {crash: ['✖', '#d62728'], restart: ['▲', '#2ca02c'],
                suspect: ['?', '#ff7f0e']}[e.event];
  if (mark) el('text', {x: x(i) - 4, y: y(e.node) - 4, fill: mark[1], 'font-size': 13}, mark[0]);
  if (e.event === 'state' && e.state === 'leader')
    el('text', {x: x(i) - 5, y: y(e.node) + 5, fill: '#c9a000', 'font-size': 15}, '★');
});
const cursor = el('line', {x1: 0, x2: 0, y1: 0, y2: TOP + Y * nodes.length, stroke: '#000',
  'stroke-dasharray': '3 3'});
const label = n => (n === null || n === undefined) ? '⊥' : 'P' + n;
function describe(e) {
  if (!e) return 'before the first event';
  const t = 't=' + e.t + ' ' + label(e.node) + ' ';
  if (e.event === 'send' || e.event === 'receive')
    return t + e.event + ' ' + e.kind + ' ' + (e.event === 'send' ? 'to ' : 'from ') +
      label(e.peer) + ' (epoch ' + e.epoch + ', message ' + e.msg + ')';
  if (e.event === 'state') return t + 'state ' + e.state + ', elected = ' + label(e.elected);
  if (e.event === 'suspect') return t + 'suspects ' + label(e.peer);
  if (e.event === 'timer') return t + 'timer ' + e.timer + ' fires';
  return t + e.event;
}
function statesAt(k) {
  const states = new Map(nodes.map(
    n => [String(n), {state: 'undecided', elected: null, epoch: ''}]));
  for (const e of events.slice(0, k)) {
    const s = states.get(String(e.node));
    if (e.event === 'state') Object.assign(s, {state: e.state, elected: e.elected, epoch: e.epoch});
    if (e.event === 'crash') Object.assign(s, {state: 'crashed', elected: null});
    if (e.event === 'restart') Object.assign(s, {state: 'undecided', elected: null});
  }
  return states;
}
const slider = document.getElementById('slider');
slider.max = events.length;
let step = 0;
function show(k) {
  step = Math.max(0, Math.min(events.length, k));
  slider.value = step;
  document.getElementById('step').textContent = 'step ' + step + ' of ' + events.length;
  document.getElementById('step').dataset.step = step;
  const current = events[step - 1];
  document.getElementById('event').textContent = describe(current);
  const msg = current && current.msg;
  for (const a of arrows) {
    a.line.classList.toggle('done', a.to < step);
    a.line.classList.toggle('current', msg !== undefined && a.msg === msg && a.from < step);
  }
  cursor.setAttribute('x1', x(step - 1)); cursor.setAttribute('x2', x(step - 1));
  const states = statesAt(step);
  for (const tr of document.querySelectorAll('#states tr[data-node]')) {
    const s = states.get(tr.dataset.node);
    tr.dataset.state = s.state;
    tr.dataset.elected = s.elected === null ? '' : String(s.elected);
    tr.cells[1].textContent = s.state;
    tr.cells[2].textContent = label(s.elected);
    tr.cells[3].textContent = s.epoch;
  }
  const box = document.getElementById('diagram');
  const at = x(step - 1);
  if (at < box.scrollLeft + 60 || at > box.scrollLeft + box.clientWidth - 60)
    box.scrollLeft = at - box.clientWidth / 2;
}
document.getElementById('next').onclick = () => show(step + 1);
document.getElementById('prev').onclick = () => show(step - 1);
slider.oninput = () => show(Number(slider.value));
document.addEventListener('keydown', ev => {
  if (ev.key === 'ArrowRight') { show(step + 1); ev.preventDefault(); }
  if (ev.key === 'ArrowLeft') { show(step - 1); ev.preventDefault(); }
});
show(0);
"""


def html_page(trace: Trace) -> str:
    """The step-through page of ``trace`` (heartbeats left out, and said so)."""
    events = trace.without_heartbeats()
    kinds = colours(events)
    data = {"events": events, "nodes": trace.nodes, "colours": kinds}
    embedded = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    title = html.escape(Path(trace.source).name)
    legend = (
        "".join(f'<span style="color:{c}">━ {html.escape(k)}</span>' for k, c in kinds.items())
        + "<span>✖ crash</span><span>▲ restart</span><span>? suspects</span><span>★ leader</span>"
    )
    rows = "".join(
        f'<tr data-node="{html.escape(str(n))}" data-state="undecided" data-elected="">'
        f"<td>P{html.escape(str(n))}</td><td>undecided</td><td>⊥</td><td></td></tr>"
        for n in trace.nodes
    )
    note = (
        f"<p>{trace.heartbeats} heartbeat events (the failure detector's) left out.</p>"
        if trace.heartbeats
        else ""
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} — ringleader</title>
<style>{_STYLE}</style></head>
<body>
<h1>{title}</h1>
<p>{len(trace.nodes)} nodes, {len(events)} events. Step with the buttons, the arrow keys
(← →) or the slider; step k shows the run after its first k events.</p>{note}
<div id="controls"><button id="prev">◀ previous</button><button id="next">next ▶</button>
<input id="slider" type="range" min="0" max="0" value="0"><span id="step"></span></div>
<div id="event"></div>
<div class="legend">{legend}</div>
<div id="diagram"><svg id="svg" xmlns="http://www.w3.org/2000/svg"></svg></div>
<table id="states"><thead><tr><th>node</th><th>state</th><th>elected</th><th>epoch</th></tr>
</thead><tbody>{rows}</tbody></table>
<script type="application/json" id="trace">{embedded}</script>
<script>{_SCRIPT}</script>
</body></html>
"""
