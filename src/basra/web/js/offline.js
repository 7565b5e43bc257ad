// The offline page (/offline): what the service worker (sw.js) shows for a page it has not
// kept when the network is gone. It lists the pages kept on this device (the worker's
// "basra-pages" cache), each named by its title in the page's language, and tries again
// when asked.

import { $, el } from "./dom.js";
import { setupLang, t } from "./i18n.js";

const PAGES_CACHE = "basra-pages";

/** The kept pages: [{path, titleKey}], the lobby first, then by address. */
async function keptPages() {
  if (!("caches" in window) || !(await caches.has(PAGES_CACHE))) return [];
  const cache = await caches.open(PAGES_CACHE);
  const found = [];
  for (const request of await cache.keys()) {
    const url = new URL(request.url);
    if (url.origin !== location.origin || url.pathname === "/offline") continue;
    const html = await (await cache.match(request, { ignoreVary: true }))?.text();
    const page = new DOMParser().parseFromString(html ?? "", "text/html");
    found.push({ path: url.pathname + url.search, titleKey: page.body?.dataset.titleKey ?? null });
  }
  return found.sort((a, b) => (a.path === "/" ? -1 : b.path === "/" ? 1 : a.path.localeCompare(b.path)));
}

let kept = [];

function pageName(page) {
  if (page.path === "/") return t("lobby");
  return page.titleKey ? t(page.titleKey) : t("basra");
}

function render() {
  $("kept-pages").replaceChildren(...kept.map((page) => el("li", {},
    el("a", { href: page.path }, pageName(page), " ",
      el("bdi", { class: "kept-path", dir: "ltr", lang: "zxx", text: page.path })))));
  $("kept-pages").hidden = kept.length === 0;
  $("kept-none").hidden = kept.length > 0;
}

setupLang(render);
$("retry").addEventListener("click", () => location.reload());
kept = await keptPages().catch(() => []);
render();
document.body.dataset.ready = "true";
