// WebAuthn in the browser: the server's options (base64url text) to the browser's buffers and back.

const fromB64 = (text) => {
  const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(plain, (ch) => ch.charCodeAt(0)).buffer;
};
const toB64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
  .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

export const passkeysAvailable = () => passkeyProblem() === null;

// A bare IP address (v4, or v6 in brackets): WebAuthn wants a site's name as its relying party.
const IP_ADDRESS = /^(\d{1,3}(\.\d{1,3}){3}|\[?[0-9a-f:]+:[0-9a-f:.]*\]?)$/i;

/** Why passkeys cannot work on this page, as the key of a text that says so (people.json), or null:
 * plain http away from this computer (not a secure context), an IP address instead of a name, or a
 * browser without them. The one-time code works everywhere. */
export function passkeyProblem() {
  if (!window.isSecureContext) return "passkey_why_http";
  if (IP_ADDRESS.test(location.hostname)) return "passkey_why_ip";
  if (typeof window.PublicKeyCredential !== "function") return "passkey_why_browser";
  return null;
}

/** A new passkey for the options of POST /api/me/passkeys/options; its answer as JSON. */
export async function createPasskey(options) {
  const publicKey = {
    ...options,
    challenge: fromB64(options.challenge),
    user: { ...options.user, id: fromB64(options.user.id) },
    excludeCredentials: (options.excludeCredentials || []).map((c) => ({ ...c, id: fromB64(c.id) })),
  };
  const credential = await navigator.credentials.create({ publicKey });
  const response = credential.response;
  return {
    id: credential.id, rawId: toB64(credential.rawId), type: credential.type,
    response: { clientDataJSON: toB64(response.clientDataJSON), attestationObject: toB64(response.attestationObject),
      transports: response.getTransports ? response.getTransports() : [] },
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
  };
}

/** Sign in with a passkey, for the options of POST /api/passkeys/options; the answer as JSON. */
export async function usePasskey(options) {
  const publicKey = {
    ...options,
    challenge: fromB64(options.challenge),
    allowCredentials: (options.allowCredentials || []).map((c) => ({ ...c, id: fromB64(c.id) })),
  };
  const credential = await navigator.credentials.get({ publicKey });
  const response = credential.response;
  return {
    id: credential.id, rawId: toB64(credential.rawId), type: credential.type,
    response: { clientDataJSON: toB64(response.clientDataJSON), authenticatorData: toB64(response.authenticatorData),
      signature: toB64(response.signature), userHandle: response.userHandle ? toB64(response.userHandle) : undefined },
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
  };
}
