// The reveal: each turn's cards turn face up together, then go one by one, lowest first, to their
// rows, as the server says they went (which row, which cards taken): no rule is applied here. The
// person's next decision opens once their screen has shown it all, or when they skip it (a tap or a
// key). Also the news line over the rows and the last turn told as text.
import { announce, cardElement, el, headsLabel, listFormat, reducedMotion, renderRows, t } from "./common.js";
import {
  $, bullheadsOf, fitText, live, nameForms, nameOf, pace, plainName, redraw, revealing, runningScores,
} from "./table-live.js";
import { endingText, roundOverText } from "./table-standings.js";

let firstRender = true;
let spokenNews = null;

export function follow(message, previous) {
  const reveal = message.reveal;
  const first = firstRender;
  firstRender = false;
  if (!reveal) {
    if (live.showing) finish();
    return;
  }
  if (live.showing && live.showing.id === reveal.id) {
    live.showing.reveal = reveal;
    if (live.showing.onState) live.showing.onState();
    return;
  }
  if (live.showing) finish();  // a newer turn came before this screen had shown the last one
  const still = first || reducedMotion() || !reveal.rows_before || !previous || !previous.view;
  live.showing = {
    id: reveal.id, reveal, step: 0, phase: "flip", rows: reveal.rows_before.map((row) => [...row]),
    scores: runningScores(previous && previous.view ? previous : message), gains: {},
    news: null, done: false, skipped: false, cut: null, onState: null,
  };
  if (still) {
    live.showing.step = reveal.placements.length;
    live.showing.done = true;
    return;
  }
  play(live.showing);
}

// A newer state ends the reveal playing: it stops where it is and the table shows as it stands.
function finish() {
  if (!live.showing) return;
  const run = live.showing;
  run.skipped = true;
  close(run);
  if (run.cut) run.cut();
  if (run.onState) run.onState();
}

// The reveal is over: its stage goes and the rows are drawn again from the table as it stands.
function close(run) {
  run.done = true;
  $("stage").hidden = true;
  live.rowsShown = null;
}

// Waits ``ms`` (at the chosen speed), or less if the person skips or a newer turn comes.
function pause(run, ms) {
  if (run.skipped || run !== live.showing) return Promise.resolve();
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
    if (run === live.showing && !run.done) {
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
  live.rowsShown = null;
  redraw();
  await pause(run, 900);
  while (run === live.showing && !run.done) {
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
  if (run !== live.showing) return;
  // The last turn of a round: say how the round went and what comes next, then the new rows.
  if (run.reveal.turn === 10 && !run.skipped && live.state.scores.ending) {
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
  live.rowsShown = null;  // the rows show a step of the reveal now, not the table as it stands
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
// One line over the rows: what the reveal is doing, or between rounds why play goes on.
export function renderNews(message) {
  const news = $("news");
  $("skip").hidden = !revealing() || live.showing.phase === "waiting";
  // Between rounds, the whole sentence about the round (who took what, why play goes on) over the
  // hand, where there is room for it in every language.
  const interlude = revealing() && live.showing.phase === "interlude";
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
    if (live.showing.phase === "flip") text = t("news_revealed");
    else if (live.showing.phase === "waiting" && live.showing.reveal.waiting) {
      const waiting = live.showing.reveal.waiting;
      // The person who chooses reads it in the status line already.
      text = waiting.player === message.table.you ? ""
        : nameForms(() => t("news_waiting_row", { name: nameOf(waiting.player), card: waiting.card }));
    } else text = live.showing.news ? nameForms(live.showing.news) : "";
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


function markReveal(done) {
  document.querySelectorAll("#reveal .reveal-item").forEach((item, index) => {
    item.classList.toggle("pending", index >= done && !!(live.state.reveal && index < live.state.reveal.placements.length));
  });
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
export function renderReveal(message) {
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
  markReveal(revealing() && live.showing.id === reveal.id ? live.showing.step : reveal.placements.length);
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

// Skipping the reveal: a tap on it, its button, or Space, Enter or Escape while it plays.
function skipReveal() {
  if (!revealing()) return;
  live.showing.skipped = true;
  if (live.showing.cut) live.showing.cut();
}
$("stage").addEventListener("click", skipReveal);
$("skip").addEventListener("click", skipReveal);
document.addEventListener("keydown", (event) => {
  if (!revealing() || live.showing.phase === "waiting") return;
  if (event.target.closest && event.target.closest("input, select, textarea, summary")) return;
  if (event.key === "Escape" || ((event.key === " " || event.key === "Enter") && !event.target.closest("button"))) {
    event.preventDefault();
    skipReveal();
  }
});
