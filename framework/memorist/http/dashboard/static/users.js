// Users (admin): list with role and state, change role, disable/enable, set a password, delete, create.
import { del, get, patch, post } from "./api.js";
import { state } from "./state.js";
import { announce, busy, confirmDialog, errorBox, field, h, screen, when } from "./ui.js";

/** A modal asking for an account's new password (a masked field, unlike window.prompt). */
function passwordDialog(email) {
  const input = h("input", { type: "password", id: "set-password", autocomplete: "new-password", minlength: 8, required: true });
  const dialog = h("dialog", { "aria-labelledby": "set-password-title" },
    h("form", { method: "dialog" },
      h("h2", { id: "set-password-title" }, `New password for ${email}`),
      field("New password", input, "At least 8 characters. The account is signed out everywhere."),
      h("div", { class: "row end" },
        h("button", { value: "cancel", class: "ghost", formnovalidate: true }, "Cancel"),
        h("button", { value: "ok" }, "Set password"))));
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "ok" ? input.value : null);
      dialog.remove();
    }, { once: true });
    dialog.showModal();
  });
}

export async function usersScreen() {
  if (state.authDisabled) {
    screen("Users", h("p", {}, "Accounts are not managed while authentication is disabled on this server; run `memorist admin` on the server, or turn authentication on."));
    return;
  }
  const accounts = await get("/users");
  const notes = h("div", { "aria-live": "polite" });
  const act = async (work, message) => {
    try {
      await work();
      announce(message);
      await usersScreen();
    } catch (error) {
      notes.replaceChildren(errorBox(error));
    }
  };
  const rows = accounts.map((u) => {
    const self = state.me && state.me.id === u.id;
    const role = h("select", { "aria-label": `Role of ${u.email}`, disabled: self },
      ["user", "admin"].map((r) => h("option", { value: r, selected: r === u.role }, r)));
    role.addEventListener("change", () => act(() => patch(`/users/${u.id}`, { role: role.value }), `${u.email} is now ${role.value}.`));
    return h("tr", { dataset: { user: u.email } },
      h("th", { scope: "row" }, u.email, self ? h("span", { class: "muted" }, " (you)") : null),
      h("td", {}, u.name),
      h("td", {}, role),
      h("td", {}, h("span", { class: `tag ${u.disabled ? "warn" : "ok"}` }, u.disabled ? "disabled" : "active")),
      h("td", {}, when(u.created_at)),
      h("td", {}, u.last_login ? when(u.last_login) : "never"),
      h("td", { class: "actions" },
        h("button", { type: "button", class: "ghost", disabled: self, onclick: () => act(() => patch(`/users/${u.id}`, { disabled: !u.disabled }), `${u.email} ${u.disabled ? "enabled" : "disabled"}.`) }, u.disabled ? "Enable" : "Disable"),
        h("button", { type: "button", class: "ghost", onclick: async () => {
          const pw = await passwordDialog(u.email);
          if (pw) act(() => post(`/users/${u.id}/password`, { password: pw }), `Password of ${u.email} set.`);
        } }, "Set password"),
        h("button", { type: "button", class: "danger", disabled: self, "aria-label": `Delete ${u.email}`, onclick: async () => {
          if (await confirmDialog(`Delete the account ${u.email} and its API keys? Its memories stay.`)) act(() => del(`/users/${u.id}`), `${u.email} deleted.`);
        } }, "Delete")));
  });
  const name = h("input", { name: "name", required: true });
  const email = h("input", { name: "email", type: "email", required: true });
  const password = h("input", { name: "password", type: "password", autocomplete: "new-password", required: true, minlength: 8 });
  const role = h("select", { name: "role" }, h("option", { value: "user" }, "user"), h("option", { value: "admin" }, "admin"));
  const create = h("form", { class: "card", "aria-label": "Create an account" }, h("h2", {}, "Create an account"),
    h("div", { class: "grid4" }, field("Name", name), field("Email", email), field("Password", password), field("Role", role)),
    h("button", { type: "submit" }, "Create account"));
  create.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(create, () => act(() => post("/auth/users", { name: name.value, email: email.value, password: password.value, role: role.value }), `Account ${email.value} created.`));
  });
  screen("Users", notes,
    h("table", { class: "card wide" }, h("caption", {}, "Accounts"),
      h("thead", {}, h("tr", {}, ["Email", "Name", "Role", "State", "Created", "Last sign-in", "Actions"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows)),
    create);
}
