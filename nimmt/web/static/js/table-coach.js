// The coach: numbers for this person's own decision; it never chooses or plays anything.
import { announce, cardElement, el, lang, rowName, t } from "./common.js";
import {
  $, bullheadsOf, decisionKey, decisionsOpen, legalCards, legalRows, live, seated, send, spectator,
} from "./table-live.js";

// The question on its way ({ ref, key }) and the decision the advice shown is about.
let adviceAsked = null;
let adviceShown = null;

// A new connection: a question asked on the old one is answered on none.
export function forgetAdvice() {
  adviceAsked = null;
}

// The server refused the message ``ref``: if it was the question, the panel goes.
export function adviceRefused(ref) {
  if (adviceAsked && ref === adviceAsked.ref) {
    adviceAsked = null;
    hideAdvice();
  }
}

export function renderCoach(message) {
  const table = message.table;
  const on = !!table.options.coach && !spectator && seated(message) && table.status === "playing" && decisionsOpen();
  const key = on ? decisionKey(message) : "";
  $("advice-cards-box").hidden = !(key && legalCards(message).length);
  $("advice-rows-box").hidden = !(key && legalRows(message).length);
  // Advice is about one decision: once that decision is made (or the table moved on), it goes.
  if (adviceShown !== null && adviceShown !== key) hideAdvice();
  if (adviceAsked && adviceAsked.key !== key) adviceAsked = null;
  $("advice-cards").disabled = !!adviceAsked;
  $("advice-rows").disabled = !!adviceAsked;
}

export function askAdvice() {
  if (!live.state || adviceAsked) return;
  const key = decisionKey(live.state);
  const ref = send({ type: "advice" });
  if (!ref) return;
  adviceAsked = { ref, key };
  const rows = !!legalRows(live.state).length;
  $("advice").classList.toggle("for-rows", rows);
  $("advice").classList.toggle("for-cards", !rows);
  $("advice-cards").disabled = true;
  $("advice-rows").disabled = true;
  $("advice-table").replaceChildren();
  adviceLegend().replaceChildren();
  $("advice-note").textContent = "";
  $("advice-working").textContent = t("advice_working");
  $("advice").hidden = false;
}

export function hideAdvice() {
  adviceShown = null;
  $("advice").hidden = true;
  $("advice-table").replaceChildren();
  adviceLegend().replaceChildren();
  $("advice-working").textContent = "";
  $("advice-cards").disabled = false;
  $("advice-rows").disabled = false;
}

// The legend of the short labels a narrow panel shows beside each number (app.css: the advice
// container): made here, under the table, the first time it is needed.
function adviceLegend() {
  let legend = $("advice-legend");
  if (!legend) {
    legend = el("dl", { id: "advice-legend", class: "advice-legend" });
    $("advice-note").before(legend);
  }
  return legend;
}

const decimals = (digits) => new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits });
const percent = new Intl.NumberFormat(lang, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });
const wholePercent = new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 });
const estimate = (mean, stderr) => `${decimals(1).format(mean)} ± ${decimals(1).format(stderr)}`;

// One number of the advice: its short label (seen on a narrow panel, where the headings are not;
// a screen reader has the full heading instead), then the number itself.
function adviceCell(kind, short, ...value) {
  return el("td", { role: "cell", class: kind },
    short ? el("span", { class: "short", "aria-hidden": "true" }, short) : null, short ? " " : null,
    el("span", { class: "value" }, ...value));
}

export function showAdvice(answer) {
  if (!adviceAsked || answer.ref !== adviceAsked.ref || !live.state || decisionKey(live.state) !== adviceAsked.key) return;
  adviceShown = adviceAsked.key;
  adviceAsked = null;
  $("advice-cards").disabled = false;
  $("advice-rows").disabled = false;
  // Explicit roles: a narrow panel lays the table out as blocks (app.css), which must not cost a
  // screen reader its table.
  // A heading holds its short label too: a narrow panel shows that one for a row choice.
  const head = (...names) => el("thead", { role: "rowgroup" }, el("tr", { role: "row" }, names.map(([kind, name, short]) =>
    el("th", { scope: "col", role: "columnheader", class: kind }, el("span", { class: "full" }, name),
      short ? el("span", { class: "short", "aria-hidden": "true" }, short) : null))));
  const row = (attrs, ...cells) => el("tr", { role: "row", ...attrs }, ...cells);
  // The learned network's second opinion, beside the simulated numbers (absent from a server
  // without NumPy). An expected number of bullheads is never below 0, though the network's may be.
  const known = (value) => value !== null && value !== undefined;
  let caption, columns, body, notes, legend;
  if (answer.kind === "cards") {
    const net = answer.cards.every((c) => known(c.net_bullheads) && known(c.net_chance));
    caption = t("advice_cards_caption");
    columns = head(["card-name", t("advice_col_card")], ["where", t("advice_col_goes_to")],
      ["take", t("advice_col_take_chance")], ["turn", t("advice_col_turn")], ["round", t("advice_col_round")],
      ...(net ? [["net", t("advice_col_net_cards")]] : []));
    body = answer.cards.map((c) => {
      const sampled = c.exact ? "" : "≈";
      return row({ "data-card": c.card },
        el("th", { scope: "row", role: "rowheader" }, cardElement(c.card, bullheadsOf(c.card), "small")),
        c.row === null ? el("td", { role: "cell", class: "where below" }, el("span", { class: "full" }, t("advice_below_all")),
          el("span", { class: "short", "aria-hidden": "true" }, t("advice_short_below")))
          : adviceCell("where", "", rowName(c.row)),
        adviceCell("take", t("advice_short_take"), sampled + percent.format(c.take_chance)),
        adviceCell("turn", t("advice_short_now"), sampled + decimals(2).format(c.turn_bullheads)),
        adviceCell("round", t("advice_short_round"), estimate(c.round_bullheads, c.round_stderr)),
        ...(net ? [adviceCell("net", t("advice_short_net"),
          el("span", { class: "net-bullheads" }, decimals(1).format(Math.max(0, c.net_bullheads))), " · ",
          el("span", { class: "net-best" }, t("advice_short_best")), " ",
          el("span", { class: "net-chance" }, wholePercent.format(c.net_chance)))] : []));
    });
    legend = [...(answer.cards.some((c) => c.row === null) ? [["advice_short_below", "advice_legend_below"]] : []),
      ["advice_short_take", "advice_legend_take"], ["advice_short_now", "advice_legend_turn"],
      ["advice_short_round", "advice_legend_round"], ...(net ? [["advice_short_net", "advice_legend_net_cards"]] : [])];
    notes = [answer.cards.every((c) => c.exact) ? "" : t("advice_sampled", { samples: answer.samples }),
      t("advice_cards_note", { samples: answer.samples }), net ? t("advice_net_note") : ""];
  } else {
    const net = answer.rows.every((r) => known(r.net_total));
    caption = t("advice_rows_caption", { card: answer.card });
    columns = head(["row-name", t("advice_col_row"), t("advice_col_row")],
      ["now", t("advice_col_now"), t("advice_short_now")], ["later", t("advice_col_later"), t("advice_short_later")],
      ["total", t("advice_col_total"), t("advice_short_total")],
      ...(net ? [["net", t("advice_col_net_total"), t("advice_short_net")]] : []));
    body = answer.rows.map((r) => row({ "data-row": r.row },
      el("th", { scope: "row", role: "rowheader" }, rowName(r.row)),
      adviceCell("now", t("advice_short_now"), String(r.now)),
      adviceCell("later", t("advice_short_later"), estimate(r.later, r.later_stderr)),
      adviceCell("total", t("advice_short_total"), decimals(1).format(r.total)),
      ...(net ? [adviceCell("net", t("advice_short_net"), decimals(1).format(Math.max(r.now, r.net_total)))] : [])));
    legend = [["advice_short_now", "advice_legend_now"], ["advice_short_later", "advice_legend_later"],
      ["advice_short_total", "advice_legend_total"], ...(net ? [["advice_short_net", "advice_legend_net_rows"]] : [])];
    notes = [t("advice_rows_note", { samples: answer.samples }), net ? t("advice_net_note") : ""];
  }
  $("advice-table").setAttribute("role", "table");
  $("advice-table").replaceChildren(el("caption", {}, caption), columns, el("tbody", { role: "rowgroup" }, body));
  adviceLegend().replaceChildren(...legend.flatMap(([short, long]) =>
    [el("dt", {}, t(short)), el("dd", {}, t(long))]));
  if (answer.quick) notes.unshift(t("advice_quick", { samples: answer.samples }));  // workers still warming up
  $("advice-note").textContent = notes.filter(Boolean).join(" ");
  $("advice-working").textContent = "";
  $("advice").hidden = false;
  announce(t("advice_ready"));
}
