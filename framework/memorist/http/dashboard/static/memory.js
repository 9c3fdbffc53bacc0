// One memory: its text and fields (what replaced it, what it replaces), its history
// (ADD/UPDATE/SUPERSEDED/DELETE timeline), edit and delete.
import { del, get, put } from "./api.js";
import { factsOf, historySection } from "./pane.js";
import { announce, busy, confirmDialog, errorBox, field, h, screen } from "./ui.js";

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
  const facts = factsOf(item);
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
