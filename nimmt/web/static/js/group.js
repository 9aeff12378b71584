// A group for its members: league, form chart, chat, invite (link and QR code), members.
import { announce, api, el, errorText, lang, page, t } from "./common.js";
import { chatMembers, startChat } from "./chat.js";
import { renderLeague } from "./league.js";
import { nameWithMark } from "./names.js";

const $ = (id) => document.getElementById(id);
const path = `/api/groups/${encodeURIComponent(page.group)}`;
let detail = null;

const guarded = (action) => async () => {
  try {
    await action();
  } catch (error) {
    $("group-error").textContent = errorText(error);
  }
};

function render() {
  const { group, members, league } = detail;
  $("group-name").textContent = group.name;
  document.title = `${group.name} · nimmt`;
  renderLeague($("league-table"), $("league-none"), league, detail.you);
  $("form-figure").hidden = league.games === 0;
  $("form-chart").src = `${path}/form.svg?lang=${encodeURIComponent(lang)}`;
  $("form-chart").alt = `${t("form_heading")}: ${t("form_axis")}`;
  $("invite-open").hidden = !group.invite_open;
  $("invite-closed").hidden = group.invite_open;
  if (group.invite_open) {
    $("invite-qr").src = group.invite_qr;
    $("invite-qr").alt = group.invite_url;
    $("invite-link").href = group.invite_url;
    $("invite-link").textContent = group.invite_url;
  }
  $("host-actions").hidden = !group.host;
  $("invite-toggle").textContent = t(group.invite_open ? "group_invite_close" : "group_invite_open");
  $("members-list").replaceChildren(...members.map((member) => el("li", { "data-player": member.id },
    nameWithMark(member.name || t("former_player"), detail.marks[member.id]), member.host ? ` (${t("group_host")})` : "",
    group.host && !member.host ? el("span", {}, " ", removeButton(member)) : "")));
  $("members-alike").hidden = !Object.keys(detail.marks).length;
  $("screen-link").href = group.screen_url;
  $("table-link").href = `/?group=${encodeURIComponent(group.id)}&lang=${encodeURIComponent(lang)}`;
  for (const id of ["league", "invite", "members"]) $(id).hidden = false;
}

/** The host's button beside a member: removes them (their games stay in the league). */
function removeButton(member) {
  const name = member.name || t("former_player");
  return el("button", { type: "button", class: "small", onclick: guarded(async () => {
    if (!window.confirm(t("group_remove_confirm", { name }))) return;
    await api("DELETE", `${path}/members/${encodeURIComponent(member.id)}`);
    announce(t("group_removed", { name }));
    await load();
  }) }, t("group_remove"));
}

async function load() {
  const first = detail === null;
  detail = await api("GET", path);
  render();
  if (first) startChat(path, detail.group.id, detail.you);
  chatMembers(detail.members, detail.marks);
}

$("invite-toggle").addEventListener("click", guarded(async () => {
  await api("PATCH", `${path}/invite`, { open: !detail.group.invite_open });
  await load();
}));
$("invite-renew").addEventListener("click", guarded(async () => {
  await api("PATCH", `${path}/invite`, { open: true, renew: true });
  await load();
}));
$("group-leave").addEventListener("click", guarded(async () => {
  if (!window.confirm(t("group_leave_confirm"))) return;
  await api("POST", `${path}/leave`, {});
  announce(t("group_leave"));
  window.location.assign("/me");
}));

guarded(load)();
