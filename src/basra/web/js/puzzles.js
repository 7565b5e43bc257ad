// The puzzles page: a position with one clearly best move; click a card to answer.

import { $, el } from "./dom.js";
import { redrawAccount, setupAccount } from "./account.js";
import { getJSON, postJSON } from "./api.js";
import { cardElement } from "./cards.js";
import { moveWords } from "./moves.js";
import { lang, sentence, setupLang, t } from "./i18n.js";

const STREAK_KEY = "basra.puzzleStreak";
const BEST_KEY = "basra.puzzleBest";
const SEEN_KEY = "basra.puzzlesSeen";

let puzzle = null;
let result = null;
let account = null; // {rating, solved, attempts} when logged in

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

function renderStatus() {
  const parts = [];
  if (account) {
    parts.push(t("your_puzzle_rating", { n: account.rating }));
  } else {
    parts.push(t("streak", { n: stored(STREAK_KEY) }), t("best_streak", { n: stored(BEST_KEY) }));
  }
  $("puzzle-status").textContent = parts.join(" · ");
}

function cardsInto(box, cards, options = {}) {
  box.replaceChildren(...cards.map((card) => {
    const node = cardElement(card, options);
    return node;
  }));
}

function renderPuzzle() {
  renderStatus();
  if (!puzzle) return;
  $("puzzle").hidden = false;
  const tags = puzzle.tags.map((tag) => t(`tag_${tag.replace(" ", "_")}`)).join(t("list_comma"));
  $("puzzle-info").textContent = `${t("puzzle_rating", { n: puzzle.rating })} · ${tags}`;
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

async function answer(move) {
  showError("");
  try {
    result = await postJSON(`/api/puzzles/${encodeURIComponent(puzzle.id)}/answer`, { move });
  } catch (error) {
    showError(error.message);
    return;
  }
  if (result.rating) {
    account = { ...(account ?? {}), rating: result.rating.after };
  } else {
    const streak = result.correct ? stored(STREAK_KEY) + 1 : 0;
    localStorage.setItem(STREAK_KEY, String(streak));
    localStorage.setItem(BEST_KEY, String(Math.max(streak, stored(BEST_KEY))));
  }
  renderPuzzle();
  $("next-puzzle").focus();
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
  // The explanation is written by the server in English; other languages show the values.
  $("puzzle-explanation").hidden = lang() !== "en";
  $("puzzle-explanation").textContent = result.explanation;
  const values = Object.entries(result.values).sort((a, b) => b[1] - a[1]);
  $("puzzle-values").replaceChildren(...values.map(([move, value]) => el("li",
    { class: move === result.solution ? "best" : move === result.played ? "played" : "" },
    moveWords(move), ` ${value > 0 ? "+" : ""}${Math.round(value)}`)));
  for (const node of $("puzzle-hand").querySelectorAll("[data-card]")) {
    node.classList.toggle("better-move", result.solution.split(":")[0] === node.dataset.card);
  }
}

async function nextPuzzle() {
  showError("");
  result = null;
  const skip = seen().slice(-100);
  try {
    const answer = await getJSON(`/api/puzzles/next?skip=${encodeURIComponent(skip.join(","))}`);
    puzzle = answer.puzzle;
  } catch (error) {
    showError(error.message);
    return;
  }
  localStorage.setItem(SEEN_KEY, JSON.stringify([...skip, puzzle.id].slice(-100)));
  document.body.dataset.puzzle = puzzle.id;
  renderPuzzle();
}

async function init() {
  setupLang(() => {
    renderPuzzle();
    redrawAccount();
  });
  setupAccount();
  $("next-puzzle").addEventListener("click", nextPuzzle);
  try {
    const mine = await getJSON("/api/puzzles/rating");
    account = mine.rating === null ? null : mine; // a guest keeps streaks
  } catch {
    account = null;
  }
  await nextPuzzle();
}

init();
