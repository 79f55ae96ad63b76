// ringleader lab: the explorer's model, stepped by hand.  The server holds the model;
// this page holds the path (the choices taken from the initial state) and asks the
// server for that path's state.  The URL's #path=3.0.5 is the path: reload or share it.
'use strict';
const svgNS = 'http://www.w3.org/2000/svg';
const KEYS = '123456789abcdefghijklmnopqrstuvwxyz';
const $ = id => document.getElementById(id);
let LAB = null;          // /api/lab: what does not change
let VIEW = null;         // /api/state: the current path's state
let path = [];           // the choices taken
let future = [];         // undone choices, the last undone last (redo pops it)
let focus = null;        // {node} or {link, position}: the moves shown first
let playing = null;      // the auto-play timer
let asked = 0;           // the number of the latest request (older answers are dropped)
let queued = Promise.resolve();  // the keys pressed, each applied once the last is drawn

// Apply ``act`` once every key pressed before it has taken effect: five presses of 1,
// faster than the page redraws, take five steps (each on the state the last one drew).
function enqueue(act) {
  queued = queued.then(act).catch(error => status('that key could not be applied: ' + error.message));
  return queued;
}

function mk(parent, name, attrs, text) {
  const e = document.createElementNS(svgNS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}
const label = n => (n === null || n === undefined) ? '⊥' : 'P' + n;
// A variable's value as the notes write one: ⊥ for none, lists without quotes.
function shown(value) {
  if (value === null || value === undefined) return '⊥';
  if (Array.isArray(value)) return '[' + value.map(shown).join(', ') + ']';
  if (typeof value === 'object') return '{' + Object.entries(value).map(([k, v]) => `${k}: ${shown(v)}`).join(', ') + '}';
  return String(value);
}
const status = text => { $('status').textContent = text; };

// The address's path, or null where it holds something else than step numbers.
function pathFromHash() {
  const m = /(?:^#|&)path=([^&]*)/.exec(location.hash);
  if (!m || m[1] === '') return [];
  if (!/^[0-9]+(\.[0-9]+)*$/.test(m[1])) return null;
  return m[1].split('.').map(Number);
}
// Load the address's path; one that is not a path says so and shows the start.
function loadHash() {
  const asked = pathFromHash();
  if (asked !== null) return load(asked);
  let text = /(?:^#|&)path=([^&]*)/.exec(location.hash)[1];
  try { text = decodeURIComponent(text); } catch (error) { /* shown as it is */ }
  text = text.slice(0, 40);
  return load([]).then(() => status(`the address's path ${JSON.stringify(text)} is not step numbers separated by dots (e.g. #path=3.0.5): the start is shown`));
}

async function getJSON(url) {
  const answer = await fetch(url, {cache: 'no-store'});
  const body = await answer.json();
  if (!answer.ok) {
    const error = new Error(body.error || answer.statusText);
    error.valid = body.valid || 0;
    throw error;
  }
  return body;
}

async function load(newPath, {keepFuture = false} = {}) {
  const mine = ++asked;
  const query = new URLSearchParams({path: newPath.join('.'), policy: $('policy').value,
                                     seed: $('seed').value || '0'});
  let view;
  try {
    view = await getJSON('/api/state?' + query);
  } catch (error) {
    if (mine === asked) {
      stop();
      const valid = Math.min(error.valid || 0, newPath.length);
      const where = valid ? `its first ${valid} step${valid > 1 ? 's' : ''} shown` : 'back to the start';
      if (newPath.length) await load(newPath.slice(0, valid));
      status('that state is not reachable: ' + error.message + ' — ' + where);
    }
    return;
  }
  if (mine !== asked) return;
  path = newPath;
  if (!keepFuture) future = [];
  VIEW = view;
  const hash = '#path=' + path.join('.');
  if (location.hash !== hash) history.replaceState(null, '', hash);
  render();
}

function take(choice) {
  if (future.length && future[future.length - 1] === choice) {
    future.pop();
    return load([...path, choice], {keepFuture: true});
  }
  future = [];
  return load([...path, choice]);
}
function back() {
  if (!path.length) return;
  future.push(path[path.length - 1]);
  return load(path.slice(0, -1), {keepFuture: true});
}
function forward() {
  if (!future.length) return;
  const choice = future.pop();
  return load([...path, choice], {keepFuture: true});
}
function restart() {
  if (!path.length) return;
  future = future.concat([...path].reverse());
  return load([], {keepFuture: true});
}

// -- auto-play --------------------------------------------------------------------------

function stop() {
  if (playing !== null) clearTimeout(playing);
  playing = null;
  $('play').textContent = '▶ play';
  $('play').setAttribute('aria-pressed', 'false');
}
function tick() {
  playing = null;
  if (!VIEW || VIEW.next === null || VIEW.next === undefined) { stop(); status('auto-play: nothing left to order'); return; }
  take(VIEW.next).then(() => {
    if ($('play').getAttribute('aria-pressed') !== 'true') return;
    if (VIEW.next === null || VIEW.next === undefined) { stop(); status('auto-play: the run is over'); return; }
    playing = setTimeout(tick, Number($('speed').value));
  });
}
function play() {
  if ($('play').getAttribute('aria-pressed') === 'true') { stop(); return; }
  $('play').textContent = '⏸ pause';
  $('play').setAttribute('aria-pressed', 'true');
  tick();
}

// -- drawing ----------------------------------------------------------------------------

const where = id => LAB.nodes.find(n => n.id === id);
// How wide ``text`` is drawn in a message box in flight (its font, measured).
function textWidth(svg, text) {
  const probe = mk(svg, 'g', {class: 'inflight', visibility: 'hidden'});
  const width = mk(probe, 'text', {}, text).getComputedTextLength();
  probe.remove();
  return width;
}
// The area two boxes share (0: apart).
function overlap(a, b) {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}
function colourOf(kind) { return (VIEW.kinds[kind] || {}).colour || '#444'; }
function dashOf(kind, width) {
  const dash = (VIEW.kinds[kind] || {}).dash || [];
  return dash.length ? dash.map(d => d * width).join(' ') : 'none';
}

function renderNetwork() {
  const svg = $('network');
  svg.innerHTML = '';
  svg.setAttribute('viewBox', `0 0 ${LAB.width} ${LAB.height}`);
  const defs = mk(svg, 'defs');
  const head = mk(defs, 'marker', {id: 'head', viewBox: '0 0 10 10', refX: 10, refY: 5,
    markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse'});
  mk(head, 'path', {d: 'M0,0 L10,5 L0,10 z', fill: '#777'});
  const pairs = new Set(LAB.links.map(l => l.from + '>' + l.to));
  const changedLinks = new Set(VIEW.changed.links);
  const R = 42;
  const geometry = new Map();
  for (const link of LAB.links) {
    if (link.from === link.to) continue;  // (a service's node to itself: no line to draw)
    const a = where(link.from), b = where(link.to);
    const dx = b.x - a.x, dy = b.y - a.y, d = Math.hypot(dx, dy) || 1;
    const ux = dx / d, uy = dy / d;
    const both = pairs.has(link.to + '>' + link.from);
    const off = both ? 9 : 0;  // a two-way pair: one line each side
    const ox = -uy * off, oy = ux * off;
    const g = {x1: a.x + ux * R + ox, y1: a.y + uy * R + oy, x2: b.x - ux * (R + 4) + ox,
               y2: b.y - uy * (R + 4) + oy, ux, uy, nx: -uy, ny: ux};
    geometry.set(link.index, g);
    mk(svg, 'line', {class: 'link' + (changedLinks.has(link.index) ? ' changed' : ''),
      'data-link': link.index, x1: g.x1, y1: g.y1, x2: g.x2, y2: g.y2, 'marker-end': 'url(#head)'});
  }
  const focused = focus && focus.node !== undefined ? focus.node : null;
  const changed = new Set(VIEW.changed.nodes);
  for (const node of VIEW.nodes) {
    const at = where(node.id);
    const g = mk(svg, 'g', {class: 'node' + (changed.has(node.id) ? ' changed' : '') +
      (focused === node.id ? ' focused' : ''), 'data-node': node.id, 'data-state': node.state,
      'data-elected': node.elected === undefined || node.elected === null ? '' : node.elected,
      'data-epoch': node.epoch === undefined ? '' : node.epoch, tabindex: 0});
    mk(g, 'circle', {cx: at.x, cy: at.y, r: R});
    mk(g, 'text', {class: 'name', x: at.x, y: at.y}, 'P' + node.id);
    const mark = node.crashed ? 'crash' : node.paused ? 'pause' : node.state === 'leader' ? 'leader'
      : node.state === 'not_leader' ? 'not_leader' : 'other';
    mk(g, 'text', {class: 'mark', x: at.x + R * 0.95, y: at.y - R * 0.95}, LAB.marks[mark].symbol);
    // Its words outward, away from the middle of the picture.
    const cx = LAB.width / 2;
    const tree = LAB.topology === 'spanning_tree';
    const side = tree ? 0 : Math.abs(at.x - cx) < 60 ? 1 : Math.sign(at.x - cx);
    const anchor = side === 0 ? 'middle' : side > 0 ? 'start' : 'end';
    let vars = Object.entries(node.variables || {});
    if (node.timers && node.timers.length) vars.push(['timers', node.timers.join(', ')]);
    if (node.lease !== undefined) {
      // A service's node: its lease (the token is its epoch) and its state file first,
      // then its timers (heartbeats, suspicion), then the election's variables.
      const timers = vars.filter(([name]) => name === 'timers');
      vars = [['lease', node.lease], ['kept', node.kept], ...timers,
              ...vars.filter(([name]) => name !== 'timers')];
    } else if (node.kept !== undefined) {
      vars = [['kept', node.kept]];  // crashed: its state file outlives it
    }
    if (node.asleep) vars.unshift(['asleep', 'not woken yet']);
    if (node.paused) vars.unshift(['paused', 'handles nothing']);
    const shownVars = vars.slice(0, 4);
    const lines = 1 + shownVars.length;
    const x = at.x + side * (R + 12);
    let y = side === 0 ? at.y + R + 26 : at.y - ((lines - 1) * 23) / 2 + 8;
    const about = node.crashed ? 'crashed' :
      `leader ${label(node.elected)} · epoch ${node.epoch}`;
    mk(g, 'text', {class: 'about', x, y, 'text-anchor': anchor}, about);
    for (const [name, value] of shownVars) {
      y += 23;
      let text = shown(value);
      if (text.length > 26) text = text.slice(0, 25) + '…';
      mk(g, 'text', {class: 'vars', x, y, 'text-anchor': anchor}, `${name} = ${text}`);
    }
    g.addEventListener('click', () => setFocus({node: node.id}));
    g.addEventListener('keydown', e => { if (e.key === 'Enter') setFocus({node: node.id}); });
  }
  // Messages in flight, on their link, the next to be delivered nearest its receiver;
  // each queue where it covers no node (its circle, its words) and no other queue.
  const taken = [...svg.querySelectorAll('g.node')].map(n => n.getBBox())
    .map(b => ({x: b.x - 4, y: b.y - 4, width: b.width + 8, height: b.height + 8}));
  for (const link of VIEW.links) {
    const g = geometry.get(link.index);
    if (!g) continue;  // (a service's node to itself)
    const across = Math.abs(g.nx) > Math.abs(g.ny);  // a link that runs up or down
    const widths = link.messages.map(message => 14 + textWidth(svg, message.text));
    // The boxes of the queue with its first box ``gap`` from the link, ``t`` of the way
    // along it, on ``side`` of it.
    const queue = (t, side, gap) => {
      let edge = gap;
      return widths.map(w => {
        const size = across ? w : 36;
        const offset = side * (edge + size / 2);
        edge += size + 6;
        const x = g.x1 + (g.x2 - g.x1) * t + g.nx * offset, y = g.y1 + (g.y2 - g.y1) * t + g.ny * offset;
        return {x: x - w / 2, y: y - 18, width: w, height: 36, cx: x, cy: y};
      });
    };
    let best = null, least = Infinity;
    search:
    for (const gap of [8, 50, 100, 160, 230])
      for (const t of [0.6, 0.5, 0.7, 0.4, 0.8, 0.3, 0.9, 0.2])
        for (const side of [1, -1]) {
          const boxes = queue(t, side, gap);
          const covered = boxes.reduce((sum, box) => sum + taken.reduce((s, o) => s + overlap(box, o), 0), 0);
          if (covered < least) { least = covered; best = boxes; }
          if (covered === 0) break search;
        }
    taken.push(...best);
    link.messages.forEach((message, position) => {
      const text = message.text;
      const w = widths[position], x = best[position].cx, y = best[position].cy;
      const deliver = VIEW.moves.find(m => m.kind === 'deliver' && m.link === link.index && m.position === position);
      const box = mk($('network'), 'g', {class: 'inflight' + (deliver ? ' deliverable' : ' stuck'),
        'data-link': link.index, 'data-position': position, 'data-kind': message.kind,
        transform: `translate(${x},${y})`});
      mk(box, 'rect', {x: -w / 2, y: -18, width: w, height: 36, rx: 8,
        stroke: colourOf(message.kind), 'stroke-dasharray': dashOf(message.kind, 3)});
      mk(box, 'text', {x: -w / 2 + 6, y: 0, fill: colourOf(message.kind)}, text);
      mk(box, 'title', {}, `${position + 1}. ${message.text} from P${link.from} to P${link.to}` +
        (link.fifo ? ' (FIFO: in this order)' : ' (unordered link)') + (deliver ? ' — click to deliver' : ''));
      box.addEventListener('click', event => {
        event.stopPropagation();
        if (deliver && !event.shiftKey) take(deliver.choice);
        else setFocus({link: link.index, position});
      });
    });
  }
  // A node's words at the box's edge (a long variable) may reach past it: widen the view
  // to hold everything drawn, so that nothing is cut off.
  const drawn = svg.getBBox(), pad = 8;
  const x0 = Math.min(0, drawn.x - pad), y0 = Math.min(0, drawn.y - pad);
  const x1 = Math.max(LAB.width, drawn.x + drawn.width + pad);
  const y1 = Math.max(LAB.height, drawn.y + drawn.height + pad);
  svg.setAttribute('viewBox', `${x0} ${y0} ${x1 - x0} ${y1 - y0}`);
}

function renderLegend() {
  const box = $('legend');
  box.innerHTML = '';
  const restarts = LAB.options.restarts ? ['restart'] : [];
  for (const name of ['leader', 'not_leader', 'other', 'crash', ...restarts, 'pause', 'lost', 'violation']) {
    const mark = LAB.marks[name];
    const span = document.createElement('span');
    span.textContent = `${mark.symbol} ${mark.words}`;
    box.appendChild(span);
  }
  for (const [kind, style] of Object.entries(VIEW.kinds)) {
    const span = document.createElement('span');
    span.innerHTML = `<svg width="46" height="14"><line x1="2" y1="7" x2="44" y2="7" stroke="${style.colour}"
      stroke-width="${3 * style.width}" stroke-dasharray="${dashOf(kind, 3)}"/></svg> ${kind}`;
    box.appendChild(span);
  }
}

function renderDiagram() {
  const svg = $('diagram');
  svg.innerHTML = '';
  const rows = new Map(LAB.nodes.map((n, i) => [n.id, i]));
  // Every process's line in the box (its scroll bar across is always there): the rows
  // as tall as the box allows, the box as tall as rows of 26 need (main() sets it).
  const room = $('diagram-box').clientHeight - 30 - 12;  // the box, less the step numbers
  const left = 70, top = 30, dx = 46, dy = Math.max(14, Math.min(48, room / LAB.nodes.length));
  const steps = VIEW.step;
  const width = left + (steps + 2) * dx + 40, height = top + LAB.nodes.length * dy + 10;
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  const defs = mk(svg, 'defs');
  const heads = new Set();
  const X = s => left + s * dx, Y = n => top + rows.get(n) * dy + dy / 2;
  for (const node of LAB.nodes) {
    mk(svg, 'line', {class: 'lifeline', x1: left, x2: X(steps + 1), y1: Y(node.id), y2: Y(node.id)});
    mk(svg, 'text', {class: 'who', x: left - 10, y: Y(node.id)}, 'P' + node.id);
  }
  for (let s = 1; s <= steps; s++) {
    if (steps <= 40 || s % 5 === 0) mk(svg, 'text', {class: 'tick', x: X(s), y: 16}, s);
  }
  mk(svg, 'line', {class: 'now', x1: X(steps), x2: X(steps), y1: top - 6, y2: height - 4});
  for (const m of VIEW.diagram.messages) {
    const colour = colourOf(m.kind), width = 2.5 * ((VIEW.kinds[m.kind] || {}).width || 1);
    const id = 'h' + colour.slice(1);
    if (!heads.has(id)) {
      heads.add(id);
      const head = mk(defs, 'marker', {id, viewBox: '0 0 10 10', refX: 10, refY: 5,
        markerWidth: 6, markerHeight: 6, orient: 'auto'});
      mk(head, 'path', {d: 'M0,0 L10,5 L0,10 z', fill: colour});
    }
    const x1 = X(m.sent), y1 = Y(m.from);
    let x2, y2;
    if (m.received !== null) { x2 = X(m.received); y2 = Y(m.to); }
    else { x2 = X(steps) + dx * 0.6; y2 = y1 + (Y(m.to) - y1) * 0.5; }
    if (m.lost) { x2 = x1 + (X(steps) + dx * 0.6 - x1) * 0.5; y2 = y1 + (Y(m.to) - y1) * 0.45; }
    const line = mk(svg, 'line', {class: 'arrow' + (m.received === null && !m.lost ? ' inflight-arrow' : ''),
      x1, y1, x2, y2, stroke: colour, 'stroke-width': width, 'stroke-dasharray': dashOf(m.kind, width),
      'marker-end': m.lost ? '' : `url(#${id})`, 'data-kind': m.kind});
    mk(line, 'title', {}, `${m.label} P${m.from} → P${m.to}` + (m.lost ? ' (lost)' : m.received === null ? ' (in flight)' : ''));
    if (m.lost) mk(svg, 'text', {class: 'dmark', x: x2, y: y2}, LAB.marks.lost.symbol);
  }
  for (const mark of VIEW.diagram.marks) {
    if (!rows.has(mark.node)) continue;
    const shown = LAB.marks[mark.mark];
    if (!shown) continue;
    const t = mk(svg, 'text', {class: 'dmark', x: X(mark.step), y: Y(mark.node) - (mark.mark === 'violation' ? 18 : 0),
      fill: mark.mark === 'violation' ? '#D55E00' : '#000'}, shown.symbol);
    mk(t, 'title', {}, shown.words);
  }
  const box = $('diagram-box');
  box.scrollLeft = box.scrollWidth;
}

function renderMoves() {
  const list = $('moves');
  list.innerHTML = '';
  if (!VIEW.moves.length) {
    const li = document.createElement('li');
    li.className = 'none';
    li.textContent = VIEW.end ? 'The run is over: nothing in flight, no timer, every initiator awake.'
      : 'Nothing can happen now.';
    list.appendChild(li);
  }
  const inFocus = m => focus && ((focus.node !== undefined && m.node === focus.node && m.link === undefined) ||
    (focus.node !== undefined && m.link !== undefined && m.node === focus.node) ||
    (focus.link !== undefined && m.link === focus.link && m.position === focus.position));
  const ordered = [...VIEW.moves].sort((a, b) => (inFocus(b) ? 1 : 0) - (inFocus(a) ? 1 : 0) || a.choice - b.choice);
  VIEW.moves.forEach((move, k) => { move.key = KEYS[k] || ''; });
  for (const move of ordered) {
    const li = document.createElement('li');
    const button = document.createElement('button');
    button.className = 'move' + (inFocus(move) ? ' focused' : focus ? ' dimmed' : '');
    button.dataset.choice = move.choice;
    button.dataset.kind = move.kind;
    button.dataset.fault = move.fault;
    if (move.node !== undefined) button.dataset.node = move.node;
    if (move.link !== undefined) button.dataset.link = move.link;
    const key = document.createElement('kbd');
    key.textContent = move.key;
    const kind = document.createElement('span');
    kind.className = 'kind';
    kind.textContent = move.kind;
    const text = document.createElement('span');
    text.textContent = move.text + (move.sends ? ` (sends ${move.sends})` : '');
    button.append(key, kind, text);
    button.title = move.key ? `press ${move.key}` : '';
    button.addEventListener('click', () => { stop(); take(move.choice); });
    li.appendChild(button);
    list.appendChild(li);
  }
  $('focus-note').textContent = focus ? (focus.node !== undefined ? `(P${focus.node}'s first; Esc: all)`
    : '(that message\'s first; Esc: all)') : '(click a message to deliver it, a node for its moves)';
}

function renderChecks() {
  const list = $('checks');
  list.innerHTML = '';
  const words = Object.fromEntries(LAB.checks.map(c => [c.kind, c.words]));
  const broken = [];
  for (const check of VIEW.checks) {
    const li = document.createElement('li');
    li.dataset.check = check.kind;
    li.dataset.status = check.status;
    li.textContent = words[check.kind] || check.kind;
    if (check.text) {
      const why = document.createElement('span');
      why.className = 'why';
      why.textContent = ': ' + check.text;
      li.appendChild(why);
    }
    if (check.status === 'failed') broken.push(`✗ ${words[check.kind]}: ${check.text}`);
    list.appendChild(li);
  }
  const alert = $('alert');
  alert.hidden = !broken.length;
  alert.textContent = broken.join(' · ');
}

function renderFindings() {
  const box = $('findings');
  if (box.dataset.made) return;
  box.dataset.made = '1';
  for (const found of LAB.findings) {
    const button = document.createElement('button');
    button.className = 'finding' + (found.violation ? ' violation' : '');
    button.dataset.name = found.name;
    button.textContent = `${found.violation ? '✗ ' : ''}${found.label} (${found.steps} step${found.steps === 1 ? '' : 's'})`;
    button.title = `${found.messages} messages` + (found.detail ? ': ' + found.detail : '');
    button.addEventListener('click', () => {
      stop();
      const steps = found.path ? found.path.split('.').map(Number) : [];
      future = [];
      load(steps, {keepFuture: true});
      status(`opened ${found.label}: step back (←) through it, and go on from any of its states`);
    });
    box.appendChild(button);
  }
  const explored = LAB.explored;
  const note = document.createElement('span');
  note.className = 'why';
  note.textContent = `${explored.states.toLocaleString()} states` + (explored.complete ? ', every one' : ', not every one (the search stopped)');
  box.appendChild(note);
}

function renderNarration() {
  const list = $('narration');
  list.innerHTML = '';
  for (const line of VIEW.narration) {
    const li = document.createElement('li');
    li.value = line.step;
    li.textContent = line.text;
    if (line.step === VIEW.step) li.className = 'last';
    li.title = 'back to this step';
    li.addEventListener('click', () => {
      stop();
      const undone = path.slice(line.step).reverse();
      future = future.concat(undone);
      load(path.slice(0, line.step), {keepFuture: true});
    });
    list.appendChild(li);
  }
  if (VIEW.last && !VIEW.narration.some(l => l.step === VIEW.step)) {
    const li = document.createElement('li');
    li.value = VIEW.step;
    li.className = 'last';
    li.textContent = VIEW.last;  // a step the story leaves untold (a loss): the model's words
    list.appendChild(li);
  }
  requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });  // once laid out
}

function render() {
  $('step').textContent = `step ${VIEW.step} · ${VIEW.sent} message${VIEW.sent === 1 ? '' : 's'}` + (VIEW.end ? ' · over' : '');
  $('step').dataset.step = VIEW.step;
  $('back').disabled = !path.length;
  $('restart').disabled = !path.length;
  $('forward').disabled = !future.length;
  renderNetwork();
  renderLegend();
  renderDiagram();
  renderMoves();
  renderChecks();
  renderFindings();
  renderNarration();
  if (VIEW.last) status('last step: ' + VIEW.last);
  document.body.dataset.ready = path.join('.');
}

function setFocus(what) {
  focus = what;
  renderNetwork();
  renderMoves();
}

document.addEventListener('keydown', event => {
  if (event.target.tagName === 'INPUT' || event.target.tagName === 'SELECT' || event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key;
  if (key === 'ArrowLeft' || key === 'Backspace') { stop(); enqueue(back); }
  else if (key === 'ArrowRight') { stop(); enqueue(forward); }
  else if (key === 'Home') { stop(); enqueue(restart); }
  else if (key === ' ') { play(); }
  else if (key === 'Escape') { setFocus(null); }
  else if (key === '+' || key === '-') {
    const speed = $('speed'), at = speed.selectedIndex + (key === '+' ? 1 : -1);
    speed.selectedIndex = Math.max(0, Math.min(speed.options.length - 1, at));
  } else {
    const at = KEYS.indexOf(key.toLowerCase());
    if (at < 0) return;
    stop();
    // The move with that key in the state on screen once the keys before it are applied.
    enqueue(() => (VIEW && at < VIEW.moves.length) ? take(VIEW.moves[at].choice) : undefined);
  }
  event.preventDefault();
});

async function main() {
  LAB = await getJSON('/api/lab');
  document.title = 'ringleader lab: ' + LAB.title;
  $('title').textContent = LAB.title;
  $('source').textContent = LAB.source;
  if (LAB.about) {  // a service's rules, not the notes' election: say which
    $('rules').textContent = LAB.about;
    $('rules').hidden = false;
    document.body.dataset.rules = LAB.rules;
  }
  // The diagram's box holds a row of 26 for each process (and its scroll bar across):
  // the network above it gives up the height that takes on a short screen.
  const box = $('diagram-box'), bar = box.offsetHeight - box.clientHeight;
  box.style.minHeight = `${30 + LAB.nodes.length * 26 + 12 + bar}px`;
  let drawnFor = box.clientHeight;  // (a box resized, by the window or the page: drawn anew)
  new ResizeObserver(() => {
    if (VIEW && box.clientHeight !== drawnFor) { drawnFor = box.clientHeight; renderDiagram(); }
  }).observe(box);
  for (const policy of LAB.policies) {
    const option = document.createElement('option');
    option.value = policy.name;
    option.textContent = policy.words;
    $('policy').appendChild(option);
  }
  $('back').addEventListener('click', () => { stop(); back(); });
  $('forward').addEventListener('click', () => { stop(); forward(); });
  $('restart').addEventListener('click', () => { stop(); restart(); });
  $('play').addEventListener('click', play);
  $('policy').addEventListener('change', () => load(path, {keepFuture: true}));
  $('seed').addEventListener('change', () => load(path, {keepFuture: true}));
  window.addEventListener('hashchange', () => {
    const asked = pathFromHash();
    if (asked === null || asked.join('.') !== path.join('.')) { stop(); loadHash(); }
  });
  await loadHash();
}
main().catch(error => status('the lab could not start: ' + error.message));
