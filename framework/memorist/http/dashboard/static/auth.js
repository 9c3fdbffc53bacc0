// First run, sign-in, the misconfigured-server screen, and the account screen (profile, password).
import { post, patch, session } from "./api.js";
import { signedIn, signOut } from "./app.js";
import { state } from "./state.js";
import { announce, busy, errorBox, field, h, screen } from "./ui.js";

function formError(form, error) {
  form.querySelectorAll(".error").forEach((e) => e.remove());
  if (error.status === 500 && /JWT_SECRET/.test(error.detail || "")) {
    misconfiguredScreen(error.detail);
    return;
  }
  form.append(errorBox(error));
}

export function setupScreen() {
  const name = h("input", { name: "name", autocomplete: "name", required: true });
  const email = h("input", { name: "email", type: "email", autocomplete: "username", required: true });
  const password = h("input", { name: "password", type: "password", autocomplete: "new-password", minlength: 8, required: true });
  const form = h(
    "form",
    { class: "card narrow", "aria-label": "Create the admin account" },
    field("Name", name),
    field("Email", email),
    field("Password", password, "At least 8 characters."),
    h("button", { type: "submit" }, "Create admin account"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(form, async () => {
      try {
        const tokens = await post("/auth/register", { name: name.value, email: email.value, password: password.value });
        announce("Admin account created; you are signed in.");
        await signedIn(tokens);
      } catch (error) {
        formError(form, error);
      }
    });
  });
  screen(
    "Welcome to Memorist",
    h("p", {}, "No account exists yet. The first account is the admin; it creates every further account."),
    form,
  );
  name.focus();
}

export function signInScreen(message) {
  const email = h("input", { name: "email", type: "email", autocomplete: "username", required: true });
  const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
  const form = h(
    "form",
    { class: "card narrow", "aria-label": "Sign in" },
    field("Email", email),
    field("Password", password),
    h("button", { type: "submit" }, "Sign in"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(form, async () => {
      try {
        const tokens = await post("/auth/login", { email: email.value, password: password.value });
        await signedIn(tokens);
      } catch (error) {
        formError(form, error);
      }
    });
  });
  screen("Sign in", message ? h("p", { class: "notice", role: "alert" }, message) : null, form);
}

export function misconfiguredScreen(detail) {
  session.clear();
  screen(
    "The server cannot sign anyone in",
    h(
      "div",
      { class: "card", role: "alert" },
      h("p", {}, "Authentication is on, but the server has no ", h("code", {}, "JWT_SECRET"), ": every sign-in and registration answers 500."),
      detail ? h("p", { class: "muted" }, `The server said: ${detail}`) : null,
      h("h2", {}, "How to fix it"),
      h("ol", {},
        h("li", {}, "Generate a long random secret, for example: ", h("code", {}, "python -c 'import secrets; print(secrets.token_urlsafe(48))'")),
        h("li", {}, "Start the server with it in the environment: ", h("code", {}, "JWT_SECRET=<that value> memorist serve")),
        h("li", {}, "Reload this page."),
      ),
      h("p", { class: "muted" }, "memorist serve makes one in its data directory on first start; a server started another way (e.g. gunicorn on memorist.wsgi) needs JWT_SECRET set."),
      h("p", { class: "muted" }, "For a private test machine only, AUTH_DISABLED=true turns authentication off instead."),
    ),
  );
}

export function accountScreen() {
  const content = [];
  if (state.authDisabled || !state.me) {
    screen("Account", h("p", {}, "Authentication is disabled on this server: there is no account to manage."));
    return;
  }
  const name = h("input", { name: "name", value: state.me.name || "", autocomplete: "name" });
  const email = h("input", { name: "email", type: "email", value: state.me.email, autocomplete: "username" });
  const profile = h("form", { class: "card", "aria-label": "Profile" }, h("h2", {}, "Profile"), field("Name", name), field("Email", email), h("button", { type: "submit" }, "Save profile"));
  profile.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(profile, async () => {
      try {
        state.me = await patch("/auth/me", { name: name.value, email: email.value });
        document.getElementById("who").textContent = `${state.me.email} (${state.me.role})`;
        announce("Profile saved.");
      } catch (error) {
        formError(profile, error);
      }
    });
  });
  const current = h("input", { name: "current_password", type: "password", autocomplete: "current-password", required: true });
  const next = h("input", { name: "new_password", type: "password", autocomplete: "new-password", minlength: 8, required: true });
  const pw = h(
    "form",
    { class: "card", "aria-label": "Change password" },
    h("h2", {}, "Change password"),
    field("Current password", current),
    field("New password", next, "At least 8 characters. Other sessions are signed out."),
    h("button", { type: "submit" }, "Change password"),
  );
  pw.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(pw, async () => {
      try {
        const result = await post("/auth/change-password", { current_password: current.value, new_password: next.value });
        // The server revoked every refresh token of this account, including ours: sign in afresh.
        await signOut(`${result.message}. Sign in with the new password.`, { revoke: false });
      } catch (error) {
        formError(pw, error);
      }
    });
  });
  content.push(profile, pw);
  screen("Account", h("div", { class: "grid2" }, content));
}
