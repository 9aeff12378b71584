// Watching a finished game again, turn by turn; the server cuts the record into turns.
import { api, el, errorText, headsLabel, isolateName, page, renderRows, t } from "./common.js";
import { accuracyTable, fetchReview, lossChart, pendingText, turnDecisions } from "./review.js";

const $ = (id) => document.getElementById(id);
let game = null;
let index = 0;
let bullheads = {};
let review = null; // the server's review of this game, once made (docs/review.md)
let chart = null;

function headsOf(card) {
  return bullheads[String(card)] || 0;
}

function show(next, open = null) {
  index = Math.max(0, Math.min(next, game.turns.length - 1));
  const turn = game.turns[index];
  $("replay").hidden = false;
  $("replay-turn").textContent = t("replay_turn", {
    round: turn.round, turn: turn.turn, index: index + 1, count: game.turns.length,
  });
  renderRows($("replay-before"), turn.rows_before, headsOf);
  renderRows($("replay-after"), turn.rows, headsOf);
  $("replay-cards").replaceChildren(...turn.placements.map((p) => el("li", {},
    el("strong", {}, `${p.card}`), " ",
    p.took.length
      ? t(p.chosen ? "placed_chose_row" : "placed_sixth", {
        name: game.players[p.player], card: p.card, row: p.row + 1, heads: headsLabel(p.bullheads),
      })
      : t("placed_on_row", { name: game.players[p.player], card: p.card, row: p.row + 1 }))));
  const header = el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("col_player")),
    el("th", { scope: "col" }, t("col_round")), el("th", { scope: "col" }, t("col_total"))));
  $("replay-players").replaceChildren(header, el("tbody", {}, game.players.map((name, i) => el("tr", {},
    el("th", { scope: "row" }, isolateName(name)), el("td", {}, String(turn.penalties[i])), el("td", {}, String(turn.totals[i]))))));
  $("replay-first").disabled = $("replay-prev").disabled = index === 0;
  $("replay-last").disabled = $("replay-next").disabled = index === game.turns.length - 1;
  showDecisions(turn, open);
}

function showDecisions(turn, open) {
  if (!review) return;
  const items = turnDecisions(review, game.players, turn.round, turn.turn, headsOf, open);
  $("review-turn").hidden = !items.length;
  $("review-turn-list").replaceChildren(...items);
  if (chart) chart.show(index);
}

// A decision of the review (from its table, or a link's #decision-N): its turn, its options open.
function showDecision(number) {
  const decision = review && review.decisions[number];
  if (!decision) return;
  const at = game.turns.findIndex((turn) => turn.round === decision.round && turn.turn === decision.turn);
  if (at < 0) return;
  show(at, number);
  const item = document.getElementById(`decision-${number}`);
  if (item) {
    item.scrollIntoView({ block: "start" });
    item.querySelector("summary").focus();
  }
}

function showReview(data) {
  review = data;
  $("review-status").textContent = "";
  if (!review) {
    $("review-status").textContent = t("review_unavailable");
    return;
  }
  $("review-table").replaceChildren(accuracyTable(review, game.players, showDecision));
  chart = lossChart(review, game.players, game.turns, (at) => {
    show(at);
    $("replay-turn").scrollIntoView({ block: "start" });
    $("replay-turn").focus({ preventScroll: true });
  }, "review-chart-caption");
  $("review-chart").replaceChildren(chart.svg);
  $("review-chart-box").hidden = false;
  show(index);
  const wanted = /^#decision-(\d+)$/.exec(window.location.hash);
  if (wanted) showDecision(Number(wanted[1]));
}

function loadReview() {
  $("review").hidden = false;
  fetchReview(page.source.replace(/\/replay$/, "/review"), (left) => {
    $("review-status").textContent = pendingText(left);
  }).then(showReview, () => showReview(null));
}

// An uploaded record, read and checked once by the server (POST /api/replay/review, one line per
// answer): its turns come at once and are shown, then its review when it is made. A newer upload's
// answers replace it, never the other way round.
let uploads = 0;

async function* answerLines(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
      yield JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
    }
  }
  if (buffer.trim()) yield JSON.parse(buffer);
}

function reviewWorking() {
  review = null;
  chart = null;
  $("review").hidden = false;
  $("review-table").replaceChildren();
  $("review-chart-box").hidden = true;
  $("review-status").textContent = t("review_upload_working");
}

async function upload(text) {
  const mine = ++uploads;
  const response = await fetch("/api/replay/review", {
    method: "POST", headers: { "Content-Type": "application/json", Accept: "application/x-ndjson" }, body: text });
  if (response.status === 413) {
    // Larger than a review takes: replayed only, and the page says why there is no review.
    const refusal = await response.json();
    if (refusal.code !== "too_large") throw refusal;
    const turns = await api("POST", "/api/replay", text);
    if (mine !== uploads) return;
    $("replay-error").textContent = "";
    load(turns);
    reviewWorking();
    $("review-status").textContent = errorText(refusal);
    return;
  }
  if (!response.ok) throw await response.json();
  const lines = answerLines(response);
  const turns = await lines.next();
  if (mine !== uploads || turns.done) return;
  $("replay-error").textContent = "";
  load(turns.value);
  if (!game.turns.length) return;
  reviewWorking();
  const answer = await lines.next();
  if (mine !== uploads) return;
  if (!answer.done && answer.value.status === "ready") showReview(answer.value.review);
  else $("review-status").textContent = errorText(answer.done ? {} : answer.value);
}

function load(data) {
  game = data;
  bullheads = data.bullheads || {};
  if (!game.turns.length) {
    $("replay-error").textContent = t("replay_empty");
    return;
  }
  show(0);
  $("replay-turn").focus();
  if (page.source) loadReview();
}

$("replay-first").addEventListener("click", () => show(0));
$("replay-prev").addEventListener("click", () => show(index - 1));
$("replay-next").addEventListener("click", () => show(index + 1));
$("replay-last").addEventListener("click", () => show(game.turns.length - 1));
document.addEventListener("keydown", (event) => {
  if (!game || event.target.closest("input, select, textarea")) return;
  if (event.key === "ArrowRight") show(index + 1);
  if (event.key === "ArrowLeft") show(index - 1);
});

$("replay-upload").addEventListener("submit", async (event) => {
  event.preventDefault();
  const file = $("replay-file").files[0];
  if (!file) {
    $("replay-error").textContent = t("replay_no_file");
    return;
  }
  const text = await file.text();
  try {
    await upload(text);
  } catch (error) {
    $("replay-error").textContent = errorText(error);
  }
});

if (page.source) {
  api("GET", page.source).then(load, (error) => { $("replay-error").textContent = errorText(error); });
  $("replay-download").hidden = false;
  $("replay-download").href = page.download;
} else {
  $("replay-upload").hidden = false;
}
