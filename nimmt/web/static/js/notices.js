// Notices by Web Push (docs/push.md), on every page: the service worker is registered, and each
// element marked data-notices gets its on/off control: "table" (a turn-based table's page: one
// checkbox for this device) or "me" (My games: this device on or off, group notices, and every
// device of the person, each of which can be turned off from here).
//
// Tests cannot reach a browser's real push service from here: a test may define
// window.nimmtPushSubscribe(key) (Playwright's init script), which stands in for
// pushManager.subscribe and returns { endpoint, keys } of the test's own local endpoint. Nothing
// else is replaced: the permission, the service worker, the server's sending and encryption.
import { api, el, errorText, lang, page, playerKey, t } from "./common.js";

const KEPT = "nimmt:push"; // this device's subscription: { id, endpoint }

const supported = () => "serviceWorker" in navigator && "Notification" in window
  && ("PushManager" in window || typeof window.nimmtPushSubscribe === "function");

const worker = "serviceWorker" in navigator
  ? navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => null)
  : Promise.resolve(null);

function kept() {
  try { return JSON.parse(localStorage.getItem(KEPT) || "null"); } catch { return null; }
}

function keep(value) {
  try {
    if (value) localStorage.setItem(KEPT, JSON.stringify(value));
    else localStorage.removeItem(KEPT);
  } catch { /* storage off: the page asks the server each time */ }
}

function keyBytes(key) {
  const base64 = (key + "=".repeat((4 - (key.length % 4)) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

// The site's key, asked for once a control is shown: the subscription then follows the person's
// tap and the browser's permission with no request in between (Safari wants it so).
let siteKey = null;
const askKey = () => { siteKey = siteKey || api("GET", "/api/push/key").then((answer) => answer.key); return siteKey; };

/** Turn notices on for this device: the permission, the browser's subscription, the server's row. */
async function turnOn(groups) {
  if (!supported()) throw Object.assign(new Error("unsupported"), { text: t("push_unsupported") });
  const keyAsked = askKey();
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw Object.assign(new Error("denied"), { text: t("push_denied") });
  const key = await keyAsked;
  let subscription;
  if (typeof window.nimmtPushSubscribe === "function") {
    subscription = await window.nimmtPushSubscribe(key);
  } else {
    const registration = (await worker) && await navigator.serviceWorker.ready;
    if (!registration) throw Object.assign(new Error("unsupported"), { text: t("push_unsupported") });
    const made = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    subscription = made.toJSON();
  }
  const saved = await api("POST", "/api/me/push", { endpoint: subscription.endpoint, keys: subscription.keys, groups, language: lang });
  keep({ id: saved.id, endpoint: saved.endpoint });
  return saved;
}

/** Turn one device's notices off (this device's: its browser subscription goes too). */
async function turnOff(id) {
  try {
    await api("DELETE", `/api/me/push/${encodeURIComponent(id)}`);
  } catch (error) {
    if (error.code !== "unknown_subscription") throw error;
  }
  const mine = kept();
  if (mine && mine.id === id) {
    keep(null);
    const registration = "serviceWorker" in navigator ? await navigator.serviceWorker.getRegistration("/") : null;
    const subscription = registration && registration.pushManager ? await registration.pushManager.getSubscription() : null;
    if (subscription) await subscription.unsubscribe().catch(() => null);
  }
}

/** The person's devices with notices, and this device's among them (null: off here). */
async function state() {
  const asked = kept();
  const all = await api("GET", "/api/me/push");
  const mine = kept();
  const here = mine ? all.find((sub) => sub.id === mine.id) || null : null;
  // Turned off elsewhere, or its push service said it is gone: forgotten here. Not one turned on
  // while the list was on its way (another control of the page): the list is older than it.
  if (mine && !here && asked && asked.id === mine.id) keep(null);
  return { all, here };
}

function message(box, text, error = false) {
  const line = box.querySelector(".notices-message");
  line.textContent = text || "";
  line.hidden = !text;
  line.classList.toggle("error", Boolean(error));
}

async function mountTable(box) {
  if (page.spectator || !page.table) return;
  const table = await api("GET", `/api/tables/${encodeURIComponent(page.table)}`).catch(() => null);
  if (!table || !table.turn_based) return; // the server says which tables are turn-based
  const id = `notices-${Math.random().toString(36).slice(2, 8)}`;
  const input = el("input", { type: "checkbox", id });
  box.replaceChildren(el("p", { class: "check" }, input, el("label", { for: id }, t("push_table"))),
    el("p", { class: "notices-message help", role: "status", hidden: true }));
  const { here } = await state();
  input.checked = Boolean(here || kept()); // (turned on by another control meanwhile: on)
  box.hidden = false;
  input.addEventListener("change", async () => {
    input.disabled = true;
    try {
      if (input.checked) {
        await turnOn(false);
        message(box, t("push_is_on"));
      } else {
        const mine = kept();
        if (mine) await turnOff(mine.id);
        message(box, "");
      }
    } catch (error) {
      input.checked = Boolean(kept());
      message(box, error.text || errorText(error) || t("push_failed"), true);
    } finally {
      input.disabled = false;
    }
    for (const other of document.querySelectorAll('[data-notices="table"] input')) other.checked = input.checked;
  });
}

const day = (iso) => new Intl.DateTimeFormat(lang, { dateStyle: "medium" }).format(new Date(iso));

async function mountMe(box) {
  const groups = el("input", { type: "checkbox", id: "notices-groups" });
  const toggle = el("button", { type: "button", id: "notices-toggle" });
  const list = el("ul", { class: "plain-list notices-devices", id: "notices-devices" });
  box.replaceChildren(
    el("h2", { id: "notices-heading" }, t("push_heading")),
    el("p", {}, t("push_lead")),
    el("p", { class: "actions" }, toggle),
    el("p", { class: "check" }, groups, el("label", { for: "notices-groups" }, t("push_groups"))),
    el("h3", {}, t("push_devices")),
    list,
    el("p", { class: "notices-message help", role: "status", hidden: true }),
  );
  box.setAttribute("aria-labelledby", "notices-heading");
  const draw = async () => {
    const { all, here } = await state();
    toggle.textContent = here ? t("push_off") : t("push_on");
    toggle.className = here ? "" : "primary";
    groups.checked = here ? here.groups : groups.checked;
    list.replaceChildren(...(all.length ? all.map((sub) => {
      const off = el("button", { type: "button" }, t("push_remove"));
      off.addEventListener("click", () => act(() => turnOff(sub.id)));
      const name = here && sub.id === here.id ? t("push_device_this", { date: day(sub.created_at) })
        : t("push_device", { date: day(sub.created_at) });
      return el("li", {}, el("span", {}, name), " ", off);
    }) : [el("li", {}, t("push_none"))]));
    return here;
  };
  const act = async (work) => {
    toggle.disabled = groups.disabled = true;
    try {
      message(box, (await work()) || "");
    } catch (error) {
      message(box, error.text || errorText(error) || t("push_failed"), true);
    } finally {
      toggle.disabled = groups.disabled = false;
      await draw().catch(() => null);
    }
  };
  toggle.addEventListener("click", () => act(async () => {
    const mine = kept();
    if (mine) return turnOff(mine.id);
    await turnOn(groups.checked);
    return t("push_is_on");
  }));
  groups.addEventListener("change", () => act(async () => {
    const mine = kept();
    if (mine) await api("PATCH", `/api/me/push/${encodeURIComponent(mine.id)}`, { groups: groups.checked });
  }));
  if (!supported()) message(box, t("push_unsupported"));
  await draw();
  box.hidden = false;
}

async function mount() {
  if (!playerKey.get() || !document.querySelector("[data-notices]")) return;
  askKey().catch(() => { siteKey = null; });
  for (const box of document.querySelectorAll("[data-notices]")) {
    try {
      if (box.dataset.notices === "table") await mountTable(box);
      else if (box.dataset.notices === "me") await mountMe(box);
    } catch { /* a server without notices (503), a key it no longer knows: no control */ }
  }
}

mount();
