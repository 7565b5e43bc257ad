// The pages' texts: the catalog of the page's language (web/i18n/<lang>.json, one file a
// language, loaded here before any page script runs), plural forms and numbers through
// Intl, and the language menu.

const STORE_KEY = "basra.lang";
const COOKIE = "basra_lang";
const YEAR = 365 * 24 * 3600;

const root = document.documentElement;
/** The languages the server has catalogs for, English first (its <html data-languages>). */
const OFFERED = (root.dataset.languages || "en").split(/\s+/).filter(Boolean);

const loaded = new Map();

function loadCatalog(code) {
  if (!loaded.has(code)) {
    loaded.set(code, fetch(`/static/i18n/${code}.json`).then((response) => {
      if (!response.ok) throw new Error(`no catalog for ${code}: ${response.status}`);
      return response.json();
    }));
  }
  return loaded.get(code);
}

function storedChoice() {
  try {
    const stored = localStorage.getItem(STORE_KEY);
    return OFFERED.includes(stored) ? stored : null;
  } catch {
    return null;
  }
}

/** Keeps the person's choice where the page and the server both see it. */
function remember(code) {
  try {
    localStorage.setItem(STORE_KEY, code);
  } catch {
    // (storage refused: the cookie still tells the server)
  }
  document.cookie = `${COOKIE}=${code}; path=/; max-age=${YEAR}; samesite=lax`;
}

let current = storedChoice() ?? (OFFERED.includes(root.lang) ? root.lang : OFFERED[0] ?? "en");
let texts = await loadCatalog(current).catch(() => {
  current = "en";
  return loadCatalog("en");
});
if (storedChoice() === current) remember(current); // a choice made before the cookie existed
let plurals;
let numbers;

function configure() {
  plurals = new Map();
  numbers = new Map();
  root.lang = current;
  root.dir = texts.language_dir === "rtl" ? "rtl" : "ltr";
}
configure();

/** The languages the pages speak (those with a catalog), English first. */
export function languages() {
  return [...OFFERED];
}

export function lang() {
  return current;
}

export function isRtl() {
  return texts.language_dir === "rtl";
}

/**
 * A text in capitals as the page's language writes them: in Turkish "i" is "İ" and "ı" is
 * "I" ("ipek" is "İPEK"), elsewhere "i" is "I".
 */
function upper(text) {
  return String(text).toLocaleUpperCase(current);
}

/** The first letter of a text (a player's name), in capitals: an avatar's letter. */
export function initial(text) {
  const first = [...String(text).trim()][0];
  return first ? upper(first) : "?";
}

/**
 * A number as the page's language writes it: ١٢ in Arabic, ۱۲ in Persian, 12 in English.
 * `options` are Intl.NumberFormat's (no thousands separators unless asked).
 */
export function formatNumber(value, options = {}) {
  const key = JSON.stringify(options);
  if (!numbers.has(key)) {
    numbers.set(key, new Intl.NumberFormat(current, {
      numberingSystem: texts.number_system || "latn", useGrouping: false, ...options,
    }));
  }
  return numbers.get(key).format(value);
}

/** A moment (Unix milliseconds) as the page's language writes it, in its own digits. */
export function formatMoment(ms) {
  const system = texts.number_system || "latn";
  return new Date(ms).toLocaleString(`${current}-u-nu-${system}`, { dateStyle: "medium", timeStyle: "short" });
}

function pluralForm(count, options) {
  const key = JSON.stringify(options);
  if (!plurals.has(key)) plurals.set(key, new Intl.PluralRules(current, options));
  return plurals.get(key).select(count);
}

function shown(value, options = {}) {
  return typeof value === "number" ? formatNumber(value, options) : String(value);
}

/**
 * The text `key` in the page's language: a counting text in the plural form of `params.n`,
 * its `{name}` holes filled from `params`, numbers in the language's digits (`options`:
 * how they are written, Intl.NumberFormat's: "1.0 points" is not "1 point").
 */
export function t(key, params = {}, options = {}) {
  let text = texts[key];
  if (text === undefined) return key;
  if (typeof text === "object") text = text[pluralForm(Number(params.n), options)] ?? text.other;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? shown(params[name], options) : `{${name}}`));
}

export function hasKey(key) {
  return key in texts;
}

/**
 * What a refusal of the server says in the page's language: the text of its code
 * (`error.<code>`, with its params) when the catalog has one, else the server's own
 * message, else `fallback`. `error` is an error body ({code, message, params}), a socket's
 * error message or an ApiError; it is never guessed from an HTTP status.
 */
export function errorText(error, fallback = t("error.server_error")) {
  const key = errorKey(error);
  if (key) return t(key, error.params ?? {});
  return error?.serverMessage || error?.message || fallback;
}

/** The catalog key of a refusal's code (`error.<code>`), or null when it has none. */
export function errorKey(error) {
  const key = `error.${error?.code}`;
  return error?.code && hasKey(key) ? key : null;
}

/**
 * The key of a text as a rule family words it: `basras_pasur` ("Surs") for Pasur where
 * the catalog has one, else `key` ("Basras").
 */
export function familyKey(key, family) {
  const own = `${key}_${family}`;
  return family && family !== "basra" && hasKey(own) ? own : key;
}

/** A translated sentence whose {holes} may be DOM nodes (mini cards, names) as well as text. */
export function sentence(key, params) {
  const fragment = document.createDocumentFragment();
  const marks = Object.fromEntries(Object.keys(params).map((k) => [k, `\u0000${k}\u0000`]));
  const template = t(key, "n" in params ? { ...marks, n: Number(params.n) } : marks);
  template.split("\u0000").forEach((part, i) => {
    if (i % 2 === 0) {
      if (part) fragment.append(part);
    } else {
      fragment.append(typeof params[part] === "number" ? shown(params[part]) : params[part]);
    }
  });
  return fragment;
}

/** "7D" -> ["7", "D"] */
export function splitCard(code) {
  return [code.slice(0, -1), code.slice(-1)];
}

/** The long name of a card: "7 of diamonds", in Arabic "٧ ديناري", in Persian "۷ خشت". */
export function cardName(code) {
  const [rank, suit] = splitCard(code);
  const word = hasKey(`rank_${rank}`) ? t(`rank_${rank}`) : formatNumber(Number(rank));
  return t("card_name", { rank: word, suit: t(`suit_${suit}`) });
}

export function cardList(codes) {
  return codes.map(cardName).join(t("list_comma"));
}

export function levelName(level) {
  const key = `level_${level}`;
  return hasKey(key) ? t(key) : level;
}

/**
 * Params as the server writes them in a `data-i18n-params` attribute (JSON): a param that
 * is itself a text is `{"key": ..., its params}` ("5 minutes": `{"key": "duration_minute",
 * "n": 5}`), written in the page's language first.
 */
function resolved(params) {
  return Object.fromEntries(Object.entries(params).map(([name, value]) => {
    if (value && typeof value === "object" && "key" in value) {
      const { key, ...inner } = value;
      return [name, t(key, resolved(inner))];
    }
    return [name, value];
  }));
}

/** The text of a [data-i18n] element, with the params of its `data-i18n-params` if any. */
function elementText(el) {
  let params = {};
  try {
    params = el.dataset.i18nParams ? JSON.parse(el.dataset.i18nParams) : {};
  } catch {
    params = {};
  }
  return t(el.dataset.i18n, resolved(params));
}

/**
 * Fills every [data-i18n] element's text (with its [data-i18n-params]) and
 * [data-i18n-label] element's aria-label.
 */
export function applyLang(scope = document) {
  for (const el of scope.querySelectorAll("[data-i18n]")) el.textContent = elementText(el);
  for (const el of scope.querySelectorAll("[data-i18n-label]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  }
  for (const el of scope.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
  document.title = t(document.body.dataset.titleKey || "basra") +
    (document.body.dataset.titleKey ? ` · ${t("basra")}` : "");
}

/** The language menu's buttons (one a catalog, each named in its own language). */
function menuButtons() {
  return [...document.querySelectorAll(".lang-toggle[data-lang]")];
}

function labelMenu() {
  for (const button of menuButtons()) button.hidden = button.dataset.lang === current;
}

/** Shows the page in `code`: loads its catalog, then redraws (`onChange` redraws what the
 * page drew itself). */
export async function setLanguage(code, onChange = () => {}) {
  if (!OFFERED.includes(code)) return;
  remember(code);
  const catalog = await loadCatalog(code);
  current = code;
  texts = catalog;
  configure();
  applyLang();
  labelMenu();
  onChange();
}

/** Translates the page and wires its language menu; `onChange` redraws what the page drew
 * itself after a switch. */
export function setupLang(onChange = () => {}) {
  applyLang();
  labelMenu();
  for (const button of menuButtons()) {
    button.addEventListener("click", () => setLanguage(button.dataset.lang, onChange));
  }
}
