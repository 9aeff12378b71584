// The table: lobby, game and standings. Shows what the server sends; never applies a rule itself.
import {
  announce, api, cardElement, cardFace, cardLabel, el, errorText, has, headsLabel, lang, listFormat, mergePatch,
  isolateName, page, playerKey, reducedMotion, renderRows, rowName, t, tp,
} from "./common.js";
import { setupReactions, showReaction, updateReactions } from "./reactions.js";
import { updateStartClock } from "./startclock.js";
import { updateClock } from "./tableclock.js";

const tableId = page.table;
const spectator = page.spectator;
const tokenKey = `nimmt:seat:${tableId}`;
const $ = (id) => document.getElementById(id);
const baseTitle = document.title;

let token = spectator ? null : localStorage.getItem(tokenKey);
let socket = null;
let state = null;
let received = null;  // the state as this connection's server holds it: the next patch applies to it
// The printed bullheads of every card, as the server sends them (a patch never resends them): kept
// from the last state that carried them, never worked out here.
let bullheads = {};
let retry = 0;
let spokenNews = null;
let refs = 0;
let closedForGood = false;
let firstRender = true;
let receivedAt = 0;  // when the state shown arrived (performance.now()), for the away countdowns
let retryAfter = 0;  // seconds the server asked this client to wait before it connects again
// The coach: the question on its way ({ ref, key }) and the decision the advice shown is about.
let adviceAsked = null;
let adviceShown = null;
// What the hand's and the rows' buttons were last drawn from: each is redrawn only when that
// changes, so an update about something else (a bot's card, someone arriving or leaving) never
// swaps the button under a pointer between press and release and loses the click.
let handShown = null;
let rowsShown = null;
let stripShown = null;
// This person's card or row on its way ({ ref, key }): until a state shows that decision over (or
// the server refuses it), its buttons stay disabled whatever other updates arrive, so a quick
// second press never sends a second action.
let pending = null;
// The decision this person was last alerted to (tab title, sound, vibration): once per decision.
let alerted = null;
// No accidental plays: a decision's buttons take presses only once they have been on screen
// SETTLE_MS (a second tap meant for the reveal they replace never lands on them), and never from a
// pointer pressed down before they took presses.
const SETTLE_MS = 350;
let settle = { key: "", since: 0, ready: Infinity };
let takeBackSince = Infinity;  // when the take-back button last appeared: it takes presses begun after
let pressedAt = -Infinity;  // when the last pointer went down (event time, as performance.now())
document.addEventListener("pointerdown", (event) => { pressedAt = event.timeStamp; }, true);

// -- settings, kept on this device -----------------------------------------------------------
const SPEEDS = { slow: 1.7, normal: 1, fast: 0.45 };
const setting = (name, fallback) => localStorage.getItem(`nimmt:${name}`) ?? fallback;
const settings = {
  speed: SPEEDS[setting("speed", "normal")] ? setting("speed", "normal") : "normal",
  sound: setting("sound", "off") === "on",
  vibrate: setting("vibrate", "on") === "on",
};

// A seat token may also come in the link's fragment (#seat=...), to move to another device.
if (!spectator && location.hash.startsWith("#seat=")) {
  token = decodeURIComponent(location.hash.slice(6));
  localStorage.setItem(tokenKey, token);
  history.replaceState(null, "", location.pathname + location.search);
}

function showError(error) {
  $("error").textContent = error ? errorText(error) : "";
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(tableId)}`);
  $("connection").textContent = t("connecting");
  socket.addEventListener("open", () => {
    retry = 0;
    adviceAsked = null;  // a question asked on the old connection is answered on none
    pending = null;  // nor an action: the state after hello shows whether it was taken
    received = null;  // a new connection starts with a whole state
    socket.send(JSON.stringify({ type: "hello", token, patches: true }));
  });
  socket.addEventListener("message", (event) => {
    let message = JSON.parse(event.data);
    if (message.type === "patch") {
      if (!received) return;  // cannot happen: the server sends the whole state first
      // Each render gets a state of its own, as if it had come whole.
      received = mergePatch(received, message.patch);
      message = structuredClone(received);
    } else if (message.type === "state") {
      received = structuredClone(message);
    }
    if (message.type === "state") {
      if (message.bullheads) bullheads = message.bullheads;
      $("connection").textContent = "";
      if (!state || message.version >= state.version) render(message);
    } else if (message.type === "advice") {
      showAdvice(message);
    } else if (message.type === "reaction") {
      showReaction(message);
    } else if (message.type === "error") {
      if (message.params && message.params.retry_after) retryAfter = Number(message.params.retry_after) || 0;
      if (adviceAsked && message.ref === adviceAsked.ref) {
        adviceAsked = null;
        hideAdvice();
      }
      if (pending && message.ref === pending.ref) pending = null;  // refused: the person may try again
      if (message.code === "bad_token") {
        localStorage.removeItem(tokenKey);
        token = null;
        socket.send(JSON.stringify({ type: "hello", token: null, patches: true }));
        return;
      }
      showError(message);
      if (state) render(state);  // the refused action changed nothing: show the table as it is
    } else if (message.type === "ack") {
      showError(null);
    }
  });
  socket.addEventListener("close", (event) => {
    if (event.code === 4404) {
      closedForGood = true;
      $("connection").textContent = t("error_unknown_table");
      return;
    }
    if (closedForGood) return;
    $("connection").textContent = t("reconnecting");
    retry = Math.min(retry + 1, 6);
    // Refused for sending too much (4429): wait as long as the server asked, never hammer it.
    const wait = event.code === 4429 ? Math.max(retryAfter, 5) * 1000 : Math.min(300 * 2 ** retry, 5000);
    retryAfter = 0;
    setTimeout(connect, wait);
  });
}

function send(message) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    $("error").textContent = t("error_offline");
    if (state) setTimeout(() => render(state), 0);
    return;
  }
  refs += 1;
  socket.send(JSON.stringify({ ...message, ref: String(refs) }));
  return String(refs);
}

const bullheadsOf = (card) => bullheads[String(card)] || 0;
// What this person may do now, as the server says: the bot protocol's answers, {card} or {row}.
const legalCards = (message) => (message.legal || []).filter((answer) => "card" in answer).map((answer) => answer.card);
const legalRows = (message) => (message.legal || []).filter((answer) => "row" in answer).map((answer) => answer.row);
// While ``shortNames`` is set, a name is its first word: the shorter form of a sentence that does
// not fit its line whole (see fitText).
let shortNames = false;
const plainName = (seat) => {
  const info = state.table.seats[seat];
  if (!info || !info.name) return t("seat_free_name", { seat: seat + 1 });
  return isolateName(shortNames ? info.name.trim().split(/\s+/)[0] : info.name);
};
const nameOf = (seat) => (seat === state.table.you ? t("you_name", { name: plainName(seat) }) : plainName(seat));
const seated = (message) => message.table.you !== null && message.table.you !== undefined;

/** A sentence made with the players' full names, then with their first names. */
function nameForms(make) {
  const full = make();
  shortNames = true;
  try {
    return [full, make()];
  } finally {
    shortNames = false;
  }
}

/** Shows in ``node`` the first of ``texts`` that ``box`` (the element that clips, ``node`` itself
 * by default) holds whole: the next ones are shorter forms of the same facts, the last the shortest.
 * Nothing is ever cut: a phone in any language gets a form that fits. */
function fitText(node, texts, box = node) {
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

// Sends this person's card or row, and holds that decision's buttons until it is answered.
function act(message) {
  const key = decisionKey(state);
  const ref = send({ ...message, version: state.version });
  if (ref) pending = { ref, key };
}

// -- rendering -----------------------------------------------------------------------------------
function focusKey() {
  const active = document.activeElement;
  if (!active || active === document.body) return null;
  if (active.dataset.card && active.closest("#hand")) return `#hand [data-card="${active.dataset.card}"]`;
  if (active.dataset.row) return `#rows button[data-row="${active.dataset.row}"]`;
  return null;
}

function render(message) {
  const previous = state;
  state = message;
  receivedAt = performance.now();
  updateReactions(message.table);
  updateClock(message);
  updateStartClock(message);
  // A new turn's reveal starts to play before anything else is drawn from this state.
  follow(message, previous);
  redraw();
}

// Draws the page from the state shown, the reveal's progress and the settings; keeps the keyboard
// focus where the person left it.
function redraw() {
  if (!state) return;
  const focused = focusKey();
  draw(state);
  if (focused) {
    const again = document.querySelector(focused);
    if (again && again !== document.activeElement && !again.disabled) again.focus({ preventScroll: true });
  }
}

// The felt fills the screen below whatever stands above it, so the cards can size to fit it.
function fitFelt() {
  const felt = $("felt");
  if (!felt || $("game").hidden) return;
  const above = Math.round(felt.getBoundingClientRect().top + window.scrollY);
  if (felt.dataset.above !== String(above)) {
    felt.dataset.above = String(above);
    felt.style.setProperty("--above", `${above}px`);
    // The boxes below have just changed size: their sentences are fitted again at the next frame.
    requestAnimationFrame(redraw);
  }
  // The rows' width, kept for the standings: on a landscape phone they take the rows' place, so the
  // status line and the players do not move when the game ends.
  const rows = document.querySelector(".rows-box");
  const width = document.body.dataset.screen === "game" && rows ? Math.round(rows.getBoundingClientRect().width) : 0;
  if (width && felt.dataset.rowsWidth !== String(width)) {
    felt.dataset.rowsWidth = String(width);
    felt.style.setProperty("--rows-w", `${width}px`);
  }
}
window.addEventListener("resize", fitFelt);

function draw(message) {
  // The pending action is answered once the decision it was made on is no longer the one asked.
  if (pending && (!message.legal || decisionKey(message) !== pending.key)) pending = null;
  const table = message.table;
  // The version on the page lets people's tools (and the browser tests) see that it moved on.
  document.body.dataset.version = String(message.version);
  document.body.dataset.status = table.status;
  const you = seated(message);
  const watching = spectator || (!you && table.status !== "lobby");
  $("table-heading").textContent = watching ? t("watch_heading") : t("table_heading");
  const inviteUrl = `${location.origin}/t/${tableId}?lang=${table.language}`;
  $("invite-link").value = inviteUrl;
  $("watch-link").value = `${location.origin}/watch/${tableId}`;
  $("watch-box").hidden = spectator || table.status === "playing";
  $("coach-option").textContent = table.options.coach ? t("coach_on_note") : t("coach_off_note");
  $("coach-option").hidden = false;
  const wasLobby = !$("lobby").hidden;
  $("join").hidden = !(table.status === "lobby" && !you && !spectator);
  $("lobby").hidden = table.status !== "lobby";
  $("game").hidden = table.status === "lobby";
  // The standings come once this screen has shown the last card placed, in the table's own frame
  // (its status line and players stay where they were; the stylesheet keys the layout on the screen
  // shown, never on the table's status, so the last turn looks like every other turn).
  const overShown = table.status === "over" && !revealing();
  $("over").hidden = !overShown;
  document.body.dataset.screen = table.status === "lobby" ? "lobby" : overShown ? "over" : "game";
  if (table.status === "lobby") renderLobby(table, you);
  else renderGame(message);
  if (overShown) renderOver(message);
  fitFelt();
  // The lobby's start button just disappeared: bring focus to the game, not to nowhere.
  if (wasLobby && table.status !== "lobby" && (!document.activeElement || document.activeElement === document.body
      || document.activeElement.closest("[hidden]"))) {
    $("status").setAttribute("tabindex", "-1");
    $("status").focus({ preventScroll: true });
  }
}

function renderLobby(table, you) {
  const free = table.seats.filter((s) => !s.taken).length;
  $("lobby-status").textContent = free ? t("lobby_waiting", { count: free }) : t("lobby_full");
  // A table that starts by itself says who may start it sooner, or that it waits for a player (its
  // countdown ticks on its own), and its host's Start stands there, on the first screen.
  const sooner = table.start_waits || table.host === null || table.host === undefined ? t("start_in_note_waits")
    : table.creator ? t("start_in_note_you") : t("start_in_note", { name: nameOf(table.host) });
  if ($("start-note").textContent !== sooner) $("start-note").textContent = sooner;
  placeStart(table.start_left !== null && table.start_left !== undefined);
  // The host seats bots in free seats and takes them off again; Start can fill what is still free.
  const host = !!table.creator;
  // Everything the list is drawn from: a person who just sat down sees "(you)" even when the seats
  // were already drawn with their name from a state sent to everyone.
  const seatsKey = JSON.stringify([table.seats.map((s) => [s.name, s.bot, s.taken, s.replaced]), host, you]);
  if ($("lobby-seats").dataset.key !== seatsKey) {
    $("lobby-seats").dataset.key = seatsKey;
    // The remove button comes first: it floats at the line's end, the name wrapping beside it.
    $("lobby-seats").replaceChildren(...table.seats.map((seat) => el("li", {},
      host && seat.bot && !seat.replaced ? el("button", {
        type: "button", class: "remove-bot", "data-seat": seat.seat,
        "aria-label": t("remove_bot_button", { name: seat.name }),
        onclick: () => send({ type: "remove_bot", seat: seat.seat }),
      }, "✕") : null,
      el("span", { class: "seat-name" },
        seat.taken ? (seat.bot ? t("seat_bot", { name: seat.name, bot: botName(seat.bot) }) : nameOf(seat.seat))
          : t("seat_free")))));
  }
  $("lobby-host").hidden = !host || !free;
  $("start-fill").hidden = !free;
  $("invite").hidden = !you;
  const qr = `/api/tables/${encodeURIComponent(tableId)}/invite.svg?lang=${encodeURIComponent(table.language)}`;
  if (you && $("invite-qr").getAttribute("src") !== qr) $("invite-qr").setAttribute("src", qr);
  $("start-box").hidden = !table.creator;
  $("start").hidden = free > 0;
  $("start").disabled = free > 0;
}

// The host's Start and bot level: under the countdown of a table that starts by itself, Start first
// (the bot level goes when the seats are full: nothing moves under the finger), else after the invite.
function placeStart(counting) {
  const box = $("start-box");
  if (counting && box.parentElement !== $("start-countdown")) $("start-countdown").append(box, $("lobby-host"));
  if (!counting && box.parentElement !== $("lobby")) $("coach-option").before($("lobby-host"), box);
}

// A bot's short name (a phone's menu shows it whole); its description is its ``bot_`` text.
function botName(bot) {
  return has(`bot_name_${bot}`) ? t(`bot_name_${bot}`) : bot;
}

function renderGame(message) {
  const table = message.table;
  const mustRow = legalRows(message).length > 0;
  const rowsDrawn = drawRows(message, mustRow);
  renderStatus(message);
  renderStrip(message);
  renderNews(message);
  renderPlayers(message);
  renderCoach(message);  // before the hand: its hint is fitted beside the coach's button
  renderHand(message);
  renderReveal(message);
  renderHistory(message);
  renderAway(message);
  alertIfAsked(message);
  // Watchers have no hand, but the reveal plays in its place: the space stays, so nothing jumps.
  $("hand").hidden = spectator || !seated(message);
  // A row choice has just been drawn: bring the keyboard to its first row (once, not on every
  // update, so focus is not pulled back from wherever the person took it meanwhile).
  if (mustRow && rowsDrawn && document.activeElement && !document.activeElement.closest(".rows-box")) {
    const first = $("rows").querySelector("button:not([disabled])");
    if (first) first.focus({ preventScroll: true });
  }
}

function roundText(message, round) {
  const rounds = message.table.options.rounds;
  return rounds ? t("round_of", { round, rounds }) : t("round_number", { round });
}

// The round and turn the table shows: the turn being revealed (or whose row choice is awaited, or the
// last one once the game is over), else the turn being chosen. Never the next turn while one shows.
function shownTurn(message) {
  const view = message.view;
  const reveal = revealing() ? showing.reveal : message.reveal;
  if (reveal && (revealing() || view.phase === "choose_row" || message.table.status === "over")) {
    return { round: reveal.round, turn: reveal.turn };
  }
  return { round: view.round, turn: Math.min(view.turn + 1, 10) };
}

function renderStatus(message) {
  const view = message.view;
  const { round, turn } = shownTurn(message);
  const where = `${roundText(message, round)} · ${t("turn_number", { turn })}`;
  const status = $("status");
  status.dataset.round = String(round);
  status.dataset.turn = String(turn);
  let phase = status.querySelector(".phase");
  if (!phase) {
    status.replaceChildren(el("span", { class: "where" }), el("span", { class: "phase" }));
    phase = status.querySelector(".phase");
  }
  const whereLine = status.querySelector(".where");
  if (whereLine.textContent !== where) whereLine.textContent = where;
  const texts = nameForms(() => statusText(message));
  // The shortest: how many the table waits for, not who.
  if (view.phase === "choose_cards" && !revealing() && !legalCards(message).length && view.waiting_for.length > 1) {
    texts.push(tp("status_waiting_count", view.waiting_for.length));
  }
  if (legalRows(message).length && texts[0] === t("status_choose_row", { card: view.row_choice_card })) {
    texts.push(t("status_choose_row_short", { card: view.row_choice_card }));
  }
  fitText(phase, texts, status);
}

function statusText(message) {
  const view = message.view;
  const table = message.table;
  const playing = showing ? showing.reveal : null;
  let text;
  if (table.status === "over" && !revealing()) text = t("status_over");
  else if (revealing() && !(showing.phase === "waiting" && legalRows(message).length)) {
    text = t("status_revealing", { turn: playing.turn });
  } else if (legalRows(message).length) {
    text = t("status_choose_row", { card: view.row_choice_card });
  } else if (view.phase === "choose_row") {
    text = t("status_waiting_row", { name: nameOf(view.waiting_for[0]), card: view.row_choice_card });
  } else if (legalCards(message).length) text = t("status_pick_card");
  else if (view.phase === "choose_cards") {
    text = t("status_waiting_cards", { names: listFormat(view.waiting_for.map(nameOf)) });
  } else text = "";
  return text;
}

// The running score of each seat as the table stands: the complete rounds plus this round's
// bullheads, as the server counts them (shown counting down when the table asks for it).
function runningScores(message) {
  const view = message.view;
  const inRound = view.phase === "choose_cards" || view.phase === "choose_row";
  return view.totals.map((total, i) => total + (inRound ? view.penalties[i] : 0));
}

function shownScore(message, running) {
  return message.scores.countdown ? message.scores.threshold - running : running;
}

function renderStrip(message) {
  const view = message.view;
  const table = message.table;
  const scores = showing && !showing.done ? showing.scores : runningScores(message);
  const gains = showing && !showing.done ? showing.gains : {};
  const over = table.status === "over";
  const last = lastTurn(message);
  const chips = table.seats.map((seat, index) => {
    let stateKey;
    if (over) stateKey = "";
    else if (view.phase === "choose_row" && view.waiting_for[0] === index) stateKey = "row";
    else if (view.has_chosen[index]) stateKey = "chosen";
    else stateKey = "thinking";
    // "bot" is said of a person's seat a bot plays for now; a bot's own seat is named for it already.
    return { index, name: plainName(index), score: shownScore(message, scores[index]), stateKey, bot: !!seat.replaced,
      away: !seat.present, me: index === table.you, gain: gains[index] || 0, played: last.cards[index] ?? null,
      took: last.took[index] || 0 };
  });
  const key = JSON.stringify(chips);
  if (key === stripShown) return;
  stripShown = key;
  $("strip").replaceChildren(...chips.map((chip) => {
    const stateText = chip.stateKey === "row" ? t("player_choosing_row")
      : chip.stateKey === "chosen" ? t("player_chosen") : chip.stateKey === "thinking" ? t("player_thinking") : "";
    const label = [nameOf(chip.index), tp("strip_score", chip.score), stateText,
      chip.played !== null ? t("strip_played", { card: chip.played }) : "",
      chip.took ? t("strip_took", { heads: headsLabel(chip.took) }) : "",
      chip.away ? t("player_away") : "", chip.bot ? t("bot_tag") : ""].filter(Boolean).join(", ");
    // The card each player played in the last turn (face up on the chip's corner) and what they
    // took with it: what happened stays on the first screen after a skip or a reload.
    const played = chip.played === null ? null : el("span", {
      class: `played heads-bg-${bullheadsOf(chip.played)}${chip.took ? " took" : ""}`, "aria-hidden": "true",
      "data-card": chip.played,
    }, String(chip.played), chip.took ? el("span", { class: "took-heads" }, `+${chip.took}`) : null);
    return el("li", {
      class: `chip${chip.me ? " me" : ""}${chip.stateKey === "thinking" || chip.stateKey === "row" ? " waiting" : ""}`
        + (chip.away ? " gone" : ""),
      "data-seat": chip.index,
    },
    el("button", { type: "button", class: "chip-face", "aria-label": label, onclick: () => showChipInfo(chip.index, label) },
      el("span", { class: `card back mini${chip.stateKey === "chosen" ? "" : " empty"}`, "aria-hidden": "true" }),
      played,
      el("span", { class: "who", "aria-hidden": "true" }, chip.name),
      chip.bot ? el("span", { class: "tag", "aria-hidden": "true" }, t("bot_tag")) : null,
      chip.stateKey === "row" ? el("span", { class: "tag", "aria-hidden": "true" }, "?") : null,
      el("span", { class: "score", "aria-hidden": "true" }, String(chip.score)),
      chip.gain ? el("span", { class: "gain", "aria-hidden": "true" }, `+${chip.gain}`) : null));
  }));
}

// The last turn as the table stands (not while its reveal plays: the stage shows it then): each
// seat's card, and the bullheads each seat took.
function lastTurn(message) {
  const reveal = message.reveal;
  if (!reveal || revealing()) return { cards: {}, took: {} };
  const cards = Object.fromEntries(reveal.cards.map(([card, player]) => [player, card]));
  const took = {};
  reveal.placements.forEach((p) => { if (p.took && p.took.length) took[p.player] = (took[p.player] || 0) + p.bullheads; });
  return { cards, took };
}

// A tap on a player: their full name and what the chip says, in words, over the news line.
let chipInfoTimer = null;
function showChipInfo(seat, label) {
  const info = $("chip-info");
  const again = !info.hidden && info.dataset.seat === String(seat);
  clearTimeout(chipInfoTimer);
  info.hidden = again;
  if (again) return;
  info.dataset.seat = String(seat);
  info.textContent = label;
  chipInfoTimer = setTimeout(() => { info.hidden = true; }, 5000);
}

// -- the reveal ----------------------------------------------------------------------------------
// Each turn's cards turn face up together, then go one by one, lowest first, to their rows, as the
// server says they went (which row, which cards taken): no rule is applied here. The person's next
// decision opens once their screen has shown it all, or when they skip it (a tap or a key).
let showing = null;  // { id, reveal, step, phase, rows, scores, gains, news, done, skipped, cut, onState }

const revealing = () => !!showing && !showing.done;
// Decisions are open when no reveal plays, or when the one playing waits for a row choice.
const decisionsOpen = () => !revealing() || showing.phase === "waiting";
const pace = (ms) => ms * SPEEDS[settings.speed];

function follow(message, previous) {
  const reveal = message.reveal;
  const first = firstRender;
  firstRender = false;
  if (!reveal) {
    if (showing) finish();
    return;
  }
  if (showing && showing.id === reveal.id) {
    showing.reveal = reveal;
    if (showing.onState) showing.onState();
    return;
  }
  if (showing) finish();  // a newer turn came before this screen had shown the last one
  const still = first || reducedMotion() || !reveal.rows_before || !previous || !previous.view;
  showing = {
    id: reveal.id, reveal, step: 0, phase: "flip", rows: reveal.rows_before.map((row) => [...row]),
    scores: runningScores(previous && previous.view ? previous : message), gains: {},
    news: null, done: false, skipped: false, cut: null, onState: null,
  };
  if (still) {
    showing.step = reveal.placements.length;
    showing.done = true;
    return;
  }
  play(showing);
}

// A newer state ends the reveal playing: it stops where it is and the table shows as it stands.
function finish() {
  if (!showing) return;
  const run = showing;
  run.skipped = true;
  close(run);
  if (run.cut) run.cut();
  if (run.onState) run.onState();
}

// The reveal is over: its stage goes and the rows are drawn again from the table as it stands.
function close(run) {
  run.done = true;
  $("stage").hidden = true;
  rowsShown = null;
}

// Waits ``ms`` (at the chosen speed), or less if the person skips or a newer turn comes.
function pause(run, ms) {
  if (run.skipped || run !== showing) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => { run.cut = null; resolve(); }, pace(ms));
    run.cut = () => { run.cut = null; clearTimeout(timer); resolve(); };
  });
}

// Waits for the next state of this turn (a row choice being made).
function nextState(run) {
  return new Promise((resolve) => { run.onState = () => { run.onState = null; resolve(); }; });
}

// Plays a reveal; whatever happens in it (an error included), it ends by showing the table as it
// stands and opening the decisions: a broken animation never keeps a person from playing.
async function play(run) {
  try {
    await steps(run);
  } catch (error) {
    console.error("the reveal stopped", error);
  } finally {
    if (run === showing && !run.done) {
      close(run);
      redraw();
    }
  }
}

// The flip, each card to its row, a row choice awaited, the round's end; play() then closes the reveal.
async function steps(run) {
  $("stage").hidden = false;
  drawStage(run, true);
  renderRows($("rows"), run.rows, bullheadsOf);
  rowsShown = null;
  redraw();
  await pause(run, 900);
  while (run === showing && !run.done) {
    const reveal = run.reveal;
    if (run.step < reveal.placements.length) {
      run.phase = "place";
      await place(run, reveal.placements[run.step]);
      run.step += 1;
      continue;
    }
    if (reveal.waiting) {
      run.phase = "waiting";
      redraw();
      await nextState(run);
      continue;
    }
    break;
  }
  if (run !== showing) return;
  // The last turn of a round: say how the round went and what comes next, then the new rows.
  if (run.reveal.turn === 10 && !run.skipped && state.scores.ending) {
    run.phase = "interlude";
    redraw();
    await pause(run, 3200);
  }
}

async function place(run, placement) {
  const stageCard = $("stage-cards").querySelector(`[data-card="${placement.card}"]`);
  const item = stageCard ? stageCard.closest("li") : null;
  $("stage-cards").querySelectorAll("li.now").forEach((li) => li.classList.remove("now"));
  if (item) item.classList.add("now");
  if (placement.took.length) {
    if (!run.skipped) await sweep(run, placement);
    run.scores[placement.player] += placement.bullheads;
    run.gains = { [placement.player]: placement.bullheads };
    run.rows[placement.row] = [placement.card];
  } else {
    run.gains = {};
    run.rows[placement.row] = [...run.rows[placement.row], placement.card];
  }
  run.news = () => placementNews(placement);
  renderRows($("rows"), run.rows, bullheadsOf, { highlight: placement.row });
  rowsShown = null;  // the rows show a step of the reveal now, not the table as it stands
  redraw();
  const target = $("rows").querySelector(`[data-row="${placement.row}"] .card[data-card="${placement.card}"]`);
  if (!run.skipped && target && stageCard) glide(stageCard, target, 420);
  if (item) item.classList.add("placed");
  await pause(run, 850);
}

// The news line of a card placed: where it went, or the row it took (made again for the shorter forms).
function placementNews(placement) {
  if (!placement.took.length) return placementText(placement);
  return t(placement.chosen ? "news_takes_row" : "news_sixth", {
    name: nameOf(placement.player), row: placement.row + 1, card: placement.card, heads: headsLabel(placement.bullheads),
  });
}

// A taken row's cards slide to the player who takes them, and their bullheads are counted.
async function sweep(run, placement) {
  const row = $("rows").querySelector(`li[data-row="${placement.row}"]`);
  const chip = $("strip").querySelector(`[data-seat="${placement.player}"]`);
  run.news = () => placementNews(placement);
  redraw();
  if (!row || !chip) return;
  row.classList.add("highlight");
  const to = chip.getBoundingClientRect();
  const moves = [...row.querySelectorAll(".card")].map((card) => {
    const from = card.getBoundingClientRect();
    return card.animate([{ transform: "none", opacity: 1 },
      { transform: `translate(${to.left - from.left}px, ${to.top - from.top}px) scale(.4)`, opacity: 0.2 }],
    { duration: pace(650), easing: "ease-in", fill: "forwards" });
  });
  await pause(run, 700);
  moves.forEach((move) => move.cancel());
  chip.classList.remove("pulse");
  void chip.offsetWidth;  // restart the pulse
  chip.classList.add("pulse");
}

// Moves ``target`` from where ``source`` stands to its own place.
function glide(source, target, ms) {
  const from = source.getBoundingClientRect();
  const to = target.getBoundingClientRect();
  if (!from.width || !to.width) return;
  target.animate([{ transform: `translate(${from.left - to.left}px, ${from.top - to.top}px)` }, { transform: "none" }],
    { duration: pace(ms), easing: "ease-out" });
}

// Whether the decision on screen has been there long enough to take presses; starts its clock when
// it appears, and draws the page again once it has.
function settled(message) {
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
const deliberate = (event) => event.detail === 0 || pressedAt >= settle.ready;

function drawStage(run, flip) {
  $("stage").dataset.round = String(run.reveal.round);
  $("stage").dataset.turn = String(run.reveal.turn);
  $("stage-cards").replaceChildren(...run.reveal.cards.map(([card, player]) => el("li", {},
    cardElement(card, bullheadsOf(card), flip ? "flip" : ""),
    el("span", { class: "who" }, plainName(player)))));
  // Stage cards as large as fit: up to five a line.
  const lines = Math.ceil(run.reveal.cards.length / 5);
  $("stage-cards").style.setProperty("--sw", lines > 1 ? "calc(var(--cw) * .62)" : "calc(var(--cw) * .9)");
}

// Draws the rows as the table stands (buttons when this person must choose one), unless a reveal
// is showing its steps; true if a row choice's buttons were (re)drawn just now.
function drawRows(message, mustRow) {
  if (revealing() && showing.phase !== "waiting") return false;
  const choosing = mustRow && (!revealing() || showing.phase === "waiting") && settled(message);
  const rows = revealing() ? showing.rows : message.view.rows;
  $("rows").classList.toggle("choosing", choosing);
  return showRows(rows, choosing) && choosing;
}

function showRows(rows, mustRow) {
  const waiting = mustRow && !!pending;
  const shown = JSON.stringify([rows, mustRow, waiting]);
  if (shown === rowsShown) return false;
  rowsShown = shown;
  renderRows($("rows"), rows, bullheadsOf, mustRow ? {
    // The buttons are disabled now (renderRows does it) and stay so until the choice is answered.
    onPick: (row, event) => {
      if (!deliberate(event)) return false;
      act({ type: "choose_row", row });
      rowsShown = null;
      if (pending) $("rows").setAttribute("aria-busy", "true");
    },
  } : {});
  setBusy($("rows"), waiting);
  if (waiting) $("rows").querySelectorAll("button").forEach((button) => { button.disabled = true; });
  return true;
}

// A list whose action is on its way: screen readers wait for it to settle rather than read it twice.
function setBusy(list, busy) {
  if (busy) list.setAttribute("aria-busy", "true");
  else list.removeAttribute("aria-busy");
}

// One line over the rows: what the reveal is doing, or between rounds why play goes on.
function renderNews(message) {
  const news = $("news");
  $("skip").hidden = !revealing() || showing.phase === "waiting";
  // Between rounds, the whole sentence about the round (who took what, why play goes on) over the
  // hand, where there is room for it in every language.
  const interlude = revealing() && showing.phase === "interlude";
  $("stage-note").hidden = !interlude;
  $("stage-cards").hidden = interlude;
  // Shorter forms: first names; then why the game goes on or ends alone (the chips show who took what).
  if (interlude) {
    fitText($("stage-note"), [...nameForms(() => roundOverText(message)),
      ...nameForms(() => endingText(message.scores.ending))]);
  }
  let text = "";
  let note = false;
  if (revealing()) {
    if (showing.phase === "flip") text = t("news_revealed");
    else if (showing.phase === "waiting" && showing.reveal.waiting) {
      const waiting = showing.reveal.waiting;
      // The person who chooses reads it in the status line already.
      text = waiting.player === message.table.you ? ""
        : nameForms(() => t("news_waiting_row", { name: nameOf(waiting.player), card: waiting.card }));
    } else text = showing.news ? nameForms(showing.news) : "";
  } else if (message.table.status === "playing" && message.view.turn === 0 && message.scores.ending) {
    text = nameForms(() => endingText(message.scores.ending));
    note = true;
  } else if (message.reveal) {
    // Who took what in the last turn (the chips show each card): after a skip, a reload or a reconnect.
    const takes = message.reveal.placements.filter((p) => p.took && p.took.length);
    text = nameForms(() => takes.map((p) => t("news_takes_row", {
      name: nameOf(p.player), row: p.row + 1, card: p.card, heads: headsLabel(p.bullheads) })).join(" · "));
    text.push(...nameForms(() => takes.map((p) => `${nameOf(p.player)} +${p.bullheads}`).join(" · ")));
    note = true;
  }
  news.classList.toggle("note", note);
  fitText(news, Array.isArray(text) ? text : [text]);
}

// "Round 2 is over: Ana took 5 bullheads, …" and why the game goes on or ends.
function roundOverText(message) {
  const ending = message.scores.ending;
  const history = message.scores.history;
  const round = ending.rounds_played;
  const last = history[round - 1] || [];
  const took = last.map((p, i) => [p, i]).filter(([p]) => p > 0)
    .map(([p, i]) => t("round_penalty", { name: nameOf(i), heads: headsLabel(p) }));
  const head = took.length ? t("round_over_took", { round, took: listFormat(took) }) : t("round_over_clean", { round });
  return `${head} ${endingText(ending)}`;
}

/** Why the game ended, or why it goes on, from the server's ``ending``. */
function endingText(ending) {
  const names = listFormat(ending.players.map(nameOf));
  const total = ending.players.length ? ending.totals[ending.players[0]] : 0;
  switch (ending.reason) {
    case "above":
      return ending.players.length > 1
        ? t("end_above_many", { names: listFormat(ending.players.map((p) => t("name_total", { name: nameOf(p), total: ending.totals[p] }))), limit: ending.end_above })
        : t("end_above_one", { name: names, total, limit: ending.end_above });
    case "rounds":
      return t("end_rounds", { rounds: ending.rounds });
    case "rounds_left":
      return t("goes_on_rounds", { played: ending.rounds_played, rounds: ending.rounds });
    case "exactly":
      return t(ending.players.length > 1 ? "goes_on_exactly_many" : "goes_on_exactly_one", { names, limit: ending.end_above });
    default:
      return t(ending.players.length > 1 ? "goes_on_below_many" : "goes_on_below_one", { names, total, limit: ending.end_above });
  }
}

function markReveal(done) {
  document.querySelectorAll("#reveal .reveal-item").forEach((item, index) => {
    item.classList.toggle("pending", index >= done && !!(state.reveal && index < state.reveal.placements.length));
  });
}

function renderPlayers(message) {
  const view = message.view;
  const scores = message.scores;
  $("total-heading").textContent = scores.countdown ? t("col_left") : t("col_total");
  const body = $("players").querySelector("tbody");
  // One running total everywhere: the chips' (complete rounds and this round's bullheads so far).
  const running = runningScores(message).map((score) => shownScore(message, score));
  body.replaceChildren(...message.table.seats.map((seat, index) => {
    let turn;
    if (message.table.status === "over") turn = "";
    else if (view.phase === "choose_row" && view.waiting_for[0] === index) turn = t("player_choosing_row");
    else if (view.has_chosen[index]) turn = t("player_chosen");
    else turn = t("player_thinking");
    const away = !seat.present ? t("player_away") : "";
    return el("tr", { class: index === message.table.you ? "me" : "" },
      el("th", { scope: "row" }, nameOf(index), seat.bot ? el("small", {}, ` (${t("bot_tag")})`) : null,
        away ? el("small", { class: "away" }, ` — ${away}`) : null),
      el("td", {}, turn),
      el("td", {}, String(view.penalties[index] ?? 0)),
      el("td", {}, String(running[index])));
  }));
}

function renderHand(message) {
  const view = message.view;
  const resting = revealing();
  const legal = new Set(resting || !settled(message) ? [] : legalCards(message));
  let help = "";
  const mine = message.table.seats[message.table.you];
  // A person whose seat a bot plays (they were away) is told so, and what the bot chose for them.
  if (mine && mine.replaced) {
    help = view.my_card !== null && view.my_card !== undefined ? t("hand_bot_chose", { card: view.my_card })
      : t("hand_bot_plays");
  } else if (view.my_card !== null && view.my_card !== undefined) help = t("hand_chosen", { card: view.my_card });
  else if (resting && legalCards(message).length) help = t("hand_after_reveal");
  else if (legalCards(message).length) help = t("hand_help");
  // Until the cards are turned over, a face-down card can go back to the hand (nobody has seen it).
  const faceDown = !resting && !spectator && !(mine && mine.replaced) && view.phase === "choose_cards"
    && message.table.status === "playing" && view.my_card !== null && view.my_card !== undefined;
  if (faceDown && $("take-back").hidden) takeBackSince = performance.now();
  $("take-back").hidden = !faceDown;
  // The button says what it does; its title says until when.
  if (faceDown) $("take-back").title = t("hand_chosen_take_back", { card: view.my_card });
  const forms = help === t("hand_help") ? [help, t("hand_help_short")]
    : faceDown ? [help, t("hand_chosen_take_back_short", { card: view.my_card })] : [help];
  fitText($("hand-help"), forms);
  $("hand-box").classList.toggle("resting", resting);
  $("hand-box").classList.toggle("settling", !resting && !legal.size && legalCards(message).length > 0 && !pending);
  // Redraw the cards only when they change: an update about others (a bot's card, someone
  // arriving) must not swap the button under a pointer between press and release.
  const waiting = !!pending && legal.size > 0;
  const shown = JSON.stringify([view.hand, [...legal], view.my_card, waiting]);
  if (shown === handShown) return;
  handShown = shown;
  setBusy($("hand"), waiting);
  $("hand").replaceChildren(...view.hand.map((card) => {
    const heads = bullheadsOf(card);
    const chosen = view.my_card === card;
    return el("li", {},
      el("button", {
        type: "button", class: `card heads-bg-${heads}${chosen ? " chosen" : ""}`, "data-card": card,
        disabled: waiting || !legal.has(card), "aria-pressed": chosen ? "true" : "false",
        "aria-label": cardLabel(card, heads),
        onclick: (event) => {
          if (!deliberate(event)) return;
          // One card per turn: no second press while the first is on its way (the hand stays
          // disabled until a state shows the card taken, or enabled again if it was refused).
          handShown = null;
          document.querySelectorAll("#hand button").forEach((button) => { button.disabled = true; });
          act({ type: "play", card });
          if (pending) $("hand").setAttribute("aria-busy", "true");
        },
      }, cardFace(card, heads)));
  }));
}

// -- attention: the tab's title, a sound and a vibration when the table waits for this person ----
function alertIfAsked(message) {
  const open = decisionsOpen() && (legalCards(message).length > 0 || legalRows(message).length > 0)
    && (message.view.my_card === null || message.view.my_card === undefined);
  const key = open ? decisionKey(message) : null;
  const title = open ? t("title_your_turn", { title: baseTitle }) : baseTitle;
  if (document.title !== title) document.title = title;
  if (!open || key === alerted) return;
  const first = alerted === null;
  alerted = key;
  if (first) return;  // the page just opened on this decision: the person is looking at it
  if (settings.sound) beep();
  if (settings.vibrate && navigator.vibrate && navigator.userActivation && navigator.userActivation.hasBeenActive) {
    navigator.vibrate(120);
  }
}

let audio = null;
function beep() {
  try {
    audio = audio || new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.0001, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.15, audio.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.3);
    document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
  } catch {
    // no sound on this device: the title still says it
  }
}

// -- the coach: numbers for this person's own decision; it never chooses or plays anything ------
function decisionKey(message) {
  const view = message.view;
  const kind = legalRows(message).length ? "rows" : legalCards(message).length ? "cards" : "";
  return kind ? `${message.table.game}:${view.round}:${view.turn}:${view.resolved}:${kind}` : "";
}

function renderCoach(message) {
  const table = message.table;
  const on = !!table.options.coach && !spectator && seated(message) && table.status === "playing" && decisionsOpen();
  const key = on ? decisionKey(message) : "";
  $("advice-cards-box").hidden = !(key && legalCards(message).length);
  $("advice-rows-box").hidden = !(key && legalRows(message).length);
  // Advice is about one decision: once that decision is made (or the table moved on), it goes.
  if (adviceShown !== null && adviceShown !== key) hideAdvice();
  if (adviceAsked && adviceAsked.key !== key) adviceAsked = null;
  $("advice-cards").disabled = !!adviceAsked;
  $("advice-rows").disabled = !!adviceAsked;
}

function askAdvice() {
  if (!state || adviceAsked) return;
  const key = decisionKey(state);
  const ref = send({ type: "advice" });
  if (!ref) return;
  adviceAsked = { ref, key };
  const rows = !!legalRows(state).length;
  $("advice").classList.toggle("for-rows", rows);
  $("advice").classList.toggle("for-cards", !rows);
  $("advice-cards").disabled = true;
  $("advice-rows").disabled = true;
  $("advice-table").replaceChildren();
  adviceLegend().replaceChildren();
  $("advice-note").textContent = "";
  $("advice-working").textContent = t("advice_working");
  $("advice").hidden = false;
}

function hideAdvice() {
  adviceShown = null;
  $("advice").hidden = true;
  $("advice-table").replaceChildren();
  adviceLegend().replaceChildren();
  $("advice-working").textContent = "";
  $("advice-cards").disabled = false;
  $("advice-rows").disabled = false;
}

// The legend of the short labels a narrow panel shows beside each number (app.css: the advice
// container): made here, under the table, the first time it is needed.
function adviceLegend() {
  let legend = $("advice-legend");
  if (!legend) {
    legend = el("dl", { id: "advice-legend", class: "advice-legend" });
    $("advice-note").before(legend);
  }
  return legend;
}

const decimals = (digits) => new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits });
const percent = new Intl.NumberFormat(lang, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });
const wholePercent = new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 });
const estimate = (mean, stderr) => `${decimals(1).format(mean)} ± ${decimals(1).format(stderr)}`;

// One number of the advice: its short label (seen on a narrow panel, where the headings are not;
// a screen reader has the full heading instead), then the number itself.
function adviceCell(kind, short, ...value) {
  return el("td", { role: "cell", class: kind },
    short ? el("span", { class: "short", "aria-hidden": "true" }, short) : null, short ? " " : null,
    el("span", { class: "value" }, ...value));
}

function showAdvice(answer) {
  if (!adviceAsked || answer.ref !== adviceAsked.ref || !state || decisionKey(state) !== adviceAsked.key) return;
  adviceShown = adviceAsked.key;
  adviceAsked = null;
  $("advice-cards").disabled = false;
  $("advice-rows").disabled = false;
  // Explicit roles: a narrow panel lays the table out as blocks (app.css), which must not cost a
  // screen reader its table.
  // A heading holds its short label too: a narrow panel shows that one for a row choice.
  const head = (...names) => el("thead", { role: "rowgroup" }, el("tr", { role: "row" }, names.map(([kind, name, short]) =>
    el("th", { scope: "col", role: "columnheader", class: kind }, el("span", { class: "full" }, name),
      short ? el("span", { class: "short", "aria-hidden": "true" }, short) : null))));
  const row = (attrs, ...cells) => el("tr", { role: "row", ...attrs }, ...cells);
  // The learned network's second opinion, beside the simulated numbers (absent from a server
  // without NumPy). An expected number of bullheads is never below 0, though the network's may be.
  const known = (value) => value !== null && value !== undefined;
  let caption, columns, body, notes, legend;
  if (answer.kind === "cards") {
    const net = answer.cards.every((c) => known(c.net_bullheads) && known(c.net_chance));
    caption = t("advice_cards_caption");
    columns = head(["card-name", t("advice_col_card")], ["where", t("advice_col_goes_to")],
      ["take", t("advice_col_take_chance")], ["turn", t("advice_col_turn")], ["round", t("advice_col_round")],
      ...(net ? [["net", t("advice_col_net_cards")]] : []));
    body = answer.cards.map((c) => {
      const sampled = c.exact ? "" : "≈";
      return row({ "data-card": c.card },
        el("th", { scope: "row", role: "rowheader" }, cardElement(c.card, bullheadsOf(c.card), "small")),
        c.row === null ? el("td", { role: "cell", class: "where below" }, el("span", { class: "full" }, t("advice_below_all")),
          el("span", { class: "short", "aria-hidden": "true" }, t("advice_short_below")))
          : adviceCell("where", "", rowName(c.row)),
        adviceCell("take", t("advice_short_take"), sampled + percent.format(c.take_chance)),
        adviceCell("turn", t("advice_short_now"), sampled + decimals(2).format(c.turn_bullheads)),
        adviceCell("round", t("advice_short_round"), estimate(c.round_bullheads, c.round_stderr)),
        ...(net ? [adviceCell("net", t("advice_short_net"),
          el("span", { class: "net-bullheads" }, decimals(1).format(Math.max(0, c.net_bullheads))), " · ",
          el("span", { class: "net-best" }, t("advice_short_best")), " ",
          el("span", { class: "net-chance" }, wholePercent.format(c.net_chance)))] : []));
    });
    legend = [...(answer.cards.some((c) => c.row === null) ? [["advice_short_below", "advice_legend_below"]] : []),
      ["advice_short_take", "advice_legend_take"], ["advice_short_now", "advice_legend_turn"],
      ["advice_short_round", "advice_legend_round"], ...(net ? [["advice_short_net", "advice_legend_net_cards"]] : [])];
    notes = [answer.cards.every((c) => c.exact) ? "" : t("advice_sampled", { samples: answer.samples }),
      t("advice_cards_note", { samples: answer.samples }), net ? t("advice_net_note") : ""];
  } else {
    const net = answer.rows.every((r) => known(r.net_total));
    caption = t("advice_rows_caption", { card: answer.card });
    columns = head(["row-name", t("advice_col_row"), t("advice_col_row")],
      ["now", t("advice_col_now"), t("advice_short_now")], ["later", t("advice_col_later"), t("advice_short_later")],
      ["total", t("advice_col_total"), t("advice_short_total")],
      ...(net ? [["net", t("advice_col_net_total"), t("advice_short_net")]] : []));
    body = answer.rows.map((r) => row({ "data-row": r.row },
      el("th", { scope: "row", role: "rowheader" }, rowName(r.row)),
      adviceCell("now", t("advice_short_now"), String(r.now)),
      adviceCell("later", t("advice_short_later"), estimate(r.later, r.later_stderr)),
      adviceCell("total", t("advice_short_total"), decimals(1).format(r.total)),
      ...(net ? [adviceCell("net", t("advice_short_net"), decimals(1).format(Math.max(r.now, r.net_total)))] : [])));
    legend = [["advice_short_now", "advice_legend_now"], ["advice_short_later", "advice_legend_later"],
      ["advice_short_total", "advice_legend_total"], ...(net ? [["advice_short_net", "advice_legend_net_rows"]] : [])];
    notes = [t("advice_rows_note", { samples: answer.samples }), net ? t("advice_net_note") : ""];
  }
  $("advice-table").setAttribute("role", "table");
  $("advice-table").replaceChildren(el("caption", {}, caption), columns, el("tbody", { role: "rowgroup" }, body));
  adviceLegend().replaceChildren(...legend.flatMap(([short, long]) =>
    [el("dt", {}, t(short)), el("dd", {}, t(long))]));
  if (answer.quick) notes.unshift(t("advice_quick", { samples: answer.samples }));  // workers still warming up
  $("advice-note").textContent = notes.filter(Boolean).join(" ");
  $("advice-working").textContent = "";
  $("advice").hidden = false;
  announce(t("advice_ready"));
}

function placementText(p) {
  const name = nameOf(p.player);
  if (p.took && p.took.length) {
    return t(p.chosen ? "placed_chose_row" : "placed_sixth", {
      name, card: p.card, row: p.row + 1, heads: headsLabel(p.bullheads),
    });
  }
  return t("placed_on_row", { name, card: p.card, row: p.row + 1 });
}

// The last turn as text: every card, where it went and what was taken. Open on demand; open by
// itself for people who asked for reduced motion, who see these facts instead of the movement.
function renderReveal(message) {
  const reveal = message.reveal;
  $("reveal-details").hidden = !reveal;
  if (!reveal) return;
  if (reducedMotion() && !$("reveal-details").dataset.opened) {
    $("reveal-details").open = true;
    $("reveal-details").dataset.opened = "1";
  }
  $("reveal-heading").textContent = t("reveal_heading", { round: reveal.round, turn: reveal.turn });
  const items = reveal.cards.map(([card, player], index) => {
    const placement = reveal.placements.find((p) => p.card === card);
    const waiting = !placement && reveal.waiting && reveal.waiting.card === card;
    return el("li", { class: "reveal-item", "data-index": index },
      cardElement(card, bullheadsOf(card), "small"),
      el("span", { class: "where" },
        placement ? placementText(placement)
          : waiting ? t("reveal_waiting_row", { name: nameOf(player) })
            : t("card_by", { card, name: nameOf(player) })));
  });
  $("reveal").replaceChildren(...items);
  markReveal(revealing() && showing.id === reveal.id ? showing.step : reveal.placements.length);
  // Say each news once: the cards revealed, a row choice awaited, the rows taken.
  const news = `${reveal.id}:${reveal.placements.length}:${reveal.waiting ? reveal.waiting.card : ""}`;
  if (news === spokenNews) return;
  const fresh = !spokenNews || !spokenNews.startsWith(`${reveal.id}:`);
  spokenNews = news;
  const parts = [];
  if (fresh) {
    parts.push(t("announce_revealed", {
      cards: listFormat(reveal.cards.map(([card, player]) => t("card_by", { card, name: nameOf(player) }))),
    }));
  }
  if (reveal.waiting) {
    parts.push(reveal.waiting.player === message.table.you
      ? t("status_choose_row", { card: reveal.waiting.card })
      : t("status_waiting_row", { name: nameOf(reveal.waiting.player), card: reveal.waiting.card }));
  }
  parts.push(...reveal.placements.filter((p) => p.took.length).map(placementText));
  if (reveal.turn === 10 && !reveal.waiting && message.scores.ending
      && message.scores.ending.rounds_played === reveal.round) {
    parts.push(roundOverText(message));
  }
  if (parts.length) announce(parts.join(" "));
}

function renderHistory(message) {
  const scores = message.scores;
  const history = scores.history_shown;
  $("history-box").hidden = history.length === 0;
  if (!history.length) return;
  const seats = message.table.seats;
  const head = el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("col_round")),
    seats.map((_, i) => el("th", { scope: "col" }, nameOf(i)))));
  const rows = scores.history.map((penalties, r) => el("tr", {},
    el("th", { scope: "row" }, String(r + 1)),
    penalties.map((p, i) => el("td", {}, scores.countdown ? `${history[r][i]} (−${p})` : `+${p}`))));
  const total = el("tr", { class: "total" }, el("th", { scope: "row" }, scores.countdown ? t("col_left") : t("col_total")),
    scores.shown.map((s) => el("td", {}, String(s))));
  $("history").replaceChildren(head, el("tbody", {}, rows, total));
}

// -- nobody stuck: anyone seated may hand a seat to a bot once its player has been away a while --
let awayTimer = null;

function renderAway(message) {
  const table = message.table;
  // The absent rule "bot" waits a little longer than the grace when the grace is very short.
  const grace = (table.options.absent === "bot" ? table.absent_grace : table.away_grace) ?? table.away_grace ?? 30;
  const elapsed = (performance.now() - receivedAt) / 1000;
  const canHand = table.status === "playing" && seated(message) && !spectator
    && !(table.seats[table.you] && table.seats[table.you].bot);
  const absent = canHand ? table.seats.filter((s) => s.taken && !s.present && !s.bot && s.seat !== table.you) : [];
  $("away-box").hidden = absent.length === 0;
  if (awayTimer) clearTimeout(awayTimer);
  awayTimer = null;
  const list = $("absent");
  // One item per absent seat, left in place while that seat stays absent: another seat leaving or
  // coming back changes its own item only, never the button being pressed.
  const items = absent.map((seat) => {
    const away = (seat.away_seconds ?? grace) + elapsed;
    const left = Math.max(0, Math.ceil(grace - away));
    return { seat: seat.seat, key: `${seat.seat}:${plainName(seat.seat)}:${left > 0 ? left : "ready"}`, left };
  });
  [...list.children].forEach((item) => { if (!items.some((i) => i.key === item.dataset.key)) item.remove(); });
  items.forEach((info, index) => {
    const here = list.children[index];
    if (!here || here.dataset.key !== info.key) list.insertBefore(absentItem(info), here || null);
  });
  if (items.some((i) => i.left > 0)) awayTimer = setTimeout(() => { if (state) renderAway(state); }, 1000);
}

function absentItem({ seat, key, left }) {
  const name = plainName(seat);
  // The table's absent rule says what happens when the grace runs out: the countdown says exactly that.
  const automatic = state && state.table.options.absent === "bot";
  if (left > 0) {
    return el("li", { "data-key": key }, el("span", {},
      t(automatic ? "absent_wait_bot" : "absent_wait", { name, seconds: left })));
  }
  if (automatic) return el("li", { "data-key": key }, el("span", {}, t("absent_handed", { name })));
  return el("li", { "data-key": key },
    el("span", {}, t("absent_player", { name })),
    el("button", {
      type: "button",
      onclick: () => {
        if (window.confirm(t("confirm_bot", { name }))) {
          send({ type: "seat_to_bot", seat, bot: $("host-bot").value });
        }
      },
    }, t("hand_to_bot", { name })));
}

// -- the end ----------------------------------------------------------------------------------
function renderOver(message) {
  const view = message.view;
  const scores = message.scores;
  const order = [...view.totals.keys()].sort((a, b) => view.totals[a] - view.totals[b]);
  const winners = view.winners.map(nameOf);
  $("winners").textContent = winners.length > 1 ? t("winners_shared", { names: listFormat(winners) })
    : t("winner_one", { name: winners[0] });
  $("end-reason").textContent = scores.ending ? endingText(scores.ending) : "";
  $("standings").replaceChildren(...order.map((seat) => el("li", { class: view.winners.includes(seat) ? "won" : "" },
    t("standing_line", { name: nameOf(seat), total: headsLabel(view.totals[seat]) }),
    scores.countdown ? ` (${t("col_left")}: ${scores.shown[seat]})` : "")));
  renderChart(message);
  renderRematch(message.table);
  const game = message.table.game;
  $("download").href = `/api/tables/${tableId}/games/${game}/record`;
  $("download").setAttribute("download", `nimmt-${tableId}-${game}.json`);
  $("replay-link").href = `/replay/${tableId}/${game}`;
  $("my-games").hidden = !playerKey.get(); // the game is kept among this player's games
}

// Who asked for the rematch, for everyone to see; the host starts it, the others can join the ask.
function renderRematch(table) {
  const asked = table.rematch_asked || [];
  const you = table.you;
  $("rematch").hidden = !table.creator;
  $("ask-rematch").hidden = table.creator || you === null || you === undefined || asked.includes(you);
  $("ask-rematch").textContent = asked.length ? t("rematch_join_button") : t("rematch_ask_button");
  let note = "";
  if (asked.length) {
    // One name or a list of names: the verb agrees with it (a list, not a count, so no plural rule).
    const who = t(asked.length === 1 ? "rematch_asked_note_one_name" : "rematch_asked_note_names",
      { names: listFormat(asked.map(nameOf)) });
    const host = table.host === null || table.host === undefined ? t("rematch_no_host_note")
      : table.creator ? t("rematch_you_host_note") : t("rematch_host_note", { name: nameOf(table.host) });
    note = `${who} ${host}`;
  }
  if ($("rematch-note").textContent !== note) $("rematch-note").textContent = note;
}

// Each player's total after each round, as lines; the threshold as a dashed line. Names and
// numbers are written beside the lines, so the colours only repeat them.
const LINE_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
  "#7f7f00", "#555555"];

function renderChart(message) {
  const history = message.scores.history;
  const seats = message.table.seats.length;
  const chart = $("chart");
  const key = JSON.stringify(history);
  if (chart.dataset.key === key) return;
  chart.dataset.key = key;
  const totals = [new Array(seats).fill(0)];
  history.forEach((round) => totals.push(round.map((p, i) => totals[totals.length - 1][i] + p)));
  const limit = message.table.options.rounds ? null : message.scores.threshold;
  const top = Math.max(10, limit === null ? 0 : limit + 4, ...totals.flat());
  const W = 360, H = 200, left = 30, right = 80, bottom = 22, topPad = 8;
  const x = (r) => left + (r * (W - left - right)) / Math.max(1, totals.length - 1);
  const y = (v) => topPad + (H - topPad - bottom) * (1 - v / top);
  const ns = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attrs, text) => {
    const node = document.createElementNS(ns, tag);
    Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, String(v)));
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "chart-caption chart-desc" });
  svg.append(svgEl("desc", { id: "chart-desc" }, totals.length > 1 ? message.table.seats.map((_, i) =>
    t("chart_line", { name: nameOf(i), totals: totals.slice(1).map((row) => row[i]).join(", ") })).join(" ") : ""));
  svg.append(svgEl("line", { class: "axis", x1: left, y1: y(0), x2: W - right, y2: y(0) }));
  svg.append(svgEl("line", { class: "axis", x1: left, y1: y(0), x2: left, y2: topPad }));
  svg.append(svgEl("text", { class: "label", x: left - 4, y: y(0) + 4, "text-anchor": "end" }, "0"));
  svg.append(svgEl("text", { class: "label", x: left - 4, y: y(top) + 8, "text-anchor": "end" }, String(top)));
  if (limit !== null) {
    svg.append(svgEl("line", { class: "limit", x1: left, y1: y(limit), x2: W - right, y2: y(limit) }));
    svg.append(svgEl("text", { class: "label", x: W - right + 2, y: y(limit) + 4 }, String(limit)));
  }
  totals.forEach((_, r) => {
    if (r > 0) svg.append(svgEl("text", { class: "label", x: x(r), y: H - 6, "text-anchor": "middle" }, String(r)));
  });
  const ends = [];
  message.table.seats.forEach((_, i) => {
    const points = totals.map((row, r) => `${x(r)},${y(row[i])}`).join(" ");
    const colour = LINE_COLOURS[i % LINE_COLOURS.length];
    svg.append(svgEl("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2.2 }));
    ends.push({ i, y: y(totals[totals.length - 1][i]), colour });
  });
  // Names at the lines' ends, pushed apart so that none overlaps another.
  ends.sort((a, b) => a.y - b.y);
  let last = -Infinity;
  ends.forEach((end) => {
    const at = Math.max(end.y + 4, last + 11);
    last = at;
    svg.append(svgEl("text", { class: "name", x: W - right + 22, y: at, fill: end.colour },
      `${plainName(end.i)} ${totals[totals.length - 1][end.i]}`));
  });
  chart.replaceChildren(svg);
  // The names at the lines' ends are written whole: the drawing widens to hold the longest.
  const widest = Math.max(W, ...[...svg.querySelectorAll("text.name")].map((node) => {
    try {
      return W - right + 22 + node.getComputedTextLength() + 4;
    } catch {
      return W;
    }
  }));
  if (widest > W) svg.setAttribute("viewBox", `0 0 ${Math.ceil(widest)} ${H}`);
}

// -- actions -------------------------------------------------------------------------------------
$("join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = $("join-name").value.trim();
  if (!name) {
    $("error").textContent = t("error_name_missing");
    $("join-name").focus();
    return;
  }
  try {
    const seat = await api("POST", `/api/tables/${tableId}/join`, { name });
    token = seat.token;
    localStorage.setItem(tokenKey, token);
    localStorage.setItem("nimmt:name", name);
    showError(null);
    socket.close(4000);
  } catch (error) {
    showError(error);
  }
});
$("join-name").value = localStorage.getItem("nimmt:name") || "";
$("host-bot").replaceChildren(...(page.bots || []).map((name) => el("option", { value: name }, botName(name))));
$("lobby-bot").replaceChildren(...(page.bots || []).map((name) => el("option", { value: name }, botName(name))));
$("lobby-bot").value = (page.bots || []).includes("heuristic") ? "heuristic" : $("lobby-bot").value;
$("start").addEventListener("click", () => send({ type: "start" }));
// The coach's buttons stand where Skip stood during the reveal: a press begun before the decision
// took presses (a second tap on Skip) asks nothing.
const askDeliberately = (event) => { if (deliberate(event)) askAdvice(); };
$("advice-cards").addEventListener("click", askDeliberately);
$("advice-close").addEventListener("click", () => {
  const asked = $(state && legalRows(state).length ? "advice-rows" : "advice-cards");
  hideAdvice();
  asked.focus();  // back where the person asked
});
$("advice-rows").addEventListener("click", askDeliberately);
$("rematch").addEventListener("click", () => send({ type: "rematch" }));
$("ask-rematch").addEventListener("click", () => send({ type: "ask_rematch" }));
$("take-back").addEventListener("click", (event) => {
  if ((event.detail !== 0 && pressedAt < takeBackSince) || $("take-back").hidden) return;
  $("take-back").hidden = true;  // one press: the next state shows the hand open again
  send({ type: "take_back" });
});
$("add-bot").addEventListener("click", () => send({ type: "add_bot", bot: $("lobby-bot").value }));
$("start-fill").addEventListener("click", () => send({ type: "start", fill: $("lobby-bot").value }));
$("copy-invite").addEventListener("click", async () => {
  $("invite-link").select();
  try {
    await navigator.clipboard.writeText($("invite-link").value);
    announce(t("copied"));
  } catch {
    announce(t("copy_manually"));
  }
});

// Skipping the reveal: a tap on it, its button, or Space, Enter or Escape while it plays.
function skipReveal() {
  if (!revealing()) return;
  showing.skipped = true;
  if (showing.cut) showing.cut();
}
$("stage").addEventListener("click", skipReveal);
$("skip").addEventListener("click", skipReveal);
document.addEventListener("keydown", (event) => {
  if (!revealing() || showing.phase === "waiting") return;
  if (event.target.closest && event.target.closest("input, select, textarea, summary")) return;
  if (event.key === "Escape" || ((event.key === " " || event.key === "Enter") && !event.target.closest("button"))) {
    event.preventDefault();
    skipReveal();
  }
});

$("speed").value = settings.speed;
$("sound").checked = settings.sound;
$("vibrate").checked = settings.vibrate;
$("speed").addEventListener("change", () => {
  settings.speed = SPEEDS[$("speed").value] ? $("speed").value : "normal";
  localStorage.setItem("nimmt:speed", settings.speed);
});
$("sound").addEventListener("change", () => {
  settings.sound = $("sound").checked;
  localStorage.setItem("nimmt:sound", settings.sound ? "on" : "off");
  if (settings.sound) beep();  // let the person hear it, and let the browser allow it
});
$("vibrate").addEventListener("change", () => {
  settings.vibrate = $("vibrate").checked;
  localStorage.setItem("nimmt:vibrate", settings.vibrate ? "on" : "off");
});
if (!("vibrate" in navigator)) $("vibrate").closest("p").hidden = true;
document.addEventListener("click", (event) => {
  if ($("menu").open && !event.target.closest("#menu")) $("menu").open = false;
  const react = $("react-menu");
  if (react && react.open && !event.target.closest("#react-menu")) react.open = false;
});
setupReactions($("react-slot"), tableId, send);

connect();
