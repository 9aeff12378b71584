// The automatic start of a waiting table (quick match's): "Starts in 0:42", counted down on this page
// from the seconds the server last said (its clock decides when the table starts; this page only
// shows it). The digits keep one width, so nothing moves as they change.
import { t } from "./common.js";

let due = null; // when the table starts (performance.now()), as the last state said
let ticking = null;
let waits = null; // what the table waits for besides its time (table.start_waits)

/** "0:42", "1:00": minutes and seconds, rounded up (a second still left shows as 0:01). */
export function minutesSeconds(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function draw() {
  const line = document.getElementById("start-in");
  if (!line || due === null) return;
  const left = (due - performance.now()) / 1000;
  // Nobody seated is here: once due it still waits (the server says so), it is not "starting".
  const text = left > 0 ? t("start_in", { time: minutesSeconds(left) }) : t(waits ? "start_in_waits" : "start_in_due");
  if (line.textContent !== text) line.textContent = text;
}

/** After each state: the countdown of a table that starts by itself, or none. */
export function updateStartClock(message) {
  const table = message.table;
  const left = table.status === "lobby" ? table.start_left : null;
  const box = document.getElementById("start-countdown");
  if (!box) return;
  box.hidden = left === null || left === undefined;
  if (box.hidden) {
    due = null;
    if (ticking) clearInterval(ticking);
    ticking = null;
    return;
  }
  due = performance.now() + left * 1000;
  waits = table.start_waits || null;
  draw();
  if (!ticking) ticking = setInterval(draw, 250);
}
