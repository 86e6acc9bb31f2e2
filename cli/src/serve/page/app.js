"use strict";
// The tablebase page: the board is drawn from GET /api/v1/VARIANT/board, the moves from
// GET /api/v1/VARIANT and the perfect-play line from GET /api/v1/VARIANT/mainline. The URL
// (?variant=english&fen=W:WK19,K23:BK28,12) carries the position.

const FIRST_POSITION = { variant: "english", fen: "W:WK19,K23:BK28,12" };
// The colours and measures of the analyser's diagrams (src/analyse/svg.rs).
const COLOUR = {
  light: "#f0d9b5", dark: "#b58863", turkish: "#e2c290", line: "#7a5a32",
  frame: "#5b3b1a", number: "#f7ecd9", from: "#e9d94a", to: "#f0b429",
  white: ["#fbfbf7", "#3a3a3a", "#b9b9b0"], black: ["#1f1f1f", "#000000", "#5a5a5a"],
  crown: "#d4a017",
};
const MARGIN = 16;
const SVG = "http://www.w3.org/2000/svg";
const TOOLS = [
  { id: "empty", title: "empty square" },
  { id: "wm", title: "white man", color: "white", king: false },
  { id: "wk", title: "white king", color: "white", king: true },
  { id: "bm", title: "black man", color: "black", king: false },
  { id: "bk", title: "black king", color: "black", king: true },
];
const HEADINGS = { win: "Winning moves", draw: "Drawing moves", loss: "Losing moves" };
// The rule categories that differ from the plain result: a draw rule draws the game.
const RULE_NOTES = {
  "cursed-win": "a cursed win: the draw rules draw it",
  "blessed-loss": "a blessed loss: the draw rules draw it",
};

const state = {
  variant: null, // the variant shown
  board: null, // the board answer: squares, pieces, side, fen
  pieces: new Map(), // square name -> { color, king }
  last: null, // the path of the move that led here
  flipped: false,
  tool: "wm",
  seq: 0, // the latest request; older answers are dropped
};

const byId = (id) => document.getElementById(id);

function el(tag, attrs, text) {
  const node = tag.startsWith("svg:")
    ? document.createElementNS(SVG, tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// A query value with ':' and ',' left readable, as in ?fen=W:WK19,K23:BK28,12.
function encode(value) {
  return encodeURIComponent(value).replace(/%3A/gi, ":").replace(/%2C/gi, ",");
}

function pageUrl(variant, fen) {
  return "?variant=" + encode(variant) + "&fen=" + encode(fen);
}

async function api(path) {
  try {
    const response = await fetch(path);
    const body = await response.json();
    return { ok: response.ok, status: response.status, body };
  } catch (e) {
    return { ok: false, status: 0, body: { error: "no answer from the server: " + e.message } };
  }
}

function fenOf(pieces, side) {
  const list = (color) => [...pieces]
    .filter(([, p]) => p.color === color)
    .map(([name, p]) => (p.king ? "K" : "") + name)
    .join(",");
  return (side === "white" ? "W" : "B") + ":W" + list("white") + ":B" + list("black");
}

// Shows a position: draws its board, then asks for its moves and line. `how` is "push"
// (a new history entry), "replace" or "none"; `last` the path of the move that led here.
async function show(variant, fen, how, last) {
  const seq = ++state.seq;
  const query = fen === null ? "" : "?fen=" + encode(fen);
  let board = await api("/api/v1/" + variant + "/board" + query);
  if (seq !== state.seq) return;
  let problem = null;
  if (!board.ok) {
    problem = board.body.error || "bad position";
    if (state.board && state.variant === variant) {
      setVerdict(problem, "error");
      return;
    }
    board = await api("/api/v1/" + variant + "/board");
    if (seq !== state.seq) return;
    if (!board.ok) {
      setVerdict(board.body.error || "unknown variant", "error");
      return;
    }
  }
  state.variant = variant;
  state.board = board.body;
  state.pieces = new Map(board.body.pieces.map((p) => [p.square, { color: p.color, king: p.king }]));
  state.last = last || null;
  byId("variant").value = variant;
  byId("fen").value = board.body.fen;
  const url = pageUrl(variant, board.body.fen);
  if (how === "push" && url !== location.search) history.pushState(null, "", url);
  if (how === "replace") history.replaceState(null, "", url);
  drawBoard();
  drawSides();
  byId("moves").replaceChildren();
  byId("line").replaceChildren();
  if (problem) {
    setVerdict(problem, "error");
    return;
  }
  if (board.body.pieces.length === 0) {
    setVerdict("Empty board: pick a piece below and click squares to set up a position.", "error");
    return;
  }
  setVerdict("Probing\u2026", "");
  const fenQuery = "?fen=" + encode(board.body.fen);
  const [probe, line] = await Promise.all([
    api("/api/v1/" + variant + fenQuery),
    api("/api/v1/" + variant + "/mainline" + fenQuery),
  ]);
  if (seq !== state.seq) return;
  drawProbe(probe);
  if (probe.ok && line.ok) drawLine(line.body);
}

function sideName(side) {
  return side === "white" ? "White" : "Black";
}

// "win in 61 plies"; from tables without distances to the end, "win, 17 plies to a
// conversion" (a capture or a man's move).
function resultText(category, dtw, dtc) {
  const plies = (n) => n + (n === 1 ? " ply" : " plies");
  if (dtw !== null) return category + " in " + plies(dtw);
  if (dtc !== null && dtc !== undefined) return category + ", " + plies(dtc) + " to a conversion";
  return category;
}

function setVerdict(text, cls, detail) {
  const verdict = byId("verdict");
  verdict.className = cls;
  verdict.replaceChildren(text);
  if (detail) verdict.append(el("span", { class: "detail" }, detail));
}

function drawProbe(probe) {
  const moves = byId("moves");
  moves.replaceChildren();
  if (!probe.ok) {
    setVerdict(probe.body.error || "no answer", "error");
    // Outside the tables: the legal moves still lead on, and the command that builds them.
    if (probe.body.moves) drawUnrated(probe.body);
    return;
  }
  const p = probe.body;
  const side = sideName(state.board.side);
  const notes = [];
  if (p.moves.length === 0) notes.push(side + " has no move.");
  if (RULE_NOTES[p.rules]) notes.push("Under the " + p.rule_set + " draw rules, " + RULE_NOTES[p.rules] + ".");
  const detail = notes.length ? notes.join(" ") : null;
  setVerdict(side + " to move: " + resultText(p.category, p.dtw, p.dtc), p.category, detail);
  let group = null;
  let groupCategory = null;
  for (const m of p.moves) {
    if (m.category !== groupCategory) {
      groupCategory = m.category;
      moves.append(el("h2", { class: m.category }, HEADINGS[m.category] || m.category));
      group = el("div", { class: "moves" });
      moves.append(group);
    }
    const link = el("a", {
      class: "move " + m.category,
      href: pageUrl(state.variant, m.fen_after),
      "data-move": m.move,
      "data-category": m.category,
      "data-dtw": m.dtw === null ? "" : String(m.dtw),
      "data-dtc": m.dtc === null ? "" : String(m.dtc),
      "data-rules": m.rules || "",
      title: m.move + ": " + resultText(m.category, m.dtw, m.dtc) + " for " + side
        + (RULE_NOTES[m.rules] ? "; under the " + p.rule_set + " draw rules " + RULE_NOTES[m.rules] : ""),
    });
    link.append(el("span", { class: "text" }, m.move));
    const cursed = { "cursed-win": "cursed", "blessed-loss": "blessed" }[m.rules] || "";
    const flags = [m.capture ? "capture" : "", m.crowns ? "crowns" : "", cursed].filter(Boolean);
    if (flags.length) link.append(el("span", { class: "flags" }, flags.join(" ")));
    const label = m.category[0].toUpperCase() + m.category.slice(1);
    const distance = m.dtw !== null ? " " + m.dtw : m.dtc !== null ? " dtc " + m.dtc : "";
    link.append(el("span", { class: "result" }, label + distance));
    link.addEventListener("click", (e) => {
      e.preventDefault();
      show(state.variant, m.fen_after, "push", m.path);
    });
    group.append(link);
  }
}

// The moves of a position outside the tables, without results, and the build hint.
function drawUnrated(missing) {
  const moves = byId("moves");
  if (missing.build) {
    const hint = el("p", { class: "hint" }, "Build its tables on the server: ");
    hint.append(el("code", {}, missing.build));
    moves.append(hint);
  }
  const side = sideName(state.board.side);
  moves.append(el("h2", { class: "unrated" }, missing.moves.length
    ? "Legal moves (not in the tables)" : side + " has no move."));
  const group = el("div", { class: "moves" });
  for (const m of missing.moves) {
    const link = el("a", {
      class: "move unrated", href: pageUrl(state.variant, m.fen_after), "data-move": m.move,
      title: m.move + ": not in the tables",
    });
    link.append(el("span", { class: "text" }, m.move));
    const flags = [m.capture ? "capture" : "", m.crowns ? "crowns" : ""].filter(Boolean);
    if (flags.length) link.append(el("span", { class: "flags" }, flags.join(" ")));
    link.addEventListener("click", (e) => {
      e.preventDefault();
      show(state.variant, m.fen_after, "push", m.path);
    });
    group.append(link);
  }
  moves.append(group);
}

function drawLine(line) {
  const box = byId("line");
  box.replaceChildren();
  if (line.mainline.length === 0) return;
  box.append(el("h2", {}, "Perfect play (" + line.mainline.length + " plies"
    + (line.truncated ? ", cut short" : "") + ")"));
  const para = el("p");
  // Numbered pairs of plies, each pair kept on one line.
  let pair = null;
  line.mainline.forEach((m, i) => {
    if (i % 2 === 0) {
      pair = el("span", { class: "pair" });
      pair.append(el("span", { class: "number" }, i / 2 + 1 + "."));
      para.append(pair, " ");
    }
    const link = el("a", { href: pageUrl(state.variant, m.fen_after) }, m.move);
    link.addEventListener("click", (e) => {
      e.preventDefault();
      show(state.variant, m.fen_after, "push", m.path);
    });
    pair.append(link);
  });
  box.append(para);
}

// A man, or a king (a man with a crown), centred on (cx, cy), as the analyser draws them.
function pieceNode(cx, cy, side, color, king) {
  const [fill, edge, ring] = COLOUR[color];
  const r = side * 0.35;
  const g = el("svg:g", { class: "piece " + color + " " + (king ? "king" : "man") });
  g.append(el("svg:circle", { cx, cy, r: r.toFixed(1), fill, stroke: edge, "stroke-width": 1.5 }));
  g.append(el("svg:circle", {
    cx, cy, r: (r * 0.68).toFixed(1), fill: "none", stroke: ring, "stroke-width": 1.5,
  }));
  if (king) {
    const s = r * 0.5;
    const points = [[-1, 0.55], [-1.05, -0.45], [-0.5, 0.05], [0, -0.75], [0.5, 0.05],
      [1.05, -0.45], [1, 0.55]]
      .map(([dx, dy]) => (cx + dx * s).toFixed(1) + "," + (cy + dy * s).toFixed(1))
      .join(" ");
    g.append(el("svg:polygon", {
      class: "crown", points, fill: COLOUR.crown, stroke: edge, "stroke-width": 1,
      "stroke-linejoin": "round",
    }));
  }
  return g;
}

function drawBoard() {
  const b = state.board;
  const size = b.size;
  const side = size > 8 ? 34 : 40;
  const total = size * side + 2 * MARGIN;
  const svg = byId("board");
  svg.replaceChildren();
  svg.setAttribute("viewBox", "0 0 " + total + " " + total);
  svg.setAttribute("data-variant", b.variant);
  svg.setAttribute("data-fen", b.fen);
  // (file, rank) from a1 at the bottom left, or at the top right when flipped.
  const corner = (file, rank) => {
    const f = state.flipped ? size - 1 - file : file;
    const r = state.flipped ? rank : size - 1 - rank;
    return [MARGIN + f * side, MARGIN + r * side];
  };
  svg.append(el("svg:rect", {
    x: MARGIN - 3, y: MARGIN - 3, width: size * side + 6, height: size * side + 6,
    fill: COLOUR.frame,
  }));
  const playable = new Map(b.squares.map((s) => [s.file + "," + s.rank, s]));
  const byName = new Map(b.squares.map((s) => [s.name, s]));
  for (let rank = 0; rank < size; rank++) {
    for (let file = 0; file < size; file++) {
      const [x, y] = corner(file, rank);
      const sq = playable.get(file + "," + rank);
      const attrs = {
        x, y, width: side, height: side,
        fill: b.orthogonal ? COLOUR.turkish : sq ? COLOUR.dark : COLOUR.light,
      };
      if (b.orthogonal) Object.assign(attrs, { stroke: COLOUR.line, "stroke-width": 1 });
      if (sq) Object.assign(attrs, { class: "sq", "data-square": sq.name });
      svg.append(el("svg:rect", attrs));
    }
  }
  if (state.last && state.last.length >= 2) {
    const ends = [[state.last[0], COLOUR.from, "from"],
      [state.last[state.last.length - 1], COLOUR.to, "to"]];
    for (const [name, colour, cls] of ends) {
      const sq = byName.get(name);
      if (!sq) continue;
      const [x, y] = corner(sq.file, sq.rank);
      svg.append(el("svg:rect", {
        class: "mark " + cls, x: x + 1, y: y + 1, width: side - 2, height: side - 2,
        fill: colour, "fill-opacity": 0.75, stroke: colour, "stroke-width": 2,
      }));
    }
  }
  if (b.numbered) {
    const font = side / 5;
    for (const sq of b.squares) {
      const [x, y] = corner(sq.file, sq.rank);
      svg.append(el("svg:text", {
        x: x + 2, y: (y + font).toFixed(1), "font-size": font.toFixed(1),
        "font-family": "sans-serif", fill: COLOUR.number,
      }, String(sq.number)));
    }
  } else {
    for (let i = 0; i < size; i++) {
      const [x] = corner(i, 0);
      const [, y] = corner(0, i);
      svg.append(el("svg:text", {
        x: x + side / 2, y: MARGIN + size * side + 13, "font-size": 11,
        "font-family": "sans-serif", "text-anchor": "middle", fill: "#333",
      }, String.fromCharCode(97 + i)));
      svg.append(el("svg:text", {
        x: MARGIN / 2 - 1, y: y + side / 2 + 4, "font-size": 11,
        "font-family": "sans-serif", "text-anchor": "middle", fill: "#333",
      }, String(i + 1)));
    }
  }
  for (const [name, p] of state.pieces) {
    const sq = byName.get(name);
    if (!sq) continue;
    const [x, y] = corner(sq.file, sq.rank);
    const node = pieceNode(x + side / 2, y + side / 2, side, p.color, p.king);
    node.setAttribute("data-square", name);
    svg.append(node);
  }
}

function drawSides() {
  for (const b of byId("sides").querySelectorAll("button")) {
    b.setAttribute("aria-checked", String(b.dataset.side === state.board.side));
  }
}

function drawPalette() {
  const palette = byId("palette");
  for (const tool of TOOLS) {
    const button = el("button", {
      type: "button", role: "radio", title: tool.title, "aria-label": tool.title,
      "data-tool": tool.id,
    });
    const icon = el("svg:svg", { viewBox: "0 0 40 40" });
    icon.append(el("svg:rect", { x: 0, y: 0, width: 40, height: 40, fill: COLOUR.dark }));
    if (tool.color) {
      icon.append(pieceNode(20, 20, 40, tool.color, tool.king));
    } else {
      icon.append(el("svg:path", {
        d: "M12 12 L28 28 M28 12 L12 28", stroke: COLOUR.number, "stroke-width": 3,
      }));
    }
    button.append(icon);
    button.addEventListener("click", () => {
      state.tool = tool.id;
      markTool();
    });
    palette.append(button);
  }
  markTool();
}

function markTool() {
  for (const b of byId("palette").querySelectorAll("button")) {
    b.setAttribute("aria-checked", String(b.dataset.tool === state.tool));
  }
}

// Puts the chosen piece on a square (or empties it); the same piece again empties it.
function place(name) {
  const tool = TOOLS.find((t) => t.id === state.tool);
  const current = state.pieces.get(name);
  const pieces = new Map(state.pieces);
  if (!tool.color || (current && current.color === tool.color && current.king === tool.king)) {
    pieces.delete(name);
  } else {
    pieces.set(name, { color: tool.color, king: tool.king });
  }
  show(state.variant, fenOf(pieces, state.board.side), "replace");
}

function fromUrl(how) {
  const params = new URLSearchParams(location.search);
  const variant = params.get("variant") || (params.get("fen") ? "english" : FIRST_POSITION.variant);
  const fen = params.get("fen") || (params.get("variant") ? null : FIRST_POSITION.fen);
  show(variant, fen, how);
}

async function labelVariants() {
  const status = await api("/api/v1/status");
  if (!status.ok) return;
  const held = new Map(status.body.variants.map((v) => [v.variant, v]));
  for (const option of byId("variant").options) {
    const v = held.get(option.value);
    const name = option.value[0].toUpperCase() + option.value.slice(1);
    option.textContent = v && v.pieces > 0
      ? name + " (up to " + v.pieces + " pieces)"
      : name + " (no tables)";
  }
}

function start() {
  drawPalette();
  byId("board").addEventListener("click", (e) => {
    const target = e.target.closest(".sq");
    if (target && state.board) place(target.dataset.square);
  });
  for (const b of byId("sides").querySelectorAll("button")) {
    b.addEventListener("click", () => {
      if (state.board && b.dataset.side !== state.board.side) {
        show(state.variant, fenOf(state.pieces, b.dataset.side), "replace");
      }
    });
  }
  byId("clear").addEventListener("click", () => {
    if (state.board) show(state.variant, fenOf(new Map(), state.board.side), "replace");
  });
  byId("flip").addEventListener("click", () => {
    state.flipped = !state.flipped;
    byId("flip").setAttribute("aria-pressed", String(state.flipped));
    if (state.board) drawBoard();
  });
  byId("variant").addEventListener("change", (e) => show(e.target.value, null, "push"));
  byId("fen-form").addEventListener("submit", (e) => {
    e.preventDefault();
    show(byId("variant").value, byId("fen").value.trim(), "push");
  });
  window.addEventListener("popstate", () => fromUrl("none"));
  labelVariants();
  fromUrl("replace");
}

start();
