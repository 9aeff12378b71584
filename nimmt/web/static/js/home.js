// The home page: play now against bots in one click, or create a table; then go to it with the
// creator's seat token. The name (and the bots' strength for play now) are remembered here.
import { api, currentPlayer, el, errorText, has, page, t } from "./common.js";
import "./daily.js";
import "./group-table.js"; // from a group's page: the group the new table is for, named first
import { showPlaying } from "./playing.js";

const $ = (id) => document.getElementById(id);
const NAME_KEY = "nimmt:name";
const STRENGTH_KEY = "nimmt:play-strength";
const PLAY_NOW_BOTS = 3; // you and three bots: four seats
const DEFAULT_STRENGTH = "heuristic";
const BY_STRENGTH = ["random", "beginner", "heuristic", "learned", "montecarlo", "expert"];

function remembered(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage may be turned off: nothing is remembered then
  }
}

function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // storage may be full or turned off: play on without remembering
  }
}

// A bot's short name in a menu (what a phone's select shows whole); its description beside it.
const botLabel = (name) => (has(`bot_name_${name}`) ? t(`bot_name_${name}`) : name);
const botAbout = (name) => (has(`bot_${name}`) ? t(`bot_${name}`) : name);

// The person's games in progress, those awaiting their move first (shown only when there are some).
showPlaying($("playing"), $("playing-list"));

$("create-language").value = page.lang;
$("create-name").value = remembered(NAME_KEY) || "";
// A device that has a player but no name typed yet (one added by a code): the player's name.
if (!$("create-name").value) {
  currentPlayer().then((player) => {
    if (player && player.name && !$("create-name").value) $("create-name").value = player.name;
  });
}

// The bots for play now, weakest first; the strength chosen last time, else a middling one.
const strengths = [...BY_STRENGTH.filter((name) => page.bots.includes(name)),
  ...page.bots.filter((name) => !BY_STRENGTH.includes(name))];
const chosen = remembered(STRENGTH_KEY);
const initial = strengths.includes(chosen) ? chosen : strengths.includes(DEFAULT_STRENGTH) ? DEFAULT_STRENGTH : strengths[0];
$("play-strength").replaceChildren(...strengths.map((name) =>
  el("option", { value: name, selected: name === initial, title: botAbout(name) }, botLabel(name))));
const strengthAbout = () => { $("play-strength-about").textContent = botAbout($("play-strength").value); };
$("play-strength").addEventListener("change", strengthAbout);
strengthAbout();

// On a wide screen the table's options are open; on a phone they fold away.
if (window.matchMedia("(min-width: 760px)").matches) $("create-options").open = true;

function botChoices() {
  const seats = Number($("create-seats").value) || 2;
  const count = Math.max(0, Math.min(Number($("create-bots").value) || 0, seats - 1));
  const box = $("bot-choices");
  const kept = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren(...Array.from({ length: count }, (_, i) => el("p", {},
    el("label", { for: `bot-${i}` }, t("bot_kind", { number: i + 1 })),
    el("select", { id: `bot-${i}`, name: `bot-${i}` },
      page.bots.map((name) => el("option", { value: name, selected: kept[i] === name, title: botAbout(name) },
        botLabel(name)))))));
}
$("create-seats").addEventListener("input", botChoices);
$("create-bots").addEventListener("input", botChoices);
botChoices();

/** The name typed, remembered; or null after saying it is missing (in ``errorBox``). */
function nameOrComplain(errorBox) {
  const name = $("create-name").value.trim();
  if (!name) {
    $(errorBox).textContent = t("error_name_missing");
    $("create-name").setAttribute("aria-invalid", "true");
    $("create-name").focus();
    return null;
  }
  $("create-name").removeAttribute("aria-invalid");
  remember(NAME_KEY, name);
  return name;
}

async function createAndGo(body, errorBox, button, created = () => {}) {
  const group = new URLSearchParams(location.search).get("group"); // from a group's page: its league counts it
  if (group) body.group = group;
  button.disabled = true;
  $(errorBox).textContent = "";
  try {
    const seat = await api("POST", "/api/tables", body);
    remember(`nimmt:seat:${seat.table_id}`, seat.token);
    created(seat);
    location.assign(`/t/${seat.table_id}`);
  } catch (error) {
    $(errorBox).textContent = errorText(error);
    button.disabled = false;
  }
}

$("create-name").addEventListener("input", () => {
  if ($("create-name").value.trim()) {
    $("create-name").removeAttribute("aria-invalid");
    $("play-error").textContent = "";
  }
});

$("play-now").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = nameOrComplain("play-error");
  if (!name) return;
  const strength = $("play-strength").value;
  remember(STRENGTH_KEY, strength);
  createAndGo({
    name, seats: PLAY_NOW_BOTS + 1, bots: Array(PLAY_NOW_BOTS).fill(strength), start: true, language: page.lang,
  }, "play-error", $("play-now-button"));
});

// The guided round (static/js/guide.js): the person and three beginners, one round, the tips on.
const GUIDE_DONE_KEY = "nimmt:guide-done";
const GUIDE_BOTS = 3;
if (remembered(GUIDE_DONE_KEY)) $("guide-note").textContent = t("guide_done_note");
$("guide-button").addEventListener("click", () => {
  const name = nameOrComplain("play-error");
  if (!name) return;
  createAndGo({
    name, seats: GUIDE_BOTS + 1, bots: Array(GUIDE_BOTS).fill("beginner"), start: true, language: page.lang,
    options: { rounds: 1, coach: false },
  }, "play-error", $("guide-button"), (seat) => remember(`nimmt:guide:${seat.table_id}`, String(seat.seat)));
});

function absentBot(bots) {
  const ranked = BY_STRENGTH.filter((name) => bots.includes(name) && name !== "random");
  return ranked.length ? ranked[ranked.length - 1] : DEFAULT_STRENGTH;
}

$("create").addEventListener("submit", (event) => {
  event.preventDefault();
  $("create-error").textContent = "";
  const name = nameOrComplain("create-error");
  if (!name) return;
  const seats = Number($("create-seats").value);
  const bots = [...$("bot-choices").querySelectorAll("select")].map((s) => s.value);
  const problem = !(seats >= 2 && seats <= 10) ? ["error_seats", "create-seats"]
    : bots.length > seats - 1 ? ["error_too_many_bots", "create-bots"] : null;
  if (problem) {
    $("create-error").textContent = t(problem[0], { seats });
    $(problem[1]).focus();
    return;
  }
  const rounds = $("create-rounds").value ? Number($("create-rounds").value) : null;
  createAndGo({
    name, seats, bots,
    options: {
      end_above: Number($("create-end-above").value || 66), rounds,
      countdown: $("create-countdown").checked, coach: $("create-coach").checked,
      public: $("create-visibility").value === "public",
      clock: $("create-clock").value ? Number($("create-clock").value) : null,
      // The absent rule, its bot the strongest of the table's bots (else a middling one).
      absent: $("create-absent").value, absent_bot: absentBot(bots),
    },
    language: $("create-language").value,
  }, "create-error", event.submitter || $("create").querySelector("button[type=submit]"));
});
