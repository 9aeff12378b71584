// A group's league as a table (the group page and its big screen).
import { el, lang, t } from "./common.js";
import { nameWithMark } from "./names.js";

const number = (value, digits = 0) => value === null || value === undefined ? "–"
  : new Intl.NumberFormat(lang, { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(value);

/** Fill ``table`` with the league's rows; "none" shows when nobody has played yet. */
export function renderLeague(table, none, league, you = null) {
  const columns = [
    ["league_games", (row) => number(row.games)],
    ["league_wins", (row) => number(row.wins, Number.isInteger(row.wins) ? 0 : 2)],
    ["league_per_round", (row) => number(row.bullheads_per_round, 2)],
    ["league_best", (row) => number(row.best_round)],
    ["league_worst", (row) => number(row.worst_round)],
    ["league_past", (row) => number(row.past_66), { end: 66 }],
    ["league_rating", (row) => number(row.rating)],
  ];
  // Games left before the end count as lost (docs/people.md, Fair records): a column once anyone has one.
  if (league.rows.some((row) => row.left)) columns.splice(1, 0, ["league_left", (row) => number(row.left)]);
  const head = el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("league_person")),
    columns.map(([key, , params]) => el("th", { scope: "col" }, t(key, params || {})))));
  const rows = league.rows.map((row) => el("tr", { class: row.player === you ? "me" : null, "data-player": row.player },
    el("th", { scope: "row" }, nameWithMark(row.name || t("former_player"), row.mark)),
    columns.map(([key, value, params]) => el("td", { "data-column": key, "data-label": t(key, params || {}) },
      value(row)))));
  table.replaceChildren(head, el("tbody", {}, rows));
  none.hidden = league.games > 0;
  // Games bots finished after every person left count for nobody: the league says how many.
  const wrap = table.parentElement;
  let note = wrap.nextElementSibling;
  if (!note || !note.classList.contains("league-unrated")) {
    note = el("p", { class: "league-unrated ratings-note" });
    wrap.after(note);
  }
  note.hidden = !league.unrated;
  note.textContent = league.unrated ? t("league_unrated", { count: number(league.unrated) }) : "";
}
