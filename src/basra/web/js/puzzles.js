// The puzzles page: a position with one clearly best move; click a card to answer. Two
// modes: puzzles one at a time (an account's puzzle rating moves), and the Puzzle Streak
// (puzzles in a row, each a little harder, until the first mistake; the best streak is
// kept with the account, else in this browser). /puzzles/{id} opens that puzzle.

import { $, el } from "./dom.js";
import { redrawAccount, setupAccount } from "./account.js";
import { ApiError, getJSON, postJSON } from "./api.js";
import { cardElement } from "./cards.js";
import { moveWords } from "./moves.js";
import { errorText, familyKey, hasKey, sentence, setupLang, t } from "./i18n.js";

const STREAK_KEY = "basra.puzzleStreak";
const BEST_KEY = "basra.puzzleBest";
const SEEN_KEY = "basra.puzzlesSeen";

let mode = location.hash === "#streak" ? "streak" : "puzzles";
let puzzle = null;
let result = null;
let account = null; // {rating, solved, attempts} when logged in
let streak = { current: 0, best: 0, server: false }; // server: kept with the account
let streakOver = null; // {solved, newBest} once a mistake ended the streak
let bestAtStart = 0; // the best streak when this one began
let notice = null; // {key, params}: a message above the puzzle (a puzzle id not found)

function showError(message) {
  $("alert").textContent = message;
}

function stored(key) {
  return Number(localStorage.getItem(key) || 0);
}

function seen() {
  try {
    return JSON.parse(localStorage.getItem(SEEN_KEY) || "[]");
  } catch {
    return [];
  }
}

function renderNotice() {
  $("alert").textContent = notice ? t(notice.key, notice.params) : $("alert").textContent;
}

function renderModes() {
  for (const button of document.querySelectorAll(".puzzle-mode")) {
    button.setAttribute("aria-selected", String(button.dataset.mode === mode));
  }
  document.body.dataset.mode = mode;
  $("streak-panel").hidden = mode !== "streak";
}

function renderStatus() {
  renderModes();
  $("puzzle-status").textContent = mode === "puzzles" && account
    ? t("your_puzzle_rating", { n: account.rating }) : "";
  $("puzzle-status").hidden = !$("puzzle-status").textContent;
  $("streak-current").textContent = t("streak_current", { n: streak.current });
  $("streak-best").textContent = t("streak_best", { n: streak.best });
  $("streak-kept").textContent = t(streak.server ? "streak_kept_account" : "streak_kept_browser");
  $("streak-over").hidden = streakOver === null;
  if (streakOver) {
    $("streak-over-text").textContent = t("streak_over", { n: streakOver.solved });
    $("streak-new-best").hidden = !streakOver.newBest;
  }
}

function cardsInto(box, cards) {
  box.replaceChildren(...cards.map((card) => cardElement(card)));
}

function variantName(view) {
  const key = `variant_${view.preset}`;
  const name = view.preset && hasKey(key) ? t(key) : view.variant;
  return view.house_rules ? t("puzzle_house_rules", { variant: name }) : name;
}

function renderVariant() {
  const parts = [t("puzzle_variant", { variant: variantName(puzzle) })];
  const line = $("puzzle-variant");
  line.replaceChildren(parts[0]);
  if (puzzle.preset) {
    line.append(" · ", el("a", { href: `/rules/${encodeURIComponent(puzzle.preset)}`, "data-testid": "puzzle-rules-link", text: t("puzzle_rules_link") }));
  }
}

function renderPuzzle() {
  renderStatus();
  renderNotice();
  if (!puzzle) return;
  $("puzzle").hidden = false;
  const tags = puzzle.tags.map((tag) => t(`tag_${tag.replace(" ", "_")}`)).join(t("list_comma"));
  $("puzzle-info").textContent = `${t("puzzle_rating", { n: puzzle.rating })} · ${tags}`;
  renderVariant();
  cardsInto($("puzzle-other"), puzzle.other_hand);
  cardsInto($("puzzle-floor"), puzzle.floor);
  const mine = puzzle.pile_counts[puzzle.side];
  const theirs = puzzle.pile_counts[1 - puzzle.side];
  $("puzzle-piles").textContent = t("cards_taken", { mine, theirs });
  const hand = $("puzzle-hand");
  hand.replaceChildren(...puzzle.hand.map((card) => {
    const button = cardElement(card, { tag: "button", className: "puzzle-card" });
    button.disabled = result !== null;
    button.addEventListener("click", () => chooseCard(card));
    return button;
  }));
  $("puzzle-captures").hidden = true;
  $("puzzle-link-url").value = `${location.origin}/puzzles/${puzzle.id}`;
  renderResult();
}

function chooseCard(card) {
  if (result) return;
  const moves = puzzle.moves.filter((m) => m.card === card);
  if (moves.length === 1) {
    answer(moves[0].move);
    return;
  }
  const list = $("puzzle-capture-list");
  list.replaceChildren(...moves.map((m) => {
    const button = el("button", { class: "btn capture-option", type: "button", "data-move": m.move });
    button.append(moveWords(m.move));
    button.addEventListener("click", () => answer(m.move));
    return button;
  }));
  $("puzzle-captures").hidden = false;
}

/** A guest's streak, kept in this browser. */
function countGuestStreak(correct) {
  const current = correct ? stored(STREAK_KEY) + 1 : 0;
  const best = Math.max(current, stored(BEST_KEY));
  localStorage.setItem(STREAK_KEY, String(current));
  localStorage.setItem(BEST_KEY, String(best));
  return { current, best, server: false };
}

async function answer(move) {
  showError("");
  notice = null;
  const inStreak = mode === "streak";
  const before = { ...streak };
  try {
    result = await postJSON(`/api/puzzles/${encodeURIComponent(puzzle.id)}/answer`, { move, streak: inStreak });
  } catch (error) {
    showError(errorText(error));
    return;
  }
  if (result.rating) account = { ...(account ?? {}), rating: result.rating.after };
  if (inStreak) {
    streak = result.streak ? { ...result.streak, server: true } : countGuestStreak(result.correct);
    streakOver = result.correct ? null : { solved: before.current, newBest: before.current > bestAtStart };
  }
  renderPuzzle();
  (inStreak && !result.correct ? $("streak-start") : $("next-puzzle")).focus();
}

function reasonNode(reason, family) {
  switch (reason.kind) {
    case "more_basras":
      return document.createTextNode(t(familyKey("puzzle_reason_more_basras", family), { n: reason.n }));
    case "stops_basra":
      return document.createTextNode(t(familyKey("puzzle_reason_stops_basra", family)));
    case "trap":
      return sentence("puzzle_reason_trap", { move: moveWords(reason.move), n: Math.round(reason.loses) });
    default:
      return document.createTextNode(t(`puzzle_reason_${reason.kind}`, { mine: reason.mine, theirs: reason.theirs }));
  }
}

function otherNode(other, family) {
  const n = Math.round(other.loses);
  if (other.reply === null) return sentence("puzzle_other_loses_last", { move: moveWords(other.move), n });
  const key = other.reply_basra ? familyKey("puzzle_other_loses_basra", family) : "puzzle_other_loses";
  return sentence(key, { move: moveWords(other.move), reply: moveWords(other.reply), n });
}

/** The explanation of the answer, worded from the server's data in the page's language. */
function renderExplanation(why, family) {
  const [mine, theirs] = why.end;
  $("puzzle-why").replaceChildren(sentence("puzzle_why_best", { n: Math.round(why.gap), mine, theirs }));
  $("puzzle-reasons").replaceChildren(...why.reasons.map((r) => el("li", { "data-kind": r.kind }, reasonNode(r, family))));
  $("puzzle-line").replaceChildren(...why.line.map((step) => {
    const item = el("li", { class: `step-${step.by}` },
      sentence(step.by === "you" ? "puzzle_step_you" : "puzzle_step_opponent", { move: moveWords(step.move) }));
    if (step.basra) item.append(" ", el("span", { class: "puzzle-basra", text: t(familyKey("basra_toast", family)) }));
    return item;
  }));
  $("puzzle-others").replaceChildren(...why.others.map((other) => el("li",
    { class: other.move === result.played ? "played" : "", "data-move": other.move }, otherNode(other, family))));
}

function renderResult() {
  const box = $("puzzle-result");
  box.hidden = result === null;
  if (!result) return;
  box.dataset.correct = String(result.correct);
  const verdict = $("puzzle-verdict");
  verdict.textContent = t(result.correct ? "puzzle_correct" : "puzzle_wrong");
  verdict.className = result.correct ? "puzzle-right" : "puzzle-wrong";
  $("puzzle-solution").replaceChildren(sentence("puzzle_solution", { move: moveWords(result.solution) }));
  // An account's answer that did not move its rating says why (a solution seen before).
  const unrated = result.rating?.unrated ?? null;
  $("puzzle-unrated").hidden = unrated === null;
  $("puzzle-unrated").dataset.reason = unrated ?? "";
  $("puzzle-unrated").textContent = unrated === null ? "" : t(`puzzle_unrated_${unrated}`);
  renderExplanation(result.explained, puzzle.family);
  $("next-puzzle").hidden = mode === "streak" && !result.correct;
  for (const node of $("puzzle-hand").querySelectorAll("[data-card]")) {
    node.classList.toggle("better-move", result.solution.split(":")[0] === node.dataset.card);
  }
}

function showPuzzle(view) {
  puzzle = view;
  result = null;
  const skip = seen().slice(-100);
  localStorage.setItem(SEEN_KEY, JSON.stringify([...skip.filter((id) => id !== view.id), view.id].slice(-100)));
  document.body.dataset.puzzle = puzzle.id;
  history.replaceState(null, "", mode === "streak" ? "/puzzles#streak" : `/puzzles/${puzzle.id}`);
  renderPuzzle();
}

async function nextPuzzle() {
  showError("");
  notice = null;
  const skip = seen().slice(-100);
  const query = new URLSearchParams({ skip: skip.join(",") });
  if (mode === "streak") query.set("streak", String(streak.current));
  try {
    showPuzzle((await getJSON(`/api/puzzles/next?${query}`)).puzzle);
  } catch (error) {
    showError(errorText(error));
  }
}

/** The puzzle of a /puzzles/{id} link; another one, and a notice, when there is none. */
async function openPuzzle(id) {
  try {
    showPuzzle((await getJSON(`/api/puzzles/${encodeURIComponent(id)}`)).puzzle);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) {
      showError(errorText(error));
      return;
    }
    await nextPuzzle();
    notice = { key: "puzzle_not_found", params: { id: id.slice(0, 40) } };
    renderNotice();
  }
}

async function loadStreak() {
  try {
    const mine = await getJSON("/api/puzzles/streak");
    if (mine.current !== null) {
      streak = { current: mine.current, best: mine.best, server: true };
      return;
    }
  } catch {
    // (the browser's own count below)
  }
  streak = { current: stored(STREAK_KEY), best: stored(BEST_KEY), server: false };
}

async function startStreak() {
  streakOver = null;
  if (streak.server) {
    try {
      streak = { ...(await postJSON("/api/puzzles/streak")), server: true };
    } catch (error) {
      showError(errorText(error));
    }
  } else {
    localStorage.setItem(STREAK_KEY, "0");
    streak = { ...streak, current: 0 };
  }
  bestAtStart = streak.best;
  await nextPuzzle();
}

async function switchMode(next) {
  if (next === mode) return;
  mode = next;
  streakOver = null;
  if (mode === "streak") {
    await loadStreak();
    bestAtStart = streak.best;
  }
  await nextPuzzle();
}

async function copyLink() {
  const input = $("puzzle-link-url");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  const button = $("puzzle-copy");
  button.textContent = t("copied");
  setTimeout(() => {
    button.textContent = t("copy_link");
  }, 1500);
}

async function init() {
  setupLang(() => {
    renderPuzzle();
    redrawAccount();
  });
  setupAccount();
  $("next-puzzle").addEventListener("click", nextPuzzle);
  $("streak-start").addEventListener("click", startStreak);
  $("puzzle-copy").addEventListener("click", copyLink);
  for (const button of document.querySelectorAll(".puzzle-mode")) {
    button.addEventListener("click", () => switchMode(button.dataset.mode));
  }
  try {
    const mine = await getJSON("/api/puzzles/rating");
    account = mine.rating === null ? null : mine;
  } catch {
    account = null;
  }
  if (mode === "streak") {
    await loadStreak();
    bestAtStart = streak.best;
  }
  const linked = location.pathname.match(/^\/puzzles\/([^/]+)$/);
  if (linked && mode === "puzzles") await openPuzzle(decodeURIComponent(linked[1]));
  else await nextPuzzle();
}

init();
