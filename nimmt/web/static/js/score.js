// The score sheet for a table playing with real cards: the server keeps the rules, we keep the sheet.
import { api, el, errorText, headsLabel, isolateName, listFormat, t } from "./common.js";
import { offerGroups } from "./sheet-group.js";

const $ = (id) => document.getElementById(id);
const key = "nimmt:scoresheet";
let sheet = JSON.parse(localStorage.getItem(key) || "null");

function save(next) {
  sheet = next;
  if (sheet) localStorage.setItem(key, JSON.stringify(sheet));
  else localStorage.removeItem(key);
  render();
}

function render() {
  offerGroups(sheet);
  $("sheet-new").hidden = !!sheet;
  $("sheet").hidden = !sheet;
  $("sheet-error").textContent = "";
  if (!sheet) return;
  const players = sheet.players;
  const countdown = sheet.countdown;
  const head = el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("col_round")),
    players.map((name) => el("th", { scope: "col" }, isolateName(name)))));
  const rows = sheet.rounds.map((penalties, r) => el("tr", {}, el("th", { scope: "row" }, String(r + 1)),
    penalties.map((p) => el("td", {}, String(p)))));
  const entry = sheet.finished ? [] : [el("tr", { class: "entry" },
    el("th", { scope: "row" }, String(sheet.rounds.length + 1)),
    players.map((name, i) => el("td", {}, el("input", {
      type: "number", min: "0", max: "171", inputmode: "numeric", id: `penalty-${i}`,
      "aria-label": t("score_penalty_of", { name, round: sheet.rounds.length + 1 }),
    }))))];
  const totals = el("tr", { class: "total" }, el("th", { scope: "row" }, t("col_total")),
    sheet.totals.map((total) => el("td", {}, String(total))));
  const left = el("tr", { class: "total" }, el("th", { scope: "row" }, t("col_left")),
    countdown.map((value) => el("td", {}, String(value))));
  $("sheet-table").replaceChildren(head, el("tbody", {}, rows, entry, totals, left));
  $("sheet-add").hidden = sheet.finished;
  $("sheet-undo").disabled = sheet.rounds.length === 0;
  if (sheet.finished) {
    const names = sheet.winners.map((i) => players[i]);
    const low = headsLabel(sheet.totals[sheet.winners[0]]);
    $("sheet-status").textContent = `${t("score_over")} ${names.length > 1
      ? t("winners_shared", { names: listFormat(names) }) : t("winner_one", { name: names[0] })} (${low})`;
  } else {
    $("sheet-status").textContent = t("score_next_round", { round: sheet.rounds.length + 1 });
  }
}

$("sheet-new").addEventListener("submit", async (event) => {
  event.preventDefault();
  const players = $("sheet-players").value.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
  const rounds = $("sheet-rounds").value ? Number($("sheet-rounds").value) : null;
  try {
    save(await api("POST", "/api/scoresheet", {
      players, end_above: Number($("sheet-end-above").value || 66), rounds,
    }));
    const first = $("penalty-0");
    if (first) first.focus();
  } catch (error) {
    $("sheet-error").textContent = errorText(error);
  }
});

let busy = false;

$("sheet-round").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (busy) return;  // one round at a time: a double press adds nothing twice
  const values = sheet.players.map((_, i) => $(`penalty-${i}`).value.trim());
  const missing = values.findIndex((v) => !/^\d+$/.test(v));
  if (missing >= 0) {
    $("sheet-error").textContent = t("error_sheet_penalty_of", { name: sheet.players[missing] });
    $(`penalty-${missing}`).focus();
    return;
  }
  busy = true;
  try {
    save(await api("POST", "/api/scoresheet/round", { sheet, penalties: values.map(Number) }));
    const first = $("penalty-0");
    if (first) first.focus();
  } catch (error) {
    $("sheet-error").textContent = errorText(error);
  } finally {
    busy = false;
  }
});

$("sheet-undo").addEventListener("click", async () => {
  try {
    save(await api("POST", "/api/scoresheet/undo", { sheet }));
  } catch (error) {
    $("sheet-error").textContent = errorText(error);
  }
});

$("sheet-reset").addEventListener("click", () => {
  if (window.confirm(t("score_reset_confirm"))) save(null);
});

render();
