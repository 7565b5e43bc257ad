// A move in words with mini cards: "7♠ takes 2♥ 5♦", or "7♠ to the floor".

import { miniCard } from "./cards.js";
import { sentence } from "./i18n.js";

/** Move text ("7S:2H+5D", "7S") as a sentence of mini cards. */
export function moveWords(move) {
  const [card, taken = ""] = move.split(":");
  if (!taken) return sentence("move_trail", { card: miniCard(card) });
  const cards = document.createDocumentFragment();
  taken.split("+").forEach((c, i) => cards.append(i ? " " : "", miniCard(c)));
  return sentence("move_takes", { card: miniCard(card), cards });
}
