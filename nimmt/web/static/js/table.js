// The table: lobby, game and standings. Shows what the server sends; never applies a rule itself.
// This module holds the connection, draws the page from each state and wires the page's buttons; what
// each part of the page shows is drawn by table-lobby.js, table-hand.js (the hand and the rows),
// table-reveal.js, table-coach.js and table-standings.js, which share table-live.js.
import { announce, api, el, errorText, mergePatch, page, playerKey, site, t } from "./common.js";
import { setupReactions, showReaction, updateReactions } from "./reactions.js";
import { updateStartClock } from "./startclock.js";
import { adviceRefused, askAdvice, forgetAdvice, hideAdvice, renderCoach, showAdvice } from "./table-coach.js";
import {
  alertIfAsked, beep, drawRows, renderAway, renderHand, renderPlayers, renderStatus, renderStrip,
} from "./table-hand.js";
import {
  $, decisionKey, deliberate, drawing, legalRows, live, revealing, seated, send, settings, SPEEDS, spectator, tableId,
} from "./table-live.js";
import { botName, renderLobby } from "./table-lobby.js";
import { follow, renderNews, renderReveal } from "./table-reveal.js";
import { renderHistory, renderOver } from "./table-standings.js";
import { updateClock } from "./tableclock.js";

const tokenKey = `nimmt:seat:${tableId}`;

let token = spectator ? null : localStorage.getItem(tokenKey);
let received = null;  // the state as this connection's server holds it: the next patch applies to it
let retry = 0;
let closedForGood = false;
let retryAfter = 0;  // seconds the server asked this client to wait before it connects again
Object.assign(drawing, { render, redraw });  // for the modules that draw the page again

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
  live.socket = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(tableId)}`);
  $("connection").textContent = t("connecting");
  live.socket.addEventListener("open", () => {
    retry = 0;
    forgetAdvice();  // a question asked on the old connection is answered on none
    live.pending = null;  // nor an action: the state after hello shows whether it was taken
    received = null;  // a new connection starts with a whole state
    live.socket.send(JSON.stringify({ type: "hello", token, patches: true }));
  });
  live.socket.addEventListener("message", (event) => {
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
      if (message.bullheads) live.bullheads = message.bullheads;
      $("connection").textContent = "";
      if (!live.state || message.version >= live.state.version) render(message);
    } else if (message.type === "advice") {
      showAdvice(message);
    } else if (message.type === "reaction") {
      showReaction(message);
    } else if (message.type === "error") {
      if (message.params && message.params.retry_after) retryAfter = Number(message.params.retry_after) || 0;
      adviceRefused(message.ref);
      if (live.pending && message.ref === live.pending.ref) live.pending = null;  // refused: the person may try again
      if (message.code === "bad_token") {
        localStorage.removeItem(tokenKey);
        token = null;
        live.socket.send(JSON.stringify({ type: "hello", token: null, patches: true }));
        return;
      }
      showError(message);
      if (live.state) render(live.state);  // the refused action changed nothing: show the table as it is
    } else if (message.type === "ack") {
      showError(null);
    }
  });
  live.socket.addEventListener("close", (event) => {
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

// -- rendering -----------------------------------------------------------------------------------
function focusKey() {
  const active = document.activeElement;
  if (!active || active === document.body) return null;
  if (active.dataset.card && active.closest("#hand")) return `#hand [data-card="${active.dataset.card}"]`;
  if (active.dataset.row) return `#rows button[data-row="${active.dataset.row}"]`;
  return null;
}

function render(message) {
  const previous = live.state;
  live.state = message;
  live.receivedAt = performance.now();
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
  if (!live.state) return;
  const focused = focusKey();
  draw(live.state);
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
  if (live.pending && (!message.legal || decisionKey(message) !== live.pending.key)) live.pending = null;
  const table = message.table;
  // The version on the page lets people's tools (and the browser tests) see that it moved on.
  document.body.dataset.version = String(message.version);
  document.body.dataset.status = table.status;
  const you = seated(message);
  const watching = spectator || (!you && table.status !== "lobby");
  $("table-heading").textContent = watching ? t("watch_heading") : t("table_heading");
  // Made of the address others can open; no language: each person reads the table in their own.
  const inviteUrl = `${site}/t/${tableId}`;
  $("invite-link").value = inviteUrl;
  $("watch-link").value = `${site}/watch/${tableId}`;
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
    live.socket.close(4000);
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
  const asked = $(live.state && legalRows(live.state).length ? "advice-rows" : "advice-cards");
  hideAdvice();
  asked.focus();  // back where the person asked
});
$("advice-rows").addEventListener("click", askDeliberately);
$("rematch").addEventListener("click", () => send({ type: "rematch" }));
$("ask-rematch").addEventListener("click", () => send({ type: "ask_rematch" }));
$("take-back").addEventListener("click", (event) => {
  if ((event.detail !== 0 && live.pressedAt < live.takeBackSince) || $("take-back").hidden) return;
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

// A person's other device (the same player key, no seat token yet) opens the table: their own seat,
// in a game in progress too, if they sat down here with that player.
async function start() {
  if (!spectator && !token && playerKey.get()) {
    try {
      token = (await api("POST", `/api/tables/${encodeURIComponent(tableId)}/seat`)).token;
      localStorage.setItem(tokenKey, token);
    } catch {
      // no seat of theirs here (or a server that keeps no players): they watch, or sit down in the lobby
    }
  }
  connect();
}
start();
