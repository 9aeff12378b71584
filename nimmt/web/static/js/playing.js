// A person's games in progress (GET /api/me/tables), for the home page and My games: each a link to
// the table (where this device takes the person's seat), the tables awaiting their move first, with
// the time left on each clock counted down here from what the server last said. The last answer is
// kept on this device and drawn at once, so that what follows the list (play now) is where it will
// stay when the server answers: nothing moves under a finger (on a first visit, the list comes in).
import { api, el, headsLabel, lang, listFormat, playerKey, t } from "./common.js";

const REFRESH_MS = 60_000; // the list is asked for again this often while the page is shown
const TICK_MS = 15_000; // and the times left drawn again this often
const KEPT = "nimmt:playing"; // the last answer, with the end of the key it was asked with

const owner = () => (playerKey.get() || "").slice(-8);

function kept() {
  try {
    const last = JSON.parse(localStorage.getItem(KEPT) || "null");
    return last && owner() && last.owner === owner() && Array.isArray(last.games) ? last.games : null;
  } catch {
    return null;
  }
}

function keep(games) {
  try {
    if (games === null) localStorage.removeItem(KEPT);
    else localStorage.setItem(KEPT, JSON.stringify({ owner: owner(), games }));
  } catch { /* storage off or full: the list comes in with the answer */ }
}

/** Seconds as the largest whole unit in the page's language ("23 h", "45 min", "30 s"). */
export function duration(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  const [value, unit] = whole >= 3600 ? [Math.floor(whole / 3600), "hour"]
    : whole >= 60 ? [Math.floor(whole / 60), "minute"] : [whole, "second"];
  try {
    return new Intl.NumberFormat(lang, { style: "unit", unit, unitDisplay: "short" }).format(value);
  } catch {
    return `${value} ${unit === "hour" ? "h" : unit === "minute" ? "min" : "s"}`;
  }
}

function timeLeft(game) {
  if (game.deadline === null) return null;
  const seconds = (game.deadline - Date.now()) / 1000;
  return seconds <= 0 ? t("playing_time_up") : t("clock_left", { time: duration(seconds) });
}

function what(game) {
  if (game.status === "lobby") return t("playing_lobby", { taken: game.taken, seats: game.seats });
  if (game.bot_plays) return t("playing_bot_plays");
  if (game.your_move) return t(game.asked === "row" ? "playing_choose_row" : "playing_choose_card");
  if (game.waiting_for.length) return t("playing_waiting", { names: listFormat(game.waiting_for) });
  return t("playing_bots");
}

function item(game) {
  const left = timeLeft(game);
  const title = game.group || (game.others.length ? t("playing_with", { names: listFormat(game.others) })
    : t("playing_table_for", { seats: game.seats }));
  const score = game.status === "playing"
    ? el("span", { class: "playing-score" },
      t("playing_score", { round: t("round_number", { round: game.round }), heads: headsLabel(game.bullheads) }))
    : null;
  return el("li", { class: `playing-item${game.your_move ? " mine" : ""}`, "data-table": game.table_id },
    el("a", { href: game.url },
      el("span", { class: "playing-top" }, el("span", { class: "playing-title" }, title),
        left ? el("span", { class: `playing-clock${game.your_move ? " mine" : ""}` }, left) : null),
      el("span", { class: "playing-status" },
        game.your_move ? el("strong", { class: "playing-badge" }, t("playing_your_move")) : null, " ", what(game)),
      score));
}

/** Fill ``list`` (an <ol>) with the person's games in progress and show ``section`` when there are
 * any; asked again every minute and when the page comes back into view (nothing without a player).
 * Returns the function that asks again now (after the page's player changed, say). */
export function showPlaying(section, list, { now = true } = {}) {
  let games = kept() || [];
  const draw = () => {
    list.replaceChildren(...games.map(item));
    section.hidden = games.length === 0;
    // the home page lays its panels out around the list only when it is there (stylesheets never name [hidden])
    section.parentElement?.classList.toggle("has-playing", games.length > 0);
  };
  const load = async () => {
    if (!playerKey.get()) {
      games = [];
      keep(null); // signed out, or the person deleted: nothing of theirs stays here
      draw();
      return;
    }
    try {
      const answer = await api("GET", "/api/me/tables");
      const at = Date.now();
      games = answer.tables.map((game) => ({
        ...game, deadline: game.clock_left === null ? null : at + game.clock_left * 1000,
      }));
      keep(games);
      draw();
    } catch (error) {
      // a key nimmt no longer knows, or a server without players: the section hides
      if (error.code === "unknown_key" || error.code === "no_key") {
        games = [];
        keep(null);
        draw();
      }
    }
  };
  draw(); // the last answer at once (the clocks from the deadlines it said), then the server's
  if (now) load();
  setInterval(() => { if (!document.hidden) load(); }, REFRESH_MS);
  setInterval(() => { if (!document.hidden && games.some((game) => game.deadline !== null)) draw(); }, TICK_MS);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) load(); });
  return load;
}
