// The lobby: quick match, and the open public tables, listed live (polled from the server, which
// reads them from the store: every server process lists the same tables).
import { api, el, errorText, page, t } from "./common.js";

const $ = (id) => document.getElementById(id);
const NAME_KEY = "nimmt:name"; // the same name the home page remembers
const FILTER_KEY = "nimmt:lobby-language";
const EVERY_MS = 3000; // how often the list is asked for while the page is shown

function remembered(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // storage turned off: nothing is remembered
  }
}

/** A clock in words: "20 s a move", "a day a move", "no clock". */
export function speedText(seconds) {
  if (seconds === null || seconds === undefined) return t("speed_none");
  if (seconds === 86400) return t("speed_day");
  if (seconds < 60 || seconds % 60) return t("speed_seconds", { seconds });
  if (seconds < 3600 || seconds % 3600) return t("speed_minutes", { minutes: seconds / 60 });
  return t("speed_hours", { hours: seconds / 3600 });
}

const languageName = (code) => page.languages[code] || code;
$("quick-help").textContent = t("quick_match_help", { language: languageName(page.lang) });
$("lobby-name").value = remembered(NAME_KEY) || "";
const saved = remembered(FILTER_KEY);
$("open-language").replaceChildren(
  el("option", { value: "" }, t("open_tables_all")),
  ...Object.entries(page.languages).map(([code, name]) => el("option", { value: code, lang: code }, name)));
$("open-language").value = saved !== null && (saved === "" || saved in page.languages) ? saved : page.lang;

/** The name typed, remembered; or null after saying it is missing. */
function nameOrComplain(errorBox) {
  const input = $("lobby-name");
  const name = input.value.trim();
  if (!name) {
    $(errorBox).textContent = t("error_name_missing");
    input.setAttribute("aria-invalid", "true");
    input.focus();
    return null;
  }
  input.removeAttribute("aria-invalid");
  remember(NAME_KEY, name);
  return name;
}

function sit(seat) {
  remember(`nimmt:seat:${seat.table_id}`, seat.token);
  location.assign(`/t/${seat.table_id}`);
}

$("quick").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("quick-error").textContent = "";
  const name = nameOrComplain("quick-error");
  if (!name) return;
  const button = $("quick-button");
  button.disabled = true;
  $("quick-help").textContent = t("quick_match_wait");
  try {
    sit(await api("POST", "/api/lobby/quick", { name, language: page.lang }));
  } catch (error) {
    $("quick-error").textContent = errorText(error);
    $("quick-help").textContent = t("quick_match_help", { language: languageName(page.lang) });
    button.disabled = false;
  }
});

async function join(table, button) {
  $("open-error").textContent = "";
  const name = nameOrComplain("open-error");
  if (!name) return;
  button.disabled = true;
  try {
    sit(await api("POST", `/api/tables/${encodeURIComponent(table.table_id)}/join`, { name }));
  } catch (error) {
    $("open-error").textContent = errorText(error);
    button.disabled = false;
    refresh();
  }
}

function line(table) {
  const speed = speedText(table.clock);
  return el("li", { "data-table": table.table_id },
    el("span", { class: "facts" },
      el("span", { class: "language", lang: table.language }, languageName(table.language)),
      el("span", { class: "speed" }, speed),
      el("span", { class: "seats" }, t("open_table_seats", { taken: table.taken, seats: table.seats }))),
    el("button", {
      type: "button", class: "primary", "data-join": table.table_id,
      "aria-label": t("open_table_join_label", {
        language: languageName(table.language), speed, taken: table.taken, seats: table.seats }),
      onclick: (event) => join(table, event.currentTarget),
    }, t("open_table_join")));
}

let shown = null; // the last list drawn, as JSON: an unchanged list is not drawn again (nothing moves)
let timer = null;
let asked = 0; // the newest question: an older answer that comes after it is not drawn (another filter's)

async function refresh() {
  clearTimeout(timer);
  const language = $("open-language").value;
  const mine = ++asked;
  try {
    const tables = await api("GET", `/api/lobby${language ? `?language=${encodeURIComponent(language)}` : ""}`);
    if (mine !== asked) return;
    const count = tables.length;
    $("open-status").textContent = !count ? t("open_tables_none")
      : t(count === 1 ? "open_tables_one" : "open_tables_many", { count });
    const drawn = JSON.stringify(tables.map((table) => [table.table_id, table.taken, table.seats, table.clock]));
    if (drawn !== shown) {
      const focused = document.activeElement?.dataset?.join;
      $("open-tables").replaceChildren(...tables.map(line));
      if (focused) document.querySelector(`[data-join="${CSS.escape(focused)}"]`)?.focus();
      shown = drawn;
    }
  } catch {
    if (mine !== asked) return;
    $("open-status").textContent = t("open_tables_offline");
  }
  if (!document.hidden) timer = setTimeout(refresh, EVERY_MS);
}

$("open-language").addEventListener("change", () => {
  remember(FILTER_KEY, $("open-language").value);
  refresh(); // the same tables under another filter are not drawn again: nothing moves under a finger
});
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) refresh();
});
refresh();
