// A group's league on a big screen, between games: it reads again every half minute.
import { api, lang, page, t } from "./common.js";
import { renderLeague } from "./league.js";

const $ = (id) => document.getElementById(id);
const path = `/api/groups/${encodeURIComponent(page.group)}`;

async function load() {
  try {
    const league = await api("GET", `${path}/league`);
    $("group-name").textContent = league.name;
    document.title = `${league.name} · nimmt`;
    renderLeague($("league-table"), $("league-none"), league);
    $("form-chart").hidden = league.games === 0;
    $("form-chart").src = `${path}/form.svg?lang=${encodeURIComponent(lang)}&games=${league.games}`;
    $("form-chart").alt = `${t("form_heading")}: ${t("form_axis")}`;
    $("group-error").textContent = "";
  } catch (error) {
    $("group-error").textContent = t("error_offline");
  }
}

load();
setInterval(load, 30_000);
