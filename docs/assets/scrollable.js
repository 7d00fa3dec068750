// A wide table scrolls sideways inside its wrapper (Material's .md-typeset__scrollwrap): keyboard users
// must reach it, so every such wrapper is a named, focusable region (axe-core: scrollable-region-focusable).
function focusableScrollers() {
  for (const wrap of document.querySelectorAll(".md-typeset__scrollwrap")) {
    if (!wrap.hasAttribute("tabindex")) {
      wrap.setAttribute("tabindex", "0");
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", "table (scrolls sideways)");
    }
  }
}
if (typeof document$ !== "undefined") {
  document$.subscribe(() => setTimeout(focusableScrollers, 0));
} else {
  document.addEventListener("DOMContentLoaded", () => setTimeout(focusableScrollers, 0));
}
