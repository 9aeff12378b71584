// A finished real-deck game saved into one of the person's groups, each name on the sheet matched
// with a member (or somebody else): the game then counts in the group's league (docs/people.md).
import { api, el, errorText, playerKey, t } from "./common.js";
import { nameText } from "./names.js";

const $ = (id) => document.getElementById(id);
let groups = null;
let shown = null; // the sheet the section was made for

async function members(groupId) {
  const detail = await api("GET", `/api/groups/${encodeURIComponent(groupId)}`);
  return { found: detail.members, marks: detail.marks || {} };
}

async function fillSeats(sheet) {
  const { found, marks } = await members($("sheet-group-select").value);
  $("sheet-group-seats").replaceChildren(...sheet.players.map((name, i) => {
    const same = found.find((member) => (member.name || "").toLowerCase() === name.toLowerCase());
    return el("p", {}, el("label", { for: `sheet-seat-${i}` }, t("sheet_seat", { name })), " ",
      el("select", { id: `sheet-seat-${i}` }, el("option", { value: "" }, t("sheet_somebody")),
        found.map((member) => el("option", { value: member.id, selected: same && same.id === member.id },
          nameText(member.name || "–", marks[member.id])))));  // two members named alike: "Ana (2)"
  }));
}

/** Offer the section once the sheet is over and this browser has a player in some group. */
export async function offerGroups(sheet) {
  const box = $("sheet-group");
  if (!sheet || !sheet.finished || !playerKey.get()) {
    box.hidden = true;
    return;
  }
  if (shown === sheet) return;
  shown = sheet;
  try {
    groups = groups || (await api("GET", "/api/me")).groups;
    if (!groups.length) return;
    $("sheet-group-select").replaceChildren(...groups.map((group) => el("option", { value: group.id }, group.name)));
    await fillSeats(sheet);
    $("sheet-group-status").textContent = "";
    $("sheet-group-save").disabled = false;
    box.hidden = false;
    $("sheet-group-select").onchange = () => fillSeats(sheet);
    $("sheet-group-save").onclick = async () => {
      $("sheet-group-save").disabled = true;
      try {
        const players = sheet.players.map((_, i) => $(`sheet-seat-${i}`).value || null);
        await api("POST", `/api/groups/${encodeURIComponent($("sheet-group-select").value)}/sheets`, { sheet, players });
        const group = groups.find((g) => g.id === $("sheet-group-select").value);
        $("sheet-group-status").textContent = t("sheet_saved", { group: group.name });
      } catch (error) {
        $("sheet-group-status").textContent = errorText(error);
        $("sheet-group-save").disabled = false;
      }
    };
  } catch {
    box.hidden = true; // no player any more, or offline: the sheet itself is unchanged
  }
}
