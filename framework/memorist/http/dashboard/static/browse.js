// The memory table of one scope: the server sorts, filters and pages (GET /memories with sort,
// category, created_from/to, metadata_key, entity), so a scope of thousands costs one page of
// rows. Rows can be selected one by one or a page at a time and deleted together; the chosen
// row opens in a side pane (pane.js) beside the table.
import { del, get, query } from "./api.js";
import { openPane } from "./pane.js";
import { announce, busy, confirmDialog, errorBox, field, fill, h, when } from "./ui.js";

export const PAGE_SIZES = [25, 50, 100];
const COLUMNS = [
  ["memory", "Memory"],
  [null, "Categories"],
  ["created_at", "Created"],
  ["updated_at", "Updated"],
];
const DELETE_PARALLEL = 4;

function isoStart(day) { return day ? new Date(`${day}T00:00:00`).toISOString() : undefined; }
function isoEnd(day) { return day ? new Date(`${day}T23:59:59.999`).toISOString() : undefined; }

/** The query of one page: the scope, the filters of the form, the order and the page. */
export function pageQuery(scopeParams, view) {
  return {
    ...scopeParams,
    sort: view.sort,
    page: view.page,
    page_size: view.pageSize,
    category: view.category || undefined,
    created_from: isoStart(view.from),
    created_to: isoEnd(view.to),
    metadata_key: view.metadataKey || undefined,
    entity: view.entity || undefined,
  };
}

/** Delete ``ids`` a few at a time; answers how many went and the errors of the others. */
export async function deleteMany(ids) {
  const queue = [...ids];
  let deleted = 0;
  const failed = [];
  async function worker() {
    while (queue.length) {
      const id = queue.shift();
      try {
        await del(`/memories/${encodeURIComponent(id)}`);
        deleted += 1;
      } catch (error) {
        if (error.status === 404) deleted += 1; // already gone: what the user asked for
        else failed.push(error.detail || String(error));
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(DELETE_PARALLEL, queue.length) }, worker));
  return { deleted, failed };
}

function filterForm(view, entities, apply) {
  const category = h("input", { name: "category", value: view.category, placeholder: "food, travel" });
  const from = h("input", { name: "from", type: "date", value: view.from });
  const to = h("input", { name: "to", type: "date", value: view.to });
  const metadataKey = h("input", { name: "metadata_key", value: view.metadataKey, placeholder: "topic", pattern: "[A-Za-z0-9_\\-]+" });
  const entity = h("select", { name: "entity" }, h("option", { value: "" }, "Any"),
    entities.map((e) => h("option", { value: e.id, selected: e.id === view.entity }, `${e.name} (${e.memories})`)));
  const size = h("select", { name: "page_size" }, PAGE_SIZES.map((n) => h("option", { value: n, selected: n === view.pageSize }, n)));
  const form = h("form", { class: "card filters", "aria-label": "Filter the table" },
    h("div", { class: "grid4" },
      field("Category", category, "Any of these, comma separated."),
      field("Created from", from),
      field("Created until", to),
      field("Metadata key", metadataKey, "Memories whose metadata has it."),
      field("Mentions entity", entity),
      field("Rows per page", size)),
    h("div", { class: "row" },
      h("button", { type: "submit" }, "Apply filters"),
      h("button", { type: "reset", class: "ghost" }, "Clear")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    apply({ category: category.value.trim(), from: from.value, to: to.value, metadataKey: metadataKey.value.trim(),
      entity: entity.value, pageSize: Number(size.value), page: 1 });
  });
  form.addEventListener("reset", () => {
    setTimeout(() => apply({ category: "", from: "", to: "", metadataKey: "", entity: "", page: 1 }));
  });
  return form;
}

function headerCell(key, label, view, sortBy) {
  if (!key) return h("th", { scope: "col" }, label);
  const state = view.sort === key ? "ascending" : view.sort === `-${key}` ? "descending" : "none";
  // Text starts A to Z, dates newest first; a second click turns the order around.
  const next = state === "none" ? (key === "memory" ? key : `-${key}`) : state === "descending" ? key : `-${key}`;
  const arrow = state === "ascending" ? " ▲" : state === "descending" ? " ▼" : "";
  return h("th", { scope: "col", "aria-sort": state },
    h("button", { type: "button", class: "sort", onclick: () => sortBy(next),
      "aria-label": `Sort by ${label.toLowerCase()}, ${next.startsWith("-") ? "descending" : "ascending"}` }, label, arrow));
}

/**
 * The table section of a scope. ``scope`` is {params, label}; ``entities`` the scope's graph
 * entities (for the entity filter). Answers {element, reload, setView}.
 */
export function memoryTable(scope, entities, initial = {}) {
  const view = { sort: "-created_at", page: 1, pageSize: 25, category: "", from: "", to: "", metadataKey: "", entity: "", ...initial };
  const selected = new Set();
  const body = h("div", { class: "table-body" });
  const pane = h("aside", { class: "pane card", "aria-labelledby": "pane-h", hidden: true });
  const filters = h("div", {});
  let rows = [];

  const setView = (changes) => {
    Object.assign(view, changes);
    if ("sort" in changes || "category" in changes || "entity" in changes) selected.clear();
    filters.replaceChildren(filterForm(view, entities, setView));
    return load();
  };

  async function removeSelected(button) {
    const ids = [...selected];
    if (!ids.length) return;
    const ok = await confirmDialog(`Delete ${ids.length} selected memor${ids.length === 1 ? "y" : "ies"}? Their history is kept.`, `Delete ${ids.length}`);
    if (!ok) return;
    await busy(button.closest("div"), async () => {
      const { deleted, failed } = await deleteMany(ids);
      selected.clear();
      announce(failed.length ? `Deleted ${deleted}; ${failed.length} failed: ${failed[0]}` : `Deleted ${deleted} memories.`, failed.length ? "error" : "ok");
      if (!pane.hidden && ids.includes(pane.dataset.id)) pane.hidden = true;
      await load();
    });
  }

  function render(answer) {
    rows = answer.results;
    const pages = Math.max(1, Math.ceil(answer.count / view.pageSize));
    const all = h("input", { type: "checkbox", "aria-label": "Select every memory on this page",
      checked: rows.length > 0 && rows.every((r) => selected.has(r.id)) });
    const bulk = h("button", { type: "button", class: "danger", disabled: !selected.size }, `Delete selected (${selected.size})`);
    bulk.addEventListener("click", () => removeSelected(bulk));
    const refreshBulk = () => {
      bulk.disabled = !selected.size;
      bulk.textContent = `Delete selected (${selected.size})`;
      all.checked = rows.length > 0 && rows.every((r) => selected.has(r.id));
    };
    const boxes = [];
    const tbody = h("tbody", {}, rows.map((item) => {
      const box = h("input", { type: "checkbox", "aria-label": `Select: ${item.memory}`, checked: selected.has(item.id) });
      box.addEventListener("change", () => { if (box.checked) selected.add(item.id); else selected.delete(item.id); refreshBulk(); });
      boxes.push([box, item]);
      const open = h("button", { type: "button", class: "linkish", "aria-controls": "memory-pane" }, item.memory);
      open.addEventListener("click", () => openPane(pane, item, { onDeleted: load, onEntity: (id) => setView({ entity: id, page: 1 }) }));
      const replaced = item.superseded_by ? h("span", { class: "tag warn" }, "replaced") : null;
      return h("tr", { dataset: { id: item.id }, class: pane.dataset.id === item.id && !pane.hidden ? "current" : null },
        h("td", { class: "pick" }, box),
        h("td", { class: "text" }, open, replaced),
        h("td", {}, (item.categories || []).map((c) => h("span", { class: "tag cat" }, c))),
        h("td", { class: "date" }, h("time", { datetime: item.created_at || "" }, when(item.created_at))),
        h("td", { class: "date" }, h("time", { datetime: item.updated_at || "" }, when(item.updated_at))));
    }));
    all.addEventListener("change", () => {
      for (const [box, item] of boxes) {
        box.checked = all.checked;
        if (all.checked) selected.add(item.id); else selected.delete(item.id);
      }
      refreshBulk();
    });
    const go = (page) => setView({ page });
    const nav = h("nav", { class: "pager", "aria-label": "Pages" },
      h("button", { type: "button", class: "ghost", disabled: view.page <= 1, onclick: () => go(view.page - 1) }, "Previous"),
      h("span", {}, `Page ${view.page} of ${pages} · ${answer.count} memories`),
      h("button", { type: "button", class: "ghost", disabled: view.page >= pages, onclick: () => go(view.page + 1) }, "Next"));
    const table = h("table", { class: "memtable wide", "aria-describedby": "table-count" },
      h("caption", { id: "table-count" }, `${scope.label}: ${answer.count} memories`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "pick" }, all),
        COLUMNS.map(([key, label]) => headerCell(key, label, view, (sort) => setView({ sort, page: 1 }))))),
      tbody);
    fill(body,
      h("div", { class: "row bulk" }, bulk, h("span", { class: "muted small" }, "Select rows, or a whole page with the box in the header.")),
      rows.length ? h("div", { class: "scroll" }, table) : h("p", { class: "muted" }, "No memory matches."),
      nav);
  }

  async function load() {
    body.setAttribute("aria-busy", "true");
    try {
      const answer = await get(`/memories${query(pageQuery(scope.params, view))}`);
      const pages = Math.max(1, Math.ceil(answer.count / view.pageSize));
      if (view.page > pages && answer.count) {
        view.page = pages;
        return load();
      }
      render(answer);
    } catch (error) {
      fill(body, errorBox(error));
    } finally {
      body.removeAttribute("aria-busy");
    }
  }

  /** The graph entities the entity filter offers (they arrive after the first page). */
  const setEntities = (list) => {
    entities = list;
    const select = filters.querySelector("select[name=entity]");
    if (!select) return;
    select.replaceChildren(h("option", { value: "" }, "Any"),
      entities.map((e) => h("option", { value: e.id, selected: e.id === view.entity }, `${e.name} (${e.memories})`)));
  };

  filters.replaceChildren(filterForm(view, entities, setView));
  pane.id = "memory-pane";
  const element = h("section", { class: "browse", "aria-labelledby": "browse-h" },
    h("h2", { id: "browse-h" }, "Browse: sort, filter, select"),
    filters,
    h("div", { class: "split" }, body, pane));
  return { element, reload: load, setView, setEntities, view };
}
