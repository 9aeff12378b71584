// "You": this browser's player (its key in local storage), their games, groups, devices and data.
import { announce, api, el, errorText, isolateName, lang, listFormat, page, playerKey, t, tp } from "./common.js";
import { createPasskey, passkeyProblem, passkeysAvailable, usePasskey } from "./passkey.js";
import { showPlaying } from "./playing.js";

const $ = (id) => document.getElementById(id);
const SECTIONS = ["profile", "standing", "games", "groups", "devices", "data"];
let me = null;
let nextBefore = null;
// The games in progress (static/js/playing.js): asked for again whenever the page's player changes.
const loadPlaying = showPlaying($("playing"), $("playing-list"), { now: false });

const when = (iso) => new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));

function status(text) {
  $("me-status").textContent = text;
  $("me-error").textContent = "";
  if (text) announce(text);
}

function fail(error) {
  $("me-status").textContent = "";
  $("me-error").textContent = errorText(error);
}

/** Run an action; its refusal is shown, never thrown. */
const guarded = (action) => async (event) => {
  if (event) event.preventDefault();
  try {
    await action(event);
  } catch (error) {
    if (error.code === "unknown_key") playerKey.clear();
    fail(error.name === "NotAllowedError" ? { code: "passkey_refused" } : error);
    // The browser refused this address for passkeys: say why, not "something went wrong".
    if (error.name === "SecurityError") $("me-error").textContent = t(passkeyProblem() || "passkey_why_ip", { host: location.hostname });
    if (error.code === "unknown_key") await load();
  }
};

function seatName(seat) {
  if (seat.bot) return t("bot_name", { name: seat.name || seat.bot });
  return seat.name || t("former_player");
}

/** A game rated for nobody says so instead of a result; a game left says it counts as last place
 * (docs/people.md, Fair records). */
function gameResult(game) {
  if (!game.rated) return t(game.ending === "bots" ? "game_by_bots" : "game_abandoned_unrated");
  if (game.left) return t("game_left");
  return game.win === 1 ? t("game_won") : game.win > 0 ? t("game_shared")
    : t("game_place", { place: game.place, players: game.seats.length });
}

/** A score sheet that names the person and awaits their word: it was them, or it was not. */
function sheetWord(game, item) {
  const answer = (mine) => guarded(async () => {
    await api("POST", `/api/me/games/${encodeURIComponent(game.id)}/seat`, { mine });
    if (mine) item.replaceWith(gameItem({ ...game, confirmed: true }));
    else item.remove();
    status(t(mine ? "sheet_confirmed" : "sheet_removed"));
    await loadStanding();
  });
  return el("div", { class: "sheet-word" }, el("p", {}, t("game_unconfirmed")),
    el("p", { class: "actions" }, el("button", { type: "button", class: "small", onclick: answer(true) }, t("sheet_mine")),
      " ", el("button", { type: "button", class: "small", onclick: answer(false) }, t("sheet_not_me"))));
}

function gameItem(game) {
  const others = game.seats.filter((seat) => seat.seat !== game.seat).map(seatName);
  const result = gameResult(game);
  const links = game.replay_url ? [el("a", { href: game.replay_url }, t("game_replay")), " ",
    el("a", { href: game.record_url, download: "" }, t("game_record"))] : [t("game_real_deck")];
  const fairness = game.rated && game.ending === "abandoned" ? t("game_abandoned") : null;
  const item = el("li", { class: "game-item", "data-game": game.id },
    el("p", { class: "game-when" }, el("time", { datetime: game.finished_at }, when(game.finished_at))),
    el("p", { class: "game-result" }, el("strong", {}, result), " · ", t("game_bullheads", { count: game.bullheads })),
    fairness ? el("p", { class: "game-fair" }, fairness) : "",
    el("p", { class: "game-with" }, t("game_with", { names: listFormat(others) })),
    el("p", { class: "game-links" }, links));
  if (game.confirmed === false) item.append(sheetWord(game, item));
  return item;
}

/** One scope's standing: the rating in words and figures. */
function standingItem(row) {
  const number = new Intl.NumberFormat(lang);
  const decimal = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const title = row.group ? t("standing_in_group", { name: row.name }) : t("standing_overall");
  const figures = [
    [t("league_games"), number.format(row.games)],
    [t("league_wins"), decimal.format(row.wins)],
    [t("standing_left"), number.format(row.left)],
    [t("league_per_round"), row.bullheads_per_round === null ? "–" : decimal.format(row.bullheads_per_round)],
    [t("league_best"), row.best_round === null ? "–" : number.format(row.best_round)],
  ];
  return el("div", { class: "standing-item", "data-scope": row.scope },
    el("h3", {}, title),
    el("p", { class: "standing-value" }, el("strong", {}, number.format(row.rating)),
      row.provisional ? el("span", { class: "tag" }, t("standing_provisional")) : ""),
    row.rated_games === 0 ? el("p", {}, t("standing_none", { start: number.format(row.rating) })) : "",
    el("dl", { class: "figures" }, figures.flatMap(([label, value]) => [el("dt", {}, label), el("dd", {}, value)])));
}

async function loadStanding() {
  const answer = await api("GET", `/api/me/standing?lang=${encodeURIComponent(lang)}`);
  const number = new Intl.NumberFormat(lang);
  $("standing-lead").textContent = t("standing_lead", { start: number.format(answer.start),
    settled: number.format(answer.settled_games) });
  $("standing-pending").hidden = answer.pending_sheets === 0;
  $("standing-list").replaceChildren(...answer.standings.map(standingItem));
  $("standing-figure").hidden = !answer.chart;
  if (answer.chart) {
    $("standing-chart").src = answer.chart;
    $("standing-chart").alt = t("standing_chart_title");
  }
}

async function loadGames(more = false) {
  const query = more && nextBefore ? `?before=${encodeURIComponent(nextBefore)}` : "";
  const answer = await api("GET", `/api/me/games${query}`);
  if (!more) $("games-list").replaceChildren();
  $("games-list").append(...answer.games.map(gameItem));
  nextBefore = answer.next_before;
  $("games-more").hidden = !nextBefore;
  $("games-none").hidden = $("games-list").children.length > 0;
}

function render() {
  $("start").hidden = !!me;
  for (const id of SECTIONS) $(id).hidden = !me;
  $("passkey-sign-in").hidden = !passkeysAvailable();
  // Where passkeys cannot work, the page says why and points to the one-time code.
  const why = passkeyProblem();
  for (const id of ["passkey-why-start", "passkey-why"]) {
    $(id).hidden = !why;
    $(id).textContent = why ? t(why, { host: location.hostname }) : "";
  }
  if (!me) return;
  $("name-input").value = me.player.name || "";
  $("public-input").checked = me.player.public;
  $("groups-list").replaceChildren(...me.groups.map((group) => el("li", {},
    el("a", { href: `/groups/${encodeURIComponent(group.id)}` }, group.name),
    group.host ? ` (${t("group_host")})` : "")));
  $("groups-none").hidden = me.groups.length > 0;
  $("devices-list").replaceChildren(...me.devices.map((device) => el("li", {},
    `${t(`device_${device.how}`)}, ${t("device_added", { when: when(device.created_at) })} `,
    el("button", { type: "button", class: "small", onclick: guarded(async () => {
      await api("DELETE", `/api/me/devices/${encodeURIComponent(device.id)}`);
      await load();
    }) }, t("device_sign_out")))));
  $("passkey-count").textContent = t("passkey_count", { count: me.passkeys });
  $("passkeys-list").replaceChildren(...me.passkey_list.map((passkey) => el("li", {},
    `${t("passkey_item", { when: when(passkey.created_at) })} `,
    el("button", { type: "button", class: "small", onclick: guarded(async () => {
      await api("DELETE", `/api/me/passkey/${encodeURIComponent(passkey.id)}`);
      await load();
      status(t("passkey_removed"));
    }) }, t("passkey_remove")))));
  $("passkey-add").hidden = !passkeysAvailable();
}

async function load() {
  me = playerKey.get() ? await api("GET", "/api/me").catch((error) => {
    if (error.code === "unknown_key") playerKey.clear();
    else fail(error);
    return null;
  }) : null;
  render();
  if (me) await Promise.all([loadStanding(), loadGames(), loadPlaying()]);
  else await loadPlaying();
  if (page.link && !me) $("code-input").value = page.link;
}

function remember(answer) {
  playerKey.set(answer.key);
  status(t("link_done", { name: answer.player.name || "…" }));
}

$("start-form").addEventListener("submit", guarded(async () => {
  const name = $("start-name").value.trim();
  if (!name) return fail({ code: "bad_name", params: { longest: 24 } });
  remember(await api("POST", "/api/players", { name }));
  await load();
}));

// A device that already holds a player, given another device's code: it is told first what happens
// to its player (its games, groups, messages and devices move to the code's player), and only
// then, if the person agrees, linked (docs/people.md, A second device).
let merging = null; // the code being asked about

async function askLink(code) {
  try {
    remember(await api("POST", "/api/link", { code }));  // linked at once: nothing of its own to ask about
    await load();
  } catch (error) {
    if (error.code !== "link_merge") throw error;
    const { name, mine, games, groups } = error.params;
    merging = { code, name };
    $("link-merge-text").textContent = t("merge_text", {
      name, mine: isolateName(mine || "…"), games: tp("merge_games", games), groups: tp("merge_groups", groups) });
    $("link-merge-yes").textContent = t("merge_yes", { name });
    $("link-merge").hidden = false;
    $("link-merge").scrollIntoView({ block: "start" });
    $("link-merge-yes").focus();
  }
}

$("link-merge-yes").addEventListener("click", guarded(async () => {
  if (!merging) return;
  const answer = await api("POST", "/api/link", { code: merging.code, merge: true });
  merging = null;
  $("link-merge").hidden = true;
  $("merge-code-input").value = "";
  await load();
  status(t("merge_done", { name: answer.player.name || "…" }));
}));

$("link-merge-no").addEventListener("click", () => {
  merging = null;
  $("link-merge").hidden = true;
  status(t("merge_kept", { name: (me && me.player.name) || "…" }));
});

$("merge-code-form").addEventListener("submit", guarded(async () => {
  const code = $("merge-code-input").value.trim();
  if (code) await askLink(code);
}));

$("code-form").addEventListener("submit", guarded(async () => {
  const code = $("code-input").value.trim();
  if (!code) return;
  remember(await api("POST", "/api/link", { code }));
  await load();
}));

$("passkey-sign-in").addEventListener("click", guarded(async () => {
  const ceremony = await api("POST", "/api/passkeys/options", {});
  const credential = await usePasskey(ceremony.options);
  remember(await api("POST", "/api/passkeys/sign-in", { token: ceremony.token, credential }));
  await load();
}));

$("passkey-add").addEventListener("click", guarded(async () => {
  const ceremony = await api("POST", "/api/me/passkeys/options", {});
  const credential = await createPasskey(ceremony.options);
  await api("POST", "/api/me/passkeys", { token: ceremony.token, credential });
  status(t("passkey_added"));
  await load();
}));

$("name-form").addEventListener("submit", guarded(async () => {
  const name = $("name-input").value.trim();
  if (!name) return fail({ code: "bad_name", params: { longest: 24 } });
  await api("PATCH", "/api/me", { name });
  status(t("name_saved"));
  await load();
}));

$("public-input").addEventListener("change", guarded(async () => {
  await api("PATCH", "/api/me", { public: $("public-input").checked });
  status(t("name_saved"));
}));

$("games-more").addEventListener("click", guarded(() => loadGames(true)));

$("group-form").addEventListener("submit", guarded(async () => {
  const name = $("group-name").value.trim();
  if (!name) return fail({ code: "bad_name", params: { longest: 40 } });
  const group = await api("POST", "/api/groups", { name });
  window.location.assign(`/groups/${encodeURIComponent(group.id)}`);
}));


$("link-make").addEventListener("click", guarded(async () => {
  const link = await api("POST", "/api/me/link", {});
  $("link-qr").src = link.qr;
  $("link-qr").alt = t("link_code", { code: link.code });
  $("link-code").textContent = t("link_code", { code: link.code.replace(/(.{5})/, "$1 ") });
  $("link-show").hidden = false;
}));

$("data-export").addEventListener("click", guarded(async () => {
  const data = await api("GET", "/api/me/export");
  const blob = new Blob([JSON.stringify(data, null, 1)], { type: "application/json" });
  const link = el("a", { href: URL.createObjectURL(blob), download: "nimmt-my-data.json" });
  document.body.append(link);
  link.click();
  link.remove();
}));

$("data-delete").addEventListener("click", guarded(async () => {
  if (!window.confirm(t("data_delete_confirm"))) return;
  await api("DELETE", "/api/me");
  playerKey.clear();
  await load();
  status(t("data_deleted"));
}));

load().then(() => (page.link && me ? guarded(() => askLink(page.link))() : null));
