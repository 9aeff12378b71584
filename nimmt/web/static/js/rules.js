// The rules page needs no script; this module exists so every page loads the same way.
export {};
