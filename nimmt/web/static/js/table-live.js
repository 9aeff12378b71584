// What the table page's modules share: the state shown, the socket's sender, the players' names,
// the settings, and when a decision takes presses. Draws nothing itself.
import { isolateName, page, t } from "./common.js";

export const tableId = page.table;
export const spectator = page.spectator;
export const $ = (id) => document.getElementById(id);

// The page as it stands. Kept in one object so that every module reads and writes the same fields.
export const live = {
  state: null,  // the state shown
  socket: null,
  // The printed bullheads of every card, as the server sends them (a patch never resends them): kept
  // from the last state that carried them, never worked out here.
  bullheads: {},
  receivedAt: 0,  // when the state shown arrived (performance.now()), for the away countdowns
  // This person's card or row on its way ({ ref, key }): until a state shows that decision over (or
  // the server refuses it), its buttons stay disabled whatever other updates arrive, so a quick
  // second press never sends a second action.
  pending: null,
  // What the rows' buttons were last drawn from: they are redrawn only when that changes, so an
  // update about something else never swaps the button under a pointer between press and release.
  rowsShown: null,
  // The reveal playing: { id, reveal, step, phase, rows, scores, gains, news, done, skipped, cut, onState }
  showing: null,
  // While ``shortNames`` is set, a name is its first word: the shorter form of a sentence that does
  // not fit its line whole (see fitText).
  shortNames: false,
  takeBackSince: Infinity,  // when the take-back button last appeared: it takes presses begun after
  pressedAt: -Infinity,  // when the last pointer went down (event time, as performance.now())
};
document.addEventListener("pointerdown", (event) => { live.pressedAt = event.timeStamp; }, true);

// Set by table.js: draws a state, or the state shown again (from the reveal's progress and the settings).
export const drawing = { render: () => {}, redraw: () => {} };
export const redraw = () => drawing.redraw();

// -- settings, kept on this device -----------------------------------------------------------
export const SPEEDS = { slow: 1.7, normal: 1, fast: 0.45 };
const setting = (name, fallback) => localStorage.getItem(`nimmt:${name}`) ?? fallback;
export const settings = {
  speed: SPEEDS[setting("speed", "normal")] ? setting("speed", "normal") : "normal",
  sound: setting("sound", "off") === "on",
  vibrate: setting("vibrate", "on") === "on",
};
export const pace = (ms) => ms * SPEEDS[settings.speed];

let refs = 0;
export function send(message) {
  const socket = live.socket;
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    $("error").textContent = t("error_offline");
    if (live.state) setTimeout(() => drawing.render(live.state), 0);
    return;
  }
  refs += 1;
  socket.send(JSON.stringify({ ...message, ref: String(refs) }));
  return String(refs);
}

// Sends this person's card or row, and holds that decision's buttons until it is answered.
export function act(message) {
  const key = decisionKey(live.state);
  const ref = send({ ...message, version: live.state.version });
  if (ref) live.pending = { ref, key };
}

export const bullheadsOf = (card) => live.bullheads[String(card)] || 0;
// What this person may do now, as the server says: the bot protocol's answers, {card} or {row}.
export const legalCards = (message) => (message.legal || []).filter((answer) => "card" in answer).map((answer) => answer.card);
export const legalRows = (message) => (message.legal || []).filter((answer) => "row" in answer).map((answer) => answer.row);
// A bot's seat named in the table's language ("Robô 3") is named in this person's ("Robot 3").
const botSeatNames = new Set(page.bot_names || []);
export const plainName = (seat) => {
  const info = live.state.table.seats[seat];
  if (!info || !info.name) return t("seat_free_name", { seat: seat + 1 });
  if (info.bot && botSeatNames.has(info.name.replace(String(seat + 1), "{number}"))) {
    return t("bot_seat_name", { number: seat + 1 });
  }
  const first = (name) => String(name || "").trim().split(/\s+/)[0];
  // A first name is enough unless another seat's starts the same: then the whole name.
  const short = live.shortNames && !live.state.table.seats.some((other, index) => index !== seat && other.name
    && first(other.name).toLocaleLowerCase() === first(info.name).toLocaleLowerCase());
  const name = isolateName(short ? first(info.name) : info.name);
  return info.mark ? `${name} (${info.mark})` : name; // another seat's name looks alike: told apart
};
export const nameOf = (seat) => (seat === live.state.table.you ? t("you_name", { name: plainName(seat) }) : plainName(seat));
export const seated = (message) => message.table.you !== null && message.table.you !== undefined;

/** A sentence made with the players' full names, then with their first names. */
export function nameForms(make) {
  const full = make();
  live.shortNames = true;
  try {
    return [full, make()];
  } finally {
    live.shortNames = false;
  }
}

/** Shows in ``node`` the first of ``texts`` that ``box`` (the element that clips, ``node`` itself
 * by default) holds whole: the next ones are shorter forms of the same facts, the last the shortest.
 * Nothing is ever cut: a phone in any language gets a form that fits. */
export function fitText(node, texts, box = node) {
  const wanted = texts.filter(Boolean);
  const key = `${box.clientWidth}|${wanted.join("\n")}`;
  // Fitted already, unless the box has changed since (the felt resized under it): then fit again.
  const overflows = () => box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1;
  if (node.dataset.fitted === key && !overflows()) return;
  for (const text of wanted.length ? wanted : [""]) {
    if (node.textContent !== text) node.textContent = text;
    if (!overflows()) break;
  }
  // A box not laid out (hidden) cannot be measured: fit again once it shows.
  node.dataset.fitted = box.clientHeight ? key : "";
}

// The decision this person is asked for now (a card or a row, in one turn of one game), or "".
export function decisionKey(message) {
  const view = message.view;
  const kind = legalRows(message).length ? "rows" : legalCards(message).length ? "cards" : "";
  return kind ? `${message.table.game}:${view.round}:${view.turn}:${view.resolved}:${kind}` : "";
}

export const revealing = () => !!live.showing && !live.showing.done;
// Decisions are open when no reveal plays, or when the one playing waits for a row choice.
export const decisionsOpen = () => !revealing() || live.showing.phase === "waiting";

// No accidental plays: a decision's buttons take presses only once they have been on screen
// SETTLE_MS (a second tap meant for the reveal they replace never lands on them), and never from a
// pointer pressed down before they took presses.
const SETTLE_MS = 350;
let settle = { key: "", since: 0, ready: Infinity };

// Whether the decision on screen has been there long enough to take presses; starts its clock when
// it appears, and draws the page again once it has.
export function settled(message) {
  const key = decisionsOpen() ? decisionKey(message) : "";
  const now = performance.now();
  if (key !== settle.key) {
    settle = { key, since: now, ready: Infinity };
    if (key) setTimeout(redraw, SETTLE_MS + 5);
  }
  if (!key || now - settle.since < SETTLE_MS) return false;
  if (settle.ready === Infinity) settle.ready = now;
  return true;
}

// A press that began before the decision took presses (the end of a tap on the reveal) is ignored;
// a key press (no pointer) is a deliberate one.
export const deliberate = (event) => event.detail === 0 || live.pressedAt >= settle.ready;

// The running score of each seat as the table stands: the complete rounds plus this round's
// bullheads, as the server counts them (shown counting down when the table asks for it).
export function runningScores(message) {
  const view = message.view;
  const inRound = view.phase === "choose_cards" || view.phase === "choose_row";
  return view.totals.map((total, i) => total + (inRound ? view.penalties[i] : 0));
}

export function shownScore(message, running) {
  return message.scores.countdown ? message.scores.threshold - running : running;
}

// A list whose action is on its way: screen readers wait for it to settle rather than read it twice.
export function setBusy(list, busy) {
  if (busy) list.setAttribute("aria-busy", "true");
  else list.removeAttribute("aria-busy");
}
