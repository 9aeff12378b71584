// The ratings: everyone with a public profile, the asking person's own row (marked, shown to them
// even when their profile is not public), and the bots' fixed references, each named as the rest
// of the site names its level.
import { api, el, errorText, has, lang, t } from "./common.js";

const $ = (id) => document.getElementById(id);

function rowName(row) {
  if (!row.bot) return el("bdi", {}, row.name || "–");
  const level = has(`bot_name_${row.name}`) ? t(`bot_name_${row.name}`) : row.name;
  return t("ratings_bot", { level });
}

async function load() {
  try {
    const answer = await api("GET", "/api/ratings");
    $("ratings-games").textContent = t("leaderboard_games", { count: answer.games });
    const number = new Intl.NumberFormat(lang);
    $("ratings-table").replaceChildren(
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("league_person")),
        el("th", { scope: "col" }, t("league_rating")), el("th", { scope: "col" }, t("league_games")))),
      el("tbody", {}, answer.rows.map((row) => el("tr", { class: row.you ? "me" : null, "aria-current": row.you ? "true" : null },
        el("th", { scope: "row" }, rowName(row), row.you ? ` (${t("ratings_you")})` : ""),
        el("td", {}, number.format(row.rating), row.provisional ? el("span", { class: "ratings-note" }, ` · ${t("ratings_provisional")}`) : ""),
        el("td", {}, row.bot ? "–" : number.format(row.games))))));
    const mine = answer.rows.find((row) => row.you);
    $("ratings-only-you").hidden = !mine || mine.public !== false;
  } catch (error) {
    $("ratings-error").textContent = errorText(error);
  }
}

load();
