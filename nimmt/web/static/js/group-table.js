// A table made from a group's page ("New table for the group", /?group=<id>): before anything is
// created, the page says which group the table is for (its games count in that group's league),
// or that the link is for a group this person is not in.
import { api, el, t } from "./common.js";

const group = new URLSearchParams(location.search).get("group");

async function sayWhichGroup() {
  const note = el("p", { id: "group-table-note", class: "card-panel group-table-note", role: "status" });
  document.querySelector("main h1").after(note);
  try {
    const detail = await api("GET", `/api/groups/${encodeURIComponent(group)}`);
    note.replaceChildren(t("group_table_note", { name: detail.group.name }), " ",
      el("a", { href: `/groups/${encodeURIComponent(group)}` }, t("group_table_back")));
  } catch {
    note.classList.add("error");
    note.textContent = t("group_table_refused");
  }
}

if (group) sayWhichGroup();
