import { isRtl } from "./i18n.js";

/**
 * Moves the focus among the cards of a hand from the keyboard, the same at a table and in
 * a lesson: a digit 1–9 picks that card, the arrows go to the next or previous one (the
 * left arrow goes forward right to left), Home and End to the first and the last. Enter or
 * Space then plays the focused card (it is a button). Does nothing for other keys.
 */
export function moveInHand(event, cards) {
  if (!cards.length) return;
  if (/^[1-9]$/.test(event.key)) {
    const card = cards[Number(event.key) - 1];
    if (card) {
      card.focus();
      event.preventDefault();
    }
    return;
  }
  const index = cards.indexOf(document.activeElement);
  if (index < 0) return;
  const forward = isRtl() ? "ArrowLeft" : "ArrowRight";
  const backward = isRtl() ? "ArrowRight" : "ArrowLeft";
  let next = null;
  if (event.key === forward || event.key === "ArrowDown") next = (index + 1) % cards.length;
  else if (event.key === backward || event.key === "ArrowUp") next = (index - 1 + cards.length) % cards.length;
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = cards.length - 1;
  if (next !== null) {
    cards[next].focus();
    event.preventDefault();
  }
}
