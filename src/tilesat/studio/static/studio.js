// tilesat studio: the board and pieces are the page's state; every change
// writes the instance file text and asks the server's check-unique (debounced;
// a newer edit aborts the request in flight, and the server kills its run).
"use strict";

const $ = (id) => document.getElementById(id);
const ORIENTATIONS = ["free", "one-sided", "fixed"];
const DEBOUNCE_MS = 300;

const state = {
  grid: "square",              // or "triangle", "hex" (cube boards stay file-only: the command line)
  shift: 0,                    // triangle: cell (r, c) points up when r + c + shift is even
  rows: 6, cols: 6, wrap: "none",
  blocked: new Set(),          // "r,c"
  items: [{ name: "L4", orient: "free", count: "" }],  // the pieces: header, item by item
  shapes: {},                  // custom shapes: name -> ["##", "#."]
  comments: [],                // the file's ';' lines, written back first
  marks: new Map(),            // "r,c" -> '+' (may stay empty) or a colour letter, shown and written back
  colours: null,               // the 'colours:' header's value, kept as it is
};
// The board a newcomer sees first: one with exactly one tiling (the README's L-Panel puzzle).
const FIRST_BOARD = `; The L-Panel puzzle: L-tetrominoes cover the open cells in exactly one way.
; Click cells to block or open them; the verdict follows.
pieces: L4
.....#
...#..
.###..
..##..
#..###
.....#
`;
let builtin = { pieces: {}, sets: {} };
let last = null;               // the last check-unique answer (JSON), for the downloads
let inFlight = null;           // its AbortController
let timer = null;

// -- the instance file -------------------------------------------------------------------

function piecesText() {
  return state.items.map((it) => it.name + (it.orient !== "free" ? "/" + it.orient : "")
    + (it.count.trim() ? ":" + it.count.trim() : "")).join(", ");
}

function instanceText() {
  const lines = [...state.comments, "pieces: " + piecesText()];
  for (const [name, rows] of Object.entries(state.shapes)) lines.push(`shape: ${name} ${rows.join("/")}`);
  const grid = lines.length;
  if (state.grid !== "square") lines.push("grid: " + state.grid);
  if (state.wrap !== "none") lines.push("wrap: " + state.wrap);
  if (state.colours !== null) lines.push("colours: " + state.colours);
  const first = lines.length;
  for (let r = 0; r < state.rows; r++) {
    const chars = [];
    for (let c = 0; c < state.cols; c++)
      chars.push(state.blocked.has(r + "," + c) ? "#" : state.marks.get(r + "," + c)
        || (state.grid === "triangle" ? (up(r, c) ? "^" : "v") : "."));
    // hex: two characters a hexagon, each row one character right of the one above (a rhombus)
    // triangle: a row starts one position right when the page's column 0 points the other way than the
    // text's position 0 would, so that the text's positions carry the parity even without a '^' or 'v'
    lines.push(state.grid === "hex" ? " ".repeat(r) + chars.join(" ") : (state.grid === "triangle" && state.shift ? " " : "")
      + chars.join(""));
  }
  // a square board's first row of lowercase letters alone reads as a word: 'grid: square' makes it a row
  if (state.grid === "square" && /^[a-z]+$/.test(lines[first] || "")) lines.splice(grid, 0, "grid: square");
  return lines.join("\n") + "\n";
}

function up(r, c) { return (r + c + state.shift) % 2 === 0; }

// '+' (a cell that may stay empty) and colour letters: shown on the cells, written back as they are
const ROW_CHARACTERS = { square: /^[.#+A-Za-z]+$/, triangle: /^[.#^v+A-Za-z ]+$/, hex: /^[.#+A-Za-z ]+$/ };
// the tints of colours A, B, ... on cells no tile covers, as the pictures draw them (tilesat.showing.style.TINTS)
const TINTS = ["#ffd8d8", "#d8f0ff", "#fff2b3", "#dcf5d0", "#ecdcff", "#ffe0c2", "#d0f5f0", "#f5d0e8"];
// the colours the board's brush gives (a loaded file may have others: they are kept)
const BRUSH_COLOURS = "ABCDEFGH";

function markParts(mark) {
  // a cell's mark -> whether it may stay empty and its colour letter ("" for none)
  if (!mark || mark === "+") return { optional: mark === "+", colour: "" };
  return { optional: mark !== mark.toUpperCase(), colour: mark.toUpperCase() };
}

function markOf(optional, colour) {
  // the instance file's character: '+', 'A', or 'a' (may stay empty and coloured); "" for a plain cell
  return colour ? (optional ? colour.toLowerCase() : colour) : (optional ? "+" : "");
}

function tintOf(mark) {
  const colour = markParts(mark).colour;
  return colour ? TINTS[(colour.charCodeAt(0) - 65) % TINTS.length] : "";
}

function markTitle(mark) {
  const { optional, colour } = markParts(mark);
  return [optional ? "may stay empty" : "", colour ? `colour ${colour}` : ""].filter(Boolean).join(", ");
}

function boardCells(grid, rows) {
  // the layout's rows -> {rows, cols, shift, open: Set "r,c"}: the grids' own rules (tilesat.model.grids);
  // a space (no cell) becomes a blocked cell, which is the same board
  const open = new Set(), marks = new Map();
  let shift = 0, first = null, cols = 0, low = Infinity;
  const cells = [];
  rows.forEach((text, r) => [...text].forEach((ch, p) => {
    if (ch === " ") return;
    if (grid === "hex") {
      if (first === null) first = (p - r) % 2;
      if ((p - r - first) % 2) throw new Error(`row ${r + 1}: a hexagon between two others: two characters a cell`);
      cells.push([r, (p - r - first) / 2, ch]);
    } else {
      if (grid === "triangle" && first === null && "^v".includes(ch)) { first = 1; shift = (((r + p) % 2 === 0) === (ch === "^")) ? 0 : 1; }
      cells.push([r, p, ch]);
    }
  }));
  cells.forEach(([, c]) => { low = Math.min(low, c); });
  if (grid === "square" || !cells.length) low = 0;  // triangle: the shift below keeps the parity
  for (const [r, c, ch] of cells) {
    cols = Math.max(cols, c - low + 1);
    if (ch !== "#") open.add(r + "," + (c - low));
    if (!".#^v".includes(ch)) marks.set(r + "," + (c - low), ch);
  }
  if (grid === "triangle") shift = (shift + low) % 2;
  return { rows: rows.length, cols, shift, open, marks };
}

function parseInstance(text) {
  // the parts the page edits; the server's parser has the last word on anything else
  const grid = [], shapes = {}, comments = [];
  let pieces = null, wrap = "none", kind = "square", colours = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith(";")) comments.push(line);  // kept: written back at the top of the file
    if (!line || line.startsWith(";")) continue;
    const header = line.match(/^([A-Za-z_-]+)\s*:\s*(.*)$/);
    if (header && !/^[.#]+$/.test(line)) {
      const [key, value] = [header[1].toLowerCase(), header[2].trim()];
      if (key === "pieces") pieces = value;
      else if (key === "wrap") wrap = value;
      else if (key === "colours" || key === "colors") colours = value;
      else if (key === "grid") {
        if (!(value in ROW_CHARACTERS)) throw new Error(`grid: ${value} boards are edited with the command line (the studio edits square, triangle and hex)`);
        kind = value;
      }
      else if (key === "shape") {
        const m = value.match(/^(\S+)\s+(\S+)$/);
        if (!m) throw new Error("shape: give NAME ROW/ROW/…");
        shapes[m[1]] = m[2].split("/");
      }
      continue;
    }
    grid.push(raw.replace(/\s+$/, ""));  // leading spaces place triangle and hex rows
  }
  if (!grid.length) throw new Error("no grid rows");
  const rows = kind === "square" ? grid.map((row) => row.trim()) : grid;
  const bad = rows.find((row) => !ROW_CHARACTERS[kind].test(row));
  if (bad !== undefined) throw new Error(`not a ${kind} grid row: '${bad}'`);
  if (kind === "square" && rows.some((row) => row.length !== rows[0].length)) throw new Error("rows of different lengths");
  if (pieces === null) throw new Error("no 'pieces:' header");
  const items = pieces.split(",").map((s) => s.trim()).filter(Boolean).map((s) => {
    const m = s.match(/^([A-Za-z][A-Za-z0-9_-]*)(?:\/([a-z-]+))?(?::(.+))?$/);
    if (!m) throw new Error(`piece item '${s}': use NAME[/ORIENT][:COUNT]`);
    return { name: m[1], orient: m[2] || "free", count: m[3] || "" };
  });
  const board = boardCells(kind, rows);
  const blocked = new Set();
  for (let r = 0; r < board.rows; r++) for (let c = 0; c < board.cols; c++) if (!board.open.has(r + "," + c)) blocked.add(r + "," + c);
  Object.assign(state, { grid: kind, shift: board.shift, rows: board.rows, cols: board.cols, wrap, blocked, items, shapes,
    comments, marks: board.marks, colours });
}

// -- the board ---------------------------------------------------------------------------

let painting = null;  // while the pointer is down: true = blocking, false = unblocking

const SVG_NS = "http://www.w3.org/2000/svg";

function cellPoints(r, c, size) {
  // a triangle or a hexagon's corners, as the pictures draw them (pointy-top hexagons, axial cells)
  if (state.grid === "triangle") {
    const h = size * Math.sqrt(3) / 2, x = c * size / 2;
    return up(r, c) ? [[x, (r + 1) * h], [x + size / 2, r * h], [x + size, (r + 1) * h]]
      : [[x, r * h], [x + size, r * h], [x + size / 2, (r + 1) * h]];
  }
  const radius = size / Math.sqrt(3), w = size;
  const cx = w * (c + r / 2) + w / 2, cy = radius * 1.5 * r + radius;
  return [...Array(6).keys()].map((k) => [cx + radius * Math.cos(Math.PI / 180 * (60 * k - 30)),
    cy + radius * Math.sin(Math.PI / 180 * (60 * k - 30))]);
}

function drawShapedBoard(board) {
  // triangle and hex boards: an SVG of polygons, each a .cell with data-r/data-c as the square cells have
  const across = state.grid === "hex" ? state.cols + state.rows / 2 : state.cols / 2 + 0.5;
  const size = Math.max(12, Math.min(48, Math.floor(560 / Math.max(across, 1))));
  const svg = document.createElementNS(SVG_NS, "svg");
  let width = 0, height = 0;
  for (let r = 0; r < state.rows; r++) for (let c = 0; c < state.cols; c++) {
    const points = cellPoints(r, c, size);
    points.forEach(([x, y]) => { width = Math.max(width, x); height = Math.max(height, y); });
    const cell = document.createElementNS(SVG_NS, "polygon");
    cell.setAttribute("points", points.map((p) => p.map((v) => v.toFixed(1)).join(",")).join(" "));
    cell.setAttribute("class", "cell" + (state.blocked.has(r + "," + c) ? " blocked" : ""));
    cell.dataset.r = r; cell.dataset.c = c;
    cell.setAttribute("role", "gridcell");
    svg.appendChild(cell);
    const mark = state.marks.get(r + "," + c);
    showMark(cell, mark);
    if (mark) {  // '+' or a colour letter at the cell's centre (clicks go through to the cell)
      const label = document.createElementNS(SVG_NS, "text");
      const [x, y] = [0, 1].map((k) => points.reduce((s, p) => s + p[k], 0) / points.length);
      label.setAttribute("x", x.toFixed(1)); label.setAttribute("y", (y + size * 0.12).toFixed(1));
      label.setAttribute("text-anchor", "middle"); label.setAttribute("font-size", (size * 0.35).toFixed(1));
      label.setAttribute("pointer-events", "none"); label.textContent = mark;
      label.dataset.r = r; label.dataset.c = c; label.setAttribute("class", "mark");
      svg.appendChild(label);
    }
  }
  svg.setAttribute("width", Math.ceil(width) + 1); svg.setAttribute("height", Math.ceil(height) + 1);
  board.style.gridTemplateColumns = ""; board.style.gridAutoRows = "";
  board.className = "shaped";
  board.replaceChildren(svg);
}

function drawBoard() {
  const board = $("board");
  $("grid").value = state.grid;
  $("colours-text").value = state.colours ?? "";
  state.blocked.forEach((key) => state.marks.delete(key));  // a blocked cell has no mark (Invert, a repair)
  $("wrap").disabled = state.grid !== "square";
  if (state.grid !== "square") {
    drawShapedBoard(board);
    $("rows").value = state.rows; $("cols").value = state.cols; $("wrap").value = state.wrap;
    return;
  }
  const size = Math.max(10, Math.min(36, Math.floor(560 / Math.max(state.rows, state.cols))));
  board.style.gridTemplateColumns = `repeat(${state.cols}, ${size}px)`;
  board.style.gridAutoRows = size + "px";
  board.className = (state.wrap === "rows" || state.wrap === "both" ? "wrap-rows " : "")
    + (state.wrap === "columns" || state.wrap === "both" ? "wrap-columns" : "");
  const cells = [];
  for (let r = 0; r < state.rows; r++) for (let c = 0; c < state.cols; c++) {
    const cell = document.createElement("div");
    cell.className = "cell" + (state.blocked.has(r + "," + c) ? " blocked" : "");
    cell.dataset.r = r; cell.dataset.c = c;
    cell.setAttribute("role", "gridcell");
    const mark = state.marks.get(r + "," + c);
    cell.textContent = mark || "";
    showMark(cell, mark);
    cells.push(cell);
  }
  board.replaceChildren(...cells);
  $("rows").value = state.rows; $("cols").value = state.cols; $("wrap").value = state.wrap;
}

function showMark(cell, mark) {
  // a cell's mark on the board: its tint (a colour) and what it means on hovering
  cell.classList.toggle("tinted", Boolean(tintOf(mark)));
  if (tintOf(mark)) cell.style.setProperty("--tint", tintOf(mark)); else cell.style.removeProperty("--tint");
  const title = markTitle(mark);
  if (cell.tagName === "polygon") {
    cell.querySelector("title")?.remove();
    if (title) { const t = document.createElementNS(SVG_NS, "title"); t.textContent = title; cell.appendChild(t); }
  } else cell.title = title;
}

function brush() {
  // what a click does: "block" (block / open), "optional" (may stay empty or not), "colour" (the colour
  // chosen, or none), "plain" (neither)
  return { kind: $("brush").value, colour: $("brush-colour").value };
}

function wants(key) {
  // on the drag's first cell: what the brush does to every cell the drag passes (true: block, mark)
  const { kind, colour } = brush(), parts = markParts(state.marks.get(key));
  if (kind === "block") return !state.blocked.has(key);
  if (kind === "optional") return state.blocked.has(key) || !parts.optional;
  if (kind === "colour") return state.blocked.has(key) || parts.colour !== colour;
  return true;
}

function paint(cell) {
  const key = cell.dataset.r + "," + cell.dataset.c;
  const { kind, colour } = brush();
  const before = state.blocked.has(key) + "|" + (state.marks.get(key) || "");
  if (kind === "block") {
    if (painting) { state.blocked.add(key); state.marks.delete(key); } else state.blocked.delete(key);
  } else {
    const parts = markParts(state.marks.get(key));
    if (kind === "optional") parts.optional = painting;
    else if (kind === "colour") parts.colour = painting ? colour : "";
    else Object.assign(parts, { optional: false, colour: "" });
    const mark = markOf(parts.optional, parts.colour);
    if (mark) { state.marks.set(key, mark); state.blocked.delete(key); } else state.marks.delete(key);  // a mark opens a cell
  }
  if (state.blocked.has(key) + "|" + (state.marks.get(key) || "") === before) return;
  if (cell.tagName === "polygon") drawBoard();  // its letter is an element of its own
  else {
    cell.classList.toggle("blocked", state.blocked.has(key));
    cell.textContent = state.marks.get(key) || "";
    showMark(cell, state.marks.get(key));
  }
  changed();
}

$("board").addEventListener("pointerdown", (e) => {
  const cell = e.target.closest(".cell");
  if (!cell) return;
  e.preventDefault();
  cell.releasePointerCapture?.(e.pointerId);  // touch: let the drag reach the other cells
  painting = wants(cell.dataset.r + "," + cell.dataset.c);
  paint(cell);
});
$("board").addEventListener("pointerover", (e) => {
  const cell = e.target.closest(".cell");
  if (cell && painting !== null && e.buttons) paint(cell);
});
window.addEventListener("pointerup", () => { painting = null; });

function resize() {
  const rows = Math.max(1, Math.min(100, parseInt($("rows").value, 10) || 1));
  const cols = Math.max(1, Math.min(100, parseInt($("cols").value, 10) || 1));
  const inside = (k) => { const [r, c] = k.split(",").map(Number); return r < rows && c < cols; };
  state.blocked = new Set([...state.blocked].filter(inside));
  state.marks = new Map([...state.marks].filter(([k]) => inside(k)));
  Object.assign(state, { rows, cols });
  drawBoard(); changed();
}
$("colours-text").addEventListener("input", () => { state.colours = $("colours-text").value.trim() || null; changed(); });
for (const letter of BRUSH_COLOURS) {
  const option = new Option(letter, letter);
  option.style.background = tintOf(letter);
  $("brush-colour").add(option);
}
// choosing a colour is choosing the colour brush
$("brush-colour").addEventListener("change", () => { $("brush").value = "colour"; });
$("rows").addEventListener("change", resize);
$("cols").addEventListener("change", resize);
$("wrap").addEventListener("change", () => { state.wrap = $("wrap").value; drawBoard(); changed(); });
//: A grid's first pieces when the page switches to it (square pieces do not fit the others).
const GRID_PIECES = { square: "L4", triangle: "diamond", hex: "dihex" };
$("grid").addEventListener("change", () => {
  state.grid = $("grid").value;
  state.shift = 0; state.wrap = "none";
  state.items = [{ name: GRID_PIECES[state.grid], orient: "free", count: "" }];
  state.shapes = {};
  drawBoard(); drawPalette(); changed();
});
$("clear-board").addEventListener("click", () => { state.blocked.clear(); drawBoard(); changed(); });
$("invert-board").addEventListener("click", () => {
  const all = new Set();
  for (let r = 0; r < state.rows; r++) for (let c = 0; c < state.cols; c++)
    if (!state.blocked.has(r + "," + c)) all.add(r + "," + c);
  state.blocked = all; drawBoard(); changed();
});

// -- pieces ------------------------------------------------------------------------------

function shapeIcon(cells, unit = 6) {
  const h = 1 + Math.max(...cells.map((p) => p[0])), w = 1 + Math.max(...cells.map((p) => p[1]));
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", w * unit); svg.setAttribute("height", h * unit);
  for (const [r, c, ch] of cells) {
    const rect = document.createElementNS(ns, "rect");
    // a coloured cell (a custom shape's letter): its colour's tint, outlined
    const colour = ch && ch !== "#" ? { fill: tintOf(ch), stroke: "#2a6fb0", "stroke-width": 1, class: "coloured",
      x: c * unit + 0.5, y: r * unit + 0.5, width: unit - 2, height: unit - 2 } : { fill: "#2a6fb0" };
    Object.entries({ x: c * unit, y: r * unit, width: unit - 1, height: unit - 1, ...colour })
      .forEach(([k, v]) => rect.setAttribute(k, v));
    if (colour.class) rect.dataset.colour = ch.toUpperCase();
    svg.appendChild(rect);
  }
  return svg;
}

function drawPalette() {
  const palette = $("piece-palette");
  const chips = [];
  const chosen = new Set(state.items.map((it) => canonical(it.name)));
  const chip = (name, icon, title) => {
    const b = document.createElement("button");
    b.className = "chip" + (chosen.has(canonical(name)) ? " selected" : "");
    b.dataset.piece = name; b.title = title;
    if (icon) b.appendChild(icon);
    b.appendChild(document.createTextNode(name));
    b.addEventListener("click", () => togglePiece(name));
    chips.push(b);
  };
  for (const [name, members] of Object.entries(builtin.sets))
    chip(name, null, members ? members.join(" ") : `every free ${name.slice(0, -2)} (enumerated)`);
  for (const [name, cells] of Object.entries(builtin.pieces)) chip(name, shapeIcon(cells), name);
  for (const [name, rows] of Object.entries(state.shapes)) {
    const colours = [...new Set(rows.join("").replace(/[.#]/g, "").toUpperCase())];
    chip(name, shapeIcon(shapeCells(rows), colours.length ? 8 : 6), `custom shape ${name}: ${rows.join("/")}`
      + (colours.length ? ` (coloured cells: ${colours.join(", ")})` : ""));
  }
  palette.replaceChildren(...chips);

  const body = $("piece-list").querySelector("tbody");
  body.replaceChildren(...state.items.map((it, i) => {
    const tr = document.createElement("tr");
    const orient = document.createElement("select");
    ORIENTATIONS.forEach((o) => orient.add(new Option(o, o, false, o === it.orient)));
    orient.addEventListener("change", () => { it.orient = orient.value; changed(); });
    const count = document.createElement("input");
    count.value = it.count; count.placeholder = "any"; count.title = "N, A..B, A.. or empty for any number";
    count.addEventListener("input", () => { it.count = count.value; changed(); });
    const remove = document.createElement("button");
    remove.textContent = "×"; remove.title = "remove";
    remove.addEventListener("click", () => { state.items.splice(i, 1); drawPalette(); changed(); });
    const name = document.createElement("td"); name.textContent = it.name;
    [name, orient, count, remove].forEach((el, k) => {
      const td = k === 0 ? el : document.createElement("td");
      if (k) td.appendChild(el);
      tr.appendChild(td);
    });
    return tr;
  }));
  $("pieces-text").value = piecesText();
}

const ALIASES = { monomino: "I1", domino: "I2" };

function canonical(name) {
  // built-in names are case-insensitive and have aliases (as the server's parser has them)
  return name in state.shapes ? name : (ALIASES[name.toLowerCase()] || name.toUpperCase());
}

function togglePiece(name) {
  const i = state.items.findIndex((it) => canonical(it.name) === canonical(name));
  if (i >= 0) state.items.splice(i, 1); else state.items.push({ name, orient: "free", count: "" });
  drawPalette(); changed();
}

function shapeCells(rows) {
  const cells = [];
  rows.forEach((row, r) => [...row].forEach((ch, c) => { if (ch !== ".") cells.push([r, c, ch]); }));  // '#' or a colour
  return cells.length ? cells : [[0, 0]];
}

const shapeOn = new Map();  // "r,c" -> '#', or a colour letter (the colour brush's)
(function drawShapeGrid() {
  const grid = $("shape-grid");
  for (let r = 0; r < 5; r++) for (let c = 0; c < 5; c++) {
    const cell = document.createElement("div");
    cell.className = "cell";
    cell.dataset.r = r; cell.dataset.c = c;
    cell.addEventListener("click", () => {
      // with the colour brush a click gives the cell that colour (again: plain '#'); otherwise on / off
      const key = r + "," + c, { kind, colour } = brush();
      if (kind === "colour") shapeOn.set(key, shapeOn.get(key) === colour ? "#" : colour);
      else if (shapeOn.has(key)) shapeOn.delete(key); else shapeOn.set(key, "#");
      const ch = shapeOn.get(key);
      cell.classList.toggle("on", Boolean(ch));
      cell.textContent = ch && ch !== "#" ? ch : "";
      showMark(cell, ch && ch !== "#" ? ch : "");
    });
    grid.appendChild(cell);
  }
})();

$("add-shape").addEventListener("click", () => {
  const name = $("shape-name").value.trim();
  $("shape-error").textContent = "";
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) { $("shape-error").textContent = "name: a letter, then letters, digits or _"; return; }
  if (!shapeOn.size) { $("shape-error").textContent = "draw the shape first"; return; }
  const cells = [...shapeOn.keys()].map((k) => k.split(",").map(Number));
  const r0 = Math.min(...cells.map((p) => p[0])), r1 = Math.max(...cells.map((p) => p[0]));
  const c0 = Math.min(...cells.map((p) => p[1])), c1 = Math.max(...cells.map((p) => p[1]));
  const rows = [];
  for (let r = r0; r <= r1; r++) {
    let row = "";
    for (let c = c0; c <= c1; c++) row += shapeOn.get(r + "," + c) || ".";
    rows.push(row);
  }
  state.shapes[name] = rows;
  if (!state.items.some((it) => it.name === name)) state.items.push({ name, orient: "free", count: "" });
  drawPalette(); changed();
});

// -- talking to the server ---------------------------------------------------------------

async function api(command, body, signal) {
  const response = await fetch("/api/" + command, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal,
  });
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw Object.assign(new Error(data.error || `HTTP ${response.status}`), { status: response.status });
  return data;
}

function changed() {
  clearExplain();
  $("instance-text").value = instanceText();
  shareBoard();
  $("pieces-text").value = piecesText();
  $("verdict").classList.add("busy");
  clearTimeout(timer);
  timer = setTimeout(checkUnique, DEBOUNCE_MS);
}

const SENTENCES = {
  unique: () => "exactly one tiling",
  solved: () => "a tiling",
  multiple: (d) => `at least two tilings; they differ at ${d.differ} cells (marked •)`,
  none: (d) => "no tiling exists" + (d.reason ? ` (${d.reason})` : d.certificate ? " (a certificate proves it)" : " (the search proved it)"),
  unknown: () => "the time limit passed before a verdict",
};

async function checkUnique() {
  timer = null;  // this edit's check has started
  if (inFlight) inFlight.abort();  // the server sees the client go and kills that run
  const controller = new AbortController();
  inFlight = controller;
  const verdict = $("verdict");
  try {
    const data = await api("check-unique", { instance: instanceText(), options: { svg: true } }, controller.signal);
    if (controller !== inFlight) return;
    last = data;
    const differ = data.tilings.length === 2 ? countDiffering(data.tilings) : 0;
    verdict.textContent = data.verdict;
    verdict.dataset.verdict = data.verdict;
    $("verdict-detail").textContent = SENTENCES[data.verdict]({ ...data, differ })
      + (data.grade ? ` · grade ${data.grade.grade} (${data.grade.rounds} deduction round${data.grade.rounds === 1 ? "" : "s"})` : "");
    $("picture").innerHTML = data.svg || "";
    $("certificate-box").hidden = !data.certificate;
    $("certificate").textContent = data.certificate ? JSON.stringify(data.certificate, null, 1) : "";
    const s = data.stats || {};
    $("stats").textContent = [s.method, s.encoding, s.solver, s.seconds !== undefined ? s.seconds.toFixed(3) + " s" : ""]
      .filter(Boolean).join(" · ");
    if (data.verdict !== "unknown") explain();
  } catch (e) {
    if (e.name === "AbortError" || controller !== inFlight) return;
    last = null;
    verdict.textContent = "error";
    verdict.dataset.verdict = "error";
    $("verdict-detail").textContent = e.message;
    $("picture").innerHTML = "";
    $("certificate-box").hidden = true;
    $("stats").textContent = "";
  } finally {
    if (controller === inFlight) {
      inFlight = null;
      // a newer edit's check still waiting for its debounce: the answer shown is not the board's yet
      if (timer === null) verdict.classList.remove("busy");
    }
    ["download-svg", "download-png", "download-json"].forEach((id) => { $(id).disabled = !(last && (id === "download-json" || last.svg)); });
  }
}

// -- explain: settled cells, ambiguous regions, repairs as one-click edits, failing cells ----------

const REGION_COLOURS = ["#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
  "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#aaffc3", "#808000"];

let explaining = null;  // the explain request in flight (its AbortController)
const EXPLAIN_SECONDS = 10;  // then the page shows what explain had (labelled partial)

function clearExplain() {
  if (explaining) explaining.abort();  // the board changed: the server kills that run
  explaining = null;
  document.querySelectorAll("#board .cell").forEach((el) => {
    el.classList.remove("settled", "region", "failing");
    el.style.removeProperty("--region");
    if (el.tagName !== "polygon") el.textContent = state.marks.get(el.dataset.r + "," + el.dataset.c) || "";  // '+', a colour
    delete el.dataset.region;
  });
  $("explain-summary").textContent = "";
  $("explain-list").replaceChildren();
  delete $("explain-list").dataset.verdict;
}

async function explain() {
  // after check-unique's answer, for the same board; an edit aborts it (clearExplain)
  const controller = new AbortController();
  explaining = controller;
  $("explain-summary").textContent = "explaining…";
  let data;
  try {
    data = await api("explain", { instance: instanceText(), options: { timeout: EXPLAIN_SECONDS } }, controller.signal);
  } catch (e) {
    if (e.name !== "AbortError" && controller === explaining) $("explain-summary").textContent = e.message;
    return;
  }
  if (controller !== explaining) return;
  explaining = null;
  showExplanation(data);
}

function boardCell(r, c) {
  return document.querySelector(`#board .cell[data-r="${r}"][data-c="${c}"]`);
}

function serverCells(value) {
  // the library's cells -> the page's: a triangle board's columns are the page's moved by its shift
  // (the text written has its rows one position right then); every "cells" list in an answer
  const shift = state.grid === "triangle" ? state.shift : 0;
  if (Array.isArray(value)) return value.map(serverCells);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "cells" && shift
    ? v.map(([r, c]) => [r, c - shift]) : serverCells(v)]));
}

function showExplanation(answer) {
  const data = serverCells(answer);
  clearExplain();
  $("explain-list").dataset.verdict = data.verdict;
  const summary = [];
  if (data.verdict === "multiple") {
    const settled = new Set();
    data.backbone.tiles.forEach((t) => t.cells.forEach(([r, c]) => settled.add(r + "," + c)));
    settled.forEach((k) => { const [r, c] = k.split(",").map(Number); boardCell(r, c)?.classList.add("settled"); });
    data.regions.forEach((region, k) => {
      region.cells.forEach(([r, c]) => {
        const el = boardCell(r, c);
        if (!el) return;
        el.classList.add("region");
        el.style.setProperty("--region", REGION_COLOURS[k % REGION_COLOURS.length]);
        el.dataset.region = region.label;
        el.textContent = region.label;
      });
      summary.push(`${region.label}: ${region.cells.length} cells` + (region.ways === null ? ""
        : `, ${region.ways.toLocaleString()}${region.exact ? "" : "+"} ways`));
    });
    const count = data.count ? ` · ${data.count.tilings.toLocaleString()} tilings${data.independent ? " (the regions' product)" : ""}` : "";
    $("explain-summary").textContent = `${data.regions.length} ambiguous region${data.regions.length === 1 ? "" : "s"}: `
      + summary.join("; ") + count;
  } else if (data.verdict === "none" && data.failing_region) {
    data.failing_region.cells.forEach(([r, c]) => boardCell(r, c)?.classList.add("failing"));
    const f = data.failing_region;
    $("explain-summary").textContent = `these ${f.cells.length} cells (red) cannot all be covered at once`
      + (f.counts ? " with the piece counts" : "") + (f.minimal ? " (minimal)" : " (near-minimal)");
  } else if (data.verdict === "unique") {
    $("explain-summary").textContent = data.openings.length
      ? "black cells that could be opened, the board staying unique:" : (data.openings_note || "");
  }
  if (data.stopped) $("explain-summary").textContent += ` · stopped (${data.stopped}): partial`;
  const items = [...data.repairs.filter((s) => s.kind !== "block" || !data.repairs.some((c) => c.kind === "clues"
    && sameCells(c.tiles.flatMap((t) => t.cells), s.cells))), ...data.openings];
  $("explain-list").replaceChildren(...items.map(suggestionItem));
}

function sameCells(a, b) {
  const key = (cells) => cells.map(([r, c]) => r + "," + c).sort().join(" ");
  return key(a) === key(b);
}

function suggestionItem(s) {
  const li = document.createElement("li");
  const button = document.createElement("button");
  const cells = s.kind === "clues" ? s.tiles.flatMap((t) => t.cells) : s.cells;
  button.textContent = s.kind === "open" ? "open" : "black out";
  button.className = "apply";
  button.title = s.kind === "clues" ? "a clue tile printed on the board is the same puzzle as its cells blacked out"
    : "apply this edit";
  button.addEventListener("click", () => {
    cells.forEach(([r, c]) => { if (s.kind === "open") state.blocked.delete(r + "," + c); else state.blocked.add(r + "," + c); });
    drawBoard(); changed();
  });
  const label = s.minimum ? "minimum" : "best found";
  const what = s.kind === "clues" ? `give ${s.size} clue tile${s.size === 1 ? "" : "s"} (${label}): `
      + s.tiles.map((t) => `${t.piece} at ${t.cells.map(([r, c]) => `(${r},${c})`).join("")}`).join("; ")
    : s.kind === "block" ? `block ${s.size} cell${s.size === 1 ? "" : "s"} (${label})`
    : `open ${s.cells.map(([r, c]) => `(${r},${c})`).join("")}`;
  li.append(button, document.createTextNode(what));
  li.addEventListener("mouseenter", () => cells.forEach(([r, c]) => boardCell(r, c)?.classList.add("hint")));
  li.addEventListener("mouseleave", () => cells.forEach(([r, c]) => boardCell(r, c)?.classList.remove("hint")));
  return li;
}

function countDiffering([a, b]) {
  const owner = (tiling) => {
    const m = new Map();
    tiling.forEach((tile, i) => tile.cells.forEach(([r, c]) => m.set(r + "," + c, tile.cells.map(String).sort().join(";"))));
    return m;
  };
  const [oa, ob] = [owner(a), owner(b)];
  return [...oa.keys()].filter((k) => oa.get(k) !== ob.get(k)).length;
}

$("count").addEventListener("click", async () => {
  $("count-result").textContent = "counting…";
  try {
    const d = await api("count", { instance: instanceText(), options: {} });
    $("count-result").textContent = `${d.exact ? "" : "at least "}${d.count.toLocaleString()} tilings `
      + `(${d.method}, ${d.seconds.toFixed(2)} s${d.stopped ? ", stopped: " + d.stopped : ""})`;
  } catch (e) { $("count-result").textContent = e.message; }
});

$("generate").addEventListener("click", async () => {
  $("gen-result").textContent = "generating…";
  const pieces = state.items.map((it) => it.name + (it.orient !== "free" ? "/" + it.orient : "")).join(", ");
  try {
    const options = { size: $("gen-size").value, seed: parseInt($("gen-seed").value, 10) || 0, pieces };
    if ($("gen-difficulty").value) options.difficulty = $("gen-difficulty").value;
    const d = await api("generate", { options });
    if (!d.instance) { $("gen-result").textContent = d.message; return; }
    parseInstance(d.instance);
    drawBoard(); drawPalette(); changed();
    $("gen-result").textContent = d.message;
  } catch (e) { $("gen-result").textContent = e.message; }
});

// -- files -------------------------------------------------------------------------------

function download(name, blob) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob); a.download = name;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

$("save-instance").addEventListener("click", () => download("instance.txt", new Blob([instanceText()], { type: "text/plain" })));
$("download-svg").addEventListener("click", () => last && last.svg && download("tiling.svg", new Blob([last.svg], { type: "image/svg+xml" })));
$("download-json").addEventListener("click", () => {
  if (!last) return;
  const { svg, png, ...cli } = last;  // what `tilesat check-unique --json` prints
  download("check-unique.json", new Blob([JSON.stringify(cli) + "\n"], { type: "application/json" }));
});
async function downloadPicture(kind, name, type) {
  // a picture check-unique draws on the server (`--png`, `--pdf`), sent back in base64
  try {
    const d = await api("check-unique", { instance: instanceText(), options: { [kind]: true } });
    if (!d[kind]) return;
    download(name, new Blob([Uint8Array.from(atob(d[kind]), (ch) => ch.charCodeAt(0))], { type }));
  } catch (e) { $("verdict-detail").textContent = e.message; }
}
$("download-png").addEventListener("click", () => downloadPicture("png", "tiling.png", "image/png"));
// the print layout of `check-unique --pdf`: the puzzle on one page, its solution on the next
$("download-pdf").addEventListener("click", () => downloadPicture("pdf", "puzzle.pdf", "application/pdf"));
$("download-dimacs").addEventListener("click", async () => {
  try {
    const d = await api("export", { instance: instanceText(), options: {} });
    download("instance.cnf", new Blob([d.dimacs], { type: "text/plain" }));
  } catch (e) { $("verdict-detail").textContent = e.message; }
});
$("open-file").addEventListener("change", async (e) => {
  const file = e.target.files[0];
  if (!file) return;
  loadText(await file.text(), $("verdict-detail"));
  e.target.value = "";
});
$("apply-text").addEventListener("click", () => loadText($("instance-text").value, $("apply-error")));

function loadText(text, errorPlace) {
  try {
    parseInstance(text);
    errorPlace.textContent = "";
  } catch (e) { errorPlace.textContent = e.message; return; }
  drawBoard(); drawPalette(); changed();
}

// -- the board in the URL: #i= and the instance file, deflated, in base64url ---------------

const FRAGMENT = "#i=";
const LONGEST_TEXT = 1 << 20;  // a link's board is refused beyond this many bytes unpacked

async function packText(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = "";
  bytes.forEach((b) => { binary += String.fromCharCode(b); });
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function unpackText(code) {
  const binary = atob(code.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const parts = [];
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.length;
    if (size > LONGEST_TEXT) { reader.cancel(); throw new Error("the link's board is too large"); }
    parts.push(chunk.value);
  }
  return new TextDecoder("utf-8", { fatal: true }).decode(await new Blob(parts).arrayBuffer());
}

let shared = 0;  // the newest edit's link wins
async function shareBoard() {
  const mine = ++shared;
  const code = await packText(instanceText());
  if (mine !== shared) return;
  history.replaceState(null, "", FRAGMENT + code);
  $("share-url").value = location.href;
}

async function boardFromLink() {
  // the instance file a link carries, or null (no board in it); errors say why
  if (!location.hash.startsWith(FRAGMENT)) return null;
  try {
    return await unpackText(location.hash.slice(FRAGMENT.length));
  } catch (e) {
    throw new Error("this link's board cannot be read: " + (e.message || e.name));
  }
}

$("share").addEventListener("click", () => {
  $("share-url").select();
  navigator.clipboard?.writeText(location.href).catch(() => { /* selected: copy by hand */ });
});
window.addEventListener("hashchange", async () => {
  try {
    const text = await boardFromLink();
    if (text !== null) loadText(text, $("verdict-detail"));
  } catch (e) { $("verdict-detail").textContent = e.message; }
});

// -- start -------------------------------------------------------------------------------

(async function start() {
  let text = FIRST_BOARD, problem = "";
  try { text = (await boardFromLink()) ?? FIRST_BOARD; } catch (e) { problem = e.message; }
  try { parseInstance(text); } catch (e) { problem = "this link's board: " + e.message; parseInstance(FIRST_BOARD); }
  drawBoard();
  try { builtin = await (await fetch("/api/pieces")).json(); } catch (e) { /* the palette stays empty */ }
  drawPalette();
  changed();
  if (problem) { $("apply-error").textContent = problem; $("instance-box").open = true; }
})();
