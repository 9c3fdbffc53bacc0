// The side pane of the memory table: the chosen memory with its fields, what replaced it and
// what it replaces (supersession, when the server reports it), the entities it mentions, and
// its history; delete from here, or open the full page to edit.
import { del, get } from "./api.js";
import { SCOPE_FIELD } from "./state.js";
import { announce, confirmDialog, errorBox, fill, h, when } from "./ui.js";

/** The ADD/UPDATE/SUPERSEDED/DELETE events of a memory, oldest first. */
export function timeline(rows) {
  if (!rows.length) return h("p", { class: "muted" }, "No history.");
  return h(
    "ol",
    { class: "timeline", "aria-label": "History, oldest first" },
    rows.map((r) =>
      h(
        "li",
        { class: `event ${String(r.event).toLowerCase()}` },
        h("span", { class: `tag ev-${String(r.event).toLowerCase()}` }, r.event),
        " ",
        h("time", { datetime: r.created_at }, when(r.created_at)),
        r.actor ? h("span", { class: "muted" }, ` by ${r.actor}`) : null,
        r.old_memory && r.event !== "ADD" ? h("p", { class: "old" }, h("span", { class: "sr" }, "Before: "), r.old_memory) : null,
        r.new_memory && r.event !== "SUPERSEDED" ? h("p", { class: "new" }, h("span", { class: "sr" }, "After: "), r.new_memory) : null,
        r.superseded_by ? h("p", { class: "new" }, "Replaced by ", h("a", { href: `#/memory/${encodeURIComponent(r.superseded_by)}` }, r.superseded_by)) : null,
      ),
    ),
  );
}

export async function historySection(id) {
  try {
    return timeline(await get(`/memories/${encodeURIComponent(id)}/history`));
  } catch (error) {
    return errorBox(error);
  }
}

/** The fields of a memory as (label, value) pairs, supersession links included when present. */
export function factsOf(item) {
  const link = (other) => h("a", { href: `#/memory/${encodeURIComponent(other)}` }, other);
  const facts = [
    ["Id", item.id],
    ...Object.entries(SCOPE_FIELD).filter(([, f]) => item[f]).map(([t, f]) => [t, item[f]]),
    ["Categories", (item.categories || []).join(", ") || "—"],
    ["Metadata", item.metadata && Object.keys(item.metadata).length ? h("code", {}, JSON.stringify(item.metadata)) : "—"],
    ["Created", when(item.created_at)],
    ["Updated", when(item.updated_at)],
    ["Expires", item.expiration_date ? when(item.expiration_date) : "never"],
    ["Attributed to", item.attributed_to || "—"],
  ];
  if (item.superseded_by) {
    facts.push(["Replaced by", h("span", {}, link(item.superseded_by), item.superseded_at ? ` on ${when(item.superseded_at)}` : "")]);
  }
  if ((item.linked_memory_ids || []).length) {
    facts.push(["Replaces", h("span", {}, item.linked_memory_ids.flatMap((other, i) => (i ? [", ", link(other)] : [link(other)])))]);
  }
  return facts;
}

const KIND = { proper_noun: "name", quoted: "title", noun_phrase: "thing" };
export const kindLabel = (kind) => KIND[kind] || kind;

async function entitiesOf(item, onEntity) {
  try {
    const found = await get(`/memories/${encodeURIComponent(item.id)}/entities`);
    if (!found.length) return h("p", { class: "muted" }, "No entity found in this memory.");
    return h("ul", { class: "chips", "aria-label": "Entities in this memory (each shows the memories mentioning it)" }, found.map((e) =>
      h("li", {}, h("button", { type: "button", class: "ghost chip", onclick: () => onEntity(e.id), dataset: { name: e.name },
        title: `Show the memories mentioning ${e.name}` }, e.name, h("span", { class: "muted small" }, ` ${kindLabel(e.kind)}`)))));
  } catch (error) {
    return errorBox(error);
  }
}

/** Show ``item`` in ``pane``; ``onDeleted`` reloads the table, ``onEntity(id)`` filters it by an entity. */
export async function openPane(pane, item, { onDeleted, onEntity }) {
  pane.hidden = false;
  pane.dataset.id = item.id;
  document.querySelectorAll("tr.current").forEach((tr) => tr.classList.remove("current"));
  const row = document.querySelector(`tr[data-id="${CSS.escape(item.id)}"]`);
  if (row) row.classList.add("current");
  const heading = h("h2", { id: "pane-h", tabindex: "-1" }, "Selected memory");
  const close = h("button", { type: "button", class: "ghost", "aria-label": "Close the memory pane" }, "Close");
  close.addEventListener("click", () => {
    pane.hidden = true;
    if (row) row.querySelector("button.linkish")?.focus();
  });
  const remove = h("button", { type: "button", class: "danger" }, "Delete");
  remove.addEventListener("click", async () => {
    if (!(await confirmDialog(`Delete this memory? “${item.memory}” Its history is kept.`))) return;
    try {
      await del(`/memories/${encodeURIComponent(item.id)}`);
      announce("Memory deleted.");
      pane.hidden = true;
      await onDeleted();
    } catch (error) {
      pane.append(errorBox(error));
    }
  });
  fill(pane, h("div", { class: "row between" }, heading, close), h("p", { class: "lead" }, item.memory), h("p", { class: "muted" }, "Loading…"));
  heading.focus();
  const [entities, history] = await Promise.all([entitiesOf(item, onEntity), historySection(item.id)]);
  if (pane.dataset.id !== item.id) return; // another row was opened meanwhile
  const focused = document.activeElement === document.body || pane.contains(document.activeElement);
  fill(pane,
    h("div", { class: "row between" }, heading, close),
    h("p", { class: "lead" }, item.memory),
    h("dl", { class: "facts" }, factsOf(item).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
    h("h3", {}, "Entities"), entities,
    h("h3", {}, "History"), history,
    h("div", { class: "row" }, h("a", { href: `#/memory/${encodeURIComponent(item.id)}` }, "Open to edit"), remove));
  if (focused) heading.focus({ preventScroll: true });
}
