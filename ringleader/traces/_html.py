"""A trace as one self-contained HTML page that steps through the run event by event.

No network: the trace is embedded as JSON, the script and styles are inline, and the
page's script draws two views as inline SVG.  *The network*: the nodes round a circle
(in ring order on a ring), each coloured by its state, the links between them (those the
run's messages used: a trace does not record the topology; with an arrowhead where
messages went one way only), and every message in flight at this step drawn between its
two ends, an arrow from sender to receiver with a dot travelling along it and its label
(``election(P5)``, ``probe(P5 φ1 d2)``); the current one thick.  Every kind has its colour
and its line (:mod:`._palette`), so no meaning rests on colour alone.  *The space-time
diagram*: a line per node, the messages so far as arrows, those in flight growing towards
their receiver, nothing of the future; the node names stay in view, and the view scrolls
to follow the current message, however many nodes.

Step k shows the run after its first k events.  Above the views: the sentence the replay
tells for the step the current event belongs to (``#story``), the event in words
(``#event``), and the current message's contents (``#message``).  Every node's state,
``elected`` (⊥: no leader yet) and epoch are in the table ``#states`` (one row per node,
with ``data-node``, ``data-state`` and ``data-elected``; the acting node's row is marked
and kept in view), and its variables: those its last ``state`` event carries (``vars``)
when the trace has them, else what the trace says it has heard (its last message and how
many it sent and received), in the cell ``td.vars``.
Buttons ``#prev``/``#next`` (an event), ``#back``/``#forward`` (a step of the story),
``#play`` (play or pause) with ``#speed`` (events per second), the arrow keys (space:
play, PageUp/PageDown: a step) and the slider ``#slider`` move; ``#step`` says where.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from ._narration import story
from ._order import node_order
from ._palette import MARKS, colours, lines
from ._steps import extinctions
from ._trace_file import Trace, label
from ._words import event_words, message_label, message_words

__all__ = ["html_page"]

#: Past this many nodes the views are drawn smaller and the network follows the action.
_MANY = 40

_STYLE = """
body { font: 17px/1.35 system-ui, sans-serif; margin: .8em 1.2em; color: #222; }
h1 { font-size: 1.5em; margin: .2em 0; }
#controls { display: flex; gap: .5em; align-items: center; margin: .5em 0; flex-wrap: wrap; }
#controls button { font-size: 1em; padding: .2em .7em; }
#slider { flex: 1; min-width: 12em; }
#step { font-variant-numeric: tabular-nums; min-width: 9em; }
#story { font-size: 1.3em; font-weight: 600; min-height: 2.7em; margin: .3em 0; }
#event { font-family: ui-monospace, monospace; min-height: 1.4em; color: #333; }
#message { font-family: ui-monospace, monospace; min-height: 1.4em; color: #0b3d63; }
.legend span { display: inline-block; margin-right: 1.1em; white-space: nowrap; }
#views { display: flex; gap: 1em; align-items: flex-start; margin-top: .5em; }
#network { flex: 0 0 auto; width: min(32vw, 62vh); border: 1px solid #ddd; }
#right { flex: 1; min-width: 0; }
#diagram { overflow: auto; border: 1px solid #ddd; max-height: 44vh;
           display: flex; position: relative; }
#labels { position: sticky; left: 0; background: #fff; z-index: 2; flex: 0 0 auto; }
#svg { flex: 0 0 auto; }
#tablebox { max-height: 24vh; overflow: auto; margin-top: .6em; display: inline-block; }
#states { border-collapse: collapse; }
#states td, #states th { border: 1px solid #ccc; padding: .1em .6em; text-align: left; }
#states tr[data-state=leader] { background: #fff3b0; font-weight: 600; }
#states tr[data-state=crashed] { background: #ddd; color: #555; text-decoration: line-through; }
#states tr.acting td:first-child { outline: 3px solid #0072B2; }
line.msg.future { display: none; }
line.msg.current { stroke-width: 5; }
#states td.vars { font-family: ui-monospace, monospace; font-size: .85em;
                 white-space: nowrap; }
.legend svg { vertical-align: middle; }
.mark.future { display: none; }
"""

_SCRIPT = r"""
const data = JSON.parse(document.getElementById('trace').textContent);
const events = data.events, nodes = data.nodes, colours = data.colours;
const said = data.said, steps = data.steps, stepOf = data.stepOf;
const contents = data.contents, swallowed = new Set(data.swallowed);
const kindLines = data.lines, msgLabels = data.labels, varsText = data.vars;
// A kind's dashes for a line w wide ('' : solid): its own on the page as in the pictures.
const dashOf = (kind, w) => (kindLines[kind] ? kindLines[kind][0] : []).map(d => d * w).join(' ');
const widthOf = kind => kindLines[kind] ? kindLines[kind][1] : 1;
const svgNS = 'http://www.w3.org/2000/svg';
const many = nodes.length > data.many;
const X = many ? 10 : 16, Y = Math.max(22, Math.min(70, 420 / nodes.length));
const TOP = 24, LEFT = 6, LABELS = 64;
const row = new Map(nodes.map((n, i) => [String(n), i]));
const yOf = n => TOP + Y * row.get(String(n));
const xOf = i => LEFT + X * (i + 1);
function el(parent, name, attrs, text) {
  const e = document.createElementNS(svgNS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}
const label = n => (n === null || n === undefined) ? '⊥' : 'P' + n;
// Arrowheads, one per colour.
function heads(svg) {
  const defs = el(svg, 'defs', {});
  for (const c of new Set([...Object.values(colours), '#444'])) {
    const m = el(defs, 'marker', {id: svg.id + '-head-' + c.slice(1), viewBox: '0 0 10 10',
      refX: 9, refY: 5, markerWidth: 4, markerHeight: 4, orient: 'auto-start-reverse'});
    el(m, 'path', {d: 'M0,0 L10,5 L0,10 z', fill: c});
  }
}
const colourOf = kind => colours[kind] || '#444';
// Messages: where each starts and ends (a receive, or a loss).
// A message lost on its way (``lost``: why) ends as it is sent, a step on, at ⊗; a copy
// the network duplicated is an arrow of its own.
const msgs = new Map(), copies = [];
events.forEach((e, i) => {
  if (e.event === 'send')
    msgs.set(e.msg, {from: i, to: e.lost ? i : null, send: e, lost: Boolean(e.lost)});
  else if (e.event === 'receive' && msgs.has(e.msg)) {
    const m = msgs.get(e.msg);
    if (m.to === null) m.to = i; else copies.push({...m, to: i});
  }
});
const endOf = m => m.lost ? m.from + 1 : (m.to === null ? events.length : m.to);
// --- the space-time diagram ---
const svg = document.getElementById('svg'), labels = document.getElementById('labels');
const width = LEFT + X * (events.length + 3), height = TOP + Y * nodes.length;
svg.setAttribute('width', width); svg.setAttribute('height', height);
labels.setAttribute('width', LABELS); labels.setAttribute('height', height);
heads(svg);
nodes.forEach(n => {
  el(svg, 'line', {x1: 0, x2: width, y1: yOf(n), y2: yOf(n), stroke: '#ccc'});
  el(labels, 'text', {x: LABELS - 6, y: yOf(n) + 5, 'font-size': many ? 12 : 16,
    'text-anchor': 'end', 'data-node': n}, label(n));
});
const arrows = [];
for (const m of [...msgs.values(), ...copies]) {
  const send = m.send, c = colourOf(send.kind);
  const w = 2 * widthOf(send.kind);
  const line = el(svg, 'line', {x1: xOf(m.from), y1: yOf(send.node), x2: xOf(m.from),
    y2: yOf(send.node), stroke: c, 'stroke-width': w, 'stroke-dasharray': dashOf(send.kind, w),
    class: 'msg', 'data-msg': send.msg, 'marker-end': 'url(#svg-head-' + c.slice(1) + ')'});
  el(line, 'title', {}, msgLabels[String(send.msg)] || send.kind);
  arrows.push({line, m});
}
const marks = [];
const symbols = data.marks;
events.forEach((e, i) => {
  let key = null;
  if (e.event === 'crash' || e.event === 'restart' || e.event === 'suspect') key = e.event;
  if (e.event === 'state' && e.state === 'leader') key = 'leader';
  if (e.event === 'pause' || e.event === 'resume') key = e.event;
  if (e.event === 'send' && e.lost) key = 'lost';
  if (e.event === 'violation') {  // a check broken: the moment, across every node
    const line = el(svg, 'line', {x1: xOf(i), x2: xOf(i), y1: TOP / 2, y2: height,
      stroke: symbols.violation[1], 'stroke-width': 3, class: 'mark violation'});
    el(line, 'title', {}).textContent = '✗ unsafe (' + e.check + '): ' + e.detail;
    marks.push({t: line, i});
    key = 'violation';
  }
  if (e.event === 'receive' && swallowed.has(e.msg)) key = 'extinction';
  if (e.event === 'partition' || e.event === 'heal') {
    const line = el(svg, 'line', {x1: xOf(i), x2: xOf(i), y1: TOP / 2, y2: height,
      stroke: '#777', 'stroke-dasharray': e.event === 'partition' ? '8 4' : '2 4',
      class: 'mark ' + e.event});
    marks.push({t: line, i});
    return;
  }
  if (!key) return;
  const [symbol, colour] = symbols[key];
  const lost = key === 'lost', at = lost ? e.peer : e.node, x = lost ? xOf(i + 1) : xOf(i);
  const t = el(svg, 'text', {x: x - 7, y: yOf(at) + 6, 'font-size': many ? 14 : 20,
    fill: colour, stroke: key === 'leader' ? '#000' : 'none', 'stroke-width': .6,
    class: 'mark'}, symbol);
  if (e.event === 'suspect')
    el(svg, 'title', {}).textContent = label(e.node) + ' suspects ' + label(e.peer);
  marks.push({t, i});
});
const cursor = el(svg, 'line', {x1: 0, x2: 0, y1: 0, y2: height, stroke: '#000',
  'stroke-dasharray': '3 3'});
// --- the network ---
const net = document.getElementById('network');
const N = nodes.length, R = 265, C = 340, dot = Math.max(3, Math.min(16, 900 / N));
net.setAttribute('viewBox', '0 0 680 680');
heads(net);
const where = new Map(nodes.map((n, i) => {
  const a = -Math.PI / 2 + 2 * Math.PI * i / N;
  return [String(n), [C + R * Math.cos(a), C + R * Math.sin(a)]];
}));
const netLinks = el(net, 'g', {id: 'links'});
const netLines = el(net, 'g', {}), netNodes = el(net, 'g', {});
const circles = new Map(), names = new Map();
nodes.forEach(n => {
  const [x, y] = where.get(String(n));
  circles.set(String(n), el(netNodes, 'circle', {cx: x, cy: y, r: dot, stroke: '#000',
    'stroke-width': 1.5, fill: '#fff', 'data-node': n}));
  const out = 1 + (dot + 14) / R;
  names.set(String(n), el(netNodes, 'text', {x: C + (x - C) * out, y: C + (y - C) * out + 5,
    'text-anchor': 'middle', 'font-size': many ? 13 : 18}, label(n)));
});
// The links: those the run's messages used (a trace does not record the topology), an
// arrowhead where they all went one way.
{
  const defs = el(net, 'defs', {});
  const m = el(defs, 'marker', {id: 'link-head', viewBox: '0 0 10 10', refX: 10, refY: 5,
    markerWidth: 5, markerHeight: 5, orient: 'auto'});
  el(m, 'path', {d: 'M0,0 L10,5 L0,10 z', fill: '#aaa'});
}
for (const [a, b, both] of data.links) {
  const [x1, y1] = where.get(String(a)), [x2, y2] = where.get(String(b));
  const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1, s = dot + 3;
  const attrs = {x1: x1 + dx / len * s, y1: y1 + dy / len * s, x2: x2 - dx / len * s,
    y2: y2 - dy / len * s, stroke: '#aaa', 'stroke-width': many ? 1 : 2,
    'data-link': a + '-' + b, class: 'link'};
  if (!both) attrs['marker-end'] = 'url(#link-head)';
  el(netLinks, 'line', attrs);
}
const fills = {leader: '#F0E442', not_leader: '#999999', undecided: '#ffffff', crashed: '#000000'};
function drawNetwork(k, states, current) {
  netLines.replaceChildren();
  const acting = events[k - 1];
  // Many nodes: the view closes in on the action (an eighth of the circle round it);
  // u is a pixel of the whole view, in the units of the one shown.
  const zoom = many && document.getElementById('zoom').checked && acting;
  const size = zoom ? 680 / 8 : 680, u = size / 680;
  let [cx, cy] = [C, C];
  if (zoom) [cx, cy] = where.get(String(acting.node));
  net.setAttribute('viewBox', [cx - size / 2, cy - size / 2, size, size].join(' '));
  const r = zoom ? dot * 0.5 : dot;
  for (const {m} of arrows) {
    if (m.from >= k) continue;
    const ended = m.to !== null && m.to < k;
    const isCurrent = current !== undefined && m.send.msg === current;
    if (ended && !isCurrent) continue;
    const [x1, y1] = where.get(String(m.send.node)), [x2, y2] = where.get(String(m.send.peer));
    const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1;
    const side = Math.min(4 * u * (zoom ? 3 : 1), r);  // two directions side by side
    const ox = -dy / len * side, oy = dx / len * side;
    const s = r + 2 * u;
    const a = [x1 + dx / len * s + ox, y1 + dy / len * s + oy];
    const b = [x2 - dx / len * s + ox, y2 - dy / len * s + oy];
    const c = colourOf(m.send.kind);
    const w = (isCurrent ? 5 : 2.5) * widthOf(m.send.kind) * u * (zoom ? 1.5 : 1);
    el(netLines, 'line', {x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: c,
      'stroke-width': w, 'stroke-dasharray': dashOf(m.send.kind, w),
      'marker-end': 'url(#network-head-' + c.slice(1) + ')', class: 'flight',
      'data-msg': m.send.msg});
    // the message on its way: a dot, as far along as the steps it has been in flight,
    // and what it carries
    const end = endOf(m);
    const f = ended ? 1 : Math.min(1, (k - m.from) / Math.max(1, end - m.from));
    const px = a[0] + (b[0] - a[0]) * f, py = a[1] + (b[1] - a[1]) * f;
    el(netLines, 'circle', {cx: px, cy: py, r: 1.6 * w, fill: c});
    if (!many || zoom)
      el(netLines, 'text', {x: a[0] + (b[0] - a[0]) * Math.min(f, 0.5) + ox * 3,
        y: a[1] + (b[1] - a[1]) * Math.min(f, 0.5) + oy * 3 + 5 * u, fill: c,
        'font-size': (isCurrent ? 17 : 14) * u * (zoom ? 1.5 : 1),
        'font-weight': isCurrent ? 700 : 400, 'text-anchor': 'middle', class: 'label',
        'data-msg': m.send.msg, stroke: '#fff', 'stroke-width': 3 * u,
        'paint-order': 'stroke'}, msgLabels[String(m.send.msg)] || m.send.kind);
  }
  const font = (many && !zoom ? 13 : 18) * u * (zoom ? 1.5 : 1);
  for (const n of nodes) {
    const st = states.get(String(n)), circle = circles.get(String(n));
    circle.setAttribute('fill', fills[st.state] || '#fff');
    circle.setAttribute('r', r);
    const active = acting && (String(acting.node) === String(n) ||
      (acting.peer !== undefined && String(acting.peer) === String(n)));
    circle.setAttribute('stroke-width', (active ? 5 : 1.5) * u * (zoom ? 2 : 1));
    circle.setAttribute('stroke', active ? '#0072B2' : '#000');
    const name = names.get(String(n)), [x, y] = where.get(String(n));
    const out = 1 + (r + 2.2 * font) / R;
    name.setAttribute('x', C + (x - C) * out);
    name.setAttribute('y', C + (y - C) * out + font / 3);
    name.setAttribute('font-size', font);
    name.style.display =
      (!many || zoom || active || st.state === 'leader' || st.state === 'crashed') ? '' : 'none';
  }
}
// --- the states at a step ---
function statesAt(k) {
  const states = new Map(nodes.map(n => [String(n),
    {state: 'undecided', elected: null, epoch: '', vars: null, sent: 0, got: 0, last: ''}]));
  for (const [i, e] of events.slice(0, k).entries()) {
    const s = states.get(String(e.node));
    if (!s) continue;
    if (e.event === 'state') Object.assign(s, {state: e.state, elected: e.elected, epoch: e.epoch});
    if (varsText[i] !== null) s.vars = varsText[i];
    if (e.event === 'send') s.sent += 1;
    if (e.event === 'receive') {
      s.got += 1;
      s.last = (msgLabels[String(e.msg)] || e.kind) + ' from ' + label(e.peer);
    }
    if (e.event === 'crash') Object.assign(s, {state: 'crashed', elected: null, vars: null});
    if (e.event === 'restart') Object.assign(s, {state: 'undecided', elected: null, vars: null});
  }
  return states;
}
const slider = document.getElementById('slider');
slider.max = events.length;
const box = document.getElementById('diagram');
let step = 0;
function show(k) {
  step = Math.max(0, Math.min(events.length, k));
  slider.value = step;
  const stepLabel = document.getElementById('step');
  stepLabel.textContent = 'step ' + step + ' of ' + events.length;
  stepLabel.dataset.step = step;
  const current = events[step - 1];
  document.getElementById('event').textContent =
    current ? 't=' + current.t + '  ' + said[step - 1] : 'before the first event';
  const s = current ? stepOf[step - 1] : -1;
  document.getElementById('story').textContent = s >= 0 ? steps[s] : (current ? '' :
    'Press ▶ to play, or step with → and ←.');
  const msg = current && current.msg;
  document.getElementById('message').textContent =
    msg !== undefined && msg !== null ? contents[String(msg)] || '' : '';
  for (const {line, m} of arrows) {
    const future = m.from >= step, ended = m.to !== null && m.to < step;
    line.classList.toggle('future', future);
    line.classList.toggle('done', ended);
    line.classList.toggle('flight', !future && !ended);
    line.classList.toggle('lost', ended && m.lost);
    line.classList.toggle('current', msg !== undefined && m.send.msg === msg && !future);
    if (future) continue;
    const x1 = xOf(m.from), y1 = yOf(m.send.node), x2 = xOf(endOf(m));
    const y2 = yOf(m.send.peer);
    // in flight: as far as the cursor, on its way to its receiver
    const f = ended ? 1 : Math.min(1, (xOf(step - 1) - x1) / Math.max(1, x2 - x1));
    line.setAttribute('x2', x1 + (x2 - x1) * Math.max(f, 0.02));
    line.setAttribute('y2', y1 + (y2 - y1) * Math.max(f, 0.02));
  }
  for (const {t, i} of marks) t.classList.toggle('future', i >= step);
  const at = xOf(step - 1);
  cursor.setAttribute('x1', at); cursor.setAttribute('x2', at);
  const states = statesAt(step);
  for (const tr of document.querySelectorAll('#states tr[data-node]')) {
    const st = states.get(tr.dataset.node);
    tr.dataset.state = st.state;
    tr.dataset.elected = st.elected === null ? '' : String(st.elected);
    tr.cells[1].textContent = st.state;
    tr.cells[2].textContent = label(st.elected);
    tr.cells[3].textContent = st.epoch;
    tr.cells[4].textContent = st.vars !== null ? st.vars :
      (st.last ? 'last heard ' + st.last + '; ' : '') + 'sent ' + st.sent + ', received ' + st.got;
    const acting = current && String(current.node) === tr.dataset.node;
    tr.classList.toggle('acting', Boolean(acting));
  }
  drawNetwork(step, states, msg);
  follow(current);
}
// Keep the current event (its message, both ends if they fit) in view.
function follow(current) {
  const at = xOf(step - 1);
  if (at < box.scrollLeft + LABELS + 40 || at > box.scrollLeft + box.clientWidth - 40)
    box.scrollLeft = at - (box.clientWidth - LABELS) / 2;
  if (!current) return;
  const ys = [yOf(current.node)];
  if (current.peer !== undefined && row.has(String(current.peer))) ys.push(yOf(current.peer));
  const top = Math.min(...ys) - Y, bottom = Math.max(...ys) + Y;
  if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight)
    box.scrollTop = bottom - top > box.clientHeight ? yOf(current.node) - box.clientHeight / 2
      : (top + bottom - box.clientHeight) / 2;
  const tr = document.querySelector('#states tr[data-node="' + current.node + '"]');
  const tb = document.getElementById('tablebox');
  if (tr && (tr.offsetTop < tb.scrollTop ||
      tr.offsetTop + tr.offsetHeight > tb.scrollTop + tb.clientHeight))
    tb.scrollTop = tr.offsetTop - (tb.clientHeight - tr.offsetHeight) / 2;
}
// --- moving ---
let timer = null;
const play = document.getElementById('play'), speed = document.getElementById('speed');
function stop() {
  if (timer !== null) clearInterval(timer);
  timer = null; play.textContent = '▶ play'; play.dataset.playing = 'false';
}
function start() {
  if (step >= events.length) show(0);
  stop();
  play.textContent = '⏸ pause'; play.dataset.playing = 'true';
  timer = setInterval(() => { show(step + 1); if (step >= events.length) stop(); },
    1000 / Number(speed.value));
}
play.onclick = () => (timer === null ? start() : stop());
speed.onchange = () => { if (timer !== null) start(); };
function storyStep(direction) {
  // to the first event of the next (previous) step of the story
  let k = step + direction;
  const here = step > 0 ? stepOf[step - 1] : -1;
  while (k > 0 && k <= events.length && stepOf[k - 1] === here) k += direction;
  if (direction < 0) {
    const target = k > 0 ? stepOf[k - 1] : -1;
    while (k > 1 && stepOf[k - 2] === target) k -= 1;
  }
  show(k);
}
document.getElementById('next').onclick = () => show(step + 1);
document.getElementById('prev').onclick = () => show(step - 1);
document.getElementById('forward').onclick = () => storyStep(1);
document.getElementById('back').onclick = () => storyStep(-1);
slider.oninput = () => show(Number(slider.value));
document.addEventListener('keydown', ev => {
  if (ev.target.tagName === 'SELECT') return;
  const keys = {ArrowRight: () => show(step + 1), ArrowLeft: () => show(step - 1),
    PageDown: () => storyStep(1), PageUp: () => storyStep(-1), Home: () => show(0),
    End: () => show(events.length), ' ': () => (timer === null ? start() : stop())};
  if (keys[ev.key]) { keys[ev.key](); ev.preventDefault(); }
});
show(0);
"""


def _contents(events: list[dict[str, Any]]) -> dict[str, str]:
    """Each message's contents in words, by its ``msg``."""
    out: dict[str, str] = {}
    for event in events:
        if event["event"] != "send":
            continue
        fields = event.get("fields") or {}
        inside = ", ".join(f"{k} = {_field(v)}" for k, v in fields.items()) or "no fields"
        fate = f"; lost: {event['lost']}" if event.get("lost") else ""
        out[str(event["msg"])] = (
            f"{message_words(event)} from {label(event['node'])} to {label(event['peer'])}, "
            f"epoch {event.get('epoch')}, message {event['msg']}: {inside}{fate}"
        )
    return out


def _links(events: list[dict[str, Any]]) -> list[list[Any]]:
    """The links the run's messages used, each once: [a, b, both ways]."""
    used = {(e["node"], e["peer"]) for e in events if e["event"] == "send"}
    links: list[list[Any]] = []
    for a, b in sorted(used, key=str):
        if (b, a) in used and str(b) < str(a):
            continue  # said once, as (a, b)
        links.append([a, b, (b, a) in used])
    return links


def _vars(event: dict[str, Any]) -> str | None:
    """A ``state`` event's variables (``vars``: a mapping, [name, value] pairs, or
    already words), in words."""
    if event["event"] != "state" or "vars" not in event:
        return None
    values = event["vars"]
    if isinstance(values, dict):
        return ", ".join(f"{k} = {_field(v)}" for k, v in values.items())
    if isinstance(values, list) and all(isinstance(v, list) and len(v) == 2 for v in values):
        return ", ".join(f"{k} = {_field(v)}" for k, v in values)  # [name, value] pairs
    return str(values)


def _field(value: Any) -> str:
    """A field's or a variable's value as the notes write it: a node ``P5``, a message
    ``elected(P5)``, a list of them ``[P1, P2]``."""
    if isinstance(value, dict) and "id" in value:
        capacity = value.get("capacity")
        shown = label(value["id"])
        return shown if capacity in (None, value["id"]) else f"{shown} (capacity {capacity})"
    if isinstance(value, dict) and isinstance(value.get("kind"), str):
        fields = {k: v for k, v in value.items() if k != "kind"}
        return message_label({"kind": value["kind"], "fields": fields})
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return "[" + ", ".join(_field(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _line_sample(colour: str, dashes: tuple[float, ...], width: float) -> str:
    """A short line in a kind's colour and dashes, for the legend."""
    w = 2 * width
    dash = " ".join(f"{d * w:g}" for d in dashes)
    return (
        '<svg width="46" height="12" aria-hidden="true"><line x1="2" y1="6" x2="44" y2="6" '
        f'stroke="{colour}" stroke-width="{w:g}" stroke-dasharray="{dash}"/></svg>'
    )


def html_page(trace: Trace) -> str:
    """The step-through page of ``trace`` (heartbeats left out, and said so)."""
    events = trace.without_heartbeats()
    kinds = colours(events)
    styles = lines(events)
    told = story(events, trace.header)
    step_of = [-1] * len(events)
    for number, (_, _, indices) in enumerate(told.steps):
        for index in indices:
            step_of[index] = number
    said = [event_words(e) for e in events]
    nodes = node_order(events, trace.nodes)
    data = {
        "events": events,
        "nodes": nodes,
        "colours": kinds,
        "said": said,
        "steps": [f"t={t:.6g} {sentence}" for t, sentence, _ in told.steps],
        "stepOf": step_of,
        "contents": _contents(events),
        "swallowed": sorted(extinctions(events, trace.header), key=str),
        "marks": {key: [symbol, fill] for key, (_, fill, symbol, _) in MARKS.items()},
        "lines": {kind: [list(dashes), width] for kind, (dashes, width) in styles.items()},
        "labels": {str(e["msg"]): message_label(e) for e in events if e["event"] == "send"},
        "vars": [_vars(e) for e in events],
        "links": _links(events),
        "many": _MANY,
    }
    embedded = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    title = html.escape(Path(trace.source).name)
    legend = (
        "".join(
            f'<span style="color:{c}" data-kind="{html.escape(k)}">{_line_sample(c, *styles[k])}'
            f" {html.escape(k)}</span>"
            for k, c in kinds.items()
        )
        + "".join(
            f'<span><b style="color:{fill}">{symbol}</b> {html.escape(text)}</span>'
            for key, (_, fill, symbol, text) in MARKS.items()
            if key not in ("not_leader", "other")
        )
        + "<span><b>⊥</b> no leader yet (elected = ⊥)</span>"
    )
    rows = "".join(
        f'<tr data-node="{html.escape(str(n))}" data-state="undecided" data-elected="">'
        f"<td>P{html.escape(str(n))}</td><td>undecided</td><td>⊥</td><td></td>"
        f'<td class="vars"></td></tr>'
        for n in nodes
    )
    has_vars = any(e["event"] == "state" and "vars" in e for e in events)
    vars_heading = "variables" if has_vars else "what it has heard (no variables in the trace)"
    note = (
        f"<p>{trace.heartbeats} heartbeat events (the failure detector's) left out.</p>"
        if trace.heartbeats
        else ""
    )
    states_legend = (
        "".join(
            f'<span><b style="color:{colour};-webkit-text-stroke:1px #000">●</b> {what}</span>'
            for colour, what in (
                ("#F0E442", "leader"),
                ("#999999", "knows its leader"),
                ("#ffffff", "undecided"),
                ("#000000", "crashed"),
            )
        )
        + "<span>the network: messages in flight between their ends, the current one thick; "
        + "</span><span>grey lines: the links its messages used (→: one way only)</span>"
    )
    zoom = (
        '<label><input id="zoom" type="checkbox" checked> the network follows the action</label>'
        if len(trace.nodes) > _MANY
        else '<input id="zoom" type="checkbox" hidden>'
    )
    speeds = "".join(
        f'<option value="{v}"{" selected" if v == 4 else ""}>{v} events/s</option>'
        for v in (1, 2, 4, 8, 16, 32, 64)
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} — ringleader</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{_STYLE}</style></head>
<body>
<h1>{title}: {html.escape(told.heading)}</h1>
<p>{len(trace.nodes)} nodes, {len(events)} events. ▶ plays the run; ← → step an event,
PageUp/PageDown a step of the story; step k shows the run after its first k events.</p>
{note}
<div id="controls"><button id="back" title="the previous step of the story (PageUp)">« step</button>
<button id="prev" title="the previous event (←)">◀ previous</button>
<button id="play" data-playing="false" title="play or pause (space)">▶ play</button>
<button id="next" title="the next event (→)">next ▶</button>
<button id="forward" title="the next step of the story (PageDown)">step »</button>
<select id="speed" title="how fast it plays">{speeds}</select>{zoom}
<input id="slider" type="range" min="0" max="0" value="0"><span id="step"></span></div>
<div id="story"></div>
<div id="event"></div>
<div id="message"></div>
<div class="legend">{legend}</div>
<div id="views"><svg id="network" xmlns="http://www.w3.org/2000/svg"></svg>
<div id="right"><div id="diagram"><svg id="labels" xmlns="http://www.w3.org/2000/svg"></svg>
<svg id="svg" xmlns="http://www.w3.org/2000/svg"></svg></div>
<div class="legend">{states_legend}</div>
<div id="tablebox"><table id="states"><thead><tr><th>node</th><th>state</th><th>elected</th>
<th>epoch</th><th>{vars_heading}</th></tr></thead><tbody>{rows}</tbody></table></div></div></div>
<p>{html.escape("; ".join(told.summary))}</p>
<script type="application/json" id="trace">{embedded}</script>
<script>{_SCRIPT}</script>
</body></html>
"""
