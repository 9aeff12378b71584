// The rules page needs no script of its own: the shared one keeps the person's language (the menu,
// and a choice made on another device of theirs).
import "./common.js";
