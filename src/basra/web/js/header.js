// The header every page shares (web/templates/base.html): on a narrow screen the site's
// links fold behind the Menu button (a disclosure: aria-expanded, Escape or a click
// elsewhere closes it, focus goes back to the button); on a wide one they are in the bar
// and the button is hidden by the style sheet.

const button = document.getElementById("menu-toggle");
const links = document.getElementById("nav-links");
const topbar = button?.closest(".topbar");

function setOpen(open, { focusButton = false } = {}) {
  button.setAttribute("aria-expanded", String(open));
  topbar.classList.toggle("menu-open", open);
  if (open) links.querySelector("a")?.focus();
  else if (focusButton) button.focus();
}

function isOpen() {
  return button.getAttribute("aria-expanded") === "true";
}

if (button && links && topbar) {
  button.addEventListener("click", () => setOpen(!isOpen()));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && isOpen()) {
      event.preventDefault();
      setOpen(false, { focusButton: true });
    }
  });
  document.addEventListener("click", (event) => {
    if (isOpen() && !topbar.contains(event.target)) setOpen(false);
  });
  // Leaving the menu with Tab past its last link closes it.
  links.addEventListener("focusout", (event) => {
    if (isOpen() && event.relatedTarget && !links.contains(event.relatedTarget) && event.relatedTarget !== button) setOpen(false);
  });
}
