// Registers the service worker (/sw.js, served by server/pwa.py) from every page (base.html
// loads this module): it keeps the site's files and the pages opened on the device, so a
// second visit is fast and those pages open without a network (see docs/web.md).
//
// A page opened before the worker controlled it (the first visit) tells the worker what it
// loaded, so that it is kept as well.

if ("serviceWorker" in navigator) {
  const worker = navigator.serviceWorker;
  worker.register("/sw.js", { scope: "/", updateViaCache: "none" }).catch(() => {
    // (no worker: a browser that refuses it, a page not served over HTTPS; the site works)
  });
  if (!worker.controller) {
    worker.ready.then((registration) => {
      const loaded = performance.getEntriesByType("resource").map((entry) => entry.name)
        .filter((url) => url.startsWith(`${location.origin}/static/`));
      registration.active?.postMessage({ type: "keep", urls: loaded });
    });
  }
}
