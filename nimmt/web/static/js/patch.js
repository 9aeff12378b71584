// The server's patches (docs/protocol.md, "Patches"): a JSON Merge Patch (RFC 7386) in which null
// is a value like any other (the key becomes null; no key of a state ever goes away). No DOM here,
// so node can test it too (tests/server/test_patches.py).

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/** The state after the patch; `state` itself is left as it was. Objects merge key by key; anything
 * else (arrays, numbers, null, an object where the state held none) replaces the value whole. */
export function mergePatch(state, patch) {
  const merged = { ...state };
  for (const [key, value] of Object.entries(patch)) {
    merged[key] = isObject(value) && isObject(merged[key]) ? mergePatch(merged[key], value) : value;
  }
  return merged;
}
