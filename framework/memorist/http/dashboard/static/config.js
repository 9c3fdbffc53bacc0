// Configuration (admin): running providers and options (secrets arrive redacted), installed
// providers, health, and changes through POST /configure with the server's errors beside the field.
import { get, post } from "./api.js";
import { announce, busy, errorBox, field, h, screen } from "./ui.js";

const SLOTS = [
  ["language_model", "Language model"],
  ["embedder", "Embedder"],
  ["vector_store", "Vector store"],
  ["reranker", "Reranker"],
  ["entity_extractor", "Entity extractor"],
];

const REDACTED = "**********";

/** The options without values still redacted: a key left out keeps its stored value (the server deep-merges). */
export function withoutRedacted(value) {
  if (Array.isArray(value)) return value.map(withoutRedacted);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== REDACTED).map(([k, v]) => [k, withoutRedacted(v)]));
  }
  return value;
}

/** The field an error such as "reranker.options.bogus: unknown option" is about (longest matching path). */
export function fieldFor(form, message) {
  const token = String(message).split(/[:\s]/)[0];
  let best = null;
  for (const el of form.querySelectorAll("[data-path]")) {
    const path = el.dataset.path;
    if ((token === path || token.startsWith(`${path}.`)) && (!best || path.length > best.dataset.path.length)) best = el;
  }
  return best;
}

function showErrors(form, error) {
  form.querySelectorAll(".field-error, .error").forEach((e) => e.remove());
  form.querySelectorAll("[aria-invalid]").forEach((e) => { e.removeAttribute("aria-invalid"); });
  const messages = error.body && Array.isArray(error.body.errors) && error.body.errors.length ? error.body.errors : [error.detail];
  let first = null;
  for (const message of messages) {
    const target = fieldFor(form, message);
    const text = typeof message === "string" ? message : JSON.stringify(message);
    if (!target) { form.prepend(errorBox(text)); continue; }
    const id = `${target.id}-error`;
    target.setAttribute("aria-invalid", "true");
    target.setAttribute("aria-errormessage", id);
    target.closest(".field").append(h("p", { class: "field-error", id, role: "alert" }, text));
    first = first || target;
  }
  if (first) first.focus();
}

function engineInput(key, value) {
  const path = `engine.${key}`;
  const id = `cfg-${path.replace(/\./g, "-")}`;
  if (typeof value === "boolean") {
    return h("div", { class: "field" }, h("label", { class: "check" }, h("input", { type: "checkbox", id, checked: value, dataset: { path, original: String(value) } }), ` ${key}`));
  }
  const input = h("input", { id, type: typeof value === "number" ? "number" : "text", step: "any", value: value ?? "", dataset: { path, original: String(value ?? "") } });
  return field(key, input);
}

function readEngine(form) {
  const patch = {};
  for (const el of form.querySelectorAll("[data-path^='engine.']")) {
    const key = el.dataset.path.slice("engine.".length);
    const now = el.type === "checkbox" ? String(el.checked) : el.value;
    if (now === el.dataset.original) continue;
    patch[key] = el.type === "checkbox" ? el.checked : el.type === "number" && now !== "" ? Number(now) : now;
  }
  return patch;
}

export async function configScreen() {
  const [config, installed, health] = await Promise.all([get("/configure"), get("/configure/providers"), get("/health")]);
  const slots = SLOTS.map(([slot, label]) => {
    const current = config[slot] || { provider: "", options: {} };
    const names = installed[slot] || [];
    const select = h("select", { id: `cfg-${slot}-provider`, dataset: { path: `${slot}.provider`, original: current.provider } },
      [...new Set([current.provider, ...names])].filter(Boolean).map((n) => h("option", { value: n, selected: n === current.provider }, n)));
    const options = h("textarea", { id: `cfg-${slot}-options`, rows: 3, class: "mono", dataset: { path: `${slot}.options`, original: JSON.stringify(current.options || {}) } },
      JSON.stringify(current.options || {}, null, 1));
    return h("fieldset", { class: "slot" }, h("legend", {}, label),
      field("Provider", select, `Installed: ${names.join(", ") || "none"}`),
      field("Options (JSON)", options, "Redacted secrets (**********) are kept unless you replace them."));
  });
  const engine = h("fieldset", { class: "slot" }, h("legend", {}, "Engine"),
    h("div", { class: "grid3" }, Object.entries(config.engine || {}).map(([k, v]) => engineInput(k, v))));
  const form = h("form", { class: "card", "aria-label": "Change configuration", novalidate: true },
    h("div", { class: "grid2" }, slots), engine,
    h("div", { class: "row" }, h("button", { type: "submit" }, "Apply changes"), h("span", { class: "muted small" }, "Only changed fields are sent; the server validates them and swaps the engine without a restart.")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(form, async () => {
      const patch = {};
      try {
        for (const [slot] of SLOTS) {
          const select = form.querySelector(`#cfg-${slot}-provider`);
          const options = form.querySelector(`#cfg-${slot}-options`);
          const part = {};
          if (select.value !== select.dataset.original) part.provider = select.value;
          let parsed;
          try {
            parsed = JSON.parse(options.value || "{}");
          } catch {
            throw { detail: `${slot}.options: not valid JSON` };
          }
          if (JSON.stringify(parsed) !== options.dataset.original) part.options = withoutRedacted(parsed);
          if (Object.keys(part).length) patch[slot] = part;
        }
      } catch (error) {
        showErrors(form, error);
        return;
      }
      const engineChanges = readEngine(form);
      if (Object.keys(engineChanges).length) patch.engine = engineChanges;
      if (!Object.keys(patch).length) { announce("Nothing changed."); return; }
      try {
        await post("/configure", patch);
        announce("Configuration applied.");
        await configScreen();
      } catch (error) {
        showErrors(form, error);
      }
    });
  });
  const components = health.components || {};
  screen(
    "Configuration",
    h("section", { class: "card", "aria-labelledby": "health-h" }, h("h2", { id: "health-h" }, "Health"),
      h("p", {}, h("span", { class: `tag ${health.status === "ok" ? "ok" : "warn"}` }, health.status), ` version ${health.version}`),
      h("dl", { class: "facts" }, Object.entries(components).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]))),
    form,
    Object.keys(config.overrides || {}).length
      ? h("details", { class: "card" }, h("summary", {}, "Runtime overrides in effect"), h("pre", {}, JSON.stringify(config.overrides, null, 2)))
      : null,
  );
}
