// The home page: create a table, then go to it with the creator's seat token.
import { api, el, errorText, has, page, t } from "./common.js";

const $ = (id) => document.getElementById(id);
$("create-language").value = page.lang;

function botChoices() {
  const seats = Number($("create-seats").value) || 2;
  const count = Math.max(0, Math.min(Number($("create-bots").value) || 0, seats - 1));
  const box = $("bot-choices");
  const kept = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren(...Array.from({ length: count }, (_, i) => el("p", {},
    el("label", { for: `bot-${i}` }, t("bot_kind", { number: i + 1 })),
    el("select", { id: `bot-${i}`, name: `bot-${i}` },
      page.bots.map((name) => el("option", { value: name, selected: kept[i] === name },
        has(`bot_${name}`) ? t(`bot_${name}`) : name))))));
}
$("create-seats").addEventListener("input", botChoices);
$("create-bots").addEventListener("input", botChoices);
botChoices();

$("create").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = $("create-name").value.trim();
  const seats = Number($("create-seats").value);
  const bots = [...$("bot-choices").querySelectorAll("select")].map((s) => s.value);
  const problem = !name ? ["error_name_missing", "create-name"]
    : !(seats >= 2 && seats <= 10) ? ["error_seats", "create-seats"]
    : bots.length > seats - 1 ? ["error_too_many_bots", "create-bots"] : null;
  if (problem) {
    $("create-error").textContent = t(problem[0], { seats });
    $(problem[1]).focus();
    return;
  }
  const rounds = $("create-rounds").value ? Number($("create-rounds").value) : null;
  try {
    const seat = await api("POST", "/api/tables", {
      name, seats, bots,
      options: {
        end_above: Number($("create-end-above").value || 66), rounds,
        countdown: $("create-countdown").checked, coach: $("create-coach").checked,
      },
      language: $("create-language").value,
    });
    localStorage.setItem(`nimmt:seat:${seat.table_id}`, seat.token);
    location.assign(`/t/${seat.table_id}`);
  } catch (error) {
    $("create-error").textContent = errorText(error);
  }
});
