// The entity explorer: the people, places, organizations and things the engine extracted from one
// user's memories (GET /graph), drawn as a graph whose edges are the memories that mention two
// entities together, with a keyboard-first alternative: a table of entities, the links of the
// chosen one, and the memories behind a link (GET /memories?entity=a,b).
import { get, query } from "./api.js";
import { kindLabel } from "./pane.js";
import { errorBox, field, fill, h, s } from "./ui.js";

const DRAWN = 40;
const DRAWN_EDGES = 80;

const caption = (graph) => `${graph.total_entities} entities in ${graph.linked_memories} memories; the ${Math.min(DRAWN, graph.entities.length)} most linked are drawn, with the ${DRAWN_EDGES} heaviest links and every link of the chosen one.`;

/** Positions on concentric rings, the most linked entity in the middle (deterministic). */
export function layout(ids, width, height) {
  const pos = new Map();
  const cx = width / 2, cy = height / 2;
  if (!ids.length) return pos;
  pos.set(ids[0], [cx, cy]);
  let placed = 1, ring = 1;
  while (placed < ids.length) {
    const capacity = 8 * ring;
    const here = ids.slice(placed, placed + capacity);
    here.forEach((id, i) => {
      const angle = (2 * Math.PI * i) / here.length - Math.PI / 2 + ring * 0.3;
      pos.set(id, [cx + Math.cos(angle) * ring * (width / 7), cy + Math.sin(angle) * ring * (height / 7.5)]);
    });
    placed += here.length;
    ring += 1;
  }
  return pos;
}

function drawGraph(graph, chosen, choose) {
  const W = 720, H = 460;
  const shown = graph.entities.slice(0, DRAWN);
  const ids = shown.map((e) => e.id);
  const pos = layout(ids, W, H);
  const names = new Map(graph.entities.map((e) => [e.id, e]));
  const maxEdge = Math.max(1, ...graph.edges.map((e) => e.weight));
  const maxNode = Math.max(1, ...shown.map((e) => e.memories));
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "graph entities-graph", role: "img", "aria-labelledby": "egraph-title" },
    s("title", { id: "egraph-title" }, `Entity graph: ${shown.length} most linked entities; the table below lists them all`));
  // The heaviest links, and every link of the chosen entity: a readable picture, not a hairball.
  const drawn = graph.edges.filter((e, i) => i < DRAWN_EDGES || e.source === chosen || e.target === chosen);
  for (const edge of drawn) {
    if (!pos.has(edge.source) || !pos.has(edge.target)) continue;
    const [x1, y1] = pos.get(edge.source), [x2, y2] = pos.get(edge.target);
    const near = chosen && (edge.source === chosen || edge.target === chosen);
    svg.append(s("line", { x1, y1, x2, y2, class: `edge${near ? " near" : ""}`, "stroke-width": 1 + (4 * edge.weight) / maxEdge },
      s("title", {}, `${names.get(edge.source).name} and ${names.get(edge.target).name}: ${edge.weight} memories`)));
  }
  for (const entity of shown) {
    const [x, y] = pos.get(entity.id);
    const r = 6 + (12 * entity.memories) / maxNode;
    const node = s("g", { class: `node ${entity.kind}${entity.id === chosen ? " center" : ""}` },
      s("circle", { cx: x, cy: y, r }, s("title", {}, `${entity.name} (${kindLabel(entity.kind)}): ${entity.memories} memories`)),
      s("text", { x, y: y + r + 12, "text-anchor": "middle" }, entity.name));
    node.addEventListener("click", () => choose(entity.id)); // the table below is the keyboard path
    svg.append(node);
  }
  return svg;
}

async function edgeMemories(scopeParams, a, b, target) {
  fill(target, h("p", { class: "muted" }, "Loading…"));
  try {
    const page = await get(`/memories${query({ ...scopeParams, entity: `${a.id},${b.id}`, page_size: 50 })}`);
    fill(target,
      h("h4", { id: "edge-h", tabindex: "-1" }, `${page.count} memor${page.count === 1 ? "y mentions" : "ies mention"} ${a.name} and ${b.name}`),
      h("ul", { class: "edge-memories", "aria-labelledby": "edge-h" }, page.results.map((m) =>
        h("li", {}, h("a", { href: `#/memory/${encodeURIComponent(m.id)}` }, m.memory)))),
      page.count > page.results.length ? h("p", { class: "muted small" }, `The first ${page.results.length} of ${page.count}.`) : null);
    target.querySelector("#edge-h").focus();
  } catch (error) {
    fill(target, errorBox(error));
  }
}

function linksOf(graph, entity, scopeParams, target) {
  const names = new Map(graph.entities.map((e) => [e.id, e]));
  const edges = graph.edges.filter((e) => e.source === entity.id || e.target === entity.id);
  const behind = h("div", { class: "edge-detail", "aria-live": "polite" });
  const rows = edges.map((edge) => {
    const other = names.get(edge.source === entity.id ? edge.target : edge.source);
    return h("tr", {},
      h("th", { scope: "row" }, other.name),
      h("td", {}, kindLabel(other.kind)),
      h("td", { class: "num" }, edge.weight),
      h("td", {}, h("button", { type: "button", class: "ghost", onclick: () => edgeMemories(scopeParams, entity, other, behind),
        "aria-label": `Memories linking ${entity.name} and ${other.name}` }, "Memories")));
  });
  fill(target,
    h("h3", { id: "links-h", tabindex: "-1" }, `${entity.name}: ${entity.memories} memories, ${edges.length} linked entities`),
    edges.length
      ? h("table", { class: "wide links" }, h("caption", {}, `Entities mentioned with ${entity.name}`),
        h("thead", {}, h("tr", {}, ["Entity", "Kind", "Shared memories", "Behind the link"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, rows))
      : h("p", { class: "muted" }, "No other entity shares a memory with it."),
    behind);
  target.querySelector("#links-h").focus();
}

/** The explorer for one scope (``scopes``: the /entities rows; ``initial``: the scope to open). */
export async function entityExplorer(scopes, initial) {
  const users = scopes.filter((e) => e.type === "user").concat(scopes.filter((e) => e.type !== "user"));
  const section = h("section", { class: "card explorer", "aria-labelledby": "explorer-h" });
  const body = h("div", {});
  const select = h("select", { id: "explorer-scope" }, users.map((e) =>
    h("option", { value: `${e.type}:${e.id}`, selected: initial && initial.type === e.type && initial.id === e.id }, `${e.type} ${e.id}`)));
  async function show() {
    const [type, ...rest] = select.value.split(":");
    const params = { [`${type}_id`]: rest.join(":") };
    fill(body, h("p", { class: "muted" }, "Loading…"));
    try {
      const graph = await get(`/graph${query(params)}`);
      const figure = h("figure", { class: "graph-figure" });
      const links = h("div", { class: "links-detail", "aria-live": "polite" });
      const choose = (id) => {
        figure.replaceChildren(drawGraph(graph, id, choose),
          h("figcaption", { class: "small muted" }, caption(graph)));
        linksOf(graph, graph.entities.find((e) => e.id === id), params, links);
      };
      figure.append(drawGraph(graph, null, choose),
        h("figcaption", { class: "small muted" }, caption(graph)));
      const table = h("table", { class: "wide" }, h("caption", {}, "Extracted entities, most linked first"),
        h("thead", {}, h("tr", {}, ["Entity", "Kind", "Memories", "Links"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, graph.entities.map((e) => h("tr", { dataset: { entity: e.id } },
          h("th", { scope: "row" }, e.name), h("td", {}, kindLabel(e.kind)), h("td", { class: "num" }, e.memories),
          h("td", {}, h("button", { type: "button", class: "ghost", onclick: () => choose(e.id), "aria-label": `Links of ${e.name}` }, "Links"))))));
      fill(body, graph.entities.length
        ? [h("div", { class: "grid2" }, figure, h("div", { class: "scroll tall" }, table)), links]
        : h("p", { class: "muted" }, "No entity extracted from these memories yet."));
    } catch (error) {
      fill(body, errorBox(error));
    }
  }
  select.addEventListener("change", show);
  fill(section, h("h2", { id: "explorer-h" }, "Entity explorer"),
    h("p", { class: "muted small" }, "People, places, organizations and things found in the memories, linked when one memory mentions both."),
    users.length ? field("Whose entities", select) : h("p", { class: "muted" }, "No memories yet."), body);
  if (users.length) await show();
  return section;
}
