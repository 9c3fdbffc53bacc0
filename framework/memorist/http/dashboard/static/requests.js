// The request log: latest calls, filterable by status class and path, refreshing itself.
import { get, query } from "./api.js";
import { errorBox, field, h, screen, when } from "./ui.js";

const REFRESH_MS = 5000;
let timer = null;

export async function requestsScreen() {
  clearInterval(timer);
  const status = h("select", { name: "status" },
    [["", "Any status"], ["2", "2xx success"], ["3", "3xx redirect"], ["4", "4xx client error"], ["5", "5xx server error"]]
      .map(([v, t]) => h("option", { value: v }, t)));
  const path = h("input", { name: "path", type: "search", placeholder: "/memories", maxlength: 2048 });
  const limit = h("select", { name: "limit" }, [50, 100, 200, 500].map((n) => h("option", { value: n }, n)));
  const auto = h("input", { type: "checkbox", name: "auto", checked: true });
  const stamp = h("span", { class: "muted small", "aria-live": "off" });
  const table = h("div", {});
  const form = h("form", { class: "card", "aria-label": "Filter requests" },
    h("div", { class: "grid4" }, field("Status", status), field("Path contains", path), field("Latest", limit),
      h("label", { class: "check" }, auto, " Refresh every 5 s")), stamp);
  form.addEventListener("submit", (e) => e.preventDefault());

  async function load() {
    if (!document.body.contains(form)) { clearInterval(timer); return; }
    try {
      // The server filters before it takes the newest N: an old 401 is found however busy the log is.
      const rows = await get(`/requests${query({ limit: limit.value, status: status.value || undefined, path: path.value || undefined })}`);
      table.replaceChildren(h("table", { class: "card wide requests" },
        h("caption", {}, `${rows.length} requests, newest first`),
        h("thead", {}, h("tr", {}, ["Time", "Method", "Path", "Status", "Latency", "Auth", "Request id"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, rows.map((r) => h("tr", { class: `s${String(r.status_code)[0]}` },
          h("td", {}, when(r.created_at)), h("td", {}, r.method), h("td", { class: "mono" }, r.path),
          h("td", { class: "num" }, h("span", { class: `tag s${String(r.status_code)[0]}` }, r.status_code)),
          h("td", { class: "num" }, `${Number(r.latency_ms).toFixed(1)} ms`), h("td", {}, r.auth_type),
          h("td", { class: "mono small" }, r.request_id || ""))))));
      stamp.textContent = `Updated ${new Date().toLocaleTimeString()}`;
    } catch (error) {
      table.replaceChildren(errorBox(error));
    }
  }
  for (const control of [status, limit]) control.addEventListener("change", load);
  path.addEventListener("input", load);
  auto.addEventListener("change", () => {
    clearInterval(timer);
    if (auto.checked) timer = setInterval(load, REFRESH_MS);
  });
  screen("Request log", form, table);
  await load();
  timer = setInterval(load, REFRESH_MS);
}
