// The puzzle of the day on the home page (nimmt/puzzles.py, one a UTC day): a position from a real
// game, the person's choice, then the review's numbers for every option. The server sends the
// puzzle and its answer; this page only shows them.
import { cardElement, cardFace, cardLabel, el, page, renderRows, rowName, t } from "./common.js";
import { headsAmount } from "./review.js"; // bullheads with a decimal, agreed as the language does

const $ = (id) => document.getElementById(id);
const puzzle = page.puzzle;
const heads = (card) => puzzle.bullheads[card];
const one = (x) => x.toLocaleString(page.lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const optionName = (option) => (puzzle.kind === "row" ? rowName(option) : String(option));

function answer(chosen) {
  const values = new Map(puzzle.options.map(([option, expected]) => [option, expected]));
  const best = puzzle.best;
  $("daily-options").querySelectorAll("button").forEach((button) => {
    button.disabled = true;
    button.setAttribute("aria-pressed", String(Number(button.dataset.option) === chosen));
  });
  $("daily-verdict").textContent = chosen === best ? t("daily_right", { best: optionName(best) })
    : t("daily_wrong", { chosen: optionName(chosen), best: optionName(best),
      loss: headsAmount(values.get(chosen) - values.get(best)) });
  const ranked = [...puzzle.options].sort((a, b) => a[1] - b[1]);
  $("daily-table").tBodies[0].replaceChildren(...ranked.map(([option, expected, error]) => el("tr", {
    class: [option === best ? "best" : "", option === chosen ? "chosen" : ""].join(" ").trim(), "data-option": option,
  },
  el("th", { scope: "row" }, optionName(option)),
  el("td", {}, headsAmount(expected), el("small", { class: "margin" }, t("review_margin", { error: one(error) }))),
  el("td", {}, [option === best ? t("daily_best") : "", option === chosen ? t("daily_yours") : ""].filter(Boolean).join(", ")))));
  $("daily-answer").hidden = false;
}

function show() {
  $("daily-setup").textContent = t("daily_setup", { players: puzzle.players, round: puzzle.round, turn: puzzle.turn });
  renderRows($("daily-rows"), puzzle.rows, heads);
  $("daily-public").textContent = puzzle.public.length ? t("daily_public", { cards: puzzle.public.join(", ") }) : "";
  // A row to choose: the hand is not the question, but the cards still to play weigh on the answer.
  $("daily-hand").hidden = puzzle.kind !== "row";
  $("daily-hand-cards").replaceChildren(...puzzle.hand.map((card) => el("li", {}, cardElement(card, heads(card), "small"))));
  $("daily-ask").textContent = puzzle.kind === "row" ? t("daily_ask_row", { card: puzzle.card }) : t("daily_ask_card");
  const options = puzzle.options.map(([option]) => option).sort((a, b) => a - b);
  $("daily-options").classList.toggle("for-rows", puzzle.kind === "row");
  $("daily-options").replaceChildren(...options.map((option) => el("li", {}, el("button", {
    type: "button", class: puzzle.kind === "row" ? "row-option" : `card heads-bg-${heads(option)}`, "data-option": option,
    "aria-label": puzzle.kind === "row" ? optionName(option) : cardLabel(option, heads(option)),
    onclick: () => answer(option),
  }, puzzle.kind === "row" ? optionName(option) : cardFace(option, heads(option))))));
}

if (puzzle && $("daily")) show();
