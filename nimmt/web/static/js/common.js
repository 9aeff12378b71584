// Shared helpers: the page's texts (one language, from the server), cards, and API calls.
const messages = JSON.parse(document.getElementById("i18n").textContent);
export const page = JSON.parse(document.getElementById("page-data").textContent);
export const lang = page.lang;
export { mergePatch } from "./patch.js";

// Characters that turn the direction of the text around them (embeddings, overrides, isolates)...
const DIRECTION_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
// ...and right-to-left letters and numbers (Hebrew, Arabic, Syriac, Thaana, N'Ko... and their marks).
const RIGHT_TO_LEFT = /[\u0590-\u08FF\u200F\uFB1D-\uFDFF\uFE70-\uFEFE\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/** A person's name, safe in any line (UAX #9): its direction controls dropped, and when it holds
 * right-to-left text, isolated (FSI ... PDI) so that the text around it keeps its order. A name
 * of left-to-right text alone cannot move anything in our left-to-right pages and stays as it is. */
export function isolateName(name) {
  const plain = String(name).replace(DIRECTION_CONTROLS, "");
  return RIGHT_TO_LEFT.test(plain) ? `\u2068${plain}\u2069` : plain;
}

/** A text of the page's language with its {placeholders} filled; a {name} is a person's name, put
 * in safely (isolateName). */
export function t(key, params = {}) {
  const text = messages[key];
  if (text === undefined) {
    console.error("missing text", key);
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (_, name) => (!(name in params) ? `{${name}}`
    : name === "name" ? isolateName(params[name]) : String(params[name])));
}

export const has = (key) => key in messages;

// Plural forms by the language's CLDR rules (Babel's on the server; tests/i18n checks that every
// plural text has exactly the forms Babel gives the language, and the browser tests that
// Intl.PluralRules picks them as Babel does).
let plurals = null;
/** A text with a count: ``key.one``, ``key.other``…, the form the page's language uses for ``count``. */
export function tp(key, count, params = {}) {
  try {
    plurals = plurals || new Intl.PluralRules(lang);
  } catch {
    plurals = { select: (n) => (n === 1 ? "one" : "other") };
  }
  const form = `${key}.${plurals.select(count)}`;
  return t(form in messages ? form : `${key}.other`, { count, ...params });
}

/** A text for an error code sent by the server; unknown codes get a general message. */
export function errorText(error) {
  const key = `error_${error.code}`;
  return key in messages ? t(key, error.params || {}) : t("error_unknown");
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An SVG element with its attributes (and text), for charts drawn in the page. */
export function svgElement(tag, attrs = {}, text = undefined) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  Object.entries(attrs).forEach(([name, value]) => node.setAttribute(name, String(value)));
  if (text !== undefined) node.textContent = text;
  return node;
}

export const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** Bullheads as a count in words for screen readers and as marks on screen: never colour alone. */
export function headsLabel(count) {
  return tp("bullheads", count);
}

/** A card face: its number large, its bullheads as marks and as a small number (drawn by the
 * stylesheet; the colour only repeats them); screen readers hear the number and the bullheads in words. */
export function cardFace(card, heads) {
  return [
    el("span", { class: "marks", "aria-hidden": "true" }),
    el("span", { class: "num" }, String(card)),
    el("span", { class: "visually-hidden" }, ", " + headsLabel(heads)),
  ];
}

/** A card as a plain (non-button) element. */
export function cardElement(card, heads, extra = "") {
  return el("span", { class: `card heads-bg-${heads}${extra ? " " + extra : ""}`, "data-card": card },
    cardFace(card, heads));
}

export function cardLabel(card, heads) {
  return t("card_label", { card, heads: headsLabel(heads) });
}

/** This browser's player key (docs/people.md): sent with every API call, so tables and games know the person. */
const PLAYER_KEY = "nimmt:player";
export const playerKey = {
  get() { try { return localStorage.getItem(PLAYER_KEY); } catch { return null; } },
  set(key) { localStorage.setItem(PLAYER_KEY, key); },
  clear() { try { localStorage.removeItem(PLAYER_KEY); } catch { /* nothing kept */ } },
  usable() {
    try {
      localStorage.setItem(`${PLAYER_KEY}:probe`, "1");
      localStorage.removeItem(`${PLAYER_KEY}:probe`);
      return true;
    } catch {
      return false;
    }
  },
};

/** A set kept in this browser's storage under ``key`` (a mute list); with storage turned off, for this visit only. */
export const keptSet = {
  load(key) {
    try { return new Set(JSON.parse(localStorage.getItem(key) || "[]")); } catch { return new Set(); }
  },
  save(key, set) {
    try { localStorage.setItem(key, JSON.stringify([...set])); } catch { /* kept for this visit only */ }
  },
};

/** The address links and QR codes are made of: the one others can open (the server's --public-url,
 * or this machine's network address), never this page's own when that is a loopback one. */
export const site = page.site || location.origin;

// A person's first step (play now, the guided round, a table, the lobby) gives this browser a
// player first, named as they typed, so that every game they finish is kept (docs/people.md).
const FIRST_STEPS = [/^\/api\/tables$/, /^\/api\/tables\/[^/]+\/join$/, /^\/api\/lobby\/quick$/];
let checked = null;

/** This browser's player as the server knows it (once a visit), or null: a key nimmt no longer
 * knows (deleted, signed out) is forgotten, so that the next step makes a new one. */
export function currentPlayer() {
  if (!playerKey.get()) return Promise.resolve(null);
  checked = checked || send("GET", "/api/me").then((me) => me.player, (error) => {
    if (error.code === "unknown_key" || error.code === "no_key") playerKey.clear();
    return null;
  });
  return checked;
}

/** A player for this browser if it has none (a table works without one: then its seat is a guest's). */
export async function ensurePlayer(name) {
  if (playerKey.get() && await currentPlayer()) return;
  if (!playerKey.usable()) return; // storage off: a player made now would be lost at once
  try {
    const made = await send("POST", "/api/players", { name: name || null, language: page.chosen || null });
    playerKey.set(made.key);
    checked = Promise.resolve(made.player);
  } catch { /* no people store, storage off, too many tries: the person plays as a guest */ }
}

export async function api(method, path, body) {
  if (method === "POST" && body && typeof body === "object" && FIRST_STEPS.some((step) => step.test(path))) {
    await ensurePlayer(body.name);
  }
  return send(method, path, body);
}

async function send(method, path, body) {
  const key = playerKey.get();
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  if (key) headers["X-Player-Key"] = key;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = { code: "unknown", params: {} };
  }
  if (!response.ok) throw Object.assign(new Error(data.message || "error"), data);
  return data;
}

export function announce(text) {
  const region = document.getElementById("announce");
  region.textContent = "";
  // A fresh text node after a tick makes screen readers read it even if it repeats.
  setTimeout(() => { region.textContent = text; }, 50);
}

/** Names (or phrases with names) as the language lists them, each isolated from the others. */
export function listFormat(items) {
  const safe = items.map(isolateName);
  try {
    return new Intl.ListFormat(lang, { style: "long", type: "conjunction" }).format(safe);
  } catch {
    return safe.join(", ");
  }
}

export function rowName(index) {
  return t("row_name", { row: index + 1 });
}

/** Rows as an ordered list, each with its five places; ``onPick`` makes each row a button (a row
 * choice), ``highlight`` marks the row a card just went to. */
export function renderRows(list, rows, bullheads, options = {}) {
  list.replaceChildren();
  rows.forEach((row, index) => {
    const total = row.reduce((sum, card) => sum + bullheads(card), 0);
    const cards = el("span", { class: "row-cards" },
      row.map((card) => Object.assign(cardElement(card, bullheads(card)), { title: cardLabel(card, bullheads(card)) })),
      Array.from({ length: Math.max(0, 5 - row.length) }, () => el("span", { class: "slot", "aria-hidden": "true" })));
    const summary = el("span", { class: "row-summary" },
      el("span", { class: "row-title" }, rowName(index)),
      el("span", { class: "row-heads" }, el("span", { class: "n", "aria-hidden": "true" }, String(total),
          el("span", { class: "bull", "aria-hidden": "true" })),
        el("span", { class: "visually-hidden" }, headsLabel(total))));
    let item;
    if (options.onPick) {
      item = el("li", { class: "row pickable", "data-row": index },
        el("button", {
          type: "button", class: "row-button", "data-row": index,
          "aria-label": t("take_row_label", { row: index + 1, heads: headsLabel(total) }),
          onclick: (event) => {
            if (options.onPick(index, event) === false) return;  // not taken: the buttons stay
            list.querySelectorAll("button").forEach((button) => { button.disabled = true; });
          },
        }, summary, cards));
    } else {
      item = el("li", { class: "row", "data-row": index }, summary, cards);
    }
    if (options.highlight === index) item.classList.add("highlight");
    list.append(item);
  });
}

// -- each person's language is their own (docs/people.md, "Language") ---------------------------
const LANG_COOKIE = "nimmt_language";
const keepLanguage = (code) => {
  document.cookie = `${LANG_COOKIE}=${encodeURIComponent(code)}; path=/; max-age=${365 * 24 * 3600}; samesite=lax`;
};

// The menu keeps the choice with the person's player too, so that their other devices follow it.
const langForm = document.getElementById("lang-form");
if (langForm) {
  langForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = langForm.querySelector("select").value;
    if (playerKey.get()) await send("PATCH", "/api/me", { language: chosen }).catch(() => null);
    keepLanguage(chosen);
    langForm.submit();
  });
}

// Another device chose a language for this player: this one follows (once a visit).
if (playerKey.get()) {
  const SYNCED = "nimmt:lang-synced";
  let synced = null;
  try { synced = sessionStorage.getItem(SYNCED); } catch { /* storage off */ }
  if (!synced) {
    currentPlayer().then((player) => {
      try { sessionStorage.setItem(SYNCED, "1"); } catch { /* storage off: checked again next page */ }
      if (!player || !player.language || player.language === page.chosen) return;
      keepLanguage(player.language);
      const kept = document.cookie.split("; ").includes(`${LANG_COOKIE}=${encodeURIComponent(player.language)}`);
      // Cookies turned off: this page stays as it is (a reload would only come back the same).
      if (kept && player.language !== lang && page.lang_from !== "link") location.reload();
    });
  }
}

// A page served at a loopback address makes links no phone opens: the places that show links say so.
for (const box of document.querySelectorAll("[data-share-warning]")) {
  if (!page.site_local) continue;
  box.textContent = t("share_local_warning", { address: site });
  box.hidden = false;
}
