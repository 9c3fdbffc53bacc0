// Small DOM helpers: element building (text is always set as text, never parsed as HTML),
// announcements for screen readers, the confirmation dialog, and formatting.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace an element's children; unlike ``replaceChildren``, a null or false child is left out
 * (``replaceChildren(null)`` would show the word "null"). */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

const SVG = "http://www.w3.org/2000/svg";
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

/** Replace the main area with a screen: a heading (focused, so keyboard and screen reader users land on it) and content. */
export function screen(title, ...content) {
  const main = document.getElementById("main");
  const heading = h("h1", { tabindex: "-1" }, title);
  fill(main, heading, content);
  document.title = `${title} · Memorist`;
  heading.focus({ preventScroll: true });
  return main;
}

let statusTimer = null;
export function announce(message, kind = "ok") {
  const status = document.getElementById("status");
  status.textContent = message;
  status.dataset.kind = kind;
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => { status.textContent = ""; }, 6000);
}

/** An inline error box (role=alert) for a failed call; answers the element so a screen can place it. */
export function errorBox(error) {
  return h("p", { class: "error", role: "alert" }, error && error.detail ? error.detail : String(error));
}

export function confirmDialog(text, action = "Delete") {
  const dialog = document.getElementById("confirm");
  document.getElementById("confirm-text").textContent = text;
  document.getElementById("confirm-ok").textContent = action;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.returnValue = "cancel";
    dialog.showModal();
  });
}

export function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function field(label, input, hint) {
  const id = input.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  const parts = [h("label", { for: id }, label), input];
  if (hint) {
    const hintId = `${id}-hint`;
    input.setAttribute("aria-describedby", hintId);
    parts.push(h("small", { id: hintId, class: "muted" }, hint));
  }
  return h("div", { class: "field" }, parts);
}

/** Disable a form's submit button while ``work`` runs, so a double click never posts twice. */
export async function busy(form, work) {
  const buttons = form.querySelectorAll("button");
  buttons.forEach((b) => { b.disabled = true; });
  form.setAttribute("aria-busy", "true");
  try {
    return await work();
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
    form.removeAttribute("aria-busy");
  }
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
