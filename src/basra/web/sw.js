// The service worker (served at /sw.js by server/pwa.py, which fills in VERSION and
// SHELL): keeps the site's files on the device so that a second visit is fast, and the
// pages already opened still open without a network.
//
//   /static/...          cache first, from the cache of this VERSION (a hash of the web
//                        folder's files: a new server with other files is a new cache)
//   a page (navigation)  network first; its copy kept; without a network the kept copy,
//                        else the offline page (/offline)
//   anything else        straight to the network, never kept: /api/, /ws, POSTs, /sw.js,
//                        the manifest
//
// A page the server answers with another X-Basra-Static than VERSION comes from a newer
// server than this worker: until the browser has installed the new worker, static files go
// to the network (revalidated), so a page never runs a stale script.

const VERSION = "__VERSION__";
const SHELL = __SHELL__;
const STATIC = `basra-static-${VERSION}`;
const PAGES = "basra-pages";
const OFFLINE = "/offline";
const MOST_PAGES = 40;

let behind = false; // a page came from a server with other static files

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(STATIC);
    await cache.addAll(SHELL.map((url) => new Request(url, { cache: "no-cache" })));
    const offline = await fetch(OFFLINE, { cache: "no-cache" });
    if (offline.ok) await (await caches.open(PAGES)).put(OFFLINE, offline);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("basra-static-") && name !== STATIC) await caches.delete(name);
    }
  })());
});

/** Keeps a copy of a good answer (a whole 200 from this site). */
async function keep(cacheName, request, response) {
  if (response.status !== 200 || response.type !== "basic") return;
  const cache = await caches.open(cacheName);
  await cache.put(request, response);
  if (cacheName === PAGES) {
    const keys = await cache.keys();
    const pages = keys.filter((key) => new URL(key.url).pathname !== OFFLINE);
    for (const old of pages.slice(0, Math.max(0, pages.length - MOST_PAGES))) await cache.delete(old);
  }
}

async function staticFile(event) {
  const { request } = event;
  if (!behind) {
    const cached = await caches.match(request, { cacheName: STATIC });
    if (cached) return cached;
  }
  const response = await fetch(request, { cache: "no-cache" });
  if (!behind) event.waitUntil(keep(STATIC, request, response.clone()));
  return response;
}

async function page(event) {
  const { request } = event;
  try {
    const response = await fetch(request);
    const served = response.headers.get("X-Basra-Static");
    if (served && served !== VERSION) {
      behind = true;
      self.registration.update().catch(() => {});
    }
    event.waitUntil(keep(PAGES, request, response.clone()));
    return response;
  } catch (error) {
    const cache = await caches.open(PAGES);
    const kept = (await cache.match(request, { ignoreVary: true }))
      ?? (await cache.match(OFFLINE, { ignoreVary: true }));
    if (kept) return kept;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(page(event));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(staticFile(event));
  }
});

// A page opened before this worker controlled it sends the static files it loaded: they
// are kept, and so is the page itself, so that it opens without a network next time.
self.addEventListener("message", (event) => {
  const { type, urls } = event.data ?? {};
  const from = event.source?.url;
  if (type !== "keep" || !Array.isArray(urls) || !from) return;
  const page = new URL(from);
  page.hash = "";
  const files = urls.map((address) => new URL(address, self.location.origin))
    .filter((url) => url.origin === self.location.origin && url.pathname.startsWith("/static/"));
  event.waitUntil(Promise.all([page, ...files].map(async (url) => {
    const isStatic = url !== page;
    const cacheName = isStatic ? STATIC : PAGES;
    if (isStatic && (behind || await caches.match(url.href, { cacheName }))) return;
    try {
      await keep(cacheName, url.href, await fetch(url.href, { cache: "no-cache" }));
    } catch {
      // (offline again: kept another time)
    }
  })));
});
