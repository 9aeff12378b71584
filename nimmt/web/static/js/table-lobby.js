// The table's lobby: who sits where, the bots the host seats, the invitation and Start.
import { el, has, t } from "./common.js";
import { $, nameOf, plainName, send, tableId } from "./table-live.js";

export function renderLobby(table, you) {
  const free = table.seats.filter((s) => !s.taken).length;
  $("lobby-status").textContent = free ? t("lobby_waiting", { count: free }) : t("lobby_full");
  // A table that starts by itself says who may start it sooner, or that it waits for a player (its
  // countdown ticks on its own), and its host's Start stands there, on the first screen.
  const sooner = table.start_waits || table.host === null || table.host === undefined ? t("start_in_note_waits")
    : table.creator ? t("start_in_note_you") : t("start_in_note", { name: nameOf(table.host) });
  if ($("start-note").textContent !== sooner) $("start-note").textContent = sooner;
  placeStart(table.start_left !== null && table.start_left !== undefined);
  // The host seats bots in free seats and takes them off again; Start can fill what is still free.
  const host = !!table.creator;
  // Everything the list is drawn from: a person who just sat down sees "(you)" even when the seats
  // were already drawn with their name from a state sent to everyone.
  const seatsKey = JSON.stringify([table.seats.map((s) => [s.name, s.bot, s.taken, s.replaced]), host, you]);
  if ($("lobby-seats").dataset.key !== seatsKey) {
    $("lobby-seats").dataset.key = seatsKey;
    // The remove button comes first: it floats at the line's end, the name wrapping beside it.
    $("lobby-seats").replaceChildren(...table.seats.map((seat) => el("li", {},
      host && seat.bot && !seat.replaced ? el("button", {
        type: "button", class: "remove-bot", "data-seat": seat.seat,
        "aria-label": t("remove_bot_button", { name: plainName(seat.seat) }),
        onclick: () => send({ type: "remove_bot", seat: seat.seat }),
      }, "✕") : null,
      el("span", { class: "seat-name" },
        seat.taken ? (seat.bot ? t("seat_bot", { name: plainName(seat.seat), bot: botName(seat.bot) }) : nameOf(seat.seat))
          : t("seat_free")))));
  }
  $("lobby-host").hidden = !host || !free;
  $("start-fill").hidden = !free;
  $("invite").hidden = !you;
  const qr = `/api/tables/${encodeURIComponent(tableId)}/invite.svg`;
  if (you && $("invite-qr").getAttribute("src") !== qr) $("invite-qr").setAttribute("src", qr);
  $("start-box").hidden = !table.creator;
  $("start").hidden = free > 0;
  $("start").disabled = free > 0;
}

// The host's Start and bot level: under the countdown of a table that starts by itself, Start first
// (the bot level goes when the seats are full: nothing moves under the finger), else after the invite.
function placeStart(counting) {
  const box = $("start-box");
  if (counting && box.parentElement !== $("start-countdown")) $("start-countdown").append(box, $("lobby-host"));
  if (!counting && box.parentElement !== $("lobby")) $("coach-option").before($("lobby-host"), box);
}

// A bot's short name (a phone's menu shows it whole); its description is its ``bot_`` text.
export function botName(bot) {
  return has(`bot_name_${bot}`) ? t(`bot_name_${bot}`) : bot;
}

