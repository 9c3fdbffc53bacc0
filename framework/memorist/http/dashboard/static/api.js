// The only way the dashboard talks to the server: the public REST routes, with a Bearer JWT.
// The token pair lives in sessionStorage (gone when the tab closes); an expired access token is
// renewed once through POST /auth/refresh (rotation: the server hands out a new refresh token
// each time and the old one stops working), and a failed renewal ends the session.

const ACCESS = "memorist.access";
const REFRESH = "memorist.refresh";

export class ApiError extends Error {
  constructor(status, detail, body) {
    super(detail);
    this.status = status;
    this.detail = detail;
    this.body = body;
  }
}

export const session = {
  get access() { return sessionStorage.getItem(ACCESS); },
  get refresh() { return sessionStorage.getItem(REFRESH); },
  store(tokens) {
    sessionStorage.setItem(ACCESS, tokens.access_token);
    sessionStorage.setItem(REFRESH, tokens.refresh_token);
  },
  /** Forget the tokens and everything else this tab remembered for the session (e.g. the chosen scope). */
  clear() {
    for (const key of Object.keys(sessionStorage)) {
      if (key.startsWith("memorist.")) sessionStorage.removeItem(key);
    }
  },
  get active() { return Boolean(this.access); },
};

let refreshing = null;

async function send(method, path, body, token) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const resp = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
  const text = await resp.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = { detail: text }; }
  }
  return { resp, data };
}

function errorOf(resp, data) {
  const detail = (data && (data.detail || data.message)) || `${resp.status} ${resp.statusText}`;
  return new ApiError(resp.status, detail, data);
}

async function renew() {
  const refresh = session.refresh;
  if (!refresh) return false;
  const { resp, data } = await send("POST", "/auth/refresh", { refresh_token: refresh });
  if (!resp.ok) {
    session.clear();
    return false;
  }
  session.store(data);
  return true;
}

/** Renew the session once even when several requests find their token expired at the same time. */
export function renewOnce() {
  if (!refreshing) refreshing = renew().finally(() => { refreshing = null; });
  return refreshing;
}

/** Call a route; answers the parsed JSON or throws ApiError with the server's own words. */
export async function api(method, path, body) {
  const token = session.access;
  let { resp, data } = await send(method, path, body, token);
  // Renew on a 401 from an authenticated route; the /auth/* forms answer 401 for a wrong password too.
  const renewable = !path.startsWith("/auth/") || path === "/auth/me";
  if (resp.status === 401 && token && renewable) {
    if (await renewOnce()) {
      ({ resp, data } = await send(method, path, body, session.access));
    } else {
      window.dispatchEvent(new CustomEvent("memorist:session-expired", { detail: data && data.detail }));
    }
  }
  if (!resp.ok) throw errorOf(resp, data);
  return data;
}

export const get = (path) => api("GET", path);
export const post = (path, body) => api("POST", path, body ?? {});
export const put = (path, body) => api("PUT", path, body);
export const patch = (path, body) => api("PATCH", path, body);
export const del = (path) => api("DELETE", path);

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}
