// The review of a finished game, as the server made it (docs/review.md): each player's accuracy,
// a chart of the bullheads each lost to the best options through the game, and every decision of a
// turn with its options. It shows the server's numbers; it computes nothing about the game.
import { cardElement, el, has, headsLabel, isolateName, lang, listFormat, svgElement, t, tp } from "./common.js";

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
  "#7f7f00", "#555555"];
const SHAPES = ["circle", "square", "diamond", "triangle"];
const POLL_SECONDS = 3; // the longest wait between two asks while the review is being made
const POLL_SOONEST = 0.3; // the shortest: a review due in a moment is on screen within a third of a second
const SAY_SECONDS = 5; // from this many seconds left the wait is told in seconds
const POLL_MOST = 1200; // seconds of asking before the page gives up

const decimals = (digits) => new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits });
export const one = (value) => decimals(1).format(value);
export const whole = (value) => decimals(0).format(value);

/** Bullheads with one decimal, written and agreed as the language does: "18,0 cabeças de boi",
 * "1,0 cabeça de boi" (pt-BR), "1.0 bullheads" (en): the plural form is chosen for the number as
 * shown, with its decimal (Intl.PluralRules, CLDR's rules, as Babel's on the server). */
export function headsAmount(value, digits = 1) {
  const options = { minimumFractionDigits: digits, maximumFractionDigits: digits };
  let form = "other";
  try {
    form = new Intl.PluralRules(lang, options).select(Number(Number(value).toFixed(digits)));
  } catch {
    // no plural rules in this browser: the general form
  }
  return t(has(`bullheads.${form}`) ? `bullheads.${form}` : "bullheads.other", { count: decimals(digits).format(value) });
}

/** An accuracy as a score out of 100 ("87 out of 100"), or a dash when there was no decision to judge. */
/** How sure one game's accuracy is (issue 29): its 95 % margin over the player's decisions, in words ("give
 * or take 11"), or null when the review gives none. */
export const accuracyMargin = (margin) => (margin === null || margin === undefined ? null
  : t("review_margin", { error: whole(margin) }));

export const accuracyScore = (accuracy, margin = null) => {
  if (accuracy === null || accuracy === undefined) return "–";
  const score = t("review_accuracy_score", { accuracy: whole(accuracy) });
  const sure = accuracyMargin(margin);
  return sure === null ? score : `${score}, ${sure}`;
};

/** A player's marks, each count with its own words: "2 inaccuracies, 1 mistake, 0 blunders". */
export const marksText = (marks) => listFormat(["inaccuracy", "mistake", "blunder"]
  .map((mark) => tp(`review_count_${mark}`, marks[mark] || 0)));

/** The review at ``url``, asking again while the server is still making it (202: as soon as its
 * ``seconds`` say it may be ready, every 0.3 s to 3 s) or preparing its bots (503 with Retry-After: a
 * first run, the review comes once they are ready); null when there is none. ``onPending(seconds)``
 * hears each wait, with the server's estimate of the seconds left (null when it gave none). */
export async function fetchReview(url, onPending) {
  const until = Date.now() + POLL_MOST * 1000;
  while (Date.now() < until) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    if (response.status === 200) return (await response.json()).review;
    const later = response.status === 503 ? Number(response.headers.get("Retry-After")) : 0;
    if (response.status !== 202 && !(later > 0)) return null;
    const left = response.status === 202 ? Number((await response.json().catch(() => ({}))).seconds) : NaN;
    onPending(Number.isFinite(left) ? left : null);
    const wait = later > 0 ? Math.min(later, 60)
      : Math.min(Math.max(Number.isFinite(left) ? left / 2 : POLL_SECONDS, POLL_SOONEST), POLL_SECONDS);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
  return null;
}

/** What the page says while the review is being made: "in a moment", or, from :data:`SAY_SECONDS` left
 * (a busy server), about how many seconds (the server's estimate, ``left``). */
export const pendingText = (left) => (left !== null && left >= SAY_SECONDS
  ? tp("review_pending_seconds", Math.round(left)) : t("review_pending"));

/** A decision's place on the replay page (its index in the review's decisions). */
export const decisionHash = (index) => `#decision-${index}`;

// Styles through the CSSOM: the page's policy (style-src 'self') refuses style attributes.
function styled(node, props) {
  Object.assign(node.style, props);
  return node;
}

const swatch = (seat) => styled(el("span", { class: "swatch", "aria-hidden": "true" }), { background: COLOURS[seat % 10] });

function lost(decision) {
  return decision.forced ? 0 : decision.loss;
}

/** Each player's accuracy, marks and costliest decision (a link that ``onPick(index)`` follows). */
export function accuracyTable(review, names, onPick) {
  return el("ul", { class: "review-players" }, review.players.map((player) => {
    const worst = player.costliest === null ? null : review.decisions[player.costliest];
    const link = worst === null ? t("review_none") : el("a", {
      href: decisionHash(player.costliest),
      onclick: onPick ? (event) => { event.preventDefault(); onPick(player.costliest); } : null,
    }, t("review_costliest", { round: worst.round, turn: worst.turn, loss: headsAmount(worst.loss) }));
    return el("li", {},
      el("p", { class: "who" }, swatch(player.player), " ", el("strong", {}, isolateName(names[player.player])),
        el("span", { class: "accuracy-box" }, el("span", { class: "label" }, t("review_col_accuracy")), " ",
          el("span", { class: "accuracy" }, accuracyScore(player.accuracy)),
          player.accuracy_margin === null || player.accuracy_margin === undefined ? null
            : el("small", { class: "margin" }, accuracyMargin(player.accuracy_margin)))),
      el("p", { class: "marks" }, marksText(player.marks)),
      el("p", {}, el("span", { class: "label" }, t("review_col_costliest")), " ", link));
  }));
}

/** Each player's loss added up decision by decision, over the turns of the game (``turns``: the
 * replay's list of {round, turn}); a tap anywhere picks the nearest turn: ``onTurn(index)``. */
export function lossChart(review, names, turns, onTurn, captionId) {
  const place = new Map(turns.map((turn, i) => [`${turn.round}:${turn.turn}`, i]));
  const seats = review.players.map((p) => p.player);
  const sums = new Map(seats.map((seat) => [seat, new Array(turns.length).fill(0)]));
  const marks = [];
  review.decisions.forEach((decision) => {
    const at = place.get(`${decision.round}:${decision.turn}`);
    const line = sums.get(decision.player);
    if (at === undefined || !line) return;
    for (let i = at; i < line.length; i += 1) line[i] += lost(decision);
    if (decision.mark) marks.push({ seat: decision.player, at, mark: decision.mark });
  });
  const top = Math.max(2, ...[...sums.values()].map((line) => line[line.length - 1] || 0));
  const W = 360, H = 210, left = 30, right = 70, bottom = 22, topPad = 8;
  const x = (i) => left + ((i + 1) * (W - left - right)) / turns.length;
  const y = (v) => topPad + (H - topPad - bottom) * (1 - v / top);
  const svg = svgElement("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": `${captionId} review-chart-desc` });
  svg.append(svgElement("desc", { id: "review-chart-desc" }, seats.map((seat) => t("review_chart_line", {
    name: names[seat], loss: headsAmount(sums.get(seat)[turns.length - 1] || 0) })).join(" ")));
  svg.append(svgElement("line", { class: "axis", x1: left, y1: y(0), x2: W - right, y2: y(0) }));
  svg.append(svgElement("line", { class: "axis", x1: left, y1: y(0), x2: left, y2: topPad }));
  svg.append(svgElement("text", { class: "label", x: left - 4, y: y(0) + 4, "text-anchor": "end" }, "0"));
  svg.append(svgElement("text", { class: "label", x: left - 4, y: y(top) + 8, "text-anchor": "end" }, whole(top)));
  // A tick at each round's first turn, with the round's number.
  turns.forEach((turn, i) => {
    if (turn.turn !== 1) return;
    svg.append(svgElement("line", { class: "axis", x1: x(i) - (x(0) - left), y1: y(0), x2: x(i) - (x(0) - left), y2: y(0) + 4 }));
    svg.append(svgElement("text", { class: "label", x: x(i) - (x(0) - left) + 2, y: H - 6 }, String(turn.round)));
  });
  const cursor = svgElement("line", { class: "cursor", x1: x(0), y1: topPad, x2: x(0), y2: y(0) });
  svg.append(cursor);
  const ends = [];
  seats.forEach((seat, k) => {
    const colour = COLOURS[seat % COLOURS.length];
    const line = sums.get(seat);
    const points = [`${left},${y(0)}`, ...line.map((v, i) => `${x(i)},${y(v)}`)].join(" ");
    svg.append(svgElement("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2.2,
      "stroke-dasharray": k % 2 ? "6 3" : "none" }));
    ends.push({ seat, y: y(line[line.length - 1] || 0), colour });
  });
  marks.forEach(({ seat, at, mark }) => {
    const colour = COLOURS[seat % COLOURS.length];
    const r = mark === "blunder" ? 4.5 : mark === "mistake" ? 3.5 : 2.5;
    const cy = y(sums.get(seat)[at]);
    const shape = SHAPES[seats.indexOf(seat) % SHAPES.length];
    if (shape === "circle") svg.append(svgElement("circle", { cx: x(at), cy, r, fill: colour, class: `mark ${mark}` }));
    else {
      const pts = shape === "square" ? [[-r, -r], [r, -r], [r, r], [-r, r]]
        : shape === "diamond" ? [[0, -r * 1.3], [r * 1.3, 0], [0, r * 1.3], [-r * 1.3, 0]]
          : [[0, -r * 1.3], [r * 1.2, r], [-r * 1.2, r]];
      svg.append(svgElement("polygon", { points: pts.map(([a, b]) => `${x(at) + a},${cy + b}`).join(" "), fill: colour,
        class: `mark ${mark}` }));
    }
  });
  ends.sort((a, b) => a.y - b.y);
  let last = -Infinity;
  ends.forEach((end) => {
    const at = Math.max(end.y + 4, last + 11);
    last = at;
    svg.append(svgElement("text", { class: "name", x: W - right + 4, y: at, fill: end.colour }, isolateName(String(names[end.seat]).slice(0, 10))));
  });
  svg.addEventListener("click", (event) => {
    const box = svg.getBoundingClientRect();
    const at = ((event.clientX - box.left) / box.width) * W;
    const index = Math.round(((at - left) * turns.length) / (W - left - right)) - 1;
    onTurn(Math.max(0, Math.min(turns.length - 1, index)));
  });
  const show = (index) => {
    cursor.setAttribute("x1", x(index));
    cursor.setAttribute("x2", x(index));
  };
  return { svg, show };
}

/** The decisions of one turn: who chose what, how it compares with the best, every option. */
export function turnDecisions(review, names, round, turn, bullheads, open = null) {
  const here = review.decisions.map((d, index) => ({ d, index })).filter(({ d }) => d.round === round && d.turn === turn);
  return here.map(({ d, index }) => {
    const best = d.options.find((o) => o.option === d.best);
    const chosen = d.options.find((o) => o.chosen);
    const label = (option) => (d.kind === "row" ? t("review_option_row", { row: option + 1 }) : String(option));
    const what = d.kind === "row" ? t("review_took_row", { name: names[d.player], row: d.chosen + 1, card: d.card })
      : t("review_played", { name: names[d.player], card: d.chosen });
    const verdict = d.forced ? t("review_forced") : chosen.option === best.option ? t("review_best")
      : d.loss <= 2 * chosen.loss_stderr ? t("review_noise")
        : t("review_lost", { loss: headsAmount(d.loss), best: label(best.option) });
    const worst = Math.max(...d.options.map((o) => o.expected + o.stderr), 1);
    const list = el("ol", { class: "review-options" }, [...d.options]
      .sort((a, b) => a.expected - b.expected || a.option - b.option)
      .map((o) => el("li", { class: `${o.chosen ? "chosen" : ""}${o.option === d.best ? " best" : ""}` },
        d.kind === "card" ? cardElement(o.option, bullheads(o.option), "small") : el("span", { class: "row-label" }, label(o.option)),
        el("span", { class: "bar", "aria-hidden": "true" },
          styled(el("span", { class: "fill" }), { width: `${(100 * Math.max(0, o.expected)) / worst}%` }),
          styled(el("span", { class: "whisker" }), { left: `${(100 * Math.max(0, o.expected - o.stderr)) / worst}%`,
            width: `${(200 * o.stderr) / worst}%` })),
        el("span", { class: "value" }, headsAmount(o.expected),
          el("small", { class: "margin" }, t("review_margin", { error: one(o.stderr) })),
          o.chosen ? el("strong", { class: "tag" }, t("review_chosen")) : null))));
    const mark = d.mark ? el("span", { class: `review-mark ${d.mark}` }, t(`review_mark_${d.mark}`)) : null;
    return el("details", { class: "review-decision", id: `decision-${index}`, open: open === index || !!d.mark },
      el("summary", {}, swatch(d.player), " ", what, mark ? " " : null, mark),
      el("p", {}, verdict, " ", d.took ? t("review_took", { heads: headsLabel(d.took) }) : ""),
      list);
  });
}
