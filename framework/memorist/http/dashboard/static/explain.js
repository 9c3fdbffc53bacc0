// The explain breakdown of one search hit: the signals as labelled bars (each 0..1), then how the
// final score was made from them (raw fused score, the age-and-use decay, calibration, the
// reranker), and, when a hit ranks above one with a higher raw score, a sentence saying why
// (the reranker, the decay that weighs age and use, or facts over time: a newer version of a
// fact, or a stated change, goes above the older hit; the engine marks it as ``reordered``).
import { h } from "./ui.js";

export const SIGNALS = [
  ["semantic", "Semantic"],
  ["keyword", "Keyword"],
  ["entity", "Entity"],
  ["temporal", "Temporal"],
  ["context", "Context"],
];

const n3 = (x) => Number(x).toFixed(3);
const num = (x) => (x === undefined || x === null || Number.isNaN(Number(x)) ? undefined : Number(x));

/** The parts of a hit's score: raw fused, decay factor, decayed, calibrated final, reranked. */
export function components(item) {
  const d = item.score_details || {};
  const raw = num(d.raw_score) ?? num(d.score) ?? num(item.score);
  const decay = num(d.decay) ?? 1;
  return { raw, decay, decayed: raw === undefined ? undefined : raw * decay, reranked: num(d.reranked_score), final: num(item.score), reordered: d.reordered };
}

/**
 * For each result (best first), a sentence when it ranks above a later result whose raw fused
 * score is higher (else null): the order is the final score's, and the sentence names what moved
 * it (the reranker, or the decay that weighs a memory's age and use).
 */
export function rankReasons(results) {
  const parts = results.map(components);
  return parts.map((mine, i) => {
    if (mine.raw === undefined) return null;
    let j = -1;
    for (let k = i + 1; k < parts.length; k++) {
      if (parts[k].raw !== undefined && parts[k].raw > mine.raw && (j < 0 || parts[k].raw > parts[j].raw)) j = k;
    }
    if (j < 0) return null;
    const other = parts[j];
    const lead = `Ranked #${i + 1}, above #${j + 1}, whose raw fused score is higher (${n3(other.raw)} against ${n3(mine.raw)}): `;
    if (mine.reordered === "newer_version") {
      return `${lead}this is a newer version of the same fact as a lower-ranked hit, and the current version of a fact goes first (it takes the higher place and its score).`;
    }
    if (mine.reordered === "stated_change") {
      return `${lead}this memory states a change to an older hit on the same topic (“moved”, “no longer”), and a change goes above what it changes (it takes the higher place and its score).`;
    }
    if (mine.reranked !== undefined && other.reranked !== undefined) {
      return `${lead}the reranker scored this one ${n3(mine.reranked)} and #${j + 1} ${n3(other.reranked)}, and reranked results are ordered by the reranker.`;
    }
    if (mine.decay !== other.decay) {
      return `${lead}the decay factor, which weighs a memory's age and how often it was used, is ${n3(mine.decay)} here and ${n3(other.decay)} for #${j + 1}, so after decay this one scores ${n3(mine.decayed)} against ${n3(other.decayed)}. Calibration maps that onto the final score without changing the order.`;
    }
    return `${lead}its final score ${n3(mine.final)} is higher after the adjustments that follow fusion.`;
  });
}

export function renderExplain(item, reason) {
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
  const c = components(item);
  const steps = [];
  if (c.raw !== undefined) steps.push(["Raw fused", n3(c.raw)]);
  if (details.decay !== undefined) steps.push(["× decay (age, use)", n3(c.decay)], ["= after decay", n3(c.decayed)]);
  if (c.reranked !== undefined) steps.push(["Reranker", n3(c.reranked)]);
  steps.push([details.raw_score !== undefined && c.reranked === undefined ? "Final, calibrated" : "Final score", n3(item.score)]);
  return h(
    "div",
    { class: "explain", "aria-label": `Why this matched: score ${Number(item.score).toFixed(3)}` },
    h("p", { class: "small" }, h("strong", {}, `Score ${Number(item.score).toFixed(3)}`),
      details.raw_score !== undefined ? ` (raw fused ${Number(details.raw_score).toFixed(3)}, calibrated)` : "",
      details.reranked_score !== undefined ? ` (reranked ${Number(details.reranked_score).toFixed(3)})` : ""),
    h("div", { role: "list", class: "signals" }, rows),
    h("dl", { class: "steps small", "aria-label": "How the score was made" }, steps.map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", {}, v)))),
    reason ? h("p", { class: "small why" }, reason) : null,
    entities,
  );
}
