// People's names where several are shown together: each isolated (<bdi>), and when another name
// shown with it looks alike (the same letters in another script, another case: nimmt/names.py,
// told_apart), its number after it, "Ana (2)", the same on every page of the group.
import { el, has, t } from "./common.js";

/** ``name`` as a node, with its ``mark`` (a number, or null when no other name looks like it). */
export function nameWithMark(name, mark, attrs = {}) {
  if (!mark) return el("bdi", attrs, name);
  return el("span", { class: "named" }, el("bdi", attrs, name), " ",
    el("span", { class: "name-mark", title: has("name_mark_title") ? t("name_mark_title") : null }, `(${mark})`));
}

/** The same as text (a label, an option): "Ana (2)". */
export const nameText = (name, mark) => (mark ? `${name} (${mark})` : name);
