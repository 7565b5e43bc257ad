// Small DOM helpers shared by the pages.

export const $ = (id) => document.getElementById(id);

// el("button", { class: "btn", text: "Go", "aria-label": "…" }, ...children)
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}
