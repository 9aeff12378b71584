// Reactions at the table: a few quick emotes, sent with {"type": "react"} and shown on the sender's
// chip for a moment; any person can mute another on this device (kept in the browser, never sent).
import { announce, el, keptSet, t } from "./common.js";

export const REACTIONS = {
  thumbs_up: "\u{1F44D}", laugh: "\u{1F602}", wow: "\u{1F62E}", grimace: "\u{1F62C}", bull: "\u{1F42E}", clap: "\u{1F44F}",
};
const SHOWN_MS = 3000; // how long a reaction stays on the chip

let sendMessage = () => {};
let mutedKey = "";
let muted = new Set();
let names = [];
let you = null;
let drawn = "";

/** Build the reactions' menu in ``slot``; ``send`` sends a message over the table's socket. */
export function setupReactions(slot, tableId, send) {
  sendMessage = send;
  mutedKey = `nimmt:muted:${tableId}`; // by table and seat: a name is typed per table
  muted = keptSet.load(mutedKey);
  const buttons = Object.entries(REACTIONS).map(([name, emoji]) => el("button", {
    type: "button", class: "react-one", "data-reaction": name, "aria-label": t(`reaction_${name}`),
    title: t(`reaction_${name}`),
    onclick: () => {
      sendMessage({ type: "react", reaction: name });
      slot.querySelector("details").open = false;
    },
  }, emoji));
  slot.replaceChildren(el("details", { class: "menu react", id: "react-menu" },
    el("summary", { title: t("react_button") }, el("span", { "aria-hidden": "true" }, "\u{1F642}"),
      el("span", { class: "visually-hidden" }, t("react_button"))),
    el("div", { class: "menu-panel react-panel", role: "group", "aria-label": t("react_menu_label") },
      el("p", { class: "react-buttons", id: "react-buttons" }, buttons),
      el("ul", { class: "mute-list", id: "mute-list" }))));
}

/** Keep the names and the mute list as the table is now (redrawn only when they change). */
export function updateReactions(table) {
  names = table.seats.map((seat) => seat.name);
  you = table.you ?? null;
  const people = table.seats.filter((seat) => seat.taken && !(seat.bot && !seat.replaced) && seat.seat !== you);
  const key = JSON.stringify([you, people.map((seat) => [seat.seat, seat.name]), [...muted]]);
  const buttons = document.getElementById("react-buttons");
  if (buttons) buttons.hidden = you === null;
  if (key === drawn) return;
  drawn = key;
  const list = document.getElementById("mute-list");
  if (!list) return;
  list.replaceChildren(...people.map((seat) => {
    const id = `mute-${seat.seat}`;
    return el("li", { class: "check" },
      el("input", { type: "checkbox", id, checked: muted.has(seat.seat), "data-mute": seat.seat,
        onchange: (event) => {
          if (event.currentTarget.checked) muted.add(seat.seat); else muted.delete(seat.seat);
          keptSet.save(mutedKey, muted);
        } }),
      el("label", { for: id }, t("mute", { name: seat.name || "" })));
  }));
}

/** A reaction the server passed on: on the sender's chip for a moment, unless muted here. */
export function showReaction(message) {
  if (muted.has(message.seat) || !(message.reaction in REACTIONS)) return;
  const anchor = document.querySelector(`#strip [data-seat="${message.seat}"]`)
    || document.querySelector(`#lobby-seats [data-seat="${message.seat}"]`)
    || document.getElementById("react-menu");
  const name = names[message.seat] || "";
  announce(t("reaction_said", { name, reaction: t(`reaction_${message.reaction}`) }));
  if (!anchor || anchor.closest("[hidden]")) return;
  const where = anchor.getBoundingClientRect();
  const bubble = el("span", {
    class: "reaction-bubble", "aria-hidden": "true", "data-seat": message.seat, "data-reaction": message.reaction,
  }, REACTIONS[message.reaction]);
  // Through the CSSOM: the pages' Content-Security-Policy refuses style attributes.
  bubble.style.left = `${Math.round(where.left + where.width / 2)}px`;
  bubble.style.top = `${Math.round(where.top)}px`;
  document.body.append(bubble);
  setTimeout(() => bubble.remove(), SHOWN_MS);
}
