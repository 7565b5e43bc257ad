// The lobby: Quick game, open tables, the New table form with every house rule, and
// recent matches.
//
// The form's rule controls are made from the server's option specs (GET /api/options):
// one labelled control per option, its texts keyed by the option's name in i18n.js. They
// show the chosen variant's rules for the chosen player count (GET /api/variants), and the
// request sends only the options that differ from those. A refused value is shown beside
// its control, which takes the focus.

import { $, el } from "./dom.js";
import { ApiError, getJSON, postJSON, storeName, storeToken, storedName } from "./api.js";
import { errorKey, familyKey, formatNumber, hasKey, lang, levelName, sentence, setupLang, t } from "./i18n.js";
import { nameElement, shownName, variantDescription, variantName } from "./matches.js";
import { accountName, redrawAccount, setupAccount } from "./account.js";
import { redrawOnline, setOnlineAccount, setOnlineVariants, setupOnline } from "./online.js";

const TIMERS = [0, 15, 30, 60];
const RAW = "more_rules"; // the field of the Advanced box
const CARD_SPEC = /^(A|1|[2-9]|10|T|J|Q|K)([SHDC])?$/i;
// Options a rule family plays one way only: their controls are hidden and hold that value.
const FAMILY_FIXED = { pasur: { seven_diamonds: "plain", basra: "clear", sums: true } };
// The options a family does not have (spec 11.5): the pile games' own, and Basra's floor.
const PILE_OPTIONS = ["pisti_points", "jack_pisti_points", "jack_pisti", "last_play_pisti", "pile_down", "centre_jack", "bottom_card", "kitty_view", "pile_redeal"];
const FLOOR_OPTIONS = ["bury", "floor_redeal", "sums", "optional_capture", "seven_diamonds", "basra", "jack_basra", "last_play_basra", "last_batch_basra", "basra_cancel", "basra_points", "clubs_points", "clubs_min"];

let variants = [];
let levels = ["random", "greedy", "neural", "expert", "master"];
let specs = []; // the rule options the form offers (not players: its own select)
let shownDefaults = null; // name -> normalized value the controls were last set to
let tables = [];
let records = [];
let listError = null;
const errors = new Map(); // field name -> [i18n key, params] or { text }
let formError = null;
let quickError = null;

// Texts that follow the language.

function label(key, fallback) {
  return hasKey(key) ? t(key) : fallback;
}

/** An error's text: [i18n key, params], { prefix, error } or { text }. */
function message(error) {
  if (!error) return "";
  if (Array.isArray(error)) return t(error[0], error[1]);
  if (error.prefix) return `${error.prefix}: ${message(error.error)}`;
  return error.text ?? "";
}

// Quick game.

function playerName() {
  if (accountName()) return ""; // the server seats an account under its own name
  const name = $("player-name").value.trim();
  storeName(name);
  return name;
}

/** A guest names themselves; an account plays under its name, which is shown instead. */
function renderPlayingAs() {
  const name = accountName();
  $("guest-name").hidden = Boolean(name);
  $("playing-as").hidden = !name;
  $("playing-as").replaceChildren(name ? sentence("header_playing_as", { name: el("bdi", { text: name }) }) : "");
}

function enter(answer) {
  if (answer.token) storeToken(answer.code, answer.seat, answer.token);
  location.assign(answer.url || `/t/${answer.code}`);
}

function renderQuickError() {
  const box = $("quick-error");
  box.textContent = quickError ? message(quickError) : "";
  box.hidden = !quickError;
}

async function quickGame() {
  quickError = null;
  renderQuickError();
  const button = $("quick");
  button.disabled = true;
  try {
    const name = playerName();
    enter(await postJSON("/api/quick", name ? { name } : {}));
  } catch (error) {
    quickError = { text: error.message };
    renderQuickError();
    reveal($("quick-error"));
    button.disabled = false;
  }
}

// The New table form: variant, players, seats.

function currentVariant() {
  return variants.find((v) => v.name === $("variant").value) ?? variants[0];
}

/** The open-stores box follows the variant (a pile game's). */
function renderVariantSettings() {
  const pile = Boolean(currentVariant()?.pile);
  $("open-stores-field").hidden = !pile;
  if (!pile) $("open-stores").checked = false;
}

function fillSelect(select, items, selected) {
  select.replaceChildren(...items.map(([value, text]) => el("option", { value, text })));
  if (selected !== undefined && items.some(([value]) => String(value) === String(selected))) {
    select.value = String(selected);
  }
}

function renderVariantList() {
  const chosen = $("variant").value || "egyptian";
  fillSelect($("variant"), variants.map((v) => [v.name, variantName(v.name)]), chosen);
  const variant = currentVariant();
  $("variant-description").textContent = variant ? variantDescription(variant.name, variant.description ?? "") : "";
  // the variant's rules page (/rules/NAME), from the same source as docs/rules.md
  let rulesLink = $("variant-rules");
  if (!rulesLink) {
    rulesLink = el("a", { id: "variant-rules", class: "variant-rules hint", "data-testid": "variant-rules" });
    $("variant-description").after(rulesLink);
  }
  rulesLink.hidden = !variant;
  rulesLink.href = variant ? `/rules/${encodeURIComponent(variant.name)}` : "/rules";
  rulesLink.textContent = t("rulebook_read", { variant: variant ? variantName(variant.name) : "" });
}

function renderPlayerList() {
  const variant = currentVariant();
  if (!variant) return;
  const previous = $("players").value;
  fillSelect($("players"), variant.players.map((n) => [n, String(n)]), previous || variant.players[0]);
}

function variantChanged() {
  renderVariantList();
  renderVariantSettings();
  renderPlayerList();
  playersChanged();
}

function playersChanged() {
  clearError("players");
  applyDefaults();
  renderSeats();
}

function renderSeats() {
  const players = Number($("players").value) || 2;
  const rows = $("seat-rows");
  const old = [...rows.children].map((row) => ({
    kind: row.querySelector(".seat-kind").value,
    level: row.querySelector(".seat-level").value,
  }));
  rows.replaceChildren();
  for (let seat = 0; seat < players; seat++) {
    const kind = el("select", { id: `seat-${seat}-kind`, class: "seat-kind" });
    fillSelect(kind, [["human", t("human")], ["bot", t("computer")]], old[seat]?.kind ?? (seat === 0 ? "human" : "bot"));
    const level = el("select", { id: `seat-${seat}-level`, class: "seat-level", "aria-label": `${t("seat_n", { n: seat + 1 })} ${t("level")}` });
    fillSelect(level, levels.map((l) => [l, levelName(l)]), old[seat]?.level ?? "expert");
    const sync = () => {
      level.disabled = kind.value !== "bot";
    };
    kind.addEventListener("change", sync);
    sync();
    rows.append(el("li", { class: "seat-row" },
      el("label", { for: kind.id, text: t("seat_n", { n: seat + 1 }) }),
      kind,
      level));
  }
}

// The rule controls.

function controlOf(name) {
  return name === RAW ? $("more-rules") : $(name === "players" ? "players" : `rule-${name}`);
}

function fieldOf(name) {
  return document.querySelector(`[data-field="${name}"]`);
}

function ruleField(spec) {
  const { name, kind } = spec;
  const id = `rule-${name}`;
  const labelNode = el("label", { for: id, class: "rule-label", text: label(`rule_${name}`, name) });
  if (hasKey(`rule_${name}`)) labelNode.dataset.i18n = `rule_${name}`;
  const describedBy = [];
  let help = null;
  if (hasKey(`rule_${name}_help`)) {
    help = el("p", { id: `${id}-help`, class: "hint rule-help", "data-i18n": `rule_${name}_help`, text: t(`rule_${name}_help`) });
    describedBy.push(help.id);
  }
  const error = el("p", { id: `${id}-error`, class: "field-error", hidden: "" });
  describedBy.push(error.id);
  let control;
  if (kind === "number") {
    const [min, max] = spec.range ?? [0, 1000000];
    control = el("input", { id, type: "number", inputmode: "numeric", min: String(min), max: String(max), step: "1" });
  } else if (kind === "flag") {
    control = el("input", { id, type: "checkbox" });
  } else if (kind === "choice") {
    control = el("select", { id }, ...spec.choices.map((choice) => {
      const option = el("option", { value: choice, text: label(`rule_${name}_${choice}`, choice) });
      if (hasKey(`rule_${name}_${choice}`)) option.dataset.i18n = `rule_${name}_${choice}`;
      return option;
    }));
  } else {
    control = el("input", { id, type: "text", dir: "ltr", spellcheck: "false", autocomplete: "off", class: "cards-input" });
  }
  control.dataset.option = name;
  control.setAttribute("aria-describedby", describedBy.join(" "));
  const field = el("div", { class: `field rule-field rule-${kind}`, "data-field": name });
  if (kind === "flag") field.append(el("div", { class: "check-row" }, control, labelNode));
  else field.append(labelNode, control);
  if (help) field.append(help);
  field.append(error);
  const changed = () => {
    clearError(name);
    if (name === "family") applyFamily();
    markChanged();
  };
  control.addEventListener("input", changed);
  control.addEventListener("change", changed);
  return field;
}

function buildRuleControls() {
  const groups = new Map();
  for (const spec of specs) {
    if (!groups.has(spec.group)) groups.set(spec.group, []);
    groups.get(spec.group).push(spec);
  }
  $("table-rules").replaceChildren(...(groups.get("table") ?? []).map(ruleField));
  $("rule-groups").replaceChildren(...[...groups].filter(([group]) => group !== "table").map(([group, list]) => {
    const legend = el("legend", { "data-group": group, text: label(`group_${group}`, group) });
    if (hasKey(`group_${group}`)) legend.dataset.i18n = `group_${group}`;
    return el("fieldset", { class: "rule-group" }, legend, el("div", { class: "form-grid" }, ...list.map(ruleField)));
  }));
}

function canonicalSpec(word) {
  const found = CARD_SPEC.exec(word.trim());
  if (!found) return null;
  let rank = found[1].toUpperCase();
  if (rank === "T") rank = "10";
  if (rank === "1") rank = "A";
  return rank + (found[2] ?? "").toUpperCase();
}

/** The text a control shows for an option's value. */
function shown(spec, value) {
  if (spec.kind === "cards") return (value ?? []).join(" ");
  if (spec.kind === "card_points") return Object.entries(value ?? {}).map(([card, points]) => `${card}:${points}`).join(" ");
  return value;
}

/** A comparable form of a value (of the defaults, or read from a control). */
function normalized(spec, value) {
  if (spec.kind === "cards") return [...value].sort().join(" ");
  if (spec.kind === "card_points") return Object.entries(value).map(([c, p]) => `${c}:${p}`).sort().join(" ");
  return String(value);
}

function writeControl(spec, value) {
  const control = controlOf(spec.name);
  if (spec.kind === "flag") control.checked = Boolean(value);
  else control.value = String(shown(spec, value) ?? "");
}

/** A control's value: { value } or { error: [key, params] }. */
function readControl(spec) {
  const control = controlOf(spec.name);
  if (spec.kind === "flag") return { value: control.checked };
  if (spec.kind === "choice") return { value: control.value };
  const text = control.value.trim();
  if (spec.kind === "number") {
    const [min, max] = spec.range ?? [-Infinity, Infinity];
    if (control.validity?.badInput || !/^[+-]?\d+$/.test(text)) return { error: ["err_whole", {}] };
    const value = Number(text);
    if (value < min || value > max) return { error: ["err_range", { min, max }] };
    return { value };
  }
  const words = text.split(/[\s,]+/).filter(Boolean);
  if (spec.kind === "cards") {
    if (words.length === 1 && words[0].toLowerCase() === "none") return { value: [] };
    const cards = words.map(canonicalSpec);
    if (cards.includes(null)) return { error: ["err_cards", {}] };
    if (new Set(cards).size !== cards.length) return { error: ["err_card_twice", {}] };
    return { value: cards };
  }
  const [min, max] = spec.range ?? [0, 100];
  const points = {};
  for (const word of words) {
    const found = /^([^:=]+)[:=]([+-]?\d+)$/.exec(word);
    const card = found && canonicalSpec(found[1]);
    if (!card) return { error: ["err_card_points", {}] };
    if (card in points) return { error: ["err_card_twice", {}] };
    const value = Number(found[2]);
    if (value < min || value > max) return { error: ["err_card_points_range", { min, max }] };
    points[card] = value;
  }
  return { value: points };
}

function ruleDefaults() {
  const variant = currentVariant();
  const players = Number($("players").value) || variant?.players?.[0] || 2;
  return { ...(variant?.rules ?? {}), players, partnership: (variant?.partnership_players ?? []).includes(players) };
}

/** Set every control that still shows the previous defaults to the current ones. */
function applyDefaults() {
  if (!specs.length || !variants.length) return;
  const defaults = ruleDefaults();
  const next = {};
  for (const spec of specs) {
    if (!(spec.name in defaults)) continue;
    next[spec.name] = normalized(spec, defaults[spec.name]);
    const read = readControl(spec);
    const untouched = !shownDefaults || (!read.error && normalized(spec, read.value) === shownDefaults[spec.name]);
    if (untouched) writeControl(spec, defaults[spec.name]);
  }
  shownDefaults = next;
  $("rule-partnership")?.closest(".field")?.toggleAttribute("hidden", Number($("players").value) !== 4);
  applyFamily();
  markChanged();
}

/** The rule family the form is set to: "basra" or "pasur". */
function chosenFamily() {
  return controlOf("family")?.value || ruleDefaults().family || "basra";
}

/**
 * Fits the form to the chosen family: the options it plays one way only are hidden and
 * set so, and the texts take its words ("Points per sur" for Pasur).
 */
function applyFamily() {
  if (!specs.length) return;
  const family = chosenFamily();
  const fixed = FAMILY_FIXED[family] ?? {};
  for (const spec of specs) {
    const field = fieldOf(spec.name);
    if (!field) continue;
    if (spec.name in fixed) {
      writeControl(spec, fixed[spec.name]);
      clearError(spec.name);
    }
    // A pile preset is a pile game whatever the family option says: its select is left out.
    const absent = (family === "pisti" ? FLOOR_OPTIONS : PILE_OPTIONS).includes(spec.name) ||
      (spec.name === "family" && Boolean(currentVariant()?.pile));
    if (spec.name !== "partnership") field.hidden = spec.name in fixed || absent;
    if (spec.name === "family") continue; // rule_family_pasur names its choice, not its label
    const key = familyKey(`rule_${spec.name}`, family);
    for (const [node, text] of [[field.querySelector(".rule-label"), key], [field.querySelector(".rule-help"), `${key}_help`]]) {
      if (!node || !hasKey(text)) continue;
      node.dataset.i18n = text;
      node.textContent = t(text);
    }
  }
  for (const group of document.querySelectorAll("#rule-groups fieldset")) {
    group.hidden = ![...group.querySelectorAll(".field, [data-field]")].some((field) => !field.hidden);
  }
  for (const legend of document.querySelectorAll("#rule-groups legend[data-group]")) {
    const key = familyKey(`group_${legend.dataset.group}`, family);
    if (!hasKey(key)) continue;
    legend.dataset.i18n = key;
    legend.textContent = t(key);
  }
}

function partnershipOffered() {
  return Number($("players").value) === 4;
}

/** The house rules that differ from the defaults: { rules, changed: [names], problems }. */
function changedRules() {
  const defaults = ruleDefaults();
  const rules = {};
  const problems = [];
  for (const spec of specs) {
    if (spec.name === "partnership" && !partnershipOffered()) continue;
    const read = readControl(spec);
    if (read.error) {
      problems.push([spec.name, read.error]);
    } else if (!(spec.name in defaults) || normalized(spec, read.value) !== normalized(spec, defaults[spec.name])) {
      rules[spec.name] = read.value;
    }
  }
  return { rules, problems };
}

function markChanged() {
  if (!shownDefaults) return;
  const { rules } = changedRules();
  for (const spec of specs) fieldOf(spec.name)?.classList.toggle("changed", spec.name in rules);
  const house = specs.filter((s) => s.group !== "table" && s.name in rules).length +
    parseRaw($("more-rules").value, { lenient: true }).size;
  $("changed-count").textContent = house ? t("changed_n", { n: house }) : "";
}

/** The Advanced box's lines as a Map of option name -> value text. */
function parseRaw(text, { lenient = false } = {}) {
  const rules = new Map();
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const at = line.indexOf("=");
    if (at < 1) {
      if (lenient) continue;
      throw Object.assign(new Error("bad line"), { field: RAW, error: ["err_rule_line", { line }] });
    }
    rules.set(line.slice(0, at).trim().toLowerCase().replaceAll("-", "_"), line.slice(at + 1).trim());
  }
  return rules;
}

// Errors beside the fields.

function renderErrors() {
  for (const node of document.querySelectorAll("#new-table .field-error")) {
    const name = node.closest("[data-field]")?.dataset.field;
    const error = errors.get(name);
    node.textContent = message(error);
    node.hidden = !error;
    const control = name && controlOf(name);
    if (control) {
      if (error) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    }
    node.closest(".field")?.classList.toggle("invalid", Boolean(error));
  }
  const box = $("form-error");
  box.textContent = message(formError);
  box.hidden = !formError;
}

function clearError(name) {
  if (!errors.delete(name)) return;
  renderErrors();
}

function clearErrors() {
  errors.clear();
  formError = null;
  renderErrors();
}

/** Shows the errors and focuses the first one's control (opening what hides it). */
function showErrors(list) {
  for (const [name, error] of list) errors.set(name, error);
  renderErrors();
  const [first] = list[0];
  const control = controlOf(first);
  for (let node = control?.parentElement; node; node = node.parentElement) {
    if (node.tagName === "DETAILS") node.open = true;
  }
  control?.focus();
  control?.scrollIntoView({ block: "center" });
}

function showFormError(error) {
  formError = error;
  renderErrors();
  reveal($("form-error"));
}

/** Focuses a message, scrolled to the middle of the window where focusing leaves it cut. */
function reveal(node) {
  node.focus();
  const box = node.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) node.scrollIntoView({ block: "center" });
}

/**
 * The field and message of a refusal of the server (its `error` names the option), or
 * null. `raw` names the options given in the Advanced box: their errors are shown there.
 */
function serverFieldError(text, raw, changed) {
  const pick = (names, fallback) => names.find((n) => raw.has(n)) ?? names.find((n) => n in changed) ?? fallback;
  const matchers = [
    [/^option (\w+)\[[^\]]*\] must be (-?\d+) to (-?\d+)/, (m) => [m[1], ["err_card_points_range", { min: Number(m[2]), max: Number(m[3]) }]]],
    [/^option (\w+) must be (-?\d+) to (-?\d+)/, (m) => [m[1], ["err_range", { min: Number(m[2]), max: Number(m[3]) }]]],
    [/^option (\w+)(\[[^\]]*\])? must be a whole number/, (m) => [m[1], ["err_whole", {}]]],
    [/^option (\w+) must be true or false/, (m) => [m[1], ["err_flag", {}]]],
    [/^option (\w+) must be one of/, (m) => [m[1], ["err_choice", {}]]],
    [/^unknown rule option '([^']*)'/, (m) => [RAW, ["err_unknown_option", { name: m[1] }]]],
    [/^hand_size /, () => ["hand_size", ["err_hand_size", {}]]],
    [/^burying /, () => ["bury", ["err_bury_stock", {}]]],
    [/^bad card spec/, () => [pick(["bury", "card_points"], "bury"), ["err_cards", {}]]],
    [/^bad card_points entry/, () => ["card_points", ["err_card_points", {}]]],
    [/^card_points names a card twice/, () => ["card_points", ["err_card_twice", {}]]],
    [/^partnerships need/, () => ["partnership", ["err_partnership", {}]]],
    // A family's fixed option, set in the Advanced box: beside it, else beside the family.
    [/^option (\w+) belongs to the basra family/, (m) => [raw.has(m[1]) || !fieldOf(m[1])?.hidden ? m[1] : "family", ["err_family_rule", {}]]],
    [/^tie_deal=tied needs/, () => ["tie_deal", ["err_tie_deal", {}]]],
    [/^no side could ever score/, () => [pick(["basra_points", "majority_points", "card_points"], "basra_points"), ["err_no_score", {}]]],
    [/^variant .* is played by/, () => ["players", ["err_players", {}]]],
    [/^players given twice/, () => [RAW, ["err_players", {}]]],
  ];
  for (const [pattern, make] of matchers) {
    const found = pattern.exec(text);
    if (!found) continue;
    const [name, error] = make(found);
    if (raw.has(name) || !fieldOf(name)) return [RAW, raw.has(name) ? { prefix: name, error } : error];
    return [name, error];
  }
  return null;
}

// Creating the table.

function tableRequest() {
  const variant = currentVariant();
  const players = Number($("players").value);
  const { rules, problems } = changedRules();
  let raw = new Map();
  try {
    raw = parseRaw($("more-rules").value);
  } catch (error) {
    problems.push([error.field, error.error]);
  }
  if (problems.length) return { problems };
  for (const [name, value] of raw) rules[name] = value;
  const seats = [...$("seat-rows").children].map((row) => {
    const kind = row.querySelector(".seat-kind").value;
    return kind === "bot" ? { kind, level: row.querySelector(".seat-level").value } : { kind };
  });
  const body = {
    variant: variant.name,
    players,
    rules,
    seats,
    turn_seconds: Number($("turn-seconds").value),
    takeover_level: $("takeover-level").value,
  };
  if (variant.pile) body.open_stores = $("open-stores").checked;
  const name = playerName();
  if (name) body.name = name;
  return { body, raw, rules };
}

async function createTable(event) {
  event.preventDefault();
  clearErrors();
  if (!variants.length) return;
  const request = tableRequest();
  if (request.problems) {
    showErrors(request.problems);
    return;
  }
  const submit = $("create");
  submit.disabled = true;
  try {
    enter(await postJSON("/api/tables", request.body));
  } catch (error) {
    submit.disabled = false;
    const found = error instanceof ApiError && error.status === 400
      ? serverFieldError(error.serverMessage ?? error.message, request.raw, request.rules) : null;
    if (found) {
      showErrors([found]);
    } else {
      const key = errorKey(error);
      showFormError(key ? [key, error.params ?? {}] : { text: error.message });
    }
  }
}

// Lists.

function seatText(seat) {
  if (seat.kind === "bot") return shownName(seat.name ?? seat.level, { kind: "bot", level: seat.level });
  return seat.taken ? shownName(seat.name || "?", { kind: "human" }) : t("free_seat");
}

function renderTables() {
  const list = $("tables");
  if (listError) {
    list.replaceChildren(el("li", { class: "empty", text: listError }));
    return;
  }
  if (!tables.length) {
    list.replaceChildren(el("li", { class: "empty", text: t("no_tables") }));
    return;
  }
  list.replaceChildren(...tables.map((table) => {
    const seats = (table.seats ?? []).flatMap((seat, i) => [i ? " · " : "",
      seat.kind === "human" && !seat.taken
        ? el("span", { class: "free-seat", text: t("free_seat") })
        : el("bdi", { class: "player-name", text: seatText(seat) })]);
    return el("li", { class: "list-item table-item" },
      el("span", { class: "item-main" },
        el("strong", { text: variantName(table.variant) }),
        ` · ${hasKey("players_n") ? t("players_n", { n: table.players }) : table.players}`,
        el("span", { class: "item-sub" }, ...seats)),
      el("span", { class: "actions" },
        el("a", { class: "btn btn-small btn-primary", href: `/t/${encodeURIComponent(table.code)}`, text: t("join") })));
  }));
}

function renderRecords() {
  const list = $("records");
  if (listError) {
    list.replaceChildren(el("li", { class: "empty", text: listError }));
    return;
  }
  if (!records.length) {
    list.replaceChildren(el("li", { class: "empty", text: t("no_matches") }));
    return;
  }
  list.replaceChildren(...records.map((record) => {
    const names = record.players ?? [];
    const totals = record.totals ?? [];
    const sides = totals.length || names.length || 1;
    const finishedFor = new Set(record.computer_seats ?? []);
    const sideNodes = (side, marks = true) => {
      const out = [];
      names.forEach((name, seat) => {
        if (seat % sides !== side) return;
        if (out.length) out.push(t("and_joiner"));
        out.push(nameElement(name));
        if (marks && finishedFor.has(seat)) {
          out.push(" ", el("span", { class: "finished-for", title: t("computer_finished_title"), text: t("computer_finished") }));
        }
      });
      return out;
    };
    const score = el("span", { class: "record-sides" });
    totals.forEach((total, side) => {
      if (side) score.append(" ");
      score.append(el("span", { class: `record-side${record.winner === side ? " winner" : ""}` },
        side ? "– " : "", ...sideNodes(side), " ", el("strong", { class: "record-total", text: formatNumber(total) })));
    });
    const sub = el("span", { class: "item-sub" }, variantName(record.variant ?? ""));
    if (record.winner !== null && record.winner !== undefined && totals.length) {
      sub.append(" · ", t("winner_is", { name: "" }), ...sideNodes(record.winner, false));
    }
    if (record.finished_at) {
      const when = new Date(record.finished_at).toLocaleString(lang());
      sub.append(" · ", el("bdi", { text: when }));
    }
    return el("li", { class: `list-item record-item${finishedFor.size ? " computer-finished" : ""}` },
      el("span", { class: "item-main" }, score, sub),
      el("span", { class: "actions" },
        el("a", { class: "btn btn-small", href: `/api/records/${record.id}?download=1`, download: `basra-${record.id}.json`, text: t("download") }),
        el("a", { class: "btn btn-small btn-primary", href: `/replay/${record.id}`, text: t("replay") })));
  }));
}

async function loadLists() {
  try {
    [tables, records] = await Promise.all([getJSON("/api/tables"), getJSON("/api/records")]);
    listError = null;
  } catch (error) {
    listError = error.message;
  }
  renderTables();
  renderRecords();
}

function redraw() {
  fillSelect($("turn-seconds"), TIMERS.map((n) => [n, n ? t("seconds", { n }) : t("no_timer")]), $("turn-seconds").value || 0);
  fillSelect($("takeover-level"), levels.map((l) => [l, levelName(l)]), $("takeover-level").value || "expert");
  if (variants.length) renderVariantList();
  renderSeats();
  markChanged();
  renderErrors();
  renderQuickError();
  renderTables();
  renderRecords();
  redrawAccount();
  redrawOnline();
  renderPlayingAs();
}

async function init() {
  setupLang(redraw);
  setupOnline();
  setupAccount((name) => {
    setOnlineAccount(name);
    renderPlayingAs();
  });
  $("player-name").value = storedName();
  $("player-name").addEventListener("change", playerName);
  $("quick").addEventListener("click", quickGame);
  $("new-table").addEventListener("submit", createTable);
  $("variant").addEventListener("change", variantChanged);
  $("players").addEventListener("change", playersChanged);
  $("more-rules").addEventListener("input", () => {
    clearError(RAW);
    markChanged();
  });
  redraw();
  document.body.dataset.ready = "true"; // its buttons answer from here on
  try {
    const [variantList, options] = await Promise.all([getJSON("/api/variants"), getJSON("/api/options")]);
    variants = variantList;
    setOnlineVariants(variantList);
    if (options?.levels?.length) levels = options.levels;
    specs = (options?.specs ?? []).filter((spec) => spec.name !== "players");
    buildRuleControls();
    fillSelect($("takeover-level"), levels.map((l) => [l, levelName(l)]), "expert");
    renderVariantList();
    renderVariantSettings();
    renderPlayerList();
    playersChanged();
  } catch (error) {
    showFormError({ text: error.message });
  }
  await loadLists();
  setInterval(loadLists, 10000);
}

init();
