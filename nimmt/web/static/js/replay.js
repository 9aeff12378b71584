// Watching a finished game again, turn by turn; the server cuts the record into turns.
import { api, el, errorText, headsLabel, isolateName, page, renderRows, t } from "./common.js";

const $ = (id) => document.getElementById(id);
let game = null;
let index = 0;
let bullheads = {};

function headsOf(card) {
  return bullheads[String(card)] || 0;
}

function show(next) {
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
  try {
    load(await api("POST", "/api/replay", await file.text()));
    $("replay-error").textContent = "";
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
