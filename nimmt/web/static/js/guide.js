// The guided first game: short hints that explain each rule at the moment it happens at this table
// (a card placed, the sixth card of a row, a card lower than every row, the end of the game). It
// watches the table as a spectator does (the public state, the server's own account of where each
// card went) and never acts: the person plays every card and chooses every row themself.
// A table is guided when the home page started it so (``nimmt:guide:<table>`` holds the person's seat).
import { el, headsLabel, page, t } from "./common.js";

const $ = (id) => document.getElementById(id);
const tableId = page.table;
const SEAT_KEY = `nimmt:guide:${tableId}`;
export const DONE_KEY = "nimmt:guide-done";

function stored(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}
function store(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch { /* storage turned off: the guide simply shows again next time */ }
}

const seat = page.spectator ? null : stored(SEAT_KEY);
const you = seat === null ? null : Number(seat);
const told = new Set(); // the hints already shown (each rule once)
const queue = []; // hints waiting for the table's own reveal to finish, in order
let names = [];
let lastReveal = { id: null, read: 0 };
let box = null;
let socket = null;

function hintBox() {
  if (box) return box;
  box = el("aside", { id: "guide", class: "guide", "aria-label": t("guide_label"), hidden: true },
    el("div", { id: "guide-text", class: "guide-text", role: "status" }),
    el("p", { class: "guide-actions" },
      el("button", { type: "button", id: "guide-stop" }, t("guide_stop")),
      el("button", { type: "button", id: "guide-ok", class: "primary" }, t("guide_ok"))));
  document.body.append(box);
  $("guide-ok").addEventListener("click", () => { box.hidden = true; });
  $("guide-stop").addEventListener("click", stop);
  return box;
}

// The person does not want the guide: no more hints, here or at any later table.
function stop() {
  queue.length = 0;
  if (box) box.hidden = true;
  store(DONE_KEY, "1");
  store(SEAT_KEY, null);
  if (socket) socket.close();
}

// ``about``: the row (0 to 3) the hint explains, if it is about one: the hint never covers it.
function sayAbout(kind, about, ...text) {
  if (told.has(kind)) return;
  told.add(kind);
  queue.push({ kind, text, about });
  flush();
}
const say = (kind, ...text) => sayAbout(kind, null, ...text);

// What a hint explains, on the screen: the row it names and the status line that tells what just
// happened there, the hand for the first card, every row for a row to choose.
function explained(hint) {
  if (hint.about !== null && hint.about !== undefined) {
    return [document.querySelector(`#rows [data-row="${hint.about}"]`), $("status")];
  }
  if (hint.kind === "start") return [$("hand")];
  if (hint.kind === "row") return [$("rows")];
  return [];
}

const MARGIN = 6; // px between the hint and the screen's edge

// The hint lies over the top of the screen, or over its bottom ("low"), whichever leaves what it
// explains in sight; when neither does (a short screen, a long hint), it takes the larger free side
// and scrolls inside it. Set through the CSSOM (the pages' policy refuses style attributes).
function place(shown, hints) {
  shown.style.maxHeight = "";
  const targets = hints.flatMap(explained).filter((node) => node && node.getClientRects().length)
    .map((node) => node.getBoundingClientRect());
  const clear = () => {
    const box = shown.getBoundingClientRect();
    return targets.every((rect) => box.bottom <= rect.top || box.top >= rect.bottom);
  };
  const lowFirst = hints.some((hint) => hint.kind === "row" || hint.kind === "end");
  for (const low of [lowFirst, !lowFirst]) {
    shown.classList.toggle("low", low);
    if (clear()) return;
  }
  const top = Math.min(...targets.map((rect) => rect.top));
  const bottom = Math.max(...targets.map((rect) => rect.bottom));
  const above = top - 2 * MARGIN;
  const below = window.innerHeight - bottom - 2 * MARGIN;
  shown.classList.toggle("low", below > above);
  shown.style.maxHeight = `${Math.max(96, Math.floor(Math.max(above, below)))}px`;
}

// The table is still showing a reveal (its cards land one by one): a hint about it waits till it
// has landed, so the words never run ahead of the cards.
const revealing = () => { const skip = $("skip"); return !!skip && !skip.hidden; };

// What happened since the last hints replaces them (they are about a moment gone by); hints of
// one moment (a reveal with a sixth card and a low card) show together.
function flush() {
  const shown = hintBox();
  if (!queue.length || revealing()) return;
  const hints = queue.splice(0);
  shown.dataset.hint = hints.map((hint) => hint.kind).join(" ");
  shown.dataset.seen = `${shown.dataset.seen || ""} ${shown.dataset.hint}`.trim(); // every hint shown so far
  $("guide-text").replaceChildren(...hints.flatMap((hint) => hint.text.map((line) => el("p", { "data-kind": hint.kind }, line))));
  $("guide-stop").hidden = hints.some((hint) => hint.kind === "end"); // nothing left to stop
  shown.dataset.rows = hints.filter((hint) => hint.about !== null && hint.about !== undefined)
    .map((hint) => hint.about).join(" ");
  shown.hidden = false;
  // A row to choose: the hint goes over the hand (not needed now), leaving every row in sight; a
  // hint about what happened in a row leaves that row and the status line that tells it in sight.
  place(shown, hints);
}

const nameOf = (player) => names[player] || String(player + 1);
const headsOf = (cards, bullheads) => headsLabel(cards.reduce((sum, card) => sum + (bullheads[card] || 0), 0));

// A reveal waiting for a row choice grows once the row is chosen (the same reveal, more
// placements): each placement is read once.
function followReveal(reveal, bullheads) {
  if (!reveal) return;
  const from = reveal.id === lastReveal.id ? lastReveal.read : 0;
  lastReveal = { id: reveal.id, read: reveal.placements.length };
  for (const placed of reveal.placements.slice(from)) {
    const mine = placed.player === you;
    const heads = headsOf(placed.took, bullheads);
    if (placed.chosen && !mine) {
      sayAbout("low", placed.row, t("guide_low_other", { name: nameOf(placed.player), card: placed.card, heads }));
    } else if (placed.took.length && !placed.chosen) {
      sayAbout("sixth", placed.row, mine ? t("guide_sixth_you", { card: placed.card, heads })
        : t("guide_sixth_other", { name: nameOf(placed.player), card: placed.card, heads }));
    } else if (mine && !placed.took.length) {
      sayAbout("placed", placed.row, t("guide_placed", { card: placed.card, row: placed.row + 1 }));
    }
    if (placed.took.length) sayAbout("heads", placed.row, t("guide_heads")); // the first cards anyone takes
  }
}

function follow(message) {
  const table = message.table;
  names = table.seats.map((s) => s.name);
  if (table.status === "lobby") return;
  const view = message.view;
  if (table.status === "playing" && view && view.round === 1 && view.turn === 0) say("start", t("guide_start"));
  followReveal(message.reveal, message.bullheads || {});
  const waiting = message.reveal && message.reveal.waiting;
  if (waiting && waiting.player === you) say("row", t("guide_row_you", { card: waiting.card }));
  if (table.status === "over") {
    const missed = [["sixth", "guide_missed_sixth"], ["low", "guide_missed_low"]]
      .filter(([kind]) => !told.has(kind) && !(kind === "low" && told.has("row"))).map(([, key]) => t(key));
    say("end", t("guide_end"), ...missed);
    store(DONE_KEY, "1");
    store(SEAT_KEY, null);
    socket.close();
  }
}

let bullheads = null;
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(tableId)}`);
  socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "hello", token: null })));
  // A lost connection comes back (the hints already told are not told again); one closed here stays so.
  socket.addEventListener("close", (event) => {
    if (event.code !== 4404 && stored(SEAT_KEY) !== null) setTimeout(connect, 3000);
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type !== "state") return;
    bullheads = message.bullheads || bullheads;
    follow({ ...message, bullheads });
  });
}

if (you !== null && Number.isInteger(you)) {
  hintBox();
  // The table's reveal ends when its skip button goes: the hints about it come then.
  const skip = $("skip");
  if (skip) new MutationObserver(flush).observe(skip, { attributes: true, attributeFilter: ["hidden"] });
  connect();
}
