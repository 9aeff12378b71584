// The table's standings: the round-by-round history, why the game ends or goes on, and the end
// (winners, the chart of the totals, the rematch, the record).
import { el, headsLabel, listFormat, playerKey, t } from "./common.js";
import { $, nameOf, plainName, seated, tableId } from "./table-live.js";

// "Round 2 is over: Ana took 5 bullheads, …" and why the game goes on or ends.
export function roundOverText(message) {
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
export function endingText(ending) {
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

export function renderHistory(message) {
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

// -- the end ----------------------------------------------------------------------------------
export function renderOver(message) {
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
  // The game is kept among this player's games: said to a person at the table, not to a watcher.
  $("my-games").hidden = !playerKey.get() || !seated(message);
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
