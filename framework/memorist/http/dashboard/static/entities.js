// Entities: the entity explorer (explorer.js: the people, places and things extracted from a
// user's memories and their links), then each user/agent/run/app with its memory count, its
// linked memories, a small co-occurrence graph (which agents, runs and apps share memories with
// it), and cascade delete.
import { del, get, query } from "./api.js";
import { entityExplorer } from "./explorer.js";
import { currentScope, memoryCard, setScope } from "./memories.js";
import { SCOPE_FIELD } from "./state.js";
import { announce, confirmDialog, errorBox, fill, h, s, screen, when } from "./ui.js";

const GRAPH_SAMPLE = 1000;

/** Nodes and weighted edges among the entities that appear together on the same memories. */
export function cooccurrence(memories) {
  const nodes = new Map();
  const edges = new Map();
  for (const m of memories) {
    const present = Object.entries(SCOPE_FIELD).filter(([, f]) => m[f]).map(([type, f]) => `${type}:${m[f]}`);
    for (const key of present) nodes.set(key, (nodes.get(key) || 0) + 1);
    for (let i = 0; i < present.length; i++) {
      for (let j = i + 1; j < present.length; j++) {
        const key = [present[i], present[j]].sort().join("|");
        edges.set(key, (edges.get(key) || 0) + 1);
      }
    }
  }
  return { nodes, edges };
}

function drawGraph(center, graph) {
  const W = 560, H = 360, cx = W / 2, cy = H / 2;
  const keys = [...graph.nodes.keys()].sort((a, b) => (a === center ? -1 : b === center ? 1 : graph.nodes.get(b) - graph.nodes.get(a)));
  const others = keys.filter((k) => k !== center);
  const pos = new Map([[center, [cx, cy]]]);
  others.forEach((k, i) => {
    const angle = (2 * Math.PI * i) / Math.max(1, others.length) - Math.PI / 2;
    pos.set(k, [cx + Math.cos(angle) * 140 * (W / H) * 0.8, cy + Math.sin(angle) * 130]);
  });
  const max = Math.max(1, ...graph.nodes.values());
  const maxEdge = Math.max(1, ...graph.edges.values());
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "graph", role: "img", "aria-labelledby": "graph-title" },
    s("title", { id: "graph-title" }, `Entities sharing memories with ${center.replace(":", " ")}`));
  for (const [key, count] of graph.edges) {
    const [a, b] = key.split("|");
    if (!pos.has(a) || !pos.has(b)) continue;
    svg.append(s("line", { x1: pos.get(a)[0], y1: pos.get(a)[1], x2: pos.get(b)[0], y2: pos.get(b)[1], class: "edge", "stroke-width": 1 + (5 * count) / maxEdge },
      s("title", {}, `${a} and ${b}: ${count} memories`)));
  }
  for (const key of keys) {
    const [x, y] = pos.get(key);
    const [type, ...id] = key.split(":");
    const r = 10 + (18 * graph.nodes.get(key)) / max;
    svg.append(s("g", { class: `node ${type}${key === center ? " center" : ""}` },
      s("circle", { cx: x, cy: y, r }, s("title", {}, `${type} ${id.join(":")}: ${graph.nodes.get(key)} memories`)),
      s("text", { x, y: y + r + 14, "text-anchor": "middle" }, `${type}: ${id.join(":")}`)));
  }
  return svg;
}

async function detail(entity, panel) {
  const params = { [SCOPE_FIELD[entity.type]]: entity.id };
  panel.replaceChildren(h("p", { class: "muted" }, "Loading…"));
  try {
    const page = await get(`/memories${query({ ...params, page: 1, page_size: GRAPH_SAMPLE })}`);
    const center = `${entity.type}:${entity.id}`;
    const graph = cooccurrence(page.results);
    if (!graph.nodes.has(center)) graph.nodes.set(center, page.count);
    const rows = [...graph.edges].filter(([k]) => k.split("|").includes(center)).sort((a, b) => b[1] - a[1]);
    fill(panel,
      h("h2", { id: "entity-h", tabindex: "-1" }, `${entity.type} ${entity.id}`),
      h("div", { class: "grid2" },
        h("figure", { class: "card" }, drawGraph(center, graph),
          h("figcaption", { class: "small muted" }, page.count > GRAPH_SAMPLE ? `From the newest ${GRAPH_SAMPLE} of ${page.count} memories.` : `From all ${page.count} memories.`)),
        h("table", { class: "card" }, h("caption", {}, "Shares memories with"),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Entity"), h("th", { scope: "col" }, "Shared memories"))),
          h("tbody", {}, rows.length ? rows.map(([k, n]) => h("tr", {}, h("td", {}, k.split("|").find((x) => x !== center)), h("td", {}, n)))
            : h("tr", {}, h("td", { colspan: 2, class: "muted" }, "No other entity."))))),
      h("h3", {}, "Linked memories (newest first)"),
      h("ol", { class: "memories" }, page.results.slice(0, 20).map((m) => memoryCard(m))),
      page.count > 20 ? h("p", {}, h("a", { href: "#/memories", onclick: () => setScope(entity) }, `All ${page.count} memories`)) : null,
    );
    panel.querySelector("#entity-h").focus();
  } catch (error) {
    panel.replaceChildren(errorBox(error));
  }
}

export async function entitiesScreen() {
  const entities = await get("/entities");
  const panel = h("section", { class: "entity-detail", "aria-live": "polite" });
  const table = h("table", { class: "card wide" },
    h("caption", {}, "Users, agents, runs and apps"),
    h("thead", {}, h("tr", {}, ["Type", "Id", "Memories", "Last change", "Actions"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, entities.map((e) => h("tr", { dataset: { entity: `${e.type}:${e.id}` } },
      h("td", {}, e.type),
      h("th", { scope: "row" }, e.id),
      h("td", { class: "num" }, e.total_memories),
      h("td", {}, when(e.updated_at)),
      h("td", { class: "actions" },
        h("button", { type: "button", class: "ghost", onclick: () => detail(e, panel) }, "Open"),
        h("button", { type: "button", class: "danger", "aria-label": `Delete ${e.type} ${e.id}`, onclick: async () => {
          const ok = await confirmDialog(`Delete ${e.type} “${e.id}” and all ${e.total_memories} of its memories? This cannot be undone (history is kept).`, "Delete all");
          if (!ok) return;
          try {
            const answer = await del(`/entities/${encodeURIComponent(e.type)}/${encodeURIComponent(e.id)}`);
            announce(answer.message);
            await entitiesScreen();
          } catch (error) {
            panel.replaceChildren(errorBox(error));
          }
        } }, "Delete"))))));
  const explorer = await entityExplorer(entities, currentScope());
  screen("Entities", explorer,
    entities.length ? table : h("p", { class: "muted" }, "No entities yet: add a memory first."), panel);
}
