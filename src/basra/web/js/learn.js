// The lessons (/learn, /learn/{id}): the list of lessons by rule family with progress
// ticks, and one lesson's steps. Every position comes from the server (GET
// /api/lessons/{id}), built and judged by the rules core; a card played is posted to
// /api/lessons/{id}/steps/{n}/answer, which says whether it is right and, when not, why
// (a catalog key and its params, cards as codes). The keyboard works as at a table: the
// digits 1-9 pick a card, the arrow keys move between cards, Enter plays. In the pile
// games (Pişti, Xeri) the floor is the pile, drawn bottom to top with its top card
// marked, its face-down cards as backs, and the stock's shown bottom card beside it.
//
// Progress: lessons finished are kept in localStorage; a logged-in account keeps them on
// the server too (GET/PUT /api/learn/progress), and a guest's progress joins the account
// at its first visit logged in.

import { $, el } from "./dom.js";
import { accountName, redrawAccount, setupAccount } from "./account.js";
import { getJSON, postJSON } from "./api.js";
import { moveInHand } from "./hand_keys.js";
import { backElement, cardElement, miniCard } from "./cards.js";
import { errorText, familyKey, sentence, setupLang, t } from "./i18n.js";

const DONE_KEY = "basra.lessonsDone";

let lessons = [];
let lesson = null;
let stepIndex = 0;
let verdict = null; // the last answer of this step
let account = null; // the logged-in name, or null
const done = new Set(localDone());

function localDone() {
  try {
    const list = JSON.parse(localStorage.getItem(DONE_KEY) || "[]");
    return Array.isArray(list) ? list.filter((id) => typeof id === "string") : [];
  } catch {
    return [];
  }
}

function saveLocal() {
  localStorage.setItem(DONE_KEY, JSON.stringify([...done]));
}

function lessonId() {
  const match = location.pathname.match(/^\/learn\/([^/]+)\/?$/);
  return match ? decodeURIComponent(match[1]) : null;
}

function showError(message) {
  $("alert").textContent = message;
}

/** A catalog text with the cards it names ("7♦") kept left to right in any language. */
function ruleText(key, params = {}) {
  return t(key, params).replace(/(10|[2-9AJQK])[♠♥♦♣]/g, "\u2066$&\u2069");
}

function cardsFragment(codes) {
  const fragment = document.createDocumentFragment();
  codes.forEach((code, i) => fragment.append(i ? " " : "", miniCard(code)));
  return fragment;
}

/** A sentence whose card params (codes, lists of codes) are drawn as small cards. */
function cardSentence(key, params) {
  const nodes = {};
  for (const [name, value] of Object.entries(params)) {
    if (name === "key") continue;
    if (Array.isArray(value)) nodes[name] = cardsFragment(value);
    else if (typeof value === "string") nodes[name] = miniCard(value);
    else nodes[name] = value;
  }
  return sentence(key, nodes);
}

// -- progress ------------------------------------------------------------------------

async function syncProgress(name) {
  account = name;
  if (!name) {
    renderSaved();
    return;
  }
  try {
    let mine = await getJSON("/api/learn/progress");
    const missing = [...done].filter((id) => !(id in mine.lessons) && lessons.some((l) => l.id === id));
    if (missing.length) mine = await putProgress(missing);
    for (const id of Object.keys(mine.lessons)) done.add(id);
    saveLocal();
  } catch (error) {
    showError(errorText(error));
  }
  renderList();
  renderSaved();
}

function putProgress(ids) {
  return fetch("/api/learn/progress", {
    method: "PUT",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ lessons: ids }),
  }).then(async (response) => {
    const body = await response.json();
    if (!response.ok) throw Object.assign(new Error(body.message), body);
    return body;
  });
}

async function finishLesson(id) {
  done.add(id);
  saveLocal();
  if (account) {
    try {
      await putProgress([id]);
    } catch (error) {
      showError(errorText(error));
    }
  }
}

function renderSaved() {
  const key = account ? "learn_saved_account" : "learn_saved_browser";
  for (const id of ["learn-saved", "lesson-done-saved"]) {
    $(id).dataset.i18n = key;
    $(id).textContent = t(key);
  }
}

// -- the list ------------------------------------------------------------------------

function renderList() {
  const finished = lessons.filter((l) => done.has(l.id)).length;
  $("learn-progress").textContent = t("learn_progress", { done: finished, total: lessons.length });
  const families = [...new Set(lessons.map((l) => l.family))];
  $("lesson-families").replaceChildren(...families.map((family) => el("section", { class: "learn-family" },
    el("h2", { text: t(`learn_family_${family}`) }),
    el("ol", { class: "learn-lessons" }, ...lessons.filter((l) => l.family === family).map((item) => {
      const link = el("a", { href: `/learn/${item.id}`, "data-lesson": item.id, text: ruleText(item.title) });
      const row = el("li", { class: done.has(item.id) ? "finished" : "" }, link);
      if (done.has(item.id)) {
        row.append(" ", el("span", { class: "learn-tick", "data-testid": "tick", role: "img",
          "aria-label": t("learn_done"), title: t("learn_done"), text: "✓" }));
      }
      return row;
    })))));
}

// -- a lesson ------------------------------------------------------------------------

function step() {
  return lesson.steps[stepIndex];
}

function renderLesson() {
  if (!lesson) return;
  const current = step();
  $("lesson-title").textContent = ruleText(lesson.title);
  $("lesson-step").textContent = t("learn_step", { n: stepIndex + 1, total: lesson.steps.length });
  const rules = $("lesson-rules");
  rules.href = `/rules/${current.preset}`;
  rules.textContent = t("learn_rules_link", { variant: t(`variant_${current.preset}`) });
  $("lesson-text").textContent = ruleText(current.text);
  $("lesson-other-box").hidden = current.other === 0;
  $("lesson-other").replaceChildren(...Array.from({ length: current.other }, () => backElement()));
  const pile = current.family === "pisti";
  const label = $("lesson-floor-label");
  label.dataset.i18n = pile ? "learn_pile" : "floor";
  label.textContent = t(label.dataset.i18n);
  $("lesson-shown-box").hidden = !current.shown;
  $("lesson-shown").replaceChildren(...(current.shown ? [miniCard(current.shown)] : []));
  const taken = verdict?.right ? new Set([...verdict.taken, ...verdict.leftover]) : new Set();
  const floor = $("lesson-floor");
  floor.classList.toggle("learn-pile", pile);
  floor.replaceChildren(...current.floor.map((code, i) => {
    const node = code ? cardElement(code) : backElement();
    if (!code) {
      node.setAttribute("role", "img");
      node.setAttribute("aria-label", t("learn_face_down"));
      node.removeAttribute("aria-hidden");
    }
    if (pile && i === current.floor.length - 1) node.classList.add("pile-top");
    if (code ? taken.has(code) : pile && verdict?.right && verdict.taken.length) node.classList.add("learn-taken");
    return node;
  }));
  const solved = Boolean(verdict?.right);
  $("lesson-hand").replaceChildren(...current.hand.map((code) => {
    const button = cardElement(code, { tag: "button", className: "puzzle-card hand-card" });
    if (solved && verdict.move.split(":")[0] === code) button.classList.add("learn-played");
    button.disabled = solved;
    button.addEventListener("click", () => chooseCard(code));
    return button;
  }));
  $("lesson-captures").hidden = true;
  renderFeedback();
}

function renderFeedback() {
  const box = $("lesson-feedback");
  box.hidden = verdict === null;
  $("lesson-next").hidden = !verdict?.right;
  if (!verdict) {
    delete box.dataset.right;
    return;
  }
  const current = step();
  box.dataset.right = String(verdict.right);
  const title = $("feedback-verdict");
  title.textContent = t(verdict.right ? "learn_right" : "learn_wrong");
  title.className = `learn-verdict ${verdict.right ? "puzzle-right" : "puzzle-wrong"}`;
  const card = verdict.move.split(":")[0];
  if (verdict.right) {
    const parts = [verdict.taken.length
      ? cardSentence("learn_right_takes", { card, cards: verdict.taken })
      : cardSentence(familyKey("learn_right_trail", current.family), { card })];
    if (verdict.basra) {
      const points = verdict.bonus || current.basra_points;
      const double = current.family === "pisti" && points > current.basra_points;
      parts.push(" ", t(double ? "learn_right_jack_pisti" : familyKey("learn_right_basra", current.family), { points }));
    }
    $("feedback-text").replaceChildren(...parts);
    const more = $("feedback-more");
    if (verdict.leftover.length) more.replaceChildren(cardSentence("learn_right_leftover", { cards: verdict.leftover }));
    else if (current.last_card && current.floor.length > verdict.taken.length) more.textContent = t("learn_right_leftover_other");
    else more.textContent = "";
  } else {
    $("feedback-text").replaceChildren(cardSentence(verdict.why.key, verdict.why));
    $("feedback-more").textContent = t("learn_try_again");
  }
}

function chooseCard(card) {
  if (verdict?.right) return;
  const moves = step().moves.filter((m) => m.card === card);
  if (moves.length <= 1) {
    answer(moves.length ? moves[0].move : card);
    return;
  }
  const list = $("lesson-capture-list");
  list.replaceChildren(...moves.map((m) => {
    const button = el("button", { type: "button", class: "btn capture-option", "data-move": m.move,
      "aria-label": m.captured.map((code) => miniCard(code).getAttribute("aria-label")).join(" + ") });
    m.captured.forEach((code, i) => {
      if (i) button.append(el("span", { class: "plus", "aria-hidden": "true", text: "+" }));
      button.append(cardElement(code, { className: "small" }));
    });
    button.addEventListener("click", () => answer(m.move));
    return button;
  }));
  $("lesson-captures").hidden = false;
  list.querySelector("button").focus();
}

async function answer(move) {
  showError("");
  try {
    verdict = await postJSON(`/api/lessons/${encodeURIComponent(lesson.id)}/steps/${stepIndex + 1}/answer`, { move });
  } catch (error) {
    showError(error.message);
    return;
  }
  const card = move.split(":")[0];
  renderLesson();
  if (verdict.right) {
    $("lesson-next").focus();
  } else {
    const again = $("lesson-hand").querySelector(`[data-card="${card}"]`);
    if (again) again.focus();
  }
}

async function nextStep() {
  if (stepIndex + 1 < lesson.steps.length) {
    stepIndex += 1;
    verdict = null;
    renderLesson();
    const first = $("lesson-hand").querySelector("button");
    if (first) first.focus();
    return;
  }
  await finishLesson(lesson.id);
  $("lesson").hidden = true;
  $("lesson-done").hidden = false;
  const next = $("next-lesson");
  next.hidden = !lesson.next;
  if (lesson.next) next.href = `/learn/${lesson.next}`;
  else {
    next.hidden = true;
    $("lesson-done-saved").textContent = t("learn_all_done");
  }
  (lesson.next ? next : $("lesson-done").querySelector("a.btn:not([hidden])")).focus();
}

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || $("lesson").hidden) return;
  if (event.target.closest("input, textarea, select, dialog")) return;
  moveInHand(event, [...$("lesson-hand").querySelectorAll("button:not(:disabled)")]);
}

function redraw() {
  redrawAccount();
  renderSaved();
  if (lesson) renderLesson();
  else renderList();
}

async function init() {
  setupLang(redraw);
  document.addEventListener("keydown", onKey);
  $("lesson-next").addEventListener("click", nextStep);
  try {
    lessons = (await getJSON("/api/lessons")).lessons;
  } catch (error) {
    showError(error.message);
    return;
  }
  const id = lessonId();
  if (id) {
    try {
      lesson = await getJSON(`/api/lessons/${encodeURIComponent(id)}`);
    } catch (error) {
      showError(error.code === "unknown_lesson" ? t("learn_no_lesson", { lesson: id }) : error.message);
    }
  }
  if (lesson) {
    document.body.dataset.lesson = lesson.id;
    $("lesson").hidden = false;
    renderLesson();
  } else {
    $("lesson-list").hidden = false;
    renderList();
  }
  renderSaved();
  await setupAccount((name) => syncProgress(name));
  document.body.dataset.ready = "true";
}

init();
