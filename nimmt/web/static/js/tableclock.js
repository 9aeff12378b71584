// The clock of a timed table: the seconds left for the decision awaited, counted down on this page
// from what the server last said (its clock decides; this one only shows it).
import { announce, t } from "./common.js";

let left = null; // { seconds, at (performance.now() when said), mine, name }
let ticking = null;
let ranOut = new Set(); // seats whose clock was at zero in the last state (announced once)

function format(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  if (whole >= 3600) return `${Math.floor(whole / 3600)} h ${String(Math.floor((whole % 3600) / 60)).padStart(2, "0")}`;
  if (whole >= 60) return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  return `${whole} s`;
}

function draw() {
  const box = document.getElementById("clock");
  if (!box) return;
  if (!left) {
    box.hidden = true;
    return;
  }
  const seconds = left.seconds - (performance.now() - left.at) / 1000;
  const time = format(seconds);
  box.hidden = false;
  box.textContent = time;
  box.classList.toggle("mine", left.mine);
  box.classList.toggle("low", seconds <= 10);
  box.title = left.mine ? `${t("clock_yours")}: ${t("clock_left", { time })}` : t("clock_left_label", { name: left.name, time });
  box.setAttribute("aria-label", box.title);
}

/** The clock of the state just shown: this person's own when the table awaits them, else the
 * nearest of the others'. */
export function updateClock(message) {
  // A clock that ran out: nothing is chosen for its person, the table waits (said once, for screen
  // readers; the table's note says it to everyone and offers the others to hand the seat to a bot).
  for (const seat of message.table.seats) {
    if (seat.clock_left === 0 && !ranOut.has(seat.seat)) announce(t("clock_ran_out", { name: seat.name || "" }));
  }
  ranOut = new Set(message.table.seats.filter((seat) => seat.clock_left === 0).map((seat) => seat.seat));
  const seats = message.table.seats.filter((seat) => seat.clock_left !== null && seat.clock_left !== undefined);
  const mine = seats.find((seat) => seat.seat === message.table.you);
  const shown = mine || seats.sort((a, b) => a.clock_left - b.clock_left)[0];
  left = shown ? { seconds: shown.clock_left, at: performance.now(), mine: !!mine, name: shown.name || "" } : null;
  draw();
  if (left && !ticking) ticking = setInterval(draw, 250);
  if (!left && ticking) {
    clearInterval(ticking);
    ticking = null;
  }
}
