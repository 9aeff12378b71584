// A group's chat, for its members (docs/people.md): the messages after the last one this page has,
// asked for every few seconds; a form to send one. Muting hides a person's messages on this device
// (kept in the browser like the reactions' mute, never sent).
import { api, el, errorText, keptSet, lang, t, tp } from "./common.js";
import { nameText, nameWithMark } from "./names.js";

const POLL_MS = 4000;
const $ = (id) => document.getElementById(id);

let path = "";
let you = null;
let cursor = null; // the last message's id this page has (null: none asked for yet)
let messages = [];
let mutedKey = "";
let muted = new Set();
let timer = null;
let polling = false; // a poll is under way: it schedules the next one itself
let stopped = false;
let drawn = ""; // what the list shows: redrawn only when it changes (screen readers hear the new ones)

const sameDay = (a, b) => a.toDateString() === b.toDateString();

function when(iso) {
  const date = new Date(iso);
  const options = sameDay(date, new Date()) ? { hour: "2-digit", minute: "2-digit" }
    : { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" };
  return el("time", { datetime: iso }, new Intl.DateTimeFormat(lang, options).format(date));
}

function messageItem(message) {
  return el("li", { class: message.you ? "chat-item mine" : "chat-item", "data-id": message.id,
                    "data-player": message.player },
    el("p", { class: "chat-meta" }, nameWithMark(message.name || t("chat_unnamed"), marks.get(message.player),
      { class: "chat-name" }), " ",
      when(message.sent_at)),
    el("p", { class: "chat-text", dir: "auto" }, message.text));
}

/** Draw the messages not muted here; stay at the bottom if the reader was there. */
function draw() {
  const list = $("chat-list");
  const box = $("chat-box");
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const shown = messages.filter((message) => message.you || !muted.has(message.player));
  const key = shown.map((message) => message.id).join(",");
  if (key !== drawn) {
    const kept = list.children.length <= shown.length && shown.every((message, index) =>
      index >= list.children.length || list.children[index].dataset.id === String(message.id));
    if (kept) list.append(...shown.slice(list.children.length).map(messageItem)); // only the new ones
    else list.replaceChildren(...shown.map(messageItem));
    drawn = key;
  }
  $("chat-none").hidden = messages.length > 0;
  const hidden = messages.length - shown.length;
  $("chat-hidden").hidden = hidden === 0;
  $("chat-hidden").textContent = hidden ? tp("chat_muted_count", hidden) : "";
  if (atBottom) box.scrollTop = box.scrollHeight;
}

let members = []; // the group's members as its page last read them
let marks = new Map(); // member id -> their number, when another member's name looks alike
let mutable = ""; // the mute list as drawn (redrawn only when somebody comes or goes)

/** Anyone else to mute: the group's members, and whoever wrote a message here (a member who left too). */
function drawMuteList() {
  const names = new Map(members.filter((member) => member.id !== you).map((member) => [member.id, member.name]));
  messages.forEach((message) => {
    if (!message.you && !names.has(message.player)) names.set(message.player, message.name);
  });
  const people = [...names];
  const key = JSON.stringify(people);
  if (key === mutable) return;
  mutable = key;
  $("chat-mute").hidden = people.length === 0;
  $("chat-mute-list").replaceChildren(...people.map(([id, name], index) => el("li", { class: "check" },
    el("input", { type: "checkbox", id: `chat-mute-${index}`, checked: muted.has(id), "data-mute": id,
      onchange: (event) => {
        if (event.currentTarget.checked) muted.add(id); else muted.delete(id);
        keptSet.save(mutedKey, muted);
        draw();
      } }),
    el("label", { for: `chat-mute-${index}` }, t("chat_mute", {
      name: nameText(name || t("chat_unnamed"), marks.get(id)) })))));
}

function add(found) {
  const known = new Set(messages.map((message) => message.id));
  messages.push(...found.filter((message) => !known.has(message.id)));
  messages.sort((a, b) => a.id - b.id); // one's own message may come back before an earlier one of another
  messages = messages.slice(-500); // a long evening's chat, not more, in the page
}

async function poll() {
  timer = null;
  if (stopped || polling) return;
  polling = true;
  try {
    let more = true;
    while (more) {
      const query = cursor === null ? "" : `?after=${cursor}`;
      const answer = await api("GET", `${path}/chat${query}`);
      add(answer.messages);
      cursor = answer.cursor;
      more = answer.more;
    }
    draw();
    drawMuteList();
    if ($("chat-error").dataset.offline) $("chat-error").textContent = "";
    delete $("chat-error").dataset.offline;
  } catch (error) {
    if (error.code === "not_member" || error.code === "unknown_group" || error.code === "unknown_key") {
      stopped = true; // left, removed or deleted: nothing more to read
      $("chat-error").textContent = errorText(error);
      return;
    }
    $("chat-error").textContent = t("chat_offline");
    $("chat-error").dataset.offline = "1";
  } finally {
    polling = false;
  }
  schedule();
}

function schedule() {
  if (!stopped && timer === null && !document.hidden) timer = setTimeout(poll, POLL_MS);
}

async function send(event) {
  event.preventDefault();
  const input = $("chat-text");
  const button = $("chat-send");
  button.disabled = true;
  try {
    const message = await api("POST", `${path}/chat`, { text: input.value });
    input.value = ""; // sent: only now is the text let go
    $("chat-error").textContent = "";
    add([message]);
    draw();
    $("chat-box").scrollTop = $("chat-box").scrollHeight;
  } catch (error) {
    $("chat-error").textContent = errorText(error); // the text stays in the box
  } finally {
    button.disabled = false;
    input.focus();
  }
}

/** The chat of the group at ``groupPath`` (``/api/groups/<id>``), for the member ``me``. */
export function startChat(groupPath, groupId, me) {
  path = groupPath;
  you = me;
  mutedKey = `nimmt:chat-muted:${groupId}`;
  muted = keptSet.load(mutedKey);
  $("chat-form").addEventListener("submit", send);
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) {
      clearTimeout(timer);
      timer = null;
    } else if (timer === null && !polling) {
      poll(); // shown again: at once (a poll under way schedules the next itself)
    }
  });
  $("chat").hidden = false;
  poll();
}

/** The group's members, to be muted or not (redrawn when the group is read again), and the numbers
 * that tell apart names that look alike. */
export function chatMembers(found, told = {}) {
  members = found;
  const before = JSON.stringify([...marks]);
  marks = new Map(Object.entries(told)); // members and past writers whose names look alike (the server's)
  if (JSON.stringify([...marks]) !== before) {
    $("chat-list").replaceChildren(); // a name that came to look like another: every message drawn again
    drawn = "";
    draw();
  }
  drawMuteList();
}
