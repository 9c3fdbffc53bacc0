// Memories: pick whose (user/agent/run/app, with counts); search (results at the top, with the
// explain breakdown); add by hand; and the table of all the scope's memories (browse.js: sorted,
// filtered and paged by the server, bulk delete, a side pane). One memory's page is memory.js.
import { get, post, query } from "./api.js";
import { memoryTable } from "./browse.js";
import { renderExplain, rankReasons } from "./explain.js";
import { SCOPE_FIELD } from "./state.js";
import { announce, busy, errorBox, field, fill, h, screen, when } from "./ui.js";

export { SCOPE_FIELD };
const PAGE_SIZE = 20;
const SCOPE_KEY = "memorist.scope";

export function currentScope() {
  try {
    return JSON.parse(sessionStorage.getItem(SCOPE_KEY)) || null;
  } catch {
    return null;
  }
}
export function setScope(scope) {
  sessionStorage.setItem(SCOPE_KEY, JSON.stringify(scope));
}
export function scopeParams(scope) {
  return scope ? { [SCOPE_FIELD[scope.type]]: scope.id } : {};
}

export function memoryCard(item, extra) {
  const ids = Object.entries(SCOPE_FIELD)
    .filter(([, f]) => item[f])
    .map(([type, f]) => h("span", { class: "tag" }, `${type}: ${item[f]}`));
  return h(
    "li",
    { class: "memory card", dataset: { id: item.id } },
    h("p", { class: "text" }, h("a", { href: `#/memory/${encodeURIComponent(item.id)}`, class: "plain" }, item.memory)),
    h(
      "p",
      { class: "meta" },
      h("time", { datetime: item.created_at || "" }, when(item.created_at)),
      ids,
      (item.categories || []).map((c) => h("span", { class: "tag cat" }, c)),
      item.metadata && Object.keys(item.metadata).length ? h("code", { class: "small" }, JSON.stringify(item.metadata)) : null,
    ),
    extra || null,
  );
}

function scopePicker(entities, scope, onChange) {
  const select = h("select", { id: "scope", name: "scope" });
  const groups = {};
  for (const e of entities) {
    groups[e.type] = groups[e.type] || h("optgroup", { label: `${e.type}s` });
    const value = `${e.type}:${e.id}`;
    groups[e.type].append(h("option", { value, selected: scope && scope.type === e.type && scope.id === e.id }, `${e.id} (${e.total_memories})`));
  }
  if (!entities.length) select.append(h("option", { value: "" }, "No memories yet"));
  for (const type of ["user", "agent", "run", "app"]) if (groups[type]) select.append(groups[type]);
  select.addEventListener("change", () => {
    const [type, ...rest] = select.value.split(":");
    onChange(type ? { type, id: rest.join(":") } : null);
  });
  return field("Whose memories", select, "Users, agents, runs and apps, with how many memories each has.");
}

function filtersFrom(form) {
  const parts = [];
  const cats = form.categories.value.split(",").map((c) => c.trim()).filter(Boolean);
  if (cats.length) parts.push({ categories: { in: cats } });
  const meta = form.metadata.value.trim();
  if (meta) {
    const [key, ...value] = meta.split("=");
    if (!key || !value.length) throw new Error("Metadata filter: write key=value");
    parts.push({ [`metadata.${key.trim()}`]: value.join("=").trim() });
  }
  if (form.from.value) parts.push({ created_at: { gte: new Date(`${form.from.value}T00:00:00`).toISOString() } });
  if (form.to.value) parts.push({ created_at: { lte: new Date(`${form.to.value}T23:59:59.999`).toISOString() } });
  if (!parts.length) return undefined;
  return parts.length === 1 ? parts[0] : { AND: parts };
}

// Full text: the public list route with its ``text`` parameter (every word, case-insensitive),
// newest first with paging, like the plain list; no scores, so no explain bars.
async function showFullText(scope, results, words, page) {
  results.replaceChildren(h("p", { class: "muted" }, "Searching…"));
  try {
    const answer = await get(`/memories${query({ ...scopeParams(scope), text: words, page, page_size: PAGE_SIZE })}`);
    const pages = Math.max(1, Math.ceil(answer.count / PAGE_SIZE));
    const list = h("ol", { class: "memories", "aria-label": "Full-text results, newest first" });
    for (const item of answer.results) list.append(memoryCard(item));
    const nav = h(
      "nav",
      { class: "pager", "aria-label": "Result pages" },
      h("button", { type: "button", class: "ghost", disabled: page <= 1, onclick: () => showFullText(scope, results, words, page - 1) }, "Previous"),
      h("span", {}, `Page ${page} of ${pages} · ${answer.count} containing “${words}”`),
      h("button", { type: "button", class: "ghost", disabled: page >= pages, onclick: () => showFullText(scope, results, words, page + 1) }, "Next"),
    );
    fill(results,
      h("h2", {}, `${answer.count} memor${answer.count === 1 ? "y contains" : "ies contain"} “${words}”`),
      answer.results.length ? list : h("p", { class: "muted" }, "No memory contains these words."),
      nav,
      closeButton(results),
    );
  } catch (error) {
    results.replaceChildren(errorBox(error));
  }
}

function closeButton(results) {
  return h("button", { type: "button", class: "ghost", onclick: () => {
    fill(results);
    document.getElementById("browse-h")?.scrollIntoView({ block: "start" });
  } }, "Close the results");
}

function modeToggle() {
  const option = (value, label, checked) =>
    h("label", { class: "check" }, h("input", { type: "radio", name: "mode", value, checked }), ` ${label}`);
  return h(
    "fieldset",
    { class: "mode" },
    h("legend", {}, "Search mode"),
    option("hybrid", "Hybrid (meaning, keywords, entities; ranked, with explain)", true),
    option("fulltext", "Full text (memories containing every word, newest first)", false),
  );
}

function searchForm(scope, results) {
  const q = h("input", { name: "q", type: "search", required: true, placeholder: "What does the agent remember about…" });
  const form = h(
    "form",
    { class: "card", role: "search", "aria-label": "Search memories" },
    h("div", { class: "row" }, field("Search", q), h("button", { type: "submit" }, "Search")),
    modeToggle(),
    h(
      "details",
      {},
      h("summary", {}, "Filters (hybrid search)"),
      h(
        "div",
        { class: "grid4" },
        field("Categories", h("input", { name: "categories", placeholder: "food, travel" }), "Any of these, comma separated."),
        field("Metadata", h("input", { name: "metadata", placeholder: "topic=cooking" }), "key=value"),
        field("Created from", h("input", { name: "from", type: "date" })),
        field("Created until", h("input", { name: "to", type: "date" })),
      ),
      h("label", { class: "check" }, h("input", { type: "checkbox", name: "rerank" }), " Rerank the results"),
    ),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (form.mode.value === "fulltext") {
      busy(form, () => showFullText(scope, results, q.value.trim(), 1));
      return;
    }
    busy(form, async () => {
      results.replaceChildren(h("p", { class: "muted" }, "Searching…"));
      try {
        const body = { query: q.value, ...scopeParams(scope), explain: true, limit: 20, rerank: form.rerank.checked };
        const filters = filtersFrom(form);
        if (filters) body.filters = filters;
        const answer = await post("/search", body);
        const list = h("ol", { class: "memories", "aria-label": "Search results" });
        const reasons = rankReasons(answer.results);
        answer.results.forEach((item, i) => list.append(memoryCard(item, renderExplain(item, reasons[i]))));
        fill(results,
          h("h2", {}, `${answer.results.length} result${answer.results.length === 1 ? "" : "s"} for “${q.value}”`),
          answer.results.length ? list : h("p", { class: "muted" }, "Nothing matched."),
          closeButton(results),
        );
      } catch (error) {
        results.replaceChildren(errorBox(error));
      }
    });
  });
  return form;
}

function describeAdd(answer) {
  const stored = answer.results || [];
  const merged = answer.merged || [];
  const skipped = answer.skipped || [];
  const text = (item) => item.memory || item.text || item.content || item.fact || JSON.stringify(item);
  const out = [h("h3", {}, `Stored ${stored.length}, merged ${merged.length}, skipped ${skipped.length}`)];
  if (stored.length) out.push(h("ul", { class: "stored" }, stored.map((r) => h("li", {}, h("span", { class: "tag ok" }, r.event || "ADD"), " ", h("a", { href: `#/memory/${encodeURIComponent(r.id)}` }, text(r))))));
  if (merged.length) {
    out.push(h("ul", { class: "merged" }, merged.map((r) => {
      const into = r.memory_id || r.into;
      return h("li", {}, h("span", { class: "tag" }, "MERGED"), " ", text(r),
        into ? [" into ", h("a", { href: `#/memory/${encodeURIComponent(into)}` }, "this memory")] : null,
        r.reason ? h("span", { class: "muted" }, ` — ${r.reason}`) : null,
        r.source_message ? h("q", { class: "muted small" }, r.source_message) : null);
    })));
  }
  if (skipped.length) {
    out.push(h("ul", { class: "skipped" }, skipped.map((r) => h("li", {}, h("span", { class: "tag warn" }, "SKIPPED"), " ", text(r),
      r.reason ? h("span", { class: "muted" }, ` — ${r.reason}`) : null,
      r.source_message ? [" ", h("q", { class: "muted small" }, r.source_message)] : null))));
  }
  if (!stored.length && !merged.length && !skipped.length) {
    out.push(h("p", { class: "muted" }, "Nothing was stored: the extractor found no fact to keep in this message. Untick “Extract facts” to store it verbatim."));
  }
  return h("div", { class: "add-result", role: "status" }, out);
}

function addForm(scopeNow, onAdded) {
  const scope = scopeNow();
  const text = h("textarea", { name: "content", rows: 3, required: true, placeholder: "I moved to Lisbon in March and I am allergic to peanuts." });
  const role = h("select", { name: "role" }, ["user", "assistant", "system"].map((r) => h("option", { value: r }, r)));
  const ids = Object.entries(SCOPE_FIELD).map(([type, f]) =>
    field(`${type} id`, h("input", { name: f, value: scope && scope.type === type ? scope.id : "" })),
  );
  const metadata = h("textarea", { name: "metadata", rows: 2, placeholder: '{"topic": "health"}' });
  const outcome = h("div", {});
  const form = h(
    "form",
    { class: "card", "aria-label": "Add a memory" },
    field("Message", text),
    h("div", { class: "grid4" }, field("Role", role), ids),
    field("Metadata (JSON, optional)", metadata),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "infer", checked: true }), " Extract facts (untick to store the message verbatim)"),
    h("button", { type: "submit" }, "Add"),
    outcome,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(form, async () => {
      outcome.replaceChildren();
      const body = { messages: [{ role: role.value, content: text.value }], infer: form.infer.checked };
      for (const f of Object.values(SCOPE_FIELD)) if (form[f].value.trim()) body[f] = form[f].value.trim();
      try {
        if (metadata.value.trim()) body.metadata = JSON.parse(metadata.value);
      } catch {
        outcome.replaceChildren(errorBox("Metadata: not valid JSON"));
        return;
      }
      try {
        const answer = await post("/memories", body);
        outcome.replaceChildren(describeAdd(answer));
        announce(`Stored ${(answer.results || []).length} memories.`);
        text.value = "";
        await onAdded(body);
      } catch (error) {
        outcome.replaceChildren(errorBox(error));
      }
    });
  });
  return h("details", { class: "add" }, h("summary", {}, "Add a memory by hand"), form);
}

export async function memoriesScreen() {
  let entities = await get("/entities");
  let scope = currentScope();
  if (scope && !entities.some((e) => e.type === scope.type && e.id === scope.id)) scope = null;
  if (!scope && entities.length) scope = { type: entities[0].type, id: entities[0].id };
  // Search results sit right under the search form, above the add form and the table.
  const results = h("section", { "aria-live": "polite", class: "results", "aria-label": "Search results area" });
  const bar = h("div", { class: "card scopebar" });
  const search = h("div", {});
  const add = h("div", {});
  const browse = h("div", {});
  const choose = async (next) => {
    scope = next;
    if (scope) setScope(scope);
    bar.replaceChildren(scopePicker(entities, scope, choose));
    search.replaceChildren(searchForm(scope, results));
    fill(results);
    if (!scope) {
      fill(browse, h("p", { class: "muted" }, "Pick a user, agent, run or app above, or add a first memory."));
      return;
    }
    const table = memoryTable({ params: scopeParams(scope), label: `${scope.type} ${scope.id}` }, []);
    fill(browse, table.element);
    // The entity filter's choices come from the graph, read beside the first page (not before it).
    const graph = get(`/graph${query(scopeParams(scope))}`).then((g) => table.setEntities(g.entities), () => {});
    await Promise.all([table.reload(), graph]);
  };
  // After an add, the counts change and a new user may exist: refresh the picker, keep the outcome shown.
  const added = async (body) => {
    entities = await get("/entities");
    const type = Object.keys(SCOPE_FIELD).find((t) => body[SCOPE_FIELD[t]]);
    await choose(type ? { type, id: body[SCOPE_FIELD[type]] } : scope);
  };
  add.replaceChildren(addForm(() => scope, added));
  screen("Memories", bar, search, results, add, browse);
  await choose(scope);
}
