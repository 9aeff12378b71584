// A group's invite link: the group named first, and its Join button on the first screen for
// everyone. A person with a player joins as that player; anyone else types a name, which makes
// their player (kept in this browser) and joins with it in one tap.
import { api, ensurePlayer, errorText, page, playerKey, t, tp } from "./common.js";

const $ = (id) => document.getElementById(id);
const NAME_KEY = "nimmt:name"; // the name the home page and the lobby remember
const group = page.invited; // read by the server into the page: nothing moves once drawn
let me = null;

function remembered() {
  try {
    return localStorage.getItem(NAME_KEY) || "";
  } catch {
    return "";
  }
}

function draw() {
  if (!group || !group.open) {
    $("invite-note").classList.add("error");
    $("invite-note").textContent = page.limited ? t("error_rate_limited", { retry_after: page.limited })
      : t(group ? "error_invite_closed" : "error_invite_unknown");
    return;
  }
  $("join-heading").textContent = t("group_join", { name: group.name });
  document.title = `${t("group_join", { name: group.name })} · nimmt`;
  $("invite-note").textContent = t("group_invited", { name: group.name });
  $("invite-size").textContent = tp("invite_members", group.members);
  $("invite-size").hidden = false;
  $("join-button").textContent = t("group_join", { name: group.name });
  const named = me && me.player.name;
  $("join-as").hidden = !named;
  if (named) $("join-as").textContent = t("join_as", { name: me.player.name });
  $("join-name-box").hidden = !!named;
  if (!named && !$("join-name").value) $("join-name").value = remembered();
  $("join-form").hidden = false;
}

async function load() {
  me = playerKey.get() ? await api("GET", "/api/me").catch((error) => {
    if (error.code === "unknown_key") playerKey.clear(); // signed out or deleted: start again
    return null;
  }) : null;
  draw();
}

$("join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("join-error").textContent = "";
  const button = $("join-button");
  const named = me && me.player.name;
  const name = $("join-name").value.trim();
  if (!named && !name) {
    $("join-error").textContent = t("error_bad_name", { longest: 24 });
    $("join-name").setAttribute("aria-invalid", "true");
    $("join-name").focus();
    return;
  }
  button.disabled = true;
  try {
    if (!me) {
      await ensurePlayer(name); // named as typed, in the language this person reads (common.js)
    } else if (!named) {
      await api("PATCH", "/api/me", { name });
    }
    if (!named) {
      try { localStorage.setItem(NAME_KEY, name); } catch { /* storage off: nothing remembered */ }
    }
    const joined = await api("POST", "/api/invites", { invite: page.invite });
    $("invite-note").textContent = t("group_joined", { name: joined.name });
    location.assign(`/groups/${encodeURIComponent(joined.id)}`);
  } catch (error) {
    $("join-error").textContent = errorText(error);
    button.disabled = false;
    if (error.code === "unknown_key") await load();
  }
});

$("join-name").addEventListener("input", () => $("join-name").removeAttribute("aria-invalid"));
load();
