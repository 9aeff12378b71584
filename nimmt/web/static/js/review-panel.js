// The table's last screen: each player's accuracy in the game just over, and their costliest
// decision, one tap from its place in the replay. It follows the screen's replay link (which names
// the table and the game) and asks the server for the game's review; nothing else of the table.
import { el, t } from "./common.js";
import { accuracyScore, decisionHash, fetchReview, headsAmount, marksText, pendingText } from "./review.js";

const $ = (id) => document.getElementById(id);
let shown = "";

async function follow() {
  const link = $("replay-link");
  const over = $("over");
  const panel = $("review-summary");
  const where = /^\/replay\/([^/]+)\/(\d+)$/.exec(link ? link.getAttribute("href") || "" : "");
  if (!panel || !over || over.hidden || !where || shown === where[0]) return;
  shown = where[0];
  const [replay, table, game] = where;
  panel.hidden = false;
  const status = $("review-summary-status");
  const list = $("review-summary-list");
  list.replaceChildren();
  status.textContent = "";
  const review = await fetchReview(`/api/tables/${table}/games/${game}/review`, (left) => {
    status.textContent = pendingText(left);
  }).catch(() => null);
  if (shown !== replay) return; // another game ended meanwhile
  status.textContent = review ? t("review_accuracy_means") : t("review_unavailable");
  if (!review) return;
  const names = review.players.map((p) => p.name);
  list.replaceChildren(...review.players.map((player) => {
    const worst = player.costliest === null ? null : review.decisions[player.costliest];
    return el("li", {},
      el("strong", {}, t("review_accuracy_line", {
        name: names[review.players.indexOf(player)], accuracy: accuracyScore(player.accuracy, player.accuracy_margin),
      })),
      el("span", { class: "marks" }, marksText(player.marks)),
      worst ? el("span", { class: "costliest" }, el("span", { class: "label" }, t("review_col_costliest")), " ",
        el("a", { href: `${replay}${decisionHash(player.costliest)}` },
          t("review_costliest", { round: worst.round, turn: worst.turn, loss: headsAmount(worst.loss) }))) : null);
  }));
}

const watch = new MutationObserver(() => { follow(); });
["over", "replay-link"].forEach((id) => {
  const node = $(id);
  if (node) watch.observe(node, { attributes: true, attributeFilter: ["hidden", "href"] });
});
follow();
