// The hand and the rows: the status line, the players (chips and table), this person's cards, the
// rows to choose from, the alert when the table waits for this person, and the seats away.
import { cardFace, cardLabel, el, headsLabel, listFormat, renderRows, rowName, t, tp } from "./common.js";
import {
  $, act, bullheadsOf, decisionKey, decisionsOpen, deliberate, fitText, legalCards, legalRows, live, nameForms,
  nameOf, plainName, revealing, runningScores, seated, send, setBusy, settings, settled, shownScore, spectator,
} from "./table-live.js";

const baseTitle = document.title;
// What the hand's buttons and the chips were last drawn from: each is redrawn only when that
// changes, so an update about something else (a bot's card, someone arriving or leaving) never
// swaps the button under a pointer between press and release and loses the click.
let handShown = null;
let stripShown = null;
// The decision this person was last alerted to (tab title, sound, vibration): once per decision.
let alerted = null;

function roundText(message, round) {
  const rounds = message.table.options.rounds;
  return rounds ? t("round_of", { round, rounds }) : t("round_number", { round });
}

// The round and turn the table shows: the turn being revealed (or whose row choice is awaited, or the
// last one once the game is over), else the turn being chosen. Never the next turn while one shows.
function shownTurn(message) {
  const view = message.view;
  const reveal = revealing() ? live.showing.reveal : message.reveal;
  if (reveal && (revealing() || view.phase === "choose_row" || message.table.status === "over")) {
    return { round: reveal.round, turn: reveal.turn };
  }
  return { round: view.round, turn: Math.min(view.turn + 1, 10) };
}

export function renderStatus(message) {
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
  const playing = live.showing ? live.showing.reveal : null;
  let text;
  if (table.status === "over" && !revealing()) text = t("status_over");
  else if (revealing() && !(live.showing.phase === "waiting" && legalRows(message).length)) {
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

export function renderStrip(message) {
  const view = message.view;
  const table = message.table;
  const scores = live.showing && !live.showing.done ? live.showing.scores : runningScores(message);
  const gains = live.showing && !live.showing.done ? live.showing.gains : {};
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

// Draws the rows as the table stands (buttons when this person must choose one), unless a reveal
// is showing its steps; true if a row choice's buttons were (re)drawn just now.
export function drawRows(message, mustRow) {
  if (revealing() && live.showing.phase !== "waiting") return false;
  const choosing = mustRow && (!revealing() || live.showing.phase === "waiting") && settled(message);
  const rows = revealing() ? live.showing.rows : message.view.rows;
  $("rows").classList.toggle("choosing", choosing);
  return showRows(rows, choosing) && choosing;
}

function showRows(rows, mustRow) {
  const waiting = mustRow && !!live.pending;
  const shown = JSON.stringify([rows, mustRow, waiting]);
  if (shown === live.rowsShown) return false;
  live.rowsShown = shown;
  renderRows($("rows"), rows, bullheadsOf, mustRow ? {
    // The buttons are disabled now (renderRows does it) and stay so until the choice is answered.
    onPick: (row, event) => {
      if (!deliberate(event)) return false;
      act({ type: "choose_row", row });
      live.rowsShown = null;
      if (live.pending) $("rows").setAttribute("aria-busy", "true");
    },
  } : {});
  setBusy($("rows"), waiting);
  if (waiting) $("rows").querySelectorAll("button").forEach((button) => { button.disabled = true; });
  return true;
}

export function renderPlayers(message) {
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

export function renderHand(message) {
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
  if (faceDown && $("take-back").hidden) live.takeBackSince = performance.now();
  $("take-back").hidden = !faceDown;
  // The button says what it does; its title says until when.
  if (faceDown) $("take-back").title = t("hand_chosen_take_back", { card: view.my_card });
  const forms = help === t("hand_help") ? [help, t("hand_help_short")]
    : faceDown ? [help, t("hand_chosen_take_back_short", { card: view.my_card })] : [help];
  fitText($("hand-help"), forms);
  $("hand-box").classList.toggle("resting", resting);
  $("hand-box").classList.toggle("settling", !resting && !legal.size && legalCards(message).length > 0 && !live.pending);
  // Redraw the cards only when they change: an update about others (a bot's card, someone
  // arriving) must not swap the button under a pointer between press and release.
  const waiting = !!live.pending && legal.size > 0;
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
          if (live.pending) $("hand").setAttribute("aria-busy", "true");
        },
      }, cardFace(card, heads)));
  }));
}

// -- attention: the tab's title, a sound and a vibration when the table waits for this person ----
export function alertIfAsked(message) {
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
export function beep() {
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

// -- nobody stuck: anyone seated may hand a seat to a bot once its player has been away a while, or
// at once when a present player's clock has run out; a person whose seat a bot plays takes it back --
let awayTimer = null;
const closed = new Set(); // the notes of what a bot played that this person has closed ("game:since")

export function renderAway(message) {
  const table = message.table;
  // The absent rule "bot" waits a little longer than the grace when the grace is very short.
  const grace = (table.options.absent === "bot" ? table.absent_grace : table.away_grace) ?? table.away_grace ?? 30;
  const elapsed = (performance.now() - live.receivedAt) / 1000;
  const playing = table.status === "playing";
  const me = playing && seated(message) && !spectator ? table.seats[table.you] : null;
  const canHand = !!me && !me.bot;
  const absent = canHand ? table.seats.filter((s) => s.taken && !s.present && !s.bot && s.seat !== table.you) : [];
  // A present person whose clock ran out: nothing is chosen for them; the others may hand the seat.
  const late = canHand ? table.seats.filter((s) => s.present && !s.bot && s.clock_left === 0 && s.seat !== table.you) : [];
  if (awayTimer) clearTimeout(awayTimer);
  awayTimer = null;
  const list = $("absent");
  // One item per absent seat, left in place while that seat stays absent: another seat leaving or
  // coming back changes its own item only, never the button being pressed.
  const items = absent.map((seat) => {
    const away = (seat.away_seconds ?? grace) + elapsed;
    const left = Math.max(0, Math.ceil(grace - away));
    const key = `${seat.seat}:${plainName(seat.seat)}:${left > 0 ? left : "ready"}`;
    return { key, left, make: () => absentItem({ seat: seat.seat, key, left }) };
  });
  for (const seat of late) {
    const key = `late:${seat.seat}:${plainName(seat.seat)}`;
    items.push({ key, left: 0, make: () => lateItem(seat.seat, key) });
  }
  for (const item of ownItems(message, me)) items.push(item);
  $("away-box").hidden = items.length === 0;
  [...list.children].forEach((item) => { if (!items.some((i) => i.key === item.dataset.key)) item.remove(); });
  items.forEach((info, index) => {
    const here = list.children[index];
    if (!here || here.dataset.key !== info.key) list.insertBefore(info.make(), here || null);
  });
  if (items.some((i) => i.left > 0)) awayTimer = setTimeout(() => { if (live.state) renderAway(live.state); }, 1000);
}

function absentItem({ seat, key, left }) {
  const name = plainName(seat);
  // The table's absent rule says what happens when the grace runs out: the countdown says exactly that.
  const automatic = live.state && live.state.table.options.absent === "bot";
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

// A present person's time is up: the game waits for them; anyone else may let a bot play their seat,
// which it keeps until they take it back.
function lateItem(seat, key) {
  const name = plainName(seat);
  return el("li", { "data-key": key, class: "late" },
    el("span", {}, t("time_up_player", { name })),
    el("button", {
      type: "button",
      "aria-label": t("hand_to_bot", { name }),  // the short label beside the name; in full for screen readers
      onclick: () => {
        if (window.confirm(t("confirm_bot_kept", { name }))) {
          send({ type: "seat_to_bot", seat, bot: $("host-bot").value });
        }
      },
    }, t("hand_to_bot_short")));
}

/** What a bot played for this person, in words: its cards, and the rows it took. */
function botMoves(played) {
  return listFormat(played.moves.map((move) => (move.card !== undefined ? String(move.card)
    : t("bot_played_row", { row: rowName(move.row), bullheads: headsLabel(move.bullheads) }))));
}

// This person's own lines: their time is up; a bot plays their seat (with what it played, and the
// button to take the seat back); once back, what it played meanwhile, until they close the note.
function ownItems(message, me) {
  const table = message.table;
  const items = [];
  if (!me) return items;
  const played = message.bot_played;
  if (me.bot) {
    const text = played && played.moves.length ? `${t("bot_played_title")} ${botMoves(played)}` : t("hand_bot_plays");
    const key = `bot:${text}`;
    items.push({ key, left: 0, make: () => el("li", { "data-key": key, class: "mine" },
      el("span", {}, text),
      el("button", { type: "button", id: "seat-back", onclick: () => send({ type: "seat_back" }) },
        t("seat_back_button"))) });
    return items;
  }
  if (me.clock_left === 0) {
    const others = table.seats.some((s) => s.seat !== table.you && s.present && !s.bot && s.taken);
    const key = `late:mine:${others}`;
    items.push({ key, left: 0, make: () => el("li", { "data-key": key, class: "mine late" },
      el("span", {}, t(others ? "time_up_yours" : "time_up_yours_alone"))) });
  }
  const note = played && `${table.game}:${played.since}`;
  if (played && played.moves.length && !closed.has(note)) {
    const text = `${t("bot_played_title")} ${botMoves(played)}`;
    const key = `played:${note}:${text}`;
    items.push({ key, left: 0, make: () => el("li", { "data-key": key, class: "mine" },
      el("span", {}, text),
      el("button", { type: "button", onclick: () => { closed.add(note); if (live.state) renderAway(live.state); } },
        t("bot_played_ok"))) });
  }
  return items;
}
