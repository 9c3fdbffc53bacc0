// API keys: create (the full value is shown once, with a copy button), list with prefix and last use, revoke.
import { del, get, post } from "./api.js";
import { state } from "./state.js";
import { announce, busy, confirmDialog, copyText, errorBox, field, h, screen, when } from "./ui.js";

export async function keysScreen() {
  if (state.authDisabled || !state.me) {
    screen("API keys", h("p", {}, "API keys belong to a user account; authentication is disabled on this server."));
    return;
  }
  const keys = await get("/api-keys");
  const label = h("input", { name: "label", required: true, maxlength: 255, placeholder: "my-agent" });
  const created = h("div", {});
  const form = h("form", { class: "card", "aria-label": "Create an API key" },
    h("div", { class: "row" }, field("Label", label), h("button", { type: "submit" }, "Create key")), created);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(form, async () => {
      try {
        const key = await post("/api-keys", { label: label.value });
        const value = h("input", { id: "new-key", readonly: true, value: key.key, class: "mono", "aria-describedby": "new-key-hint" });
        const copy = h("button", { type: "button", onclick: async () => {
          const ok = await copyText(key.key);
          if (!ok) { value.select(); }
          announce(ok ? "Key copied to the clipboard." : "Select the key and copy it with Ctrl+C.");
        } }, "Copy");
        await render();
        created.replaceChildren(h("div", { class: "notice" },
          h("label", { for: "new-key" }, `New key “${key.label}”`),
          h("div", { class: "row" }, value, copy),
          h("small", { id: "new-key-hint" }, "Shown only this once: store it now. Send it as the X-API-Key header.")));
        value.focus();
        value.select();
      } catch (error) {
        created.replaceChildren(errorBox(error));
      }
    });
  });
  const listArea = h("div", {});
  async function render(list) {
    const rows = list || await get("/api-keys");
    listArea.replaceChildren(rows.length ? h("table", { class: "card wide" },
      h("caption", {}, "Your active keys"),
      h("thead", {}, h("tr", {}, ["Label", "Prefix", "Created", "Last used", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows.map((k) => h("tr", { dataset: { key: k.id } },
        h("th", { scope: "row" }, k.label),
        h("td", {}, h("code", {}, `${k.key_prefix}…`)),
        h("td", {}, when(k.created_at)),
        h("td", {}, k.last_used_at ? when(k.last_used_at) : "never"),
        h("td", {}, h("button", { type: "button", class: "danger", "aria-label": `Revoke ${k.label}`, onclick: async () => {
          if (!(await confirmDialog(`Revoke the key “${k.label}” (${k.key_prefix}…)? Clients using it fail at once.`, "Revoke"))) return;
          try {
            await del(`/api-keys/${encodeURIComponent(k.id)}`);
            announce(`Key “${k.label}” revoked.`);
            created.replaceChildren();
            await render();
          } catch (error) {
            listArea.prepend(errorBox(error));
          }
        } }, "Revoke"))))))
      : h("p", { class: "muted" }, "No keys yet."));
  }
  await render(keys);
  screen("API keys", form, listArea);
}
