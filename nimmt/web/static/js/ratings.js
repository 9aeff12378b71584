// The ratings: everyone with a public profile, and the bots' fixed references.
import { api, el, errorText, lang, t } from "./common.js";

const $ = (id) => document.getElementById(id);

async function load() {
  try {
    const answer = await api("GET", "/api/ratings");
    $("ratings-games").textContent = t("leaderboard_games", { count: answer.games });
    const number = new Intl.NumberFormat(lang);
    $("ratings-table").replaceChildren(
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("league_person")),
        el("th", { scope: "col" }, t("league_rating")), el("th", { scope: "col" }, t("league_games")))),
      el("tbody", {}, answer.rows.map((row) => el("tr", { class: row.you ? "me" : null },
        el("th", { scope: "row" }, el("bdi", {}, row.bot ? t("bot_name", { name: row.name }) : row.name || "–")),
        el("td", {}, number.format(row.rating)), el("td", {}, row.bot ? "–" : number.format(row.games))))));
  } catch (error) {
    $("ratings-error").textContent = errorText(error);
  }
}

load();
