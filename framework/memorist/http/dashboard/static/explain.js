// The explain breakdown of one search hit, drawn as labelled bars (each signal is 0..1).
import { h } from "./ui.js";

export const SIGNALS = [
  ["semantic", "Semantic"],
  ["keyword", "Keyword"],
  ["entity", "Entity"],
  ["temporal", "Temporal"],
  ["context", "Context"],
];

export function renderExplain(item) {
  const details = item.score_details;
  if (!details) return null;
  const rows = SIGNALS.map(([key, label]) => {
    const value = Math.max(0, Math.min(1, Number(details[key]) || 0));
    const fill = h("span", { class: `fill ${key}` });
    fill.style.width = `${(value * 100).toFixed(1)}%`; // CSSOM, allowed by the page's CSP
    return h(
      "div",
      { class: "signal", role: "listitem" },
      h("span", { class: "label" }, label),
      h("span", { class: "bar", role: "img", "aria-label": `${label} ${value.toFixed(3)}` }, fill),
      h("span", { class: "value" }, value.toFixed(3)),
    );
  });
  const entities = details.matched_entities && details.matched_entities.length
    ? h("p", { class: "small muted" }, `Matched entities: ${details.matched_entities.join(", ")}`)
    : null;
  return h(
    "div",
    { class: "explain", "aria-label": `Why this matched: score ${Number(item.score).toFixed(3)}` },
    h("p", { class: "small" }, h("strong", {}, `Score ${Number(item.score).toFixed(3)}`),
      details.raw_score !== undefined ? ` (raw fused ${Number(details.raw_score).toFixed(3)}, calibrated)` : "",
      details.reranked_score !== undefined ? ` (reranked ${Number(details.reranked_score).toFixed(3)})` : ""),
    h("div", { role: "list", class: "signals" }, rows),
    entities,
  );
}
