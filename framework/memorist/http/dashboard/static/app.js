// The shell: theme, who is signed in, and the hash router that picks a screen.
import { api, get, session, renewOnce } from "./api.js";
import { accountScreen, misconfiguredScreen, setupScreen, signInScreen } from "./auth.js";
import { configScreen } from "./config.js";
import { entitiesScreen } from "./entities.js";
import { keysScreen } from "./keys.js";
import { memoriesScreen } from "./memories.js";
import { memoryScreen } from "./memory.js";
import { requestsScreen } from "./requests.js";
import { isAdmin, state } from "./state.js";
import { announce, h, screen } from "./ui.js";
import { usersScreen } from "./users.js";

const SCREENS = {
  memories: memoriesScreen,
  entities: entitiesScreen,
  keys: keysScreen,
  requests: requestsScreen,
  config: configScreen,
  users: usersScreen,
  account: accountScreen,
  memory: memoryScreen,
};
const ADMIN_ONLY = new Set(["config", "users"]);

// -- theme: the system's preference until the toggle says otherwise (kept in localStorage) --
const THEME_KEY = "memorist.theme";
function applyTheme() {
  const chosen = localStorage.getItem(THEME_KEY);
  const dark = chosen ? chosen === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  const button = document.getElementById("theme");
  button.setAttribute("aria-pressed", String(dark));
  button.textContent = dark ? "Light mode" : "Dark mode";
}
document.getElementById("theme").addEventListener("click", () => {
  const dark = document.documentElement.dataset.theme === "dark";
  localStorage.setItem(THEME_KEY, dark ? "light" : "dark");
  applyTheme();
});
matchMedia("(prefers-color-scheme: dark)").addEventListener("change", applyTheme);
applyTheme();

// -- session --
function showChrome(signedIn) {
  document.getElementById("nav").hidden = !signedIn;
  document.getElementById("signout").hidden = !signedIn || state.authDisabled;
  const who = document.getElementById("who");
  who.textContent = state.me ? `${state.me.email} (${state.me.role})` : state.authDisabled ? "auth disabled" : "";
  const admin = state.authDisabled || (state.me && state.me.role === "admin");
  document.querySelectorAll("[data-admin]").forEach((el) => { el.hidden = !admin; });
}

export async function signedIn(tokens) {
  session.store(tokens);
  state.me = await get("/auth/me");
  showChrome(true);
  if (!location.hash || location.hash === "#/" || location.hash.startsWith("#/signin")) location.hash = "#/memories";
  else route();
}

export async function signOut(message, { revoke = true } = {}) {
  if (revoke && session.active) {
    // End this login on the server too (POST /auth/logout revokes its refresh token), then forget it here.
    try {
      await api("POST", "/auth/logout", {});
    } catch {
      // Already signed out server-side (expired or revoked): nothing left to revoke.
    }
  }
  session.clear();
  state.me = null;
  showChrome(false);
  signInScreen(message);
}

// The skip link moves the focus without touching the hash (the hash is the router's).
document.querySelector(".skip").addEventListener("click", (event) => {
  event.preventDefault();
  document.getElementById("main").focus();
});
document.getElementById("signout").addEventListener("click", () => signOut("You are signed out."));
window.addEventListener("memorist:session-expired", (event) => {
  signOut(`Your session expired (${event.detail || "token expired"}); sign in again.`, { revoke: false });
});

// Screens load their data before they paint, so two routes in flight could paint out of order: a
// link clicked while the first screen was still loading would be painted over by it when its data
// arrived. Routes therefore run one at a time, in order, and a route superseded while it waited
// for its turn is skipped: the screen shown is always the one the address names.
let routeSeq = 0;
let routing = Promise.resolve();
function route() {
  const seq = ++routeSeq;
  const run = routing.then(() => (seq === routeSeq ? paintRoute() : undefined));
  routing = run.catch(() => {});
  return run;
}

async function paintRoute() {
  const [first, ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  const name = (first || "memories").toLowerCase();
  const arg = rest.length ? decodeURIComponent(rest.join("/")) : undefined;
  if (!state.me && !state.authDisabled) return;
  document.querySelectorAll("#nav a").forEach((a) => {
    if (a.getAttribute("href") === `#/${name === "memory" ? "memories" : name}`) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
  const show = SCREENS[name];
  if (!show) {
    screen("Not found", h("p", {}, `No screen called “${name}”. `, h("a", { href: "#/memories" }, "Go to memories")));
    return;
  }
  if (ADMIN_ONLY.has(name) && !isAdmin()) {
    screen("Admins only", h("p", {}, "This screen is for admin accounts."));
    return;
  }
  try {
    await show(arg);
  } catch (error) {
    if (error && error.status === 401) return; // the session-expired handler has taken over
    announce(error.detail || String(error), "error");
    throw error;
  }
}
window.addEventListener("hashchange", route);

async function boot() {
  let status;
  try {
    status = await get("/auth/setup-status");
  } catch (error) {
    screen("Cannot reach the server", h("p", { class: "error", role: "alert" }, String(error.detail || error)));
    return;
  }
  state.status = status;
  state.authDisabled = Boolean(status.authDisabled);
  if (state.authDisabled) {
    showChrome(true);
    route();
    return;
  }
  if (status.jwtConfigured === false) {
    misconfiguredScreen();
    return;
  }
  if (status.needsSetup) {
    session.clear();
    setupScreen();
    return;
  }
  if (session.active || session.refresh) {
    try {
      if (!session.active) await renewOnce();
      state.me = await api("GET", "/auth/me");
      showChrome(true);
      route();
      return;
    } catch (error) {
      if (error.status === 500) return misconfiguredScreen(error.detail);
      session.clear();
    }
  }
  signInScreen();
}

boot();
