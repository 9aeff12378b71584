// The site's service worker (docs/push.md), served at /sw.js for the whole site: it shows the notices
// nimmt sends by Web Push, and a notice's click opens the table it names (the device's own player
// key opens the person's seat there), focusing a window of the site that is already open.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/** A path of this site only: a notice never opens another one. */
function sameSite(href) {
  try {
    const url = new URL(href || "/", self.location.origin);
    return url.origin === self.location.origin ? url : new URL("/", self.location.origin);
  } catch {
    return new URL("/", self.location.origin);
  }
}

self.addEventListener("push", (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch {
    notice = { body: event.data ? event.data.text() : "" };
  }
  const url = sameSite(notice.url);
  event.waitUntil(self.registration.showNotification(notice.title || "6 nimmt!", {
    body: notice.body || "",
    tag: notice.tag || url.pathname, // the reminder replaces the first notice of the same decision
    renotify: Boolean(notice.tag),
    icon: notice.icon || "/static/icons/icon-192.png",
    badge: "/static/icons/icon-192.png",
    data: { url: url.href },
  }));
});

/** Open the table: the window already on it, else a window of the site taken there, else a new one. */
async function openTable(href) {
  const url = sameSite(href);
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const there = windows.find((client) => new URL(client.url).pathname === url.pathname);
  if (there) return there.focus().catch(() => there);
  for (const other of windows.filter((client) => "navigate" in client)) {
    await other.focus().catch(() => null); // a browser may refuse the focus: the window still goes there
    const gone = await other.navigate(url.href).catch(() => null); // not this worker's window: the next one
    if (gone) return gone;
  }
  return self.clients.openWindow(url.href);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openTable(event.notification.data && event.notification.data.url));
});
