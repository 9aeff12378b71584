// The table: lobby, game and standings. Shows what the server sends; never applies a rule itself.
import {
  announce, api, cardFace, has, cardLabel, el, errorText, headsLabel, lang, listFormat, page, reducedMotion,
  renderRows, rowName, t,
} from "./common.js";

const tableId = page.table;
const spectator = page.spectator;
const tokenKey = `nimmt:seat:${tableId}`;
const $ = (id) => document.getElementById(id);

let token = spectator ? null : localStorage.getItem(tokenKey);
let socket = null;
let state = null;
let retry = 0;
let shownReveal = null;
let spokenNews = null;
let refs = 0;
let closedForGood = false;
// The coach: the question on its way ({ ref, key }) and the decision the advice shown is about.
let adviceAsked = null;
let adviceShown = null;
// What the hand's and the rows' buttons were last drawn from: each is redrawn only when that
// changes, so an update about something else (a bot's card, someone arriving or leaving) never
// swaps the button under a pointer between press and release and loses the click.
let handShown = null;
let rowsShown = null;
// This person's card or row on its way ({ ref, key }): until a state shows that decision over (or
// the server refuses it), its buttons stay disabled whatever other updates arrive, so a quick
// second press never sends a second action.
let pending = null;

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
    socket.send(JSON.stringify({ type: "hello", token }));
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") {
      $("connection").textContent = "";
      if (!state || message.version >= state.version) render(message);
    } else if (message.type === "advice") {
      showAdvice(message);
    } else if (message.type === "error") {
      if (adviceAsked && message.ref === adviceAsked.ref) {
        adviceAsked = null;
        hideAdvice();
      }
      if (pending && message.ref === pending.ref) pending = null;  // refused: the person may try again
      if (message.code === "bad_token") {
        localStorage.removeItem(tokenKey);
        token = null;
        socket.send(JSON.stringify({ type: "hello", token: null }));
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
    setTimeout(connect, Math.min(300 * 2 ** retry, 5000));
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

const bullheadsOf = (card) => (state && state.view && state.view.bullheads[String(card)]) || 0;
const nameOf = (seat) => {
  const info = state.table.seats[seat];
  const name = info && info.name ? info.name : t("seat_free_name", { seat: seat + 1 });
  return seat === state.table.you ? t("you_name", { name }) : name;
};

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
  if (active.dataset.card) return `#hand [data-card="${active.dataset.card}"]`;
  if (active.dataset.row) return `#rows [data-row="${active.dataset.row}"]`;
  return null;
}

function render(message) {
  // Updates re-draw the hand and the rows: keep the keyboard focus where the person left it.
  const focused = focusKey();
  draw(message);
  if (focused) {
    const again = document.querySelector(focused);
    if (again && again !== document.activeElement && !again.disabled) again.focus();
  }
}

function draw(message) {
  state = message;
  // The pending action is answered once the decision it was made on is no longer the one asked.
  if (pending && (!message.legal || decisionKey(message) !== pending.key)) pending = null;
  const table = message.table;
  // The version on the page lets people's tools (and the browser tests) see that it moved on.
  document.body.dataset.version = String(message.version);
  document.body.dataset.status = table.status;
  const seated = table.you !== null && table.you !== undefined;
  const watching = spectator || (!seated && table.status !== "lobby");
  $("table-heading").textContent = watching ? t("watch_heading") : t("table_heading");
  const inviteUrl = `${location.origin}/t/${tableId}?lang=${table.language}`;
  $("invite-link").value = inviteUrl;
  $("watch-link").value = `${location.origin}/watch/${tableId}`;
  $("watch-box").hidden = spectator;
  $("coach-option").textContent = table.options.coach ? t("coach_on_note") : t("coach_off_note");
  $("coach-option").hidden = false;
  const wasLobby = !$("lobby").hidden;
  $("join").hidden = !(table.status === "lobby" && !seated && !spectator);
  $("lobby").hidden = table.status !== "lobby";
  $("game").hidden = table.status === "lobby";
  $("over").hidden = table.status !== "over";
  if (table.status === "lobby") renderLobby(table, seated);
  else renderGame(message);
  // The lobby's start button just disappeared: bring focus to the game, not to nowhere.
  if (wasLobby && table.status !== "lobby" && (!document.activeElement || document.activeElement === document.body
      || document.activeElement.closest("[hidden]"))) {
    $("status").setAttribute("tabindex", "-1");
    $("status").focus();
  }
}

function renderLobby(table, seated) {
  const free = table.seats.filter((s) => !s.taken).length;
  $("lobby-status").textContent = free ? t("lobby_waiting", { count: free }) : t("lobby_full");
  $("lobby-seats").replaceChildren(...table.seats.map((seat) => el("li", {},
    seat.taken ? (seat.bot ? t("seat_bot", { name: seat.name, bot: botName(seat.bot) }) : nameOf(seat.seat))
      : t("seat_free"))));
  $("invite").hidden = !seated;
  $("start-box").hidden = !table.creator;
  $("start").disabled = free > 0;
}

function botName(bot) {
  return has(`bot_${bot}`) ? t(`bot_${bot}`) : bot;
}

function renderGame(message) {
  const view = message.view;
  const table = message.table;
  const legal = message.legal;
  const mustRow = legal.rows.length > 0;
  renderStatus(message);
  const rowsDrawn = drawRows(message, mustRow);
  $("rows").classList.toggle("choosing", mustRow);
  renderPlayers(message);
  renderHand(message);
  renderReveal(message);
  announceRoundEnd(message);
  renderHistory(message);
  renderHost(message);
  renderCoach(message);
  if (table.status === "over") renderOver(message);
  // A row choice has just been drawn: bring the keyboard to its first row (once, not on every
  // update, so focus is not pulled back from wherever the person took it meanwhile).
  if (mustRow && rowsDrawn && document.activeElement && !document.activeElement.closest(".rows-box")) {
    const first = $("rows").querySelector("button");
    if (first) first.focus();
  }
}

function renderStatus(message) {
  const view = message.view;
  const table = message.table;
  let text;
  if (table.status === "over") text = t("status_over");
  else if (message.legal.rows.length) {
    text = t("status_choose_row", { card: view.row_choice_card });
  } else if (view.phase === "choose_row") {
    text = t("status_waiting_row", { name: nameOf(view.waiting_for[0]), card: view.row_choice_card });
  } else if (message.legal.cards.length) text = t("status_pick_card");
  else if (view.phase === "choose_cards") {
    text = t("status_waiting_cards", { names: listFormat(view.waiting_for.map(nameOf)) });
  } else text = "";
  const round = table.options.rounds ? t("round_of", { round: view.round, rounds: table.options.rounds })
    : t("round_number", { round: view.round });
  $("status").textContent = `${round} · ${t("turn_number", { turn: Math.min(view.turn + 1, 10) })} — ${text}`;
}

// The reveal, placed one card at a time, lowest first, on the rows as they were before it. Only
// what the server says happened is shown (which row, which cards taken): no rule is applied here.
let anim = { id: null, rows: null, step: 0, timer: null, message: null };
let firstRender = true;

function stopAnimation() {
  if (anim.timer) clearTimeout(anim.timer);
  anim.timer = null;
}

// The rows as they stand (buttons when this person must choose one); true if they were redrawn.
function showRows(rows, mustRow) {
  const waiting = mustRow && !!pending;
  const shown = JSON.stringify([rows, rows.map((row) => row.map(bullheadsOf)), mustRow, waiting]);
  if (shown === rowsShown) return false;
  rowsShown = shown;
  renderRows($("rows"), rows, bullheadsOf, mustRow ? {
    // The buttons are disabled now (renderRows does it) and stay so until the choice is answered;
    // the latest version shown: the rows are not redrawn for updates within this decision.
    onPick: (row) => {
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

// Draws the rows, or lets a reveal place its cards first; true if a row choice's buttons were
// (re)drawn just now.
function drawRows(message, mustRow) {
  const reveal = message.reveal;
  const final = message.view.rows;
  const still = firstRender || reducedMotion() || !reveal || !reveal.rows_before;
  firstRender = false;
  if (reveal && anim.id !== reveal.id) {
    stopAnimation();
    anim = { id: reveal.id, rows: reveal.rows_before.map((row) => [...row]), step: 0, timer: null, message };
    if (still) anim.step = reveal.placements.length;
  }
  anim.message = message;
  if (mustRow || still || !reveal || anim.step >= reveal.placements.length) {
    if (anim.timer) return false;
    if (reveal) anim.step = reveal.placements.length;
    const drawn = showRows(final, mustRow);
    markReveal(reveal ? reveal.placements.length : 0);
    return drawn && mustRow;
  }
  if (!anim.timer) placeNext();
  return false;
}

function placeNext() {
  const message = anim.message;
  const reveal = message.reveal;
  if (anim.step >= reveal.placements.length) {
    anim.timer = null;
    drawRows(message, message.legal.rows.length > 0);
    return;
  }
  const placement = reveal.placements[anim.step];
  anim.rows[placement.row] = placement.took.length ? [placement.card] : [...anim.rows[placement.row], placement.card];
  renderRows($("rows"), anim.rows, bullheadsOf, { highlight: placement.row });
  rowsShown = null;  // the rows show a step of the reveal now, not the table as it stands
  anim.step += 1;
  markReveal(anim.step);
  // Slow enough to follow, quick enough that a table of ten is not kept waiting.
  anim.timer = setTimeout(placeNext, Math.max(250, Math.min(800, 4000 / reveal.placements.length)));
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
      el("td", {}, String(scores.shown[index])));
  }));
}

function renderHand(message) {
  const view = message.view;
  const legal = new Set(message.legal.cards);
  $("hand-box").hidden = spectator || message.table.you === null || message.table.status === "over";
  let help = "";
  if (view.my_card !== null && view.my_card !== undefined) help = t("hand_chosen", { card: view.my_card });
  else if (legal.size) help = t("hand_help");
  $("hand-help").textContent = help;
  // Redraw the cards only when they change: an update about others (a bot's card, someone
  // arriving) must not swap the button under a pointer between press and release.
  const waiting = !!pending && legal.size > 0;
  const shown = JSON.stringify([view.hand, message.legal.cards, view.my_card, waiting]);
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
        onclick: () => {
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

// -- the coach: numbers for this person's own decision; it never chooses or plays anything ------
function decisionKey(message) {
  const view = message.view;
  const kind = message.legal.rows.length ? "rows" : message.legal.cards.length ? "cards" : "";
  return kind ? `${message.table.game}:${view.round}:${view.turn}:${view.resolved}:${kind}` : "";
}

function renderCoach(message) {
  const table = message.table;
  const on = !!table.options.coach && !spectator && table.you !== null && table.you !== undefined
    && table.status === "playing";
  const key = on ? decisionKey(message) : "";
  $("advice-cards-box").hidden = !(key && message.legal.cards.length);
  $("advice-rows-box").hidden = !(key && message.legal.rows.length);
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
  $("advice-cards").disabled = true;
  $("advice-rows").disabled = true;
  const rows = !!state.legal.rows.length;
  $(rows ? "advice-rows-box" : "advice-cards-box").after($("advice"));
  $("advice-table").replaceChildren();
  $("advice-note").textContent = "";
  $("advice-working").textContent = t("advice_working");
  $("advice").hidden = false;
}

function hideAdvice() {
  adviceShown = null;
  $("advice").hidden = true;
  $("advice-table").replaceChildren();
  $("advice-working").textContent = "";
  $("advice-cards").disabled = false;
  $("advice-rows").disabled = false;
}

const decimals = (digits) => new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits });
const percent = new Intl.NumberFormat(lang, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });
const estimate = (mean, stderr) => `${decimals(1).format(mean)} ± ${decimals(1).format(stderr)}`;

function showAdvice(answer) {
  if (!adviceAsked || answer.ref !== adviceAsked.ref || !state || decisionKey(state) !== adviceAsked.key) return;
  adviceShown = adviceAsked.key;
  adviceAsked = null;
  $("advice-cards").disabled = false;
  $("advice-rows").disabled = false;
  const head = (...names) => el("thead", {}, el("tr", {}, names.map((name) => el("th", { scope: "col" }, name))));
  let caption, columns, body, notes;
  if (answer.kind === "cards") {
    caption = t("advice_cards_caption");
    columns = head(t("advice_col_card"), t("advice_col_goes_to"), t("advice_col_take_chance"),
      t("advice_col_turn"), t("advice_col_round"));
    body = answer.cards.map((c) => {
      const sampled = c.exact ? "" : "≈";
      return el("tr", { "data-card": c.card },
        el("th", { scope: "row" },
          el("span", { class: `card small heads-bg-${bullheadsOf(c.card)}` }, cardFace(c.card, bullheadsOf(c.card)))),
        el("td", { class: "where" }, c.row === null ? t("advice_below_all") : rowName(c.row)),
        el("td", {}, sampled + percent.format(c.take_chance)),
        el("td", {}, sampled + decimals(2).format(c.turn_bullheads)),
        el("td", {}, estimate(c.round_bullheads, c.round_stderr)));
    });
    notes = [answer.cards.every((c) => c.exact) ? "" : t("advice_sampled", { samples: answer.samples }),
      t("advice_cards_note", { samples: answer.samples })];
  } else {
    caption = t("advice_rows_caption", { card: answer.card });
    columns = head(t("advice_col_row"), t("advice_col_now"), t("advice_col_later"), t("advice_col_total"));
    body = answer.rows.map((r) => el("tr", { "data-row": r.row },
      el("th", { scope: "row" }, rowName(r.row)),
      el("td", {}, headsLabel(r.now)),
      el("td", {}, estimate(r.later, r.later_stderr)),
      el("td", {}, decimals(1).format(r.total))));
    notes = [t("advice_rows_note", { samples: answer.samples })];
  }
  $("advice-table").replaceChildren(el("caption", {}, caption), columns, el("tbody", {}, body));
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

function renderReveal(message) {
  const reveal = message.reveal;
  $("reveal-box").hidden = !reveal;
  if (!reveal) return;
  $("reveal-heading").textContent = t("reveal_heading", { round: reveal.round, turn: reveal.turn });
  const items = reveal.cards.map(([card, player], index) => {
    const placement = reveal.placements.find((p) => p.card === card);
    const waiting = !placement && reveal.waiting && reveal.waiting.card === card;
    return el("li", { class: "reveal-item", "data-index": index },
      el("span", { class: `card small heads-bg-${bullheadsOf(card)}` }, cardFace(card, bullheadsOf(card))),
      el("span", { class: "where" },
        placement ? placementText(placement)
          : waiting ? t("reveal_waiting_row", { name: nameOf(player) })
            : t("card_by", { card, name: nameOf(player) })));
  });
  $("reveal").replaceChildren(...items);
  const fresh = shownReveal !== reveal.id;
  shownReveal = reveal.id;
  markReveal(anim.id === reveal.id ? anim.step : reveal.placements.length);
  // Say each news once: the cards revealed, a row choice awaited, the rows taken.
  const news = `${reveal.id}:${reveal.placements.length}:${reveal.waiting ? reveal.waiting.card : ""}`;
  if (news === spokenNews) return;
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
  if (parts.length) announce(parts.join(" "));
}

function announceRoundEnd(message) {
  const ended = message.events.find((e) => e.type === "round_ended");
  if (!ended) return;
  const parts = ended.penalties.map((p, i) => t("round_penalty", { name: nameOf(i), heads: headsLabel(p) }));
  setTimeout(() => announce(t("announce_round_over", { round: ended.round, penalties: listFormat(parts) })), 1500);
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

function renderHost(message) {
  const table = message.table;
  const absent = table.status === "playing" && table.creator
    ? table.seats.filter((s) => !s.present && !s.bot && s.seat !== table.you) : [];
  $("host-tools").hidden = absent.length === 0;
  // One item per absent seat, left in place while that seat stays absent: another seat leaving or
  // coming back adds or removes its own item only, never the button being pressed.
  const list = $("absent");
  const keys = absent.map((seat) => `${seat.seat}:${nameOf(seat.seat)}`);
  [...list.children].forEach((item) => { if (!keys.includes(item.dataset.key)) item.remove(); });
  keys.forEach((key, index) => {
    const here = list.children[index];
    if (!here || here.dataset.key !== key) list.insertBefore(absentItem(absent[index].seat, key), here || null);
  });
}

function absentItem(seat, key) {
  const name = nameOf(seat);
  return el("li", { "data-key": key },
    el("span", {}, t("absent_player", { name }), " "),
    el("button", {
      type: "button",
      onclick: () => {
        if (window.confirm(t("confirm_bot", { name }))) {
          send({ type: "seat_to_bot", seat, bot: $("host-bot").value });
        }
      },
    }, t("hand_to_bot", { name })));
}

function renderOver(message) {
  const view = message.view;
  const scores = message.scores;
  const order = [...view.totals.keys()].sort((a, b) => view.totals[a] - view.totals[b]);
  const winners = view.winners.map(nameOf);
  $("winners").textContent = winners.length > 1 ? t("winners_shared", { names: listFormat(winners) })
    : t("winner_one", { name: winners[0] });
  $("standings").replaceChildren(...order.map((seat) => el("li", { class: view.winners.includes(seat) ? "won" : "" },
    t("standing_line", { name: nameOf(seat), total: headsLabel(view.totals[seat]) }),
    scores.countdown ? ` (${t("col_left")}: ${scores.shown[seat]})` : "")));
  $("rematch").hidden = !message.table.creator;
  const game = message.table.game;
  $("download").href = `/api/tables/${tableId}/games/${game}/record`;
  $("download").setAttribute("download", `nimmt-${tableId}-${game}.json`);
  $("replay-link").href = `/replay/${tableId}/${game}`;
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
    showError(null);
    socket.close(4000);
  } catch (error) {
    showError(error);
  }
});
$("host-bot").replaceChildren(...(page.bots || []).map((name) => el("option", { value: name },
  has(`bot_${name}`) ? t(`bot_${name}`) : name)));
$("start").addEventListener("click", () => send({ type: "start" }));
$("advice-cards").addEventListener("click", askAdvice);
$("advice-rows").addEventListener("click", askAdvice);
$("rematch").addEventListener("click", () => send({ type: "rematch" }));
$("copy-invite").addEventListener("click", async () => {
  $("invite-link").select();
  try {
    await navigator.clipboard.writeText($("invite-link").value);
    announce(t("copied"));
  } catch {
    announce(t("copy_manually"));
  }
});

connect();
