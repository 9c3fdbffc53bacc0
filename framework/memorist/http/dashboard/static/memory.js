// One memory: its text and fields (what replaced it, what it replaces), its history
// (ADD/UPDATE/SUPERSEDED/DELETE timeline), edit and delete.
import { del, get, put } from "./api.js";
import { SCOPE_FIELD } from "./memories.js";
import { announce, busy, confirmDialog, errorBox, field, h, screen, when } from "./ui.js";

function timeline(rows) {
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

async function historySection(id) {
  try {
    return timeline(await get(`/memories/${encodeURIComponent(id)}/history`));
  } catch (error) {
    return errorBox(error);
  }
}

export async function memoryScreen(id) {
  let item;
  try {
    item = await get(`/memories/${encodeURIComponent(id)}`);
  } catch (error) {
    if (error.status !== 404) throw error;
    // Deleted memories keep their history: show it.
    screen("Memory not found", h("p", {}, "This memory no longer exists. Its history:"), await historySection(id),
      h("p", {}, h("a", { href: "#/memories" }, "Back to memories")));
    return;
  }
  const text = h("textarea", { name: "text", rows: 4, required: true }, item.memory);
  const metadata = h("textarea", { name: "metadata", rows: 3 }, JSON.stringify(item.metadata || {}, null, 2));
  const edit = h(
    "form",
    { class: "card", "aria-label": "Edit memory" },
    h("h2", {}, "Edit"),
    field("Text", text),
    field("Metadata (JSON)", metadata),
    h("div", { class: "row" },
      h("button", { type: "submit" }, "Save changes"),
      h("button", { type: "button", class: "danger", id: "delete-memory" }, "Delete memory")),
  );
  edit.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(edit, async () => {
      edit.querySelectorAll(".error").forEach((e) => e.remove());
      let meta;
      try {
        meta = JSON.parse(metadata.value || "{}");
      } catch {
        edit.append(errorBox("Metadata: not valid JSON"));
        return;
      }
      try {
        await put(`/memories/${encodeURIComponent(id)}`, { text: text.value, metadata: meta });
        announce("Memory updated.");
        await memoryScreen(id);
      } catch (error) {
        edit.append(errorBox(error));
      }
    });
  });
  edit.querySelector("#delete-memory").addEventListener("click", async () => {
    if (!(await confirmDialog(`Delete this memory? “${item.memory}” Its history is kept.`))) return;
    try {
      await del(`/memories/${encodeURIComponent(id)}`);
      announce("Memory deleted.");
      location.hash = "#/memories";
    } catch (error) {
      edit.append(errorBox(error));
    }
  });
  const facts = [
    ["Id", item.id],
    ...Object.entries(SCOPE_FIELD).filter(([, f]) => item[f]).map(([t, f]) => [t, item[f]]),
    ["Categories", (item.categories || []).join(", ") || "—"],
    ["Created", when(item.created_at)],
    ["Updated", when(item.updated_at)],
    ["Expires", item.expiration_date ? when(item.expiration_date) : "never"],
    ["Attributed to", item.attributed_to || "—"],
  ];
  // Facts over time: the newer memory that replaced this one, the older ones it replaces.
  const link = (other) => h("a", { href: `#/memory/${encodeURIComponent(other)}` }, other);
  if (item.superseded_by) {
    facts.push(["Replaced by", h("span", {}, link(item.superseded_by), item.superseded_at ? ` on ${when(item.superseded_at)}` : "")]);
  }
  if ((item.linked_memory_ids || []).length) {
    facts.push(["Replaces", h("span", {}, item.linked_memory_ids.flatMap((other, i) => (i ? [", ", link(other)] : [link(other)])))]);
  }
  screen(
    "Memory",
    h("p", { class: "lead" }, item.memory),
    h("div", { class: "grid2" },
      h("dl", { class: "facts card" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
      h("section", { class: "card", "aria-labelledby": "history-h" }, h("h2", { id: "history-h" }, "History"), await historySection(id))),
    edit,
    h("p", {}, h("a", { href: "#/memories" }, "Back to memories")),
  );
}
